import { badRequest } from '../../errors.js';
import { boolParam, deletedStatus, LIST_FIELDS, listVariables, type RestRequest, type RestRoute } from '../../rest/route.js';
import { USER_FIELDS } from '../users/index.js';
import { COMMENT_FIELDS } from '../comments/index.js';

/** A review; its comment's body follows `$format` (`format=document` answers `{ document }`). */
const REVIEW_FIELDS = /* GraphQL */ `
fragment ReviewFields on ChangeRequestReview {
  object id revision reviewer { ...UserFields } requestedBy { ...UserFields } status outdated comment { ...CommentFields }
  createdAt updatedAt urls { location }
}
${COMMENT_FIELDS}`;

const REQUESTED_REVIEWER_FIELDS = /* GraphQL */ `
fragment RequestedReviewerFields on ChangeRequestRequestedReviewer { object kind user { ...UserFields } revision requestedBy { ...UserFields } createdAt }`;

const BASE = '/spaces/:spaceId/change-requests/:changeRequestId';
const cr = (req: RestRequest) => ({ spaceId: req.params.spaceId, changeRequestId: req.params.changeRequestId });
const format = (req: RestRequest) => ({ format: req.query.format || undefined });
const inCr = (inner: string) => `space(id: $spaceId) { changeRequest(id: $changeRequestId) { ${inner} } }`;

export const reviewRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: `${BASE}/requested-reviewers`,
    operationId: 'getRequestedReviewersByChangeRequestId',
    document: `query RequestedReviewers($spaceId: ID!, $changeRequestId: String!, $page: String, $limit: Int) {
      ${inCr(`requestedReviewerList(page: $page, limit: $limit) { items { ...RequestedReviewerFields } ${LIST_FIELDS} }`)}
    } ${REQUESTED_REVIEWER_FIELDS} ${USER_FIELDS}`,
    variables: (req) => ({ ...cr(req), ...listVariables(req) }),
    result: (data) => data.space.changeRequest.requestedReviewerList,
  },
  {
    method: 'POST',
    path: `${BASE}/requested-reviewers`,
    operationId: 'requestReviewersForChangeRequest',
    document: `mutation RequestReviewers($spaceId: ID!, $changeRequestId: String!, $input: RequestReviewersInput!) {
      requestChangeRequestReviewers(spaceId: $spaceId, changeRequestId: $changeRequestId, input: $input) { users { ...RequestedReviewerFields } }
    } ${REQUESTED_REVIEWER_FIELDS} ${USER_FIELDS}`,
    variables: (req) => {
      // GraphQL would take a lone string for a list.
      if (req.body.users != null && !Array.isArray(req.body.users)) throw badRequest('users', 'must be an array of user ids');
      return { ...cr(req), input: req.body };
    },
    result: (data) => data.requestChangeRequestReviewers,
  },
  {
    method: 'DELETE',
    path: `${BASE}/requested-reviewers/:userId`,
    operationId: 'removeRequestedReviewerFromChangeRequest',
    document: `mutation RemoveReviewer($spaceId: ID!, $changeRequestId: String!, $userId: String!) {
      removeChangeRequestReviewer(spaceId: $spaceId, changeRequestId: $changeRequestId, userId: $userId)
    }`,
    variables: (req) => ({ ...cr(req), userId: req.params.userId }),
    result: () => undefined,
    status: (data) => deletedStatus(data.removeChangeRequestReviewer),
  },
  {
    method: 'GET',
    path: `${BASE}/reviews`,
    operationId: 'getReviewsByChangeRequestId',
    document: `query Reviews($spaceId: ID!, $changeRequestId: String!, $format: ContentFormat, $outdated: Boolean, $page: String, $limit: Int) {
      ${inCr(`reviewList(page: $page, limit: $limit, outdated: $outdated) { items { ...ReviewFields } ${LIST_FIELDS} }`)}
    } ${REVIEW_FIELDS} ${USER_FIELDS}`,
    variables: (req) => ({ ...cr(req), ...format(req), ...listVariables(req), outdated: boolParam(req.query, 'outdated') }),
    result: (data) => data.space.changeRequest.reviewList,
  },
  {
    method: 'POST',
    path: `${BASE}/reviews`,
    operationId: 'submitChangeRequestReview',
    document: `mutation SubmitReview($spaceId: ID!, $changeRequestId: String!, $input: SubmitChangeRequestReviewInput!, $format: ContentFormat) {
      submitChangeRequestReview(spaceId: $spaceId, changeRequestId: $changeRequestId, input: $input) { ...ReviewFields }
    } ${REVIEW_FIELDS} ${USER_FIELDS}`,
    variables: (req) => ({ ...cr(req), ...format(req), input: req.body }),
    result: (data) => data.submitChangeRequestReview,
    status: 201,
  },
  {
    method: 'GET',
    path: `${BASE}/reviews/:reviewId`,
    operationId: 'getChangeRequestReviewById',
    document: `query Review($spaceId: ID!, $changeRequestId: String!, $reviewId: ID!, $format: ContentFormat) {
      ${inCr('review(id: $reviewId) { ...ReviewFields }')}
    } ${REVIEW_FIELDS} ${USER_FIELDS}`,
    variables: (req) => ({ ...cr(req), ...format(req), reviewId: req.params.reviewId }),
    result: (data) => data.space.changeRequest.review,
  },
  {
    method: 'GET',
    path: `${BASE}/contributors`,
    operationId: 'getContributorsByChangeRequestId',
    document: `query Contributors($spaceId: ID!, $changeRequestId: String!, $page: String, $limit: Int) {
      ${inCr(`contributorList(page: $page, limit: $limit) { items { user { ...UserFields } count updatedAt actionType } ${LIST_FIELDS} }`)}
    } ${USER_FIELDS}`,
    variables: (req) => ({ ...cr(req), ...listVariables(req) }),
    result: (data) => data.space.changeRequest.contributorList,
  },
];
