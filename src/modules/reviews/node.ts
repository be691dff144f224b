import DataLoader from 'dataloader';
import type { Context } from '../../context.js';
import { notFound } from '../../errors.js';
import type { ChangeRequestReview } from '../../generated/prisma/client.js';
import { registerNode } from '../../graphql/node.js';
import { groupBy, perRequest } from '../../loaders.js';
import { changeRequestById, readableChangeRequest, reviewerOf, reviewId } from '../change-requests/index.js';
import { reviewLoaders } from './loaders.js';
import { ChangeRequestReviewType, RequestedReviewerType } from './review.js';

/**
 * Global ids of a change request's reviews and requested reviewers.
 *
 * - A review: `ChangeRequestReview:<spaceId>:<changeRequestId>:<reviewId>`, the arguments of
 *   `space(id:) { changeRequest(id:) { review(id:) } }`; refused as that path refuses.
 * - A requested reviewer has no direct field of its own (only `requestedReviewerList`), so it is
 *   named by its change request and user (`ChangeRequestRequestedReviewer:<changeRequestId>:<userId>`,
 *   the row's own key) and answered when the change request is (`read` on its space).
 * Rows are read per change request through per-request loaders (a change request has at most one
 * review and one request per reviewer): a constant number of statements for `nodes(ids:)`.
 */
const reviews = perRequest(
  (ctx: Context) =>
    new DataLoader<string, ChangeRequestReview[]>(async (crIds) => {
      const byCr = groupBy(
        await ctx.prisma.changeRequestReview.findMany({ where: { changeRequestId: { in: [...crIds] } } }),
        (r) => r.changeRequestId,
      );
      return crIds.map((id) => byCr.get(id) ?? []);
    }),
);

registerNode(ChangeRequestReviewType, {
  args: ['spaceId', 'changeRequestId', 'id'],
  keys: ({ review, changeRequest }) => [changeRequest.spaceId, changeRequest.id, reviewId(review.changeRequestId, review.userId)],
  load: async (ctx, [spaceId, changeRequestId, id]) => {
    const changeRequest = await changeRequestById(ctx, spaceId!, changeRequestId!);
    const userId = reviewerOf(changeRequest.id, id!);
    const review = userId ? (await reviews(ctx).load(changeRequest.id)).find((r) => r.userId === userId) : undefined;
    if (!review) throw notFound('Change request review');
    return { review, changeRequest };
  },
});

registerNode(RequestedReviewerType, {
  args: ['changeRequestId', 'userId'],
  keys: (r) => [r.changeRequestId, r.userId],
  load: async (ctx, [changeRequestId, userId]) => {
    const changeRequest = await readableChangeRequest(ctx, changeRequestId!);
    return (await reviewLoaders(ctx).requests.load(changeRequest.id)).find((r) => r.userId === userId) ?? null;
  },
});
