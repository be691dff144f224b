import { FREE_DOC } from '../../graphql/free-form.js';
import type { ArgBuilder, SchemaTypes } from '@pothos/core';
import { builder, type Model } from '../../graphql/builder.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { commentPermissions } from '../../auth/permissions.js';
import type { Context } from '../../context.js';
import type { Comment } from '../../generated/prisma/client.js';
import { UserType, userLoaders } from '../users/index.js';
import { SpaceType } from '../spaces/index.js';
import { ChangeRequestType } from '../change-requests/index.js';
import { FormatEnum } from '../content/index.js';
import { documentFromMarkdown } from '../../document/index.js';
import { commentLoaders } from './loaders.js';
import { reviewOfComment } from './review-comment.js';
import {
  COMMENT_STATUSES,
  deleteComment,
  deleteReply,
  getComment,
  listComments,
  listRepliesOf,
  postComment,
  postReply,
  replyOf,
  updateComment,
  updateReply,
} from './service.js';

const CommentStatusEnum = builder.enumType('CommentStatus', { values: COMMENT_STATUSES });
const CommentStatusFilterEnum = builder.enumType('CommentStatusFilter', {
  description: 'Which comments a list shows: all (default), open or resolved ones',
  values: ['all', ...COMMENT_STATUSES] as const,
});
const CommentListOrderEnum = builder.enumType('CommentListOrder', {
  description: 'By posting time: desc (newest first, default) or asc',
  values: ['asc', 'desc'] as const,
});

async function userOf(ctx: Context, id: string) {
  const user = await userLoaders(ctx).user.load(id);
  // Users are never deleted, so an author always exists.
  if (!user) throw new Error(`user ${id} of a comment not found`);
  return user;
}

// ---------------------------------------------------------------------------------------------
// Shared parts of comments and replies

interface Reaction {
  emoji: string;
  users: { userId: string; reactedAt: Date }[];
}

/** Reactions grouped by emoji, in the order each emoji was first used; users in the order they reacted. */
function groupReactions(rows: { emoji: string; userId: string; createdAt: Date }[]): Reaction[] {
  const byEmoji = new Map<string, Reaction>();
  for (const row of rows) {
    let reaction = byEmoji.get(row.emoji);
    if (!reaction) byEmoji.set(row.emoji, (reaction = { emoji: row.emoji, users: [] }));
    reaction.users.push({ userId: row.userId, reactedAt: row.createdAt });
  }
  return [...byEmoji.values()];
}

// Lists inside a comment (reactions, their users, repliers) are loaded for a whole page of comments
// in one statement each: they cost like single fields, not like pages.
const BATCHED_LIST = { field: 1, multiplier: 1 };

const EmojiReactionUser = builder.objectRef<{ userId: string; reactedAt: Date }>('EmojiReactionUser').implement({
  fields: (t) => ({
    user: t.field({ type: UserType, resolve: (r, _a, ctx) => userOf(ctx, r.userId) }),
    reactedAt: t.field({ type: 'DateTime', resolve: (r) => r.reactedAt }),
  }),
});

const EmojiReaction = builder.objectRef<Reaction>('EmojiReaction').implement({
  description: 'An emoji reaction, by one or many users',
  fields: (t) => ({
    emoji: t.exposeString('emoji'),
    count: t.int({ resolve: (r) => r.users.length }),
    users: t.field({ type: [EmojiReactionUser], complexity: BATCHED_LIST, resolve: (r) => r.users }),
  }),
});

const CommentBody = builder.objectRef<{ markdown?: string; document?: unknown }>('CommentBody').implement({
  description: '`{ markdown }`, or `{ document }` (the rich-text document) with format=document',
  fields: (t) => ({
    markdown: t.exposeString('markdown', { nullable: true }),
    document: t.field({ type: 'JSON', nullable: true, description: `${FREE_DOC}With format=document`, resolve: (b) => b.document }),
  }),
});

const bodyField = (markdown: string, format: string | null | undefined) =>
  format === 'document' ? { document: documentFromMarkdown(markdown) } : { markdown };

const CommentUrls = builder
  .objectRef<{ location: string }>('CommentUrls')
  .implement({ fields: (t) => ({ location: t.exposeString('location') }) });

