import type { Context } from '../../context.js';
import { requireSpace, spacePermissions, spaceRole, spaceRoleOfOrgRole } from '../../auth/permissions.js';
import { atLeast, type RoleName } from '../../auth/roles.js';
import { badRequest, conflict, forbidden, notFound } from '../../errors.js';
import type { Prisma, ChangeRequest, ChangeRequestReview, RequestedReviewer } from '../../generated/prisma/client.js';
import { paginate, paginateArray, type PageArgs } from '../../pagination.js';
import * as check from '../../validate.js';
import { changeRequestEvent, getChangeRequest, reviewerOf } from '../change-requests/index.js';
import { publishAfterWrite, publishInTransaction } from '../../live/events.js';
import { postReviewComment, reviewCommentMarkdown } from '../comments/index.js';
import { reviewLoaders } from './loaders.js';

/**
 * The review workflow of a change request: requested reviewers, reviews (with their comment) and
 * contributors.
 *
 * Decisions where the official description is silent:
 * - Requesting (or removing) reviewers is for the change request's author and the space's editors,
 *   as changing the change request is (the request may also change its subject and description); a
 *   requested reviewer may also withdraw themself. Not on a merged or archived change request (409).
 * - A requested user must be an active member of the space's organization with the review role on
 *   the space (who could approve it); anyone else is a 400 naming `users[i]`. Requesting a user
 *   again refreshes the request (requester, revision, time): their earlier review becomes outdated.
 *   The request body names users only, so requests are always `kind: user`.
 * - A reviewer has one review per change request: a new submission replaces it (same id; createdAt
 *   is the first submission, updatedAt the latest). Its comment is posted as a comment of the change
 *   request; a submission without one leaves the earlier comment in the change request's comments.
 *   A review is outdated once the change request moved past the reviewed revision, or once its
 *   reviewer was requested again after submitting it. Submitting keeps the review request.
 * - Contributors are the users who edited the change request's content (its author included, from
 *   its creation): `actionType` edit, `count` their edits, `updatedAt` their latest edit (the
 *   change request's creation for an author who has not edited yet); most recent first.
 */

const MAX_USERS = 50;
export const REVIEW_STATUSES = ['approved', 'changes-requested'] as const;

/** A review with its change request (its `outdated` and `urls` depend on it). */
export interface Review {
  review: ChangeRequestReview;
  changeRequest: ChangeRequest;
}

function assertOpen(cr: ChangeRequest) {
  if (cr.status === 'merged') throw conflict('This change request is merged');
  if (cr.status === 'archived') throw conflict('This change request is archived; reopen it first');
}

/** The author of a change request, or an editor of its space, may manage its review requests. */
async function requireManager(ctx: Context, cr: ChangeRequest, allowUser?: string) {
  const space = await requireSpace(ctx, cr.spaceId, 'read');
  if (cr.createdById === ctx.caller.id || allowUser === ctx.caller.id) return space;
  if (!spacePermissions(await spaceRole(ctx, space)).edit)
    throw forbidden("Only its author or editors of the space can change a change request's reviewers");
  return space;
}

// ---------------------------------------------------------------------------------------------
// Requested reviewers

export function listRequestedReviewers(ctx: Context, cr: ChangeRequest, args: PageArgs) {
  const where = { changeRequestId: cr.id };
  return paginate(
    args,
    () => ctx.prisma.requestedReviewer.count({ where }),
    (w) => ctx.prisma.requestedReviewer.findMany({ where, orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }], ...w }),
  );
}

export interface RequestReviewersInput {
  users?: readonly string[] | null;
  subject?: string | null;
  description?: unknown;
}

export async function requestReviewers(
  ctx: Context,
  spaceId: string,
  idOrNumber: string,
  input: RequestReviewersInput,
): Promise<{ users: RequestedReviewer[] }> {
  const cr = await getChangeRequest(ctx, spaceId, idOrNumber);
  const space = await requireManager(ctx, cr);
  if (input.users == null) throw badRequest('users', 'is required');
  if (!input.users.length) throw badRequest('users', 'must name at least one user');
  if (input.users.length > MAX_USERS) throw badRequest('users', `must name at most ${MAX_USERS} users`);
  const users = [...new Set(input.users)];
  const data: Prisma.ChangeRequestUpdateInput = {};
  if (input.subject != null) data.subject = check.text('subject', input.subject, { max: 100 });
  if (input.description != null) data.description = check.richTextDocument('description', input.description) as Prisma.InputJsonValue;

  // Who can review: active members of the organization with the review role on this space.
  const members = await ctx.prisma.member.findMany({ where: { organizationId: space.organizationId, userId: { in: users } } });
  const byUser = new Map(members.map((m) => [m.userId, m]));
  for (const [i, userId] of input.users.entries()) {
    const member = byUser.get(userId);
    if (!member || member.disabled) throw badRequest(`users[${i}]`, `${userId} is not a member of the space's organization`);
    const role = await spaceRoleOfOrgRole(ctx, member.role as RoleName | null, space, userId);
    if (!atLeast(role, 'review')) throw badRequest(`users[${i}]`, `${userId} cannot review this space (needs the review role)`);
  }
  assertOpen(cr);

  const now = new Date();
  const requests = await ctx.prisma.$transaction(async (tx) => {
    if (Object.keys(data).length) await tx.changeRequest.update({ where: { id: cr.id }, data });
    const fields = { requestedById: ctx.caller.id, revisionId: cr.revisionId, createdAt: now };
    await publishInTransaction(tx, changeRequestEvent(cr, 'reviewed'));
    return Promise.all(
      users.map((userId) =>
        tx.requestedReviewer.upsert({
          where: { changeRequestId_userId: { changeRequestId: cr.id, userId } },
          create: { changeRequestId: cr.id, userId, ...fields },
          update: fields,
        }),
      ),
    );
  });
  return { users: requests };
}

