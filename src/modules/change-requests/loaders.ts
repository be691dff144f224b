import type { PrismaClient } from '../../generated/prisma/client.js';
import { batched } from '../../loaders.js';

export function changeRequestLoaders(prisma: PrismaClient) {
  return {
    /** Open comments per change request: one grouped query for a whole list. */
    changeRequestOpenComments: batched<string, number>(async (ids) => {
      const rows = await prisma.comment.groupBy({ by: ['changeRequestId'], where: { changeRequestId: { in: ids }, status: 'open' }, _count: { _all: true } });
      return new Map(rows.map((r) => [r.changeRequestId!, r._count._all]));
    }, 0),
  };
}