const CommentPermissions = builder.objectRef<ReturnType<typeof commentPermissions>>('CommentPermissions').implement({
  fields: (t) => ({
    view: t.exposeBoolean('view'),
    edit: t.exposeBoolean('edit'),
    reply: t.exposeBoolean('reply', { description: 'May react or reply' }),
    delete: t.exposeBoolean('delete'),
  }),
});

const permissionsOf = async (ctx: Context, spaceId: string, postedById: string) =>
  commentPermissions(await commentLoaders(ctx).role.load(spaceId), postedById === ctx.caller.id);

// ---------------------------------------------------------------------------------------------
// Comment

const IdObject = builder.objectRef<{ id: string }>('CommentTargetId').implement({ fields: (t) => ({ id: t.exposeString('id') }) });
const TableCellTarget = builder.objectRef<{ record: string; definition: string }>('TableCellTarget').implement({
  fields: (t) => ({ record: t.exposeString('record'), definition: t.exposeString('definition') }),
});
const CommentTarget = builder.objectRef<Comment>('CommentTarget').implement({
  description: 'What a comment is about: kept by id with the revision it was posted on',
  fields: (t) => ({
    node: t.field({ type: IdObject, nullable: true, resolve: (c) => (c.nodeId ? { id: c.nodeId } : null) }),
    tableCell: t.field({
      type: TableCellTarget,
      nullable: true,
      resolve: (c) =>
        c.tableCellRecord && c.tableCellDefinition ? { record: c.tableCellRecord, definition: c.tableCellDefinition } : null,
    }),
    changeRequest: t.exposeString('changeRequestId', { nullable: true }),
    review: t.string({
      nullable: true,
      description: 'The review this comment was submitted with',
      resolve: (c, _a, ctx) => (c.changeRequestId ? reviewOfComment(ctx).load(c.id) : null),
    }),
    page: t.field({ type: IdObject, nullable: true, resolve: (c) => (c.pageId ? { id: c.pageId } : null) }),
    space: t.exposeString('spaceId'),
    revision: t.exposeString('revisionId'),
  }),
});

const CommentReplier = builder.objectRef<{ userId: string; count: number; updatedAt: Date }>('CommentReplier').implement({
  description: "One user's replies in a thread",
  fields: (t) => ({
    updatedAt: t.field({ type: 'DateTime', description: 'When they last replied (or edited a reply)', resolve: (r) => r.updatedAt }),
    count: t.exposeInt('count'),
    user: t.field({ type: UserType, resolve: (r, _a, ctx) => userOf(ctx, r.userId) }),
  }),
});

export const CommentReplyType = builder.objectRef<Model<'CommentReply'>>('CommentReply').implement({
  fields: (t) => ({
    object: t.string({ resolve: () => 'comment-reply' }),
    id: t.exposeID('id'),
    postedBy: t.field({ type: UserType, resolve: (r, _a, ctx) => userOf(ctx, r.postedById) }),
    postedAt: t.field({ type: 'DateTime', resolve: (r) => r.createdAt }),
    editedAt: t.expose('editedAt', { type: 'DateTime', nullable: true }),
    reactions: t.field({
      type: [EmojiReaction],
      complexity: BATCHED_LIST,
      resolve: async (r, _a, ctx) => groupReactions(await commentLoaders(ctx).replyReactions.load(r.id)),
    }),
    body: t.field({
      type: CommentBody,
      args: { format: t.arg({ type: FormatEnum, required: false, description: 'markdown (default) or document' }) },
      resolve: (r, { format }) => bodyField(r.markdown, format),
    }),
    urls: t.field({
      type: CommentUrls,
      resolve: async (r, _a, ctx) => {
        const comment = (await commentLoaders(ctx).comment.load(r.commentId))!;
        return ctx.urls.commentReply(comment.spaceId, comment.changeRequestId, comment.id, r.id);
      },
    }),
    permissions: t.field({
      type: CommentPermissions,
      resolve: async (r, _a, ctx) => permissionsOf(ctx, (await commentLoaders(ctx).comment.load(r.commentId))!.spaceId, r.postedById),
    }),
  }),
});

const CommentReplyList = listOf('CommentReply', CommentReplyType);

