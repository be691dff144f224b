import { badRequest } from '../../errors.js';
import { boolParam, LIST_FIELDS, listVariables, type RestRequest, type RestRoute } from '../../rest/route.js';
import { restBodyValue } from '../../rest/typed-body.js';
import { checkComputedSource } from '../content/index.js';
import { USER_FIELDS } from '../users/index.js';

export const CHANGE_REQUEST_FIELDS = /* GraphQL */ `
fragment ChangeRequestFields on ChangeRequest {
  object id number status subject description createdBy { ...UserFields } createdAt updatedAt space revision
  revisionInitial revisionMergedAncestor revisionMerged comments outdated conversationsIssuesCluster urls { app location }
}
${USER_FIELDS}`;

/** What a content write did, in the official ChangeRequestContentUpdate's shape. */
const WRITE_OUTCOME_FIELDS = 'changes { object ref page location } insertedFiles { id name contentType downloadURL size }';
function writeOutcome(written: { changes: { object: string; ref?: string; page: string; location: string }[]; insertedFiles: unknown[] }) {
  return {
    changes: written.changes.map((c) =>
      c.object === 'deleted_page'
        ? { object: c.object, page: c.page }
        : { object: c.object, ...(c.ref ? { ref: c.ref } : {}), page: { object: 'page', id: c.page, urls: { location: c.location } } },
    ),
    insertedFiles: written.insertedFiles,
  };
}

/**
 * A content batch's body as the typed input takes it: a computed page's source the input type
 * cannot hold is refused with the source check's own 400 (src/rest/typed-body.ts).
 */
function contentChanges(body: RestRequest['body']) {
  if (!Array.isArray(body.changes)) return body;
  const changes = body.changes.map((change: unknown, i: number) => {
    if (typeof change !== 'object' || change === null || !('computed' in change)) return change;
    const at = `changes[${i}].computed`;
    return { ...change, computed: restBodyValue(change.computed, 'ComputedContentSourceInput', (v) => checkComputedSource(v, at)) };
  });
  return { ...body, changes };
}

const cr = (req: RestRequest) => ({ spaceId: req.params.spaceId, changeRequestId: req.params.changeRequestId });
const filters = (req: RestRequest) => ({
  ...listVariables(req),
  status: req.query.status || undefined,
  creator: req.query.creator || undefined,
  contributor: req.query.contributor || undefined,
  requestedReviewer: req.query.requestedReviewer || undefined,
  conversationsIssuesCluster: req.query.conversationsIssuesCluster || undefined,
});
const FILTER_VARS =
  '$page: String, $limit: Int, $status: String, $creator: String, $contributor: String, $requestedReviewer: String, $conversationsIssuesCluster: String';
const FILTER_ARGS =
  'page: $page, limit: $limit, status: $status, creator: $creator, contributor: $contributor, requestedReviewer: $requestedReviewer, conversationsIssuesCluster: $conversationsIssuesCluster';

