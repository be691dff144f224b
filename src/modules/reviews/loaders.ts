import DataLoader from 'dataloader';
import type { Context } from '../../context.js';
import type { Comment, RequestedReviewer } from '../../generated/prisma/client.js';
import { byId, groupBy, perRequest } from '../../loaders.js';

/** Per-request loaders of the reviews module: one statement per list, whatever its length. */
export const reviewLoaders = perRequest((ctx: Context) => ({
  /** A change request's review requests (a review's `outdated` and `requestedBy` read them). */
  requests: new DataLoader<string, RequestedReviewer[]>(async (crIds) => {
    const rows = await ctx.prisma.requestedReviewer.findMany({ where: { changeRequestId: { in: [...crIds] } } });
    const byCr = groupBy(rows, (r) => r.changeRequestId);
    return crIds.map((id) => byCr.get(id) ?? []);
  }),
  /** Review comments by id. */
  comment: byId<Comment>((ids) => ctx.prisma.comment.findMany({ where: { id: { in: ids } } })),
}));