/**
 * True when a request was removed; false when a member of the organization was not requested
 * (already removed); 404 when the user is no member of it (or the change request is hidden).
 */
export async function removeRequestedReviewer(ctx: Context, spaceId: string, idOrNumber: string, userId: string): Promise<boolean> {
  const cr = await getChangeRequest(ctx, spaceId, idOrNumber);
  const space = await requireManager(ctx, cr, userId);
  assertOpen(cr);
  const { count } = await ctx.prisma.requestedReviewer.deleteMany({ where: { changeRequestId: cr.id, userId } });
  if (count > 0) {
    await publishAfterWrite(ctx.prisma, changeRequestEvent(cr, 'reviewed'));
    return true;
  }
  if (!(await ctx.prisma.member.findUnique({ where: { organizationId_userId: { organizationId: space.organizationId, userId } } })))
    throw notFound('User');
  return false;
}

// ---------------------------------------------------------------------------------------------
// Reviews

/** Whether a review no longer speaks for the change request: it moved on, or the reviewer was asked again. */
export function isOutdated(review: ChangeRequestReview, cr: ChangeRequest, request: RequestedReviewer | null | undefined): boolean {
  return review.revisionId !== cr.revisionId || (request != null && request.createdAt > review.updatedAt);
}

/**
 * A change request's reviews, latest submission first. A reviewer has one review, so the list is
 * at most the organization's reviewers long: it is filtered on `outdated` and paged in memory.
 */
export async function listReviews(ctx: Context, cr: ChangeRequest, args: PageArgs & { outdated?: boolean | null }) {
  const [reviews, requests] = await Promise.all([
    ctx.prisma.changeRequestReview.findMany({ where: { changeRequestId: cr.id }, orderBy: [{ updatedAt: 'desc' }, { userId: 'asc' }] }),
    reviewLoaders(ctx).requests.load(cr.id),
  ]);
  const requestOf = new Map(requests.map((r) => [r.userId, r]));
  const kept = args.outdated == null ? reviews : reviews.filter((r) => isOutdated(r, cr, requestOf.get(r.userId)) === args.outdated);
  const page = paginateArray(args, kept);
  return { ...page, items: page.items.map((review): Review => ({ review, changeRequest: cr })) };
}

export async function getReview(ctx: Context, cr: ChangeRequest, id: string): Promise<Review> {
  const userId = reviewerOf(cr.id, id);
  const review = userId
    ? await ctx.prisma.changeRequestReview.findUnique({ where: { changeRequestId_userId: { changeRequestId: cr.id, userId } } })
    : null;
  if (!review) throw notFound('Change request review');
  return { review, changeRequest: cr };
}

export interface SubmitReviewInput {
  status?: string | null;
  comment?: { markdown?: string | null; document?: unknown } | null;
}

/** Records the caller's review (approve or request changes) of the change request's current head. */
export async function submitReview(ctx: Context, spaceId: string, idOrNumber: string, input: SubmitReviewInput): Promise<Review> {
  const cr = await getChangeRequest(ctx, spaceId, idOrNumber);
  await requireSpace(ctx, spaceId, 'review');
  if (input.status == null) throw badRequest('status', 'is required');
  if (!(REVIEW_STATUSES as readonly string[]).includes(input.status)) throw badRequest('status', `must be ${REVIEW_STATUSES.join(' or ')}`);
  const markdown = reviewCommentMarkdown('comment', input.comment);
  assertOpen(cr);
  const status = input.status;
  const review = await ctx.prisma.$transaction(async (tx) => {
    const request = await tx.requestedReviewer.findUnique({
      where: { changeRequestId_userId: { changeRequestId: cr.id, userId: ctx.caller.id } },
    });
    const comment = markdown === null ? null : await postReviewComment(tx, ctx, cr, markdown);
    const fields = {
      status,
      revisionId: cr.revisionId,
      requestedById: request?.requestedById ?? null,
      commentId: comment?.id ?? null,
      updatedAt: new Date(),
    };
    await publishInTransaction(tx, changeRequestEvent(cr, 'reviewed'));
    return tx.changeRequestReview.upsert({
      where: { changeRequestId_userId: { changeRequestId: cr.id, userId: ctx.caller.id } },
      create: { changeRequestId: cr.id, userId: ctx.caller.id, ...fields, createdAt: fields.updatedAt },
      update: fields,
    });
  });
  reviewLoaders(ctx).requests.clear(cr.id);
  return { review, changeRequest: cr };
}

// ---------------------------------------------------------------------------------------------
// Contributors

export interface Contributor {
  userId: string;
  count: number;
  updatedAt: Date;
}

export async function listContributors(ctx: Context, cr: ChangeRequest, args: PageArgs) {
  const edits = await ctx.prisma.revision.groupBy({
    by: ['createdById'],
    where: { spaceId: cr.spaceId, changeRequestId: cr.id, type: 'edits', createdById: { in: cr.contributors } },
    _count: { _all: true },
    _max: { createdAt: true },
  });
  const byUser = new Map(edits.map((e) => [e.createdById!, e]));
  const all: Contributor[] = cr.contributors
    .map((userId) => {
      const e = byUser.get(userId);
      return { userId, count: e?._count._all ?? 0, updatedAt: e?._max.createdAt ?? cr.createdAt };
    })
    .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || (a.userId < b.userId ? -1 : 1));
  return paginateArray(args, all);
}