export const changeRequestRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/spaces/:spaceId/change-requests',
    operationId: 'listChangeRequestsForSpace',
    document: `query SpaceChangeRequests($spaceId: ID!, ${FILTER_VARS}) { space(id: $spaceId) { changeRequestList(${FILTER_ARGS}) { items { ...ChangeRequestFields } ${LIST_FIELDS} } } } ${CHANGE_REQUEST_FIELDS}`,
    variables: (req) => ({ spaceId: req.params.spaceId, ...filters(req) }),
    result: (data) => data.space.changeRequestList,
  },
  {
    method: 'GET',
    path: '/orgs/:organizationId/change-requests',
    operationId: 'listChangeRequestsForOrganization',
    document: `query OrgChangeRequests($organizationId: ID!, ${FILTER_VARS}) { organization(id: $organizationId) { changeRequestList(${FILTER_ARGS}) { items { ...ChangeRequestFields } ${LIST_FIELDS} } } } ${CHANGE_REQUEST_FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, ...filters(req) }),
    result: (data) => data.organization.changeRequestList,
  },
  {
    method: 'POST',
    path: '/spaces/:spaceId/change-requests',
    operationId: 'createChangeRequest',
    document: `mutation CreateChangeRequest($spaceId: ID!, $input: CreateChangeRequestInput) { createChangeRequest(spaceId: $spaceId, input: $input) { ...ChangeRequestFields } } ${CHANGE_REQUEST_FIELDS}`,
    // The seed allows free additional properties (e.g. a template): only `subject` is read.
    variables: (req) => ({ spaceId: req.params.spaceId, input: { subject: req.body.subject } }),
    result: (data) => data.createChangeRequest,
    status: 201,
  },
  {
    method: 'GET',
    path: '/spaces/:spaceId/change-requests/:changeRequestId',
    operationId: 'getChangeRequestById',
    document: `query ChangeRequest($spaceId: ID!, $changeRequestId: String!) { space(id: $spaceId) { changeRequest(id: $changeRequestId) { ...ChangeRequestFields } } } ${CHANGE_REQUEST_FIELDS}`,
    variables: cr,
    result: (data) => data.space.changeRequest,
  },
  {
    method: 'PATCH',
    path: '/spaces/:spaceId/change-requests/:changeRequestId',
    operationId: 'updateChangeRequestById',
    document: `mutation UpdateChangeRequest($spaceId: ID!, $changeRequestId: String!, $input: UpdateChangeRequestInput!) {
      updateChangeRequest(spaceId: $spaceId, changeRequestId: $changeRequestId, input: $input) { ...ChangeRequestFields }
    } ${CHANGE_REQUEST_FIELDS}`,
    variables: (req) => ({ ...cr(req), input: req.body }),
    result: (data) => data.updateChangeRequest,
  },
  {
    method: 'POST',
    path: '/spaces/:spaceId/change-requests/:changeRequestId/merge',
    operationId: 'mergeChangeRequest',
    document: `mutation Merge($spaceId: ID!, $changeRequestId: String!) { mergeChangeRequest(spaceId: $spaceId, changeRequestId: $changeRequestId) { revision result } }`,
    variables: cr,
    result: (data) => data.mergeChangeRequest,
  },
  {
    method: 'POST',
    path: '/spaces/:spaceId/change-requests/:changeRequestId/update',
    operationId: 'updateChangeRequest',
    document: `mutation Update($spaceId: ID!, $changeRequestId: String!) { updateChangeRequestFromMain(spaceId: $spaceId, changeRequestId: $changeRequestId) { revision result } }`,
    variables: cr,
    result: (data) => data.updateChangeRequestFromMain,
  },
  {
    method: 'GET',
    path: '/spaces/:spaceId/change-requests/:changeRequestId/pdf',
    operationId: 'getChangeRequestPDF',
    // Asking for a PDF records an export (its random id is the URL's capability), hence a mutation.
    document: `mutation ChangeRequestPdf($spaceId: ID!, $changeRequestId: String!, $page: String) {
      exportChangeRequestPdf(spaceId: $spaceId, changeRequestId: $changeRequestId, page: $page) { url }
    }`,
    variables: (req) => {
      // `only=true` asks for one page: then `page` must name it.
      if (boolParam(req.query, 'only') && req.query.page === undefined) throw badRequest('page', 'is required when only is true');
      return { ...cr(req), page: req.query.page };
    },
    result: (data) => data.exportChangeRequestPdf,
  },
  {
    method: 'POST',
    path: '/spaces/:spaceId/change-requests/:changeRequestId/content',
    operationId: 'updateChangeRequestContent',
    // compat=true (the official default) answers the change request alone; compat=false adds what
    // happened to which pages and the inserted files (ChangeRequestContentUpdate).
    document: `mutation UpdateChangeRequestContent($spaceId: ID!, $changeRequestId: String!, $input: ContentChangesInput!, $compat: Boolean!) {
      writeChangeRequestContent(spaceId: $spaceId, changeRequestId: $changeRequestId, input: $input) {
        changeRequest { ...ChangeRequestFields } ${WRITE_OUTCOME_FIELDS.replace(/(changes|insertedFiles) \{/g, '$1 @skip(if: $compat) {')}
      }
    } ${CHANGE_REQUEST_FIELDS}`,
    variables: (req) => ({ ...cr(req), input: contentChanges(req.body), compat: boolParam(req.query, 'compat') ?? true }),
    result: (data) => {
      const written = data.writeChangeRequestContent;
      return written.changes ? { changeRequest: written.changeRequest, ...writeOutcome(written) } : written.changeRequest;
    },
  },
  {
    method: 'POST',
    path: '/spaces/:spaceId/content',
    operationId: 'lectern:writeSpaceContent',
    // The same request as updateChangeRequestContent, applied live to main: { revision, changes, insertedFiles }.
    document: `mutation WriteMain($spaceId: ID!, $input: ContentChangesInput!) { writeSpaceContent(spaceId: $spaceId, input: $input) { revision ${WRITE_OUTCOME_FIELDS} } }`,
    variables: (req) => ({ spaceId: req.params.spaceId, input: contentChanges(req.body) }),
    result: (data) => ({ revision: data.writeSpaceContent.revision, ...writeOutcome(data.writeSpaceContent) }),
  },
];
