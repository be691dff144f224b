import type { Context } from '../../context.js';
import type { ChangeRequest, Comment, Prisma } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { batched, perRequest } from '../../loaders.js';
import { reviewId } from '../change-requests/index.js';
import { markdownOf, type BodyInput } from './service.js';

/**
 * A review's comment (submitChangeRequestReview's `comment`) is a comment of the change request,
 * posted by the reviewer: it shows in the change request's comments, can be replied to, and its
 * `target.review` names the review. The reviews module writes it in the review's transaction.
 */

/**
 * The Markdown of a review comment (an official `Document`: `{ markdown }`, `{ document }`, or `{}`
 * for none), checked like any comment body; null when there is none.
 */
export function reviewCommentMarkdown(field: string, body: BodyInput | null | undefined): string | null {
  if (body == null || (body.markdown == null && body.document == null)) return null;
  return markdownOf(field, body);
}

/** Posts the review comment on the change request's head, in the caller's transaction `tx`. */
export function postReviewComment(tx: Prisma.TransactionClient, ctx: Context, cr: ChangeRequest, markdown: string): Promise<Comment> {
  return tx.comment.create({
    data: {
      id: newId(),
      spaceId: cr.spaceId,
      changeRequestId: cr.id,
      status: 'open',
      postedById: ctx.caller.id,
      markdown,
      revisionId: cr.revisionId,
    },
  });
}

/** The id of the review each comment was submitted with (`target.review`): one statement for a page of comments. */
export const reviewOfComment = perRequest((ctx: Context) =>
  batched<string, string | null>(async (commentIds) => {
    const rows = await ctx.prisma.changeRequestReview.findMany({
      where: { commentId: { in: commentIds } },
      select: { changeRequestId: true, userId: true, commentId: true },
    });
    return new Map(rows.map((r) => [r.commentId!, reviewId(r.changeRequestId, r.userId)]));
  }, null),
);
