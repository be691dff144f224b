import { boolParam, deletedStatus, LIST_FIELDS, listVariables, type RestRoute } from '../../rest/route.js';

export const COLLECTION_FIELDS = /* GraphQL */ `
fragment CollectionFields on Collection {
  object id title description organization parent defaultLevel urls { location app } permissions { view admin viewInviteLinks create }
}`;

const id = (req: { params: Record<string, string> }) => ({ id: req.params.collectionId });

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
  {
    method: 'PATCH',
    path: '/collections/:collectionId',
    operationId: 'updateCollectionById',
    document: `mutation UpdateCollection($id: ID!, $input: UpdateCollectionInput!) { updateCollection(id: $id, input: $input) { ...CollectionFields } } ${COLLECTION_FIELDS}`,
    variables: (req) => ({ ...id(req), input: req.body }),
    result: (data) => data.updateCollection,
  },
  {
    method: 'DELETE',
    path: '/collections/:collectionId',
    operationId: 'deleteCollectionById',
    document: `mutation DeleteCollection($id: ID!) { deleteCollection(id: $id) }`,
    variables: id,
    result: () => undefined,
    status: (data) => deletedStatus(data.deleteCollection),
  },
  {
    method: 'POST',
    path: '/collections/:collectionId/move',
    operationId: 'moveCollection',
    document: `mutation MoveCollection($id: ID!, $input: MoveCollectionInput!) { moveCollection(id: $id, input: $input) { ...CollectionFields } } ${COLLECTION_FIELDS}`,
    variables: (req) => ({ ...id(req), input: req.body }),
    result: (data) => data.moveCollection,
  },
  {
    method: 'POST',
    path: '/collections/:collectionId/transfer',
    operationId: 'transferCollection',
    document: `mutation TransferCollection($id: ID!, $input: TransferCollectionInput!) { transferCollection(id: $id, input: $input) { ...CollectionFields } } ${COLLECTION_FIELDS}`,
    variables: (req) => ({ ...id(req), input: req.body }),
    result: (data) => data.transferCollection,
  },
];
