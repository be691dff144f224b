import type { Context } from '../../context.js';
import type { ChangeRequest } from '../../generated/prisma/client.js';
import { batched, byId, perRequest } from '../../loaders.js';

/** Per-request loaders of the change-requests module. */
export const changeRequestLoaders = perRequest((ctx: Context) => ({
  /** Change requests by id (`node(id:)`/`nodes(ids:)`): one statement for any number of them. */
  changeRequest: byId<ChangeRequest>((ids) => ctx.prisma.changeRequest.findMany({ where: { id: { in: ids } } })),
  /** Open comments per change request: one grouped query for a whole list. */
  openComments: batched<string, number>(async (ids) => {
    const rows = await ctx.prisma.comment.groupBy({
      by: ['changeRequestId'],
      where: { changeRequestId: { in: ids }, status: 'open' },
      _count: { _all: true },
    });
    return new Map(rows.map((r) => [r.changeRequestId!, r._count._all]));
  }, 0),
}));
