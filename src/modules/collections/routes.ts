import { boolParam, deletedStatus, LIST_FIELDS, listVariables, objectMutationRoute, type RestRoute } from '../../rest/route.js';

export const COLLECTION_FIELDS = /* GraphQL */ `
fragment CollectionFields on Collection {
  object id title description organization parent defaultLevel urls { location app } permissions { view admin viewInviteLinks create }
}`;

const id = (req: { params: Record<string, string> }) => ({ id: req.params.collectionId });

const collectionMutation = (method: RestRoute['method'], path: string, operationId: string, field: string, input: string) =>
  objectMutationRoute({ method, path, operationId, field, input, idParam: 'collectionId', fragment: COLLECTION_FIELDS });

export const collectionRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/orgs/:organizationId/collections',
    operationId: 'listCollectionsInOrganizationById',
    document: `query OrgCollections($organizationId: ID!, $page: String, $limit: Int, $nested: Boolean) {
      organization(id: $organizationId) { collections(page: $page, limit: $limit, nested: $nested) { items { ...CollectionFields } ${LIST_FIELDS} } }
    } ${COLLECTION_FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, ...listVariables(req), nested: boolParam(req.query, 'nested') }),
    result: (data) => data.organization.collections,
  },
  {
    method: 'POST',
    path: '/orgs/:organizationId/collections',
    operationId: 'createCollection',
    document: `mutation CreateCollection($organizationId: ID!, $input: CreateCollectionInput) { createCollection(organizationId: $organizationId, input: $input) { ...CollectionFields } } ${COLLECTION_FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, input: req.body }),
    result: (data) => data.createCollection,
    status: 201,
  },
  {
    method: 'GET',
    path: '/collections/:collectionId',
    operationId: 'getCollectionById',
    document: `query Collection($id: ID!) { collection(id: $id) { ...CollectionFields } } ${COLLECTION_FIELDS}`,
    variables: id,
    result: (data) => data.collection,
  },
  collectionMutation('PATCH', '/collections/:collectionId', 'updateCollectionById', 'updateCollection', 'UpdateCollectionInput'),
  {
    method: 'DELETE',
    path: '/collections/:collectionId',
    operationId: 'deleteCollectionById',
    document: `mutation DeleteCollection($id: ID!) { deleteCollection(id: $id) }`,
    variables: id,
    result: () => undefined,
    status: (data) => deletedStatus(data.deleteCollection),
  },
  collectionMutation('POST', '/collections/:collectionId/move', 'moveCollection', 'moveCollection', 'MoveCollectionInput'),
  collectionMutation('POST', '/collections/:collectionId/transfer', 'transferCollection', 'transferCollection', 'TransferCollectionInput'),
];
