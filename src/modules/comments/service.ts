import type { Context } from '../../context.js';
import { commentPermissions, requireCommentAction, requireSpace, spaceRole } from '../../auth/permissions.js';
import type { RoleName } from '../../auth/roles.js';
import { badRequest, notFound } from '../../errors.js';
import { Prisma, type ChangeRequest, type Comment, type CommentReply, type Space } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { paginate, type PageArgs } from '../../pagination.js';
import * as check from '../../validate.js';
import { getChangeRequest } from '../change-requests/index.js';
import { viewOf } from '../content/index.js';
import { jsonDocumentToMarkdown, markdownProblem } from '../../document/index.js';
import { commentLoaders } from './loaders.js';
import { publishAfterWrite, type LiveEvent } from '../../live/events.js';

/**
 * Comments on a space's main content, or on a change request, with their replies and reactions.
 *
 * Decisions where the specs are silent:
 * - A space's comments (its list, and a comment by id under /spaces/{id}/comments) are those on its
 *   main content; a change request's comments are reached through the change request. The space's
 *   `comments` count still counts every open comment of the space, change requests included.
 * - Posting, replying, reacting and resolving (or reopening) need the `comment` role on the space;
 *   editing a body is for its author; deleting for its author or a space admin
 *   (`commentPermissions` in auth/permissions.ts). Any PUT needs the `comment` role, even one that
 *   changes nothing.
 * - A body is `{ markdown }` or `{ document }` (a JSONDocument, the official `Document` body), not
 *   both: non-blank, at most 100,000 characters of Markdown. A document is stored as its Markdown;
 *   the rich-text form (`format=document`) is derived from the Markdown on output.
 * - A target page must exist in the revision the comment is posted on (main's, or the change
 *   request's head); it is kept by id with that revision, so the comment stays readable after a
 *   later revision deletes the page. `node` needs `page`, and `tableCell` needs `node`. Node ids are
 *   opaque (document keys are derived when a page is rendered): they are not checked.
 * - Reactions are single emoji (one grapheme, at most 50 per request): one per user per emoji; adding
 *   one twice keeps one, removing one the caller did not add changes nothing; the same emoji in
 *   `addedReactions` and `removedReactions` is refused.
 * - `editedAt` changes only when a body edit changes the text. Resolving an already resolved comment
 *   keeps who resolved it and when.
 * - Deleting a comment deletes its replies and reactions.
 */

const MAX_MARKDOWN = 100_000;
const MAX_REACTIONS = 50;
const MAX_AUTHORS = 100;
const MAX_ID = 256;

export const COMMENT_STATUSES = ['open', 'resolved'] as const;
export type CommentStatus = (typeof COMMENT_STATUSES)[number];

/** Where a comment lives: a space's main content, or a change request of it. */
export interface CommentScope {
  space: Space;
  changeRequest: ChangeRequest | null;
  role: RoleName | null;
}

/**
 * Live updates (src/live/): comment events of a space (its own and its change requests'), sent
 * after each write (each is one statement, or a transaction of reactions, committed before it).
 */
export const commentTopic = (spaceId: string) => `comment:${spaceId}`;
export type CommentAction = 'created' | 'updated' | 'deleted' | 'reply_created' | 'reply_updated' | 'reply_deleted';
const commentEvent = (
  comment: Pick<Comment, 'id' | 'spaceId' | 'changeRequestId'>,
  action: CommentAction,
  replyId: string | null = null,
): LiveEvent => ({
  topic: commentTopic(comment.spaceId),
  action,
  spaceId: comment.spaceId,
  changeRequestId: comment.changeRequestId,
  commentId: comment.id,
  replyId,
});

/** The space (and change request) the caller can see, with at least `min` on the space. */
export async function scopeOf(
  ctx: Context,
  spaceId: string,
  changeRequestId: string | null | undefined,
  min: RoleName,
): Promise<CommentScope> {
  // The change request first: it answers 404 for a space the caller cannot see, then for a missing change request.
  const changeRequest = changeRequestId != null ? await getChangeRequest(ctx, spaceId, changeRequestId) : null;
  const space = await requireSpace(ctx, spaceId, min);
  return { space, changeRequest, role: await spaceRole(ctx, space) };
}

const inScope = (scope: CommentScope) => ({ spaceId: scope.space.id, changeRequestId: scope.changeRequest?.id ?? null });

async function findComment(ctx: Context, scope: CommentScope, commentId: string): Promise<Comment | null> {
  const comment = await ctx.prisma.comment.findFirst({ where: { id: commentId, ...inScope(scope) } });
  if (comment) commentLoaders(ctx).comment.prime(comment.id, comment);
  return comment;
}

