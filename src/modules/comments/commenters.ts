import type { Context } from '../../context.js';
import { requireSpace } from '../../auth/permissions.js';
import { builder } from '../../graphql/builder.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import type { ChangeRequest, Prisma } from '../../generated/prisma/client.js';
import { LIST_FIELDS, listVariables, type RestRoute } from '../../rest/route.js';
import { paginateArray, type PageArgs } from '../../pagination.js';
import { ChangeRequestType } from '../change-requests/index.js';
import { MEMBER_FIELDS, MemberType } from '../orgs/index.js';
import { SpaceType } from '../spaces/index.js';

/**
 * Commenters: the organization members who posted a comment in a space's main content
 * (listCommentersInSpace), or in a change request (listCommentersInChangeRequest) — the same places
 * as the two comment lists, so a commenter is an `authors` value of that list. Replies do not make a
 * commenter (the lists' `authors` filter is on comments). A commenter who left the organization is
 * not listed (items are memberships). Ordered by their latest comment, most recent first.
 */
async function commenters(ctx: Context, organizationId: string, where: Prisma.CommentWhereInput, args: PageArgs) {
  const posted = await ctx.prisma.comment.groupBy({ by: ['postedById'], where, _max: { createdAt: true } });
  const members = await ctx.prisma.member.findMany({ where: { organizationId, userId: { in: posted.map((p) => p.postedById) } } });
  const memberOf = new Map(members.map((m) => [m.userId, m]));
  const ordered = posted
    .filter((p) => memberOf.has(p.postedById))
    .sort((a, b) => b._max.createdAt!.getTime() - a._max.createdAt!.getTime() || (a.postedById < b.postedById ? -1 : 1));
  return paginateArray(
    args,
    ordered.map((p) => memberOf.get(p.postedById)!),
  );
}

export async function listSpaceCommenters(ctx: Context, spaceId: string, args: PageArgs) {
  const space = await requireSpace(ctx, spaceId);
  return commenters(ctx, space.organizationId, { spaceId, changeRequestId: null }, args);
}

export async function listChangeRequestCommenters(ctx: Context, cr: ChangeRequest, args: PageArgs) {
  const space = await requireSpace(ctx, cr.spaceId);
  return commenters(ctx, space.organizationId, { spaceId: cr.spaceId, changeRequestId: cr.id }, args);
}

const CommenterList = listOf('Commenter', MemberType);

builder.objectField(SpaceType, 'commenterList', (t) =>
  t.field({
    type: CommenterList,
    description: "Members who commented on the space's main content, latest comment first",
    args: pageArgs(t),
    resolve: (space, args, ctx) => listSpaceCommenters(ctx, space.id, args),
  }),
);
builder.objectField(ChangeRequestType, 'commenterList', (t) =>
  t.field({
    type: CommenterList,
    description: 'Members who commented on the change request, latest comment first',
    args: pageArgs(t),
    resolve: (cr, args, ctx) => listChangeRequestCommenters(ctx, cr, args),
  }),
);

export const commenterRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/spaces/:spaceId/commenters',
    operationId: 'listCommentersInSpace',
    document: `query SpaceCommenters($spaceId: ID!, $page: String, $limit: Int) {
      space(id: $spaceId) { commenterList(page: $page, limit: $limit) { items { ...MemberFields } ${LIST_FIELDS} } }
    } ${MEMBER_FIELDS}`,
    variables: (req) => ({ spaceId: req.params.spaceId, ...listVariables(req) }),
    result: (data) => data.space.commenterList,
  },
  {
    method: 'GET',
    path: '/spaces/:spaceId/change-requests/:changeRequestId/commenters',
    operationId: 'listCommentersInChangeRequest',
    document: `query ChangeRequestCommenters($spaceId: ID!, $changeRequestId: String!, $page: String, $limit: Int) {
      space(id: $spaceId) { changeRequest(id: $changeRequestId) { commenterList(page: $page, limit: $limit) { items { ...MemberFields } ${LIST_FIELDS} } } }
    } ${MEMBER_FIELDS}`,
    variables: (req) => ({ spaceId: req.params.spaceId, changeRequestId: req.params.changeRequestId, ...listVariables(req) }),
    result: (data) => data.space.changeRequest.commenterList,
  },
];
