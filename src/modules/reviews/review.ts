import { FREE_DOC } from '../../graphql/free-form.js';
import type { ArgBuilder, SchemaTypes } from '@pothos/core';
import { builder } from '../../graphql/builder.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import type { Context } from '../../context.js';
import type { RequestedReviewer } from '../../generated/prisma/client.js';
import { UserType, userLoaders } from '../users/index.js';
import { ChangeRequestType, reviewId } from '../change-requests/index.js';
import { CommentType } from '../comments/index.js';
import { reviewLoaders } from './loaders.js';
import {
  getReview,
  isOutdated,
  listContributors,
  listRequestedReviewers,
  listReviews,
  removeRequestedReviewer,
  requestReviewers,
  submitReview,
  type Contributor,
  type Review,
} from './service.js';

async function userOf(ctx: Context, id: string) {
  const user = await userLoaders(ctx).user.load(id);
  // Users are never deleted: a reviewer, requester or contributor always exists.
  if (!user) throw new Error(`user ${id} not found`);
  return user;
}

const ReviewUrls = builder
  .objectRef<{ location: string }>('ChangeRequestReviewUrls')
  .implement({ fields: (t) => ({ location: t.exposeString('location') }) });

export const ChangeRequestReviewType = builder.objectRef<Review>('ChangeRequestReview').implement({
  description: "One reviewer's review of a change request (one per reviewer; a new submission replaces it)",
  fields: (t) => ({
    object: t.string({ resolve: () => 'change-request-review' }),
    id: t.id({ resolve: ({ review }) => reviewId(review.changeRequestId, review.userId) }),
    revision: t.string({ description: 'The revision reviewed', resolve: ({ review }) => review.revisionId }),
    reviewer: t.field({ type: UserType, resolve: ({ review }, _a, ctx) => userOf(ctx, review.userId) }),
    requestedBy: t.field({
      type: UserType,
      nullable: true,
      description: "Who had requested the reviewer's review when it was submitted (absent: not requested)",
      resolve: ({ review }, _a, ctx) => (review.requestedById ? userOf(ctx, review.requestedById) : null),
    }),
    status: t.string({ description: 'approved or changes-requested', resolve: ({ review }) => review.status }),
    outdated: t.boolean({
      description: 'True once the change request moved past the reviewed revision, or the reviewer was requested again',
      resolve: async ({ review, changeRequest }, _a, ctx) =>
        isOutdated(
          review,
          changeRequest,
          (await reviewLoaders(ctx).requests.load(changeRequest.id)).find((r) => r.userId === review.userId),
        ),
    }),
    comment: t.field({
      type: CommentType,
      nullable: true,
      description: 'The comment submitted with the review (a comment of the change request)',
      resolve: ({ review }, _a, ctx) => (review.commentId ? reviewLoaders(ctx).comment.load(review.commentId) : null),
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: "The reviewer's first review of the change request",
      resolve: ({ review }) => review.createdAt,
    }),
    updatedAt: t.field({ type: 'DateTime', description: 'The latest submission', resolve: ({ review }) => review.updatedAt }),
    urls: t.field({
      type: ReviewUrls,
      resolve: ({ review, changeRequest: cr }, _a, ctx) => ({
        location: `${ctx.urls.changeRequest(cr.spaceId, cr.id, cr.number).location}/reviews/${reviewId(review.changeRequestId, review.userId)}`,
      }),
    }),
  }),
});

