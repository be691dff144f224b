import type { Context } from '../../context.js';
import { batched, perRequest } from '../../loaders.js';

/** Per-request loaders of the change-requests module. */
export const changeRequestLoaders = perRequest((ctx: Context) => ({
  /** Open comments per change request: one grouped query for a whole list. */
  openComments: batched<string, number>(async (ids) => {
    const rows = await ctx.prisma.comment.groupBy({ by: ['changeRequestId'], where: { changeRequestId: { in: ids }, status: 'open' }, _count: { _all: true } });
    return new Map(rows.map((r) => [r.changeRequestId!, r._count._all]));
  }, 0),
}));
