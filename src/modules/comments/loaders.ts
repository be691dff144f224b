import DataLoader from 'dataloader';
import type { Context } from '../../context.js';
import { spaceRole } from '../../auth/permissions.js';
import type { RoleName } from '../../auth/roles.js';
import type { Comment, CommentReaction, CommentReplyReaction } from '../../generated/prisma/client.js';
import { byId, groupBy, perRequest } from '../../loaders.js';
import { accessRows } from '../../auth/access-rows.js';

/** One user's replies in a thread: how many, and when they last replied or edited a reply. */
export interface Replier {
  userId: string;
  count: number;
  updatedAt: Date;
}

/**
 * Per-request loaders of what a page of comments shows: reactions, reply counts and repliers, the
 * parent comment of replies, and the caller's role on each space. Each is one statement per page,
 * whatever the number of comments. Writers clear the keys they change (see service.ts).
 */
export const commentLoaders = perRequest((ctx: Context) => ({
  comment: byId<Comment>((ids) => ctx.prisma.comment.findMany({ where: { id: { in: ids } } })),
  reactions: new DataLoader<string, CommentReaction[]>(async (ids) => {
    const rows = await ctx.prisma.commentReaction.findMany({
      where: { commentId: { in: [...ids] } },
      orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }],
    });
    const byComment = groupBy(rows, (r) => r.commentId);
    return ids.map((id) => byComment.get(id) ?? []);
  }),
  replyReactions: new DataLoader<string, CommentReplyReaction[]>(async (ids) => {
    const rows = await ctx.prisma.commentReplyReaction.findMany({
      where: { replyId: { in: [...ids] } },
      orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }],
    });
    const byReply = groupBy(rows, (r) => r.replyId);
    return ids.map((id) => byReply.get(id) ?? []);
  }),
  repliers: new DataLoader<string, Replier[]>(async (ids) => {
    const rows = await ctx.prisma.commentReply.groupBy({
      by: ['commentId', 'postedById'],
      where: { commentId: { in: [...ids] } },
      _count: { _all: true },
      _max: { createdAt: true, editedAt: true },
    });
    const byComment = groupBy(rows, (r) => r.commentId);
    return ids.map((id) =>
      (byComment.get(id) ?? [])
        .map((r) => {
          const posted = r._max.createdAt!;
          const edited = r._max.editedAt;
          return { userId: r.postedById, count: r._count._all, updatedAt: edited && edited > posted ? edited : posted };
        })
        // Most recent first; the user id keeps ties stable.
        .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || (a.userId < b.userId ? -1 : 1)),
    );
  }),
  /** The caller's role on a space (null when none), for the `permissions` of its comments. */
  role: new DataLoader<string, RoleName | null>((spaceIds) =>
    Promise.all(
      spaceIds.map(async (id) => {
        const space = await accessRows(ctx).space.load(id);
        return space ? spaceRole(ctx, space) : null;
      }),
    ),
  ),
}));
