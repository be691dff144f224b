import { badRequest } from '../../errors.js';
import { deletedStatus, LIST_FIELDS, listParam, listVariables, type RestRequest, type RestRoute } from '../../rest/route.js';
import { USER_FIELDS } from '../users/index.js';

/**
 * Comment routes exist twice: on a space's main content and on a change request, with the same
 * shapes. Each family below makes the ten routes of one place; only the path prefix, how the
 * GraphQL document reaches the comments and the operation ids differ.
 *
 * Every document declares `$format` (used by the fragments' `body(format:)`): `format=document`
 * answers bodies as `{ document }`, else `{ markdown }`.
 *
 * Deleting a comment answers 204 whether or not it existed (the seed: "204, same as a successful
 * delete"); deleting a reply answers 205 when it was deleted and 204 when there was none (the
 * official operations; the seed does not show them).
 */
const REACTIONS = 'reactions { emoji count users { user { ...UserFields } reactedAt } }';

export const COMMENT_FIELDS = /* GraphQL */ `
fragment CommentFields on Comment {
  object id postedBy { ...UserFields } postedAt editedAt ${REACTIONS}
  replies repliers { updatedAt count user { ...UserFields } }
  body(format: $format) { markdown document }
  target { node { id } tableCell { record definition } changeRequest review page { id } space revision }
  urls { location } permissions { view edit reply delete } status resolvedAt resolvedBy { ...UserFields }
}`;

export const COMMENT_REPLY_FIELDS = /* GraphQL */ `
fragment CommentReplyFields on CommentReply {
  object id postedBy { ...UserFields } postedAt editedAt ${REACTIONS}
  body(format: $format) { markdown document } urls { location } permissions { view edit reply delete }
}`;

interface Family {
  /** Path below /v1 up to and including `/comments`. */
  base: string;
  /** Operation id suffix: `InSpace` or `InChangeRequest`. */
  suffix: string;
  /** Variable declarations naming the place (besides `$format`). */
  placeVars: string;
  /** A query selection reaching `inner` through the place. */
  reach: (inner: string) => string;
  /** Picks the object `reach` selected from the data. */
  pick: (data: any) => any;
  /** Mutation arguments naming the place. */
  placeArgs: string;
  placeVariables: (req: RestRequest) => Record<string, unknown>;
}

const FAMILIES: Family[] = [
  {
    base: '/spaces/:spaceId/comments',
    suffix: 'InSpace',
    placeVars: '$spaceId: ID!',
    reach: (inner) => `space(id: $spaceId) { ${inner} }`,
    pick: (data) => data.space,
    placeArgs: 'spaceId: $spaceId',
    placeVariables: (req) => ({ spaceId: req.params.spaceId }),
  },
  {
    base: '/spaces/:spaceId/change-requests/:changeRequestId/comments',
    suffix: 'InChangeRequest',
    placeVars: '$spaceId: ID!, $changeRequestId: String!',
    reach: (inner) => `space(id: $spaceId) { changeRequest(id: $changeRequestId) { ${inner} } }`,
    pick: (data) => data.space.changeRequest,
    placeArgs: 'spaceId: $spaceId, changeRequestId: $changeRequestId',
    placeVariables: (req) => ({ spaceId: req.params.spaceId, changeRequestId: req.params.changeRequestId }),
  },
];

const format = (req: RestRequest) => ({ format: req.query.format || undefined });

/** GraphQL would take a lone string for a list: a REST body must send the reaction lists as arrays. */
function updateBody(req: RestRequest) {
  for (const field of ['addedReactions', 'removedReactions']) {
    const value = req.body[field];
    if (value != null && !Array.isArray(value)) throw badRequest(field, 'must be an array of emoji');
  }
  return req.body;
}

/** A family's variable builders and document makers, shared by its comment and reply routes. */
function familyParts(f: Family) {
  const vars = (req: RestRequest) => ({ ...f.placeVariables(req), ...format(req) });
  const comment = (req: RestRequest) => ({ ...vars(req), commentId: req.params.commentId });
  const reply = (req: RestRequest) => ({ ...comment(req), replyId: req.params.commentReplyId });
  const declared = `${f.placeVars}, $format: ContentFormat`;
  // A document carries the fragments it spreads (GraphQL refuses unused ones).
  const fragments = (text: string) =>
    [
      text.includes('...CommentFields') ? COMMENT_FIELDS : '',
      text.includes('...CommentReplyFields') ? COMMENT_REPLY_FIELDS : '',
      USER_FIELDS,
    ].join(' ');
  const mutation = (name: string, extraVars: string, call: string, selection: string) =>
    `mutation ${name}(${declared}${extraVars}) { ${call.replace('PLACE', f.placeArgs)} ${selection} } ${fragments(selection)}`;
  const query = (name: string, extraVars: string, inner: string) =>
    `query ${name}(${declared}${extraVars}) { ${f.reach(inner)} } ${fragments(inner)}`;
  return { vars, comment, reply, mutation, query };
}

type FamilyParts = ReturnType<typeof familyParts>;