export const RequestedReviewerType = builder.objectRef<RequestedReviewer>('ChangeRequestRequestedReviewer').implement({
  description: 'A user asked to review a change request',
  fields: (t) => ({
    object: t.string({ resolve: () => 'change-request-requested-reviewer' }),
    kind: t.string({ description: 'Always user (requests name users)', resolve: () => 'user' }),
    user: t.field({ type: UserType, resolve: (r, _a, ctx) => userOf(ctx, r.userId) }),
    revision: t.string({ description: "The change request's head when the review was requested", resolve: (r) => r.revisionId }),
    requestedBy: t.field({ type: UserType, resolve: (r, _a, ctx) => userOf(ctx, r.requestedById) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const ContributorType = builder.objectRef<Contributor>('ChangeRequestContributor').implement({
  description: "A user who edited a change request's content",
  fields: (t) => ({
    user: t.field({ type: UserType, resolve: (c, _a, ctx) => userOf(ctx, c.userId) }),
    count: t.exposeInt('count', { description: 'Their edits (revisions) of the change request' }),
    updatedAt: t.field({
      type: 'DateTime',
      description: 'Their latest edit (the creation for an author yet to edit)',
      resolve: (c) => c.updatedAt,
    }),
    actionType: t.string({ description: 'Always edit: commenters have their own list', resolve: () => 'edit' }),
  }),
});

const ReviewList = listOf('ChangeRequestReview', ChangeRequestReviewType);
const RequestedReviewerList = listOf('ChangeRequestRequestedReviewer', RequestedReviewerType);
const ContributorList = listOf('ChangeRequestContributor', ContributorType);

builder.objectFields(ChangeRequestType, (t) => ({
  reviewList: t.field({
    type: ReviewList,
    description: 'Reviews, latest submission first',
    args: { ...pageArgs(t), outdated: t.arg.boolean({ required: false, description: 'Only outdated (true) or current (false) reviews' }) },
    resolve: (cr, args, ctx) => listReviews(ctx, cr, args),
  }),
  review: t.field({
    type: ChangeRequestReviewType,
    args: { id: t.arg.id({ required: true }) },
    resolve: (cr, { id }, ctx) => getReview(ctx, cr, String(id)),
  }),
  requestedReviewerList: t.field({
    type: RequestedReviewerList,
    description: 'Users asked to review, in the order they were (last) asked',
    args: pageArgs(t),
    resolve: (cr, args, ctx) => listRequestedReviewers(ctx, cr, args),
  }),
  contributorList: t.field({
    type: ContributorList,
    description: 'Users who edited the content, latest edit first',
    args: pageArgs(t),
    resolve: (cr, args, ctx) => listContributors(ctx, cr, args),
  }),
}));

const RequestReviewersResult = builder.objectRef<{ users: RequestedReviewer[] }>('RequestReviewersResult').implement({
  fields: (t) => ({
    users: t.field({ type: [RequestedReviewerType], description: 'The requests made (or refreshed)', resolve: (r) => r.users }),
  }),
});

const RequestReviewersInput = builder.inputType('RequestReviewersInput', {
  fields: (t) => ({
    users: t.stringList({ description: 'Ids of the users asked to review (members with the review role on the space)' }),
    subject: t.string({ description: "Also sets the change request's subject" }),
    description: t.field({ type: 'JSON', description: `${FREE_DOC}Also sets the change request's description` }),
  }),
});
const ReviewCommentInput = builder.inputType('ReviewCommentInput', {
  description: '`{ markdown }` or `{ document }`; `{}` is no comment',
  fields: (t) => ({ markdown: t.string(), document: t.field({ type: 'JSON', description: `${FREE_DOC}The comment` }) }),
});
const SubmitReviewInput = builder.inputType('SubmitChangeRequestReviewInput', {
  fields: (t) => ({
    status: t.string({ description: 'approved or changes-requested (required)' }),
    comment: t.field({ type: ReviewCommentInput, description: 'Posted as a comment of the change request' }),
  }),
});

const crArgs = <T extends SchemaTypes>(t: { arg: ArgBuilder<T> }) => ({
  spaceId: t.arg.id({ required: true }),
  changeRequestId: t.arg.string({ required: true, description: 'Id or number' }),
});

builder.mutationFields((t) => ({
  requestChangeRequestReviewers: t.field({
    type: RequestReviewersResult,
    args: { ...crArgs(t), input: t.arg({ type: RequestReviewersInput, required: true }) },
    resolve: (_r, a, ctx) => requestReviewers(ctx, String(a.spaceId), a.changeRequestId, a.input),
  }),
  removeChangeRequestReviewer: t.boolean({
    description: 'Withdraws a review request; false when the member was not requested, NOT_FOUND for someone who is no member',
    args: { ...crArgs(t), userId: t.arg.string({ required: true }) },
    resolve: (_r, a, ctx) => removeRequestedReviewer(ctx, String(a.spaceId), a.changeRequestId, a.userId),
  }),
  submitChangeRequestReview: t.field({
    type: ChangeRequestReviewType,
    args: { ...crArgs(t), input: t.arg({ type: SubmitReviewInput, required: true }) },
    resolve: async (_r, a, ctx) => submitReview(ctx, String(a.spaceId), a.changeRequestId, a.input),
  }),
}));
