import type { Context } from '../../context.js';
import { requireSpace } from '../../auth/permissions.js';
import { notFound } from '../../errors.js';
import type { Comment, CommentReply } from '../../generated/prisma/client.js';
import { registerNode } from '../../graphql/node.js';
import { byId, perRequest } from '../../loaders.js';
import { changeRequestById } from '../change-requests/index.js';
import { CommentReplyType, CommentType } from './comment.js';
import { commentLoaders } from './loaders.js';

/**
 * Global ids of comments and replies (Relay `node(id:)`).
 *
 * Decision: a comment is named by its space and its id (`Comment:<spaceId>:<commentId>`), a reply by
 * its comment and its own id. A comment never moves, so that is stable; the change request it belongs
 * to (if any) is read from the row rather than spelled in the id. Refusals are those of the direct
 * fields, `space(id:) { comment(id:) }` and `space(id:) { changeRequest(id:) { comment(id:) } }`
 * (getComment: the change request, then the space with `read`, then the comment in that place): a
 * space the caller cannot read refuses, whether the comment exists or not. Rows come through
 * per-request loaders, so `nodes(ids:)` of N comments or replies costs a constant number of statements.
 */
const replies = perRequest((ctx: Context) => byId<CommentReply>((ids) => ctx.prisma.commentReply.findMany({ where: { id: { in: ids } } })));

async function commentInSpace(ctx: Context, spaceId: string, commentId: string): Promise<Comment> {
  const [comment] = await Promise.all([commentLoaders(ctx).comment.load(commentId), requireSpace(ctx, spaceId)]);
  if (!comment || comment.spaceId !== spaceId) throw notFound('Comment');
  // A change request's comment is reached through it (getComment reads the change request first).
  if (comment.changeRequestId) await changeRequestById(ctx, spaceId, comment.changeRequestId);
  return comment;
}

registerNode(CommentType, {
  args: ['spaceId', 'commentId'],
  keys: (c) => [c.spaceId, c.id],
  load: (ctx, [spaceId, commentId]) => commentInSpace(ctx, spaceId!, commentId!),
});

// A reply row does not hold its space: a reply is named by its comment and its id, and the space
// is the comment's (an unknown comment and an unreadable space both answer null, so nothing leaks).
registerNode(CommentReplyType, {
  args: ['commentId', 'replyId'],
  keys: (r) => [r.commentId, r.id],
  load: async (ctx, [commentId, replyId]) => {
    const [found, reply] = await Promise.all([commentLoaders(ctx).comment.load(commentId!), replies(ctx).load(replyId!)]);
    if (!found) throw notFound('Comment');
    const comment = await commentInSpace(ctx, found.spaceId, found.id);
    if (!reply || reply.commentId !== comment.id) throw notFound('Comment reply');
    return reply;
  },
});
