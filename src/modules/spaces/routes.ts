import type { Mutation, Query } from '../../generated/schema-types.js';
import { MERGE_RULES_SELECTION, restMergeRulesBody } from '../orgs/index.js';
import { STORED_GIT_SYNC_SELECTION, VISITOR_AUTH_SELECTION } from './git-sync-state.js';
import { spaceCountsStatement } from './loaders.js';
import { deletedStatus, LIST_FIELDS, listVariables, objectMutationRoute, type RestRoute } from '../../rest/route.js';

export const SPACE_FIELDS = /* GraphQL */ `
fragment SpaceFields on Space {
  object id title emoji visibility createdAt updatedAt deletedAt editMode mergeRules ${MERGE_RULES_SELECTION}
  urls { location app published public icon } organization parent language gitSync ${STORED_GIT_SYNC_SELECTION} visitorAuth ${VISITOR_AUTH_SELECTION} revision defaultLevel
  comments changeRequests changeRequestsOpen changeRequestsDraft
  permissions { view access admin viewInviteLinks edit triggerGitSync comment merge review installIntegration }
}`;

const id = (req: { params: Record<string, string> }) => ({ id: req.params.spaceId });

/** A mutation on one space answering the space. */
const spaceMutation = (path: string, operationId: string, field: string, input?: string, status?: number) =>
  objectMutationRoute({
    method: path.endsWith(':spaceId') ? 'PATCH' : 'POST',
    path,
    operationId,
    field,
    input,
    status,
    idParam: 'spaceId',
    fragment: SPACE_FIELDS,
  });

export const spaceRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/orgs/:organizationId/spaces',
    operationId: 'listSpacesInOrganizationById',
    document: `query OrgSpaces($organizationId: ID!, $page: String, $limit: Int) {
      organization(id: $organizationId) { spaces(page: $page, limit: $limit) { items { ...SpaceFields } ${LIST_FIELDS} } }
    } ${SPACE_FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, ...listVariables(req) }),
    result: (data: Pick<Query, 'organization'>) => data.organization.spaces,
  },
  {
    method: 'POST',
    path: '/orgs/:organizationId/spaces',
    operationId: 'createSpace',
    document: `mutation CreateSpace($organizationId: ID!, $input: CreateSpaceInput) { createSpace(organizationId: $organizationId, input: $input) { ...SpaceFields } } ${SPACE_FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, input: req.body }),
    result: (data) => data.createSpace,
    status: 201,
  },
  {
    method: 'GET',
    path: '/collections/:collectionId/spaces',
    operationId: 'listSpacesInCollectionById',
    document: `query CollectionSpaces($id: ID!, $page: String, $limit: Int) {
      collection(id: $id) { spaces(page: $page, limit: $limit) { items { ...SpaceFields } ${LIST_FIELDS} } }
    } ${SPACE_FIELDS}`,
    variables: (req) => ({ id: req.params.collectionId, ...listVariables(req) }),
    result: (data) => data.collection.spaces,
  },
  {
    method: 'GET',
    path: '/spaces/:spaceId',
    operationId: 'getSpaceById',
    document: `query Space($id: ID!) { space(id: $id) { ...SpaceFields } } ${SPACE_FIELDS}`,
    variables: id,
    // The space's counts ride on the authentication statement, which reads the space's access rows.
    early: (v) => spaceCountsStatement([String(v.id)]),
    earlyRides: true,
    result: (data: Pick<Query, 'space'>) => data.space,
  },
  {
    ...spaceMutation('/spaces/:spaceId', 'updateSpaceById', 'updateSpace', 'UpdateSpaceInput'),
    variables: (req) => ({ id: req.params.spaceId, input: restMergeRulesBody(req.body, { allowInherit: true }) }),
  },
  {
    method: 'DELETE',
    path: '/spaces/:spaceId',
    operationId: 'deleteSpaceById',
    document: `mutation DeleteSpace($id: ID!) { deleteSpace(id: $id) }`,
    variables: id,
    result: () => undefined,
    status: (data: Pick<Mutation, 'deleteSpace'>) => deletedStatus(data.deleteSpace),
  },
  spaceMutation('/spaces/:spaceId/duplicate', 'duplicateSpace', 'duplicateSpace', undefined, 201),
  spaceMutation('/spaces/:spaceId/restore', 'restoreSpace', 'restoreSpace'),
  spaceMutation('/spaces/:spaceId/move', 'moveSpace', 'moveSpace', 'MoveSpaceInput'),
  spaceMutation('/spaces/:spaceId/transfer', 'transferSpace', 'transferSpace', 'TransferSpaceInput'),
];
