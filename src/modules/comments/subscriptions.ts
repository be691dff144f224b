/**
 * Live updates of comments (GraphQL subscriptions over SSE, src/live/): a space's own comments, or
 * a change request's, as `listComments` scopes them. Rights are checked when subscribing with the
 * list's own check (`scopeOf` … 'read') and again before each event; an event carries ids and the
 * comment is read as it is when delivered (null once deleted).
 */
import { builder } from '../../graphql/builder.js';
import { LecternError } from '../../errors.js';
import type { LiveEvent } from '../../live/events.js';
import { delivered, liveSubscription, type Delivery } from '../../live/listener.js';
import { CommentReplyType, CommentType } from './comment.js';
import { commentTopic, getComment, replyOf, scopeOf, type CommentAction } from './service.js';

const COMMENT_ACTIONS = [
  'created',
  'updated',
  'deleted',
  'reply_created',
  'reply_updated',
  'reply_deleted',
] as const satisfies readonly CommentAction[];
const CommentActionEnum = builder.enumType('CommentAction', {
  description:
    'What happened in a comment thread: the comment `created`, `updated` (body, resolved, reactions) or `deleted`; a reply created, updated or deleted',
  values: COMMENT_ACTIONS,
});

/** Null when it is gone (deleted since): the event still says what happened. */
const unlessGone = <T>(read: Promise<T>): Promise<T | null> =>
  read.catch((error) => (error instanceof LecternError && error.code === 'NOT_FOUND' ? null : Promise.reject(error)));

const CommentEvent = builder.objectRef<LiveEvent>('CommentEvent').implement({
  fields: (t) => ({
    action: t.field({ type: CommentActionEnum, resolve: (e) => e.action as CommentAction }),
    commentId: t.id({ resolve: (e) => e.commentId! }),
    replyId: t.id({ nullable: true, resolve: (e) => e.replyId ?? null }),
    changeRequestId: t.id({
      nullable: true,
      description: 'The change request the comment is on (null: the space itself)',
      resolve: (e) => e.changeRequestId ?? null,
    }),
    comment: t.field({
      type: CommentType,
      nullable: true,
      description: 'The comment as it is now (null once deleted)',
      resolve: (e, _a, ctx) => unlessGone(getComment(ctx, e.spaceId!, e.changeRequestId ?? null, e.commentId!)),
    }),
    reply: t.field({
      type: CommentReplyType,
      nullable: true,
      description: 'The reply as it is now, for reply events (null once deleted)',
      resolve: async (e, _a, ctx) => {
        if (!e.replyId) return null;
        const comment = await unlessGone(getComment(ctx, e.spaceId!, e.changeRequestId ?? null, e.commentId!));
        return comment && replyOf(ctx, comment, e.replyId).catch(() => null);
      },
    }),
  }),
});

builder.subscriptionField('commentEvents', (t) =>
  t.field({
    type: CommentEvent,
    description:
      "Comments created, updated or deleted (and their replies): the space's own comments, or with `changeRequestId` a change request's",
    args: { spaceId: t.arg.id({ required: true }), changeRequestId: t.arg.id() },
    subscribe: async (_root, args, ctx) => {
      const scope = await scopeOf(ctx, String(args.spaceId), args.changeRequestId == null ? null : String(args.changeRequestId), 'read');
      const spaceId = scope.space.id;
      const changeRequestId = scope.changeRequest?.id ?? null;
      return liveSubscription(ctx, commentTopic(spaceId), async (event) => {
        await scopeOf(ctx, spaceId, changeRequestId, 'read');
        return (event.changeRequestId ?? null) === changeRequestId;
      });
    },
    resolve: (delivery: Delivery) => delivered(delivery),
  }),
);