export const CommentType = builder.prismaObject('Comment', {
  fields: (t) => ({
    object: t.string({ resolve: () => 'comment' }),
    id: t.exposeID('id'),
    postedBy: t.field({ type: UserType, resolve: (c, _a, ctx) => userOf(ctx, c.postedById) }),
    postedAt: t.field({ type: 'DateTime', resolve: (c) => c.createdAt }),
    editedAt: t.expose('editedAt', { type: 'DateTime', nullable: true }),
    reactions: t.field({
      type: [EmojiReaction],
      complexity: BATCHED_LIST,
      resolve: async (c, _a, ctx) => groupReactions(await commentLoaders(ctx).reactions.load(c.id)),
    }),
    replies: t.int({
      description: 'Number of replies',
      resolve: async (c, _a, ctx) => (await commentLoaders(ctx).repliers.load(c.id)).reduce((sum, r) => sum + r.count, 0),
    }),
    repliers: t.field({
      type: [CommentReplier],
      complexity: BATCHED_LIST,
      description: 'Who replied, most recent first',
      resolve: (c, _a, ctx) => commentLoaders(ctx).repliers.load(c.id),
    }),
    body: t.field({
      type: CommentBody,
      args: { format: t.arg({ type: FormatEnum, required: false, description: 'markdown (default) or document' }) },
      resolve: (c, { format }) => bodyField(c.markdown, format),
    }),
    target: t.field({ type: CommentTarget, resolve: (c) => c }),
    urls: t.field({ type: CommentUrls, resolve: (c, _a, ctx) => ctx.urls.comment(c.spaceId, c.changeRequestId, c.id) }),
    permissions: t.field({ type: CommentPermissions, resolve: (c, _a, ctx) => permissionsOf(ctx, c.spaceId, c.postedById) }),
    status: t.field({ type: CommentStatusEnum, resolve: (c) => c.status as 'open' }),
    resolvedAt: t.expose('resolvedAt', { type: 'DateTime', nullable: true }),
    resolvedBy: t.field({ type: UserType, nullable: true, resolve: (c, _a, ctx) => (c.resolvedById ? userOf(ctx, c.resolvedById) : null) }),
    replyList: t.field({
      type: CommentReplyList,
      description: 'The replies, oldest first',
      args: pageArgs(t),
      resolve: (c, args, ctx) => listRepliesOf(ctx, c, args),
    }),
    reply: t.field({
      type: CommentReplyType,
      args: { id: t.arg.id({ required: true }) },
      resolve: (c, { id }, ctx) => replyOf(ctx, c, String(id)),
    }),
  }),
});

const CommentList = listOf('Comment', CommentType);

const listArgs = <T extends SchemaTypes>(t: { arg: ArgBuilder<T> }) => ({
  ...pageArgs(t),
  order: t.arg({ type: CommentListOrderEnum, required: false }),
  status: t.arg({ type: CommentStatusFilterEnum, required: false }),
  targetPage: t.arg.string({ required: false, description: 'Only comments on this page' }),
  authors: t.arg.stringList({ required: false, description: 'Only comments posted by these users' }),
});

builder.objectField(SpaceType, 'commentList', (t) =>
  t.field({
    type: CommentList,
    description: "Comments on the space's main content (change requests have their own)",
    args: listArgs(t),
    resolve: (space, args, ctx) => listComments(ctx, space.id, null, args),
  }),
);
builder.objectField(SpaceType, 'comment', (t) =>
  t.field({
    type: CommentType,
    args: { id: t.arg.id({ required: true }) },
    resolve: (space, { id }, ctx) => getComment(ctx, space.id, null, String(id)),
  }),
);
builder.objectField(ChangeRequestType, 'commentList', (t) =>
  t.field({ type: CommentList, args: listArgs(t), resolve: (cr, args, ctx) => listComments(ctx, cr.spaceId, cr.id, args) }),
);
builder.objectField(ChangeRequestType, 'comment', (t) =>
  t.field({
    type: CommentType,
    args: { id: t.arg.id({ required: true }) },
    resolve: (cr, { id }, ctx) => getComment(ctx, cr.spaceId, cr.id, String(id)),
  }),
);

// ---------------------------------------------------------------------------------------------
// Mutations: one set for both places; `changeRequestId` (id or number) selects a change request.