async function requireComment(ctx: Context, scope: CommentScope, commentId: string): Promise<Comment> {
  const comment = await findComment(ctx, scope, commentId);
  if (!comment) throw notFound('Comment');
  return comment;
}

async function requireReply(ctx: Context, comment: Comment, replyId: string): Promise<CommentReply> {
  const reply = await ctx.prisma.commentReply.findFirst({ where: { id: replyId, commentId: comment.id } });
  if (!reply) throw notFound('Comment reply');
  return reply;
}

/**
 * A write that lost a race with a delete (the row to update is gone, or the comment a new row points
 * to): the thing is not found, as it would have been a moment later.
 */
const orGone =
  (what: string) =>
  (error: unknown): never => {
    if (error instanceof Prisma.PrismaClientKnownRequestError && (error.code === 'P2025' || error.code === 'P2003')) throw notFound(what);
    throw error;
  };

const permissionsFor = (ctx: Context, scope: CommentScope, postedById: string) =>
  commentPermissions(scope.role, postedById === ctx.caller.id);

// ---------------------------------------------------------------------------------------------
// Input checks

export interface BodyInput {
  markdown?: string | null;
  document?: unknown;
}

/** A body's Markdown, checked (400 naming `field`'s part); also used for a review's comment (review-comment.ts). */
export function markdownOf(field: string, body: BodyInput): string {
  if (body.document != null && body.markdown != null) throw badRequest(field, 'send either markdown or document, not both');
  // A rich-text body is stored as its Markdown (as every body is); reading it back with
  // format=document gives the same document (see document/json-markdown.ts).
  const at = body.document != null ? `${field}.document` : `${field}.markdown`;
  const markdown = body.document != null ? jsonDocumentToMarkdown(body.document, at) : body.markdown;
  if (markdown == null) throw badRequest(at, 'is required');
  if (!markdown.trim()) throw badRequest(at, 'must not be empty');
  check.text(at, markdown, { max: MAX_MARKDOWN });
  // The page limits (nesting, emphasis runs) hold for comments too: every read parses the body.
  const problem = markdownProblem(markdown);
  if (problem) throw badRequest(at, problem);
  return markdown;
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const EMOJI_CHARS = /^(?:\p{Extended_Pictographic}|\p{Emoji_Component})+$/u;
const EMOJI_BASE = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;

/** A list of reaction emoji: each one emoji (one grapheme, skin tones and flags included), deduplicated. */
function emojiList(field: string, values: readonly string[] | null | undefined): string[] {
  if (values == null) return [];
  if (values.length > MAX_REACTIONS) throw badRequest(field, `must hold at most ${MAX_REACTIONS} reactions`);
  values.forEach((value, i) => {
    const graphemes = [...segmenter.segment(value)].length;
    if (graphemes !== 1 || !EMOJI_CHARS.test(value) || !EMOJI_BASE.test(value))
      throw badRequest(`${field}[${i}]`, `${JSON.stringify(value)} is not a single emoji`);
  });
  return [...new Set(values)];
}

function idText(field: string, value: string): string {
  if (!value) throw badRequest(field, 'must not be empty');
  return check.text(field, value, { max: MAX_ID });
}

// ---------------------------------------------------------------------------------------------
// Reads

export type CommentOrder = 'asc' | 'desc';

export interface CommentFilters extends PageArgs {
  order?: CommentOrder | null;
  status?: 'all' | CommentStatus | null;
  targetPage?: string | null;
  authors?: readonly string[] | null;
}

export async function listComments(ctx: Context, spaceId: string, changeRequestId: string | null, filters: CommentFilters) {
  const scope = await scopeOf(ctx, spaceId, changeRequestId, 'read');
  if (filters.authors && filters.authors.length > MAX_AUTHORS) throw badRequest('authors', `must hold at most ${MAX_AUTHORS} user ids`);
  const status = filters.status ?? 'all';
  const where: Prisma.CommentWhereInput = {
    ...inScope(scope),
    ...(status !== 'all' ? { status } : {}),
    ...(filters.targetPage ? { pageId: filters.targetPage } : {}),
    ...(filters.authors?.length ? { postedById: { in: [...filters.authors] } } : {}),
  };
  // The seed's default order is newest first; the id breaks ties the same way.
  const order = filters.order ?? 'desc';
  const page = await paginate(
    filters,
    () => ctx.prisma.comment.count({ where }),
    (w) => ctx.prisma.comment.findMany({ where, orderBy: [{ createdAt: order }, { id: order }], ...w }),
  );
  for (const c of page.items) commentLoaders(ctx).comment.prime(c.id, c);
  return page;
}

export async function getComment(ctx: Context, spaceId: string, changeRequestId: string | null, commentId: string) {
  const scope = await scopeOf(ctx, spaceId, changeRequestId, 'read');
  return requireComment(ctx, scope, commentId);
}

/** A thread's replies, oldest first. */
export function listRepliesOf(ctx: Context, comment: Comment, args: PageArgs) {
  const where = { commentId: comment.id };
  return paginate(
    args,
    () => ctx.prisma.commentReply.count({ where }),
    (w) => ctx.prisma.commentReply.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], ...w }),
  );
}

