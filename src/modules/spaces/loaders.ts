import type { PrismaClient } from '../../generated/prisma/client.js';
import { batched, byId } from '../../loaders.js';

export interface SpaceCounts {
  comments: number;
  changeRequests: number;
  changeRequestsOpen: number;
  changeRequestsDraft: number;
}

const NO_COUNTS: SpaceCounts = { comments: 0, changeRequests: 0, changeRequestsOpen: 0, changeRequestsDraft: 0 };

export function spaceLoaders(prisma: PrismaClient) {
  return {
    space: byId((ids) => prisma.space.findMany({ where: { id: { in: ids } } })),
    /** Counts of a batch of spaces in two grouped queries, however many spaces. */
    spaceCounts: batched<string, SpaceCounts>(async (spaceIds) => {
      const [comments, changeRequests] = await Promise.all([
        prisma.comment.groupBy({ by: ['spaceId'], where: { spaceId: { in: spaceIds }, status: 'open' }, _count: { _all: true } }),
        prisma.changeRequest.groupBy({ by: ['spaceId', 'status'], where: { spaceId: { in: spaceIds } }, _count: { _all: true } }),
      ]);
      const map = new Map<string, SpaceCounts>(spaceIds.map((id) => [id, { ...NO_COUNTS }]));
      for (const row of comments) map.get(row.spaceId)!.comments = row._count._all;
      for (const row of changeRequests) {
        const counts = map.get(row.spaceId)!;
        counts.changeRequests += row._count._all;
        if (row.status === 'open') counts.changeRequestsOpen += row._count._all;
        if (row.status === 'draft') counts.changeRequestsDraft += row._count._all;
      }
      return map;
    }, NO_COUNTS),
  };
}