/** A family's routes of comments: list, post, get, update, delete. */
function commentRoutesOf(f: Family, { vars, comment, mutation, query }: FamilyParts): RestRoute[] {
  return [
    {
      method: 'GET',
      path: f.base,
      operationId: `listComments${f.suffix}`,
      document: query(
        `listComments${f.suffix}`,
        ', $page: String, $limit: Int, $order: CommentListOrder, $status: CommentStatusFilter, $targetPage: String, $authors: [String!]',
        `commentList(page: $page, limit: $limit, order: $order, status: $status, targetPage: $targetPage, authors: $authors) { items { ...CommentFields } ${LIST_FIELDS} }`,
      ),
      variables: (req) => ({
        ...vars(req),
        ...listVariables(req),
        order: req.query.order || undefined,
        status: req.query.status || undefined,
        targetPage: req.query.targetPage || undefined,
        authors: listParam(req, 'authors'),
      }),
      result: (data) => f.pick(data).commentList,
    },
    {
      method: 'POST',
      path: f.base,
      operationId: `postComment${f.suffix}`,
      document: mutation(
        `postComment${f.suffix}`,
        ', $input: PostCommentInput!',
        'postComment(PLACE, input: $input)',
        '{ ...CommentFields }',
      ),
      variables: (req) => ({ ...vars(req), input: req.body }),
      result: (data) => data.postComment,
    },
    {
      method: 'GET',
      path: `${f.base}/:commentId`,
      operationId: `getComment${f.suffix}`,
      document: query(`getComment${f.suffix}`, ', $commentId: ID!', 'comment(id: $commentId) { ...CommentFields }'),
      variables: comment,
      result: (data) => f.pick(data).comment,
    },
    {
      method: 'PUT',
      path: `${f.base}/:commentId`,
      operationId: `updateComment${f.suffix}`,
      document: mutation(
        `updateComment${f.suffix}`,
        ', $commentId: ID!, $input: UpdateCommentInput!',
        'updateComment(PLACE, commentId: $commentId, input: $input)',
        '{ ...CommentFields }',
      ),
      variables: (req) => ({ ...comment(req), input: updateBody(req) }),
      result: (data) => data.updateComment,
    },
    {
      method: 'DELETE',
      path: `${f.base}/:commentId`,
      operationId: `deleteComment${f.suffix}`,
      document: `mutation deleteComment${f.suffix}(${f.placeVars}, $commentId: ID!) { deleteComment(${f.placeArgs}, commentId: $commentId) }`,
      variables: (req) => ({ ...f.placeVariables(req), commentId: req.params.commentId }),
      result: () => undefined,
      status: 204,
    },
  ];
}

/** A family's routes of a comment's replies: list, post, get, update, delete. */
function replyRoutesOf(f: Family, { comment, reply, mutation, query }: FamilyParts): RestRoute[] {
  return [
    {
      method: 'GET',
      path: `${f.base}/:commentId/replies`,
      operationId: `listCommentReplies${f.suffix}`,
      document: query(
        `listCommentReplies${f.suffix}`,
        ', $commentId: ID!, $page: String, $limit: Int',
        `comment(id: $commentId) { replyList(page: $page, limit: $limit) { items { ...CommentReplyFields } ${LIST_FIELDS} } }`,
      ),
      variables: (req) => ({ ...comment(req), ...listVariables(req) }),
      result: (data) => f.pick(data).comment.replyList,
    },
    {
      method: 'POST',
      path: `${f.base}/:commentId/replies`,
      operationId: `postCommentReply${f.suffix}`,
      document: mutation(
        `postCommentReply${f.suffix}`,
        ', $commentId: ID!, $input: PostCommentReplyInput!',
        'postCommentReply(PLACE, commentId: $commentId, input: $input)',
        '{ ...CommentReplyFields }',
      ),
      variables: (req) => ({ ...comment(req), input: req.body }),
      result: (data) => data.postCommentReply,
    },
    {
      method: 'GET',
      path: `${f.base}/:commentId/replies/:commentReplyId`,
      operationId: `getCommentReply${f.suffix}`,
      document: query(
        `getCommentReply${f.suffix}`,
        ', $commentId: ID!, $replyId: ID!',
        'comment(id: $commentId) { reply(id: $replyId) { ...CommentReplyFields } }',
      ),
      variables: reply,
      result: (data) => f.pick(data).comment.reply,
    },
    {
      method: 'PUT',
      path: `${f.base}/:commentId/replies/:commentReplyId`,
      operationId: `updateCommentReply${f.suffix}`,
      document: mutation(
        `updateCommentReply${f.suffix}`,
        ', $commentId: ID!, $replyId: ID!, $input: UpdateCommentReplyInput!',
        'updateCommentReply(PLACE, commentId: $commentId, replyId: $replyId, input: $input)',
        '{ ...CommentReplyFields }',
      ),
      variables: (req) => ({ ...reply(req), input: updateBody(req) }),
      result: (data) => data.updateCommentReply,
    },
    {
      method: 'DELETE',
      path: `${f.base}/:commentId/replies/:commentReplyId`,
      operationId: `deleteCommentReply${f.suffix}`,
      document: `mutation deleteCommentReply${f.suffix}(${f.placeVars}, $commentId: ID!, $replyId: ID!) { deleteCommentReply(${f.placeArgs}, commentId: $commentId, replyId: $replyId) }`,
      variables: (req) => ({ ...f.placeVariables(req), commentId: req.params.commentId, replyId: req.params.commentReplyId }),
      result: () => undefined,
      status: (data) => deletedStatus(data.deleteCommentReply),
    },
  ];
}

function familyRoutes(f: Family): RestRoute[] {
  const parts = familyParts(f);
  return [...commentRoutesOf(f, parts), ...replyRoutesOf(f, parts)];
}

export const commentRoutes: RestRoute[] = FAMILIES.flatMap(familyRoutes);