/** A reply of a comment already read (GraphQL `Comment.reply`). */
export async function replyOf(ctx: Context, comment: Comment, replyId: string) {
  return requireReply(ctx, comment, replyId);
}

// ---------------------------------------------------------------------------------------------
// Writes

export interface PostCommentInput {
  body: BodyInput;
  page?: string | null;
  node?: string | null;
  tableCell?: { record: string; definition: string } | null;
}

export async function postComment(ctx: Context, spaceId: string, changeRequestId: string | null, input: PostCommentInput) {
  const scope = await scopeOf(ctx, spaceId, changeRequestId, 'comment');
  const markdown = markdownOf('body', input.body);
  const pageId = input.page == null ? null : idText('page', input.page);
  const nodeId = input.node == null ? null : idText('node', input.node);
  if (nodeId && !pageId) throw badRequest('page', 'is required when node is given (a node is a block of a page)');
  const tableCell = input.tableCell ?? null;
  if (tableCell) {
    if (!nodeId) throw badRequest('node', 'is required when tableCell is given (the table it belongs to)');
    idText('tableCell.record', tableCell.record);
    idText('tableCell.definition', tableCell.definition);
  }
  const revisionId = scope.changeRequest ? scope.changeRequest.revisionId : scope.space.revisionId;
  if (pageId) {
    const view = await viewOf(ctx, scope.space, revisionId);
    if (!(await view.content.page(pageId)))
      throw badRequest('page', `no page ${pageId} in the ${scope.changeRequest ? "change request's" : "space's"} content`);
  }
  const created = await ctx.prisma.comment.create({
    data: {
      id: newId(),
      ...inScope(scope),
      status: 'open',
      postedById: ctx.caller.id,
      markdown,
      revisionId,
      pageId,
      nodeId,
      tableCellRecord: tableCell?.record ?? null,
      tableCellDefinition: tableCell?.definition ?? null,
    },
  });
  await publishAfterWrite(ctx.prisma, commentEvent(created, 'created'));
  return created;
}

export interface UpdateCommentInput {
  resolved?: boolean | null;
  body?: BodyInput | null;
  addedReactions?: readonly string[] | null;
  removedReactions?: readonly string[] | null;
}

function reactionChanges(input: { addedReactions?: readonly string[] | null; removedReactions?: readonly string[] | null }) {
  const added = emojiList('addedReactions', input.addedReactions);
  const removed = emojiList('removedReactions', input.removedReactions);
  const both = added.find((e) => removed.includes(e));
  if (both) throw badRequest('removedReactions', `${both} is also in addedReactions`);
  return { added, removed };
}

export async function updateComment(
  ctx: Context,
  spaceId: string,
  changeRequestId: string | null,
  commentId: string,
  input: UpdateCommentInput,
) {
  const scope = await scopeOf(ctx, spaceId, changeRequestId, 'comment');
  const comment = await requireComment(ctx, scope, commentId);
  const permissions = permissionsFor(ctx, scope, comment.postedById);
  const markdown = input.body == null ? null : markdownOf('body', input.body);
  const { added, removed } = reactionChanges(input);
  if (markdown !== null) requireCommentAction(permissions, 'edit');
  if (input.resolved != null || added.length || removed.length) requireCommentAction(permissions, 'reply');

  const now = new Date();
  const data: Prisma.CommentUpdateInput = {};
  if (markdown !== null && markdown !== comment.markdown) Object.assign(data, { markdown, editedAt: now });
  if (input.resolved === true && comment.status !== 'resolved')
    Object.assign(data, { status: 'resolved', resolvedAt: now, resolvedById: ctx.caller.id });
  if (input.resolved === false && comment.status !== 'open') Object.assign(data, { status: 'open', resolvedAt: null, resolvedById: null });

  const updated = await ctx.prisma
    .$transaction(async (tx) => {
      if (added.length) {
        await tx.commentReaction.createMany({
          data: added.map((emoji) => ({ commentId: comment.id, userId: ctx.caller.id, emoji, createdAt: now })),
          skipDuplicates: true,
        });
      }
      if (removed.length)
        await tx.commentReaction.deleteMany({ where: { commentId: comment.id, userId: ctx.caller.id, emoji: { in: removed } } });
      return Object.keys(data).length ? tx.comment.update({ where: { id: comment.id }, data }) : comment;
    })
    .catch(orGone('Comment'));
  const loaders = commentLoaders(ctx);
  loaders.reactions.clear(comment.id);
  loaders.comment.clear(comment.id).prime(comment.id, updated);
  if (Object.keys(data).length || added.length || removed.length) await publishAfterWrite(ctx.prisma, commentEvent(comment, 'updated'));
  return updated;
}