const CommentBodyInput = builder.inputType('CommentBodyInput', {
  description:
    '`{ markdown }` or `{ document }` (one of them): a rich-text document is stored as its Markdown and reads back the same with format=document',
  fields: (t) => ({
    markdown: t.string({ description: 'The body as Markdown' }),
    document: t.field({
      type: 'JSON',
      description: `${FREE_DOC}The body, stored as its Markdown`,
    }),
  }),
});
const TableCellTargetInput = builder.inputType('TableCellTargetInput', {
  fields: (t) => ({ record: t.string({ required: true }), definition: t.string({ required: true }) }),
});
const PostCommentInput = builder.inputType('PostCommentInput', {
  fields: (t) => ({
    body: t.field({ type: CommentBodyInput, required: true }),
    page: t.string({ description: 'The page commented on' }),
    node: t.string({ description: 'The block of the page commented on (needs page)' }),
    tableCell: t.field({ type: TableCellTargetInput, description: 'The table cell commented on (needs node)' }),
  }),
});
const UpdateCommentInput = builder.inputType('UpdateCommentInput', {
  fields: (t) => ({
    resolved: t.boolean({ description: 'Resolve (true) or reopen (false)' }),
    body: t.field({ type: CommentBodyInput, description: 'New body (authors only)' }),
    addedReactions: t.stringList({ description: 'Emoji to react with (adding one twice keeps one)' }),
    removedReactions: t.stringList({ description: "Emoji of the caller's reactions to remove" }),
  }),
});
const PostCommentReplyInput = builder.inputType('PostCommentReplyInput', {
  fields: (t) => ({ body: t.field({ type: CommentBodyInput, required: true }) }),
});
const UpdateCommentReplyInput = builder.inputType('UpdateCommentReplyInput', {
  fields: (t) => ({
    body: t.field({ type: CommentBodyInput, description: 'New body (authors only)' }),
    addedReactions: t.stringList({ description: 'Emoji to react with (adding one twice keeps one)' }),
    removedReactions: t.stringList({ description: "Emoji of the caller's reactions to remove" }),
  }),
});

const placeArgs = <T extends SchemaTypes>(t: { arg: ArgBuilder<T> }) => ({
  spaceId: t.arg.id({ required: true }),
  changeRequestId: t.arg.string({ required: false, description: 'A change request of the space (id or number); absent: the main content' }),
});
const commentArgs = <T extends SchemaTypes>(t: { arg: ArgBuilder<T> }) => ({ ...placeArgs(t), commentId: t.arg.id({ required: true }) });
const replyArgs = <T extends SchemaTypes>(t: { arg: ArgBuilder<T> }) => ({ ...commentArgs(t), replyId: t.arg.id({ required: true }) });

builder.mutationFields((t) => ({
  postComment: t.field({
    type: CommentType,
    args: { ...placeArgs(t), input: t.arg({ type: PostCommentInput, required: true }) },
    resolve: (_r, a, ctx) => postComment(ctx, String(a.spaceId), a.changeRequestId ?? null, a.input),
  }),
  updateComment: t.field({
    type: CommentType,
    description: 'Resolve or reopen, edit the body (authors), add or remove the caller’s reactions',
    args: { ...commentArgs(t), input: t.arg({ type: UpdateCommentInput, required: true }) },
    resolve: (_r, a, ctx) => updateComment(ctx, String(a.spaceId), a.changeRequestId ?? null, String(a.commentId), a.input),
  }),
  deleteComment: t.boolean({
    description:
      'Deletes a comment with its replies; false when the space the caller sees had no such comment (the seed answers 204 either way)',
    args: commentArgs(t),
    resolve: (_r, a, ctx) => deleteComment(ctx, String(a.spaceId), a.changeRequestId ?? null, String(a.commentId)),
  }),
  postCommentReply: t.field({
    type: CommentReplyType,
    args: { ...commentArgs(t), input: t.arg({ type: PostCommentReplyInput, required: true }) },
    resolve: (_r, a, ctx) => postReply(ctx, String(a.spaceId), a.changeRequestId ?? null, String(a.commentId), a.input),
  }),
  updateCommentReply: t.field({
    type: CommentReplyType,
    args: { ...replyArgs(t), input: t.arg({ type: UpdateCommentReplyInput, required: true }) },
    resolve: (_r, a, ctx) =>
      updateReply(ctx, String(a.spaceId), a.changeRequestId ?? null, String(a.commentId), String(a.replyId), a.input),
  }),
  deleteCommentReply: t.boolean({
    description: 'Deletes a reply; NOT_FOUND when there is none',
    args: replyArgs(t),
    resolve: (_r, a, ctx) => deleteReply(ctx, String(a.spaceId), a.changeRequestId ?? null, String(a.commentId), String(a.replyId)),
  }),
}));