/** True when a comment was deleted, false when there was none to delete. */
export async function deleteComment(ctx: Context, spaceId: string, changeRequestId: string | null, commentId: string): Promise<boolean> {
  const scope = await scopeOf(ctx, spaceId, changeRequestId, 'comment');
  const comment = await findComment(ctx, scope, commentId);
  if (!comment) return false;
  requireCommentAction(permissionsFor(ctx, scope, comment.postedById), 'delete');
  // Replies and reactions go with it (foreign keys cascade).
  const { count } = await ctx.prisma.comment.deleteMany({ where: { id: comment.id } });
  commentLoaders(ctx).comment.clear(comment.id);
  if (count > 0) await publishAfterWrite(ctx.prisma, commentEvent(comment, 'deleted'));
  return count > 0;
}

export async function postReply(
  ctx: Context,
  spaceId: string,
  changeRequestId: string | null,
  commentId: string,
  input: { body: BodyInput },
) {
  const scope = await scopeOf(ctx, spaceId, changeRequestId, 'comment');
  const comment = await requireComment(ctx, scope, commentId);
  requireCommentAction(permissionsFor(ctx, scope, comment.postedById), 'reply');
  const markdown = markdownOf('body', input.body);
  const reply = await ctx.prisma.commentReply
    .create({ data: { id: newId(), commentId: comment.id, postedById: ctx.caller.id, markdown } })
    .catch(orGone('Comment'));
  commentLoaders(ctx).repliers.clear(comment.id);
  await publishAfterWrite(ctx.prisma, commentEvent(comment, 'reply_created', reply.id));
  return reply;
}

export interface UpdateReplyInput {
  body?: BodyInput | null;
  addedReactions?: readonly string[] | null;
  removedReactions?: readonly string[] | null;
}

export async function updateReply(
  ctx: Context,
  spaceId: string,
  changeRequestId: string | null,
  commentId: string,
  replyId: string,
  input: UpdateReplyInput,
) {
  const scope = await scopeOf(ctx, spaceId, changeRequestId, 'comment');
  const comment = await requireComment(ctx, scope, commentId);
  const reply = await requireReply(ctx, comment, replyId);
  const permissions = permissionsFor(ctx, scope, reply.postedById);
  const markdown = input.body == null ? null : markdownOf('body', input.body);
  const { added, removed } = reactionChanges(input);
  if (markdown !== null) requireCommentAction(permissions, 'edit', 'reply');
  if (added.length || removed.length) requireCommentAction(permissions, 'reply', 'reply');

  const now = new Date();
  const updated = await ctx.prisma
    .$transaction(async (tx) => {
      if (added.length) {
        await tx.commentReplyReaction.createMany({
          data: added.map((emoji) => ({ replyId: reply.id, userId: ctx.caller.id, emoji, createdAt: now })),
          skipDuplicates: true,
        });
      }
      if (removed.length)
        await tx.commentReplyReaction.deleteMany({ where: { replyId: reply.id, userId: ctx.caller.id, emoji: { in: removed } } });
      if (markdown === null || markdown === reply.markdown) return reply;
      return tx.commentReply.update({ where: { id: reply.id }, data: { markdown, editedAt: now } });
    })
    .catch(orGone('Comment reply'));
  const loaders = commentLoaders(ctx);
  loaders.replyReactions.clear(reply.id);
  loaders.repliers.clear(comment.id);
  if (updated !== reply || added.length || removed.length)
    await publishAfterWrite(ctx.prisma, commentEvent(comment, 'reply_updated', reply.id));
  return updated;
}

/** True when a reply was deleted; 404 when there is no such comment or reply (the seed's 204 is for comments only). */
export async function deleteReply(
  ctx: Context,
  spaceId: string,
  changeRequestId: string | null,
  commentId: string,
  replyId: string,
): Promise<boolean> {
  const scope = await scopeOf(ctx, spaceId, changeRequestId, 'comment');
  const comment = await requireComment(ctx, scope, commentId);
  const reply = await requireReply(ctx, comment, replyId);
  requireCommentAction(permissionsFor(ctx, scope, reply.postedById), 'delete', 'reply');
  const { count } = await ctx.prisma.commentReply.deleteMany({ where: { id: reply.id } });
  commentLoaders(ctx).repliers.clear(comment.id);
  if (!count) throw notFound('Comment reply');
  await publishAfterWrite(ctx.prisma, commentEvent(comment, 'reply_deleted', reply.id));
  return true;
}
