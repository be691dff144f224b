import { LIST_FIELDS, listVariables, type RestRequest, type RestRoute } from '../../rest/route.js';

export const SEARCH_PAGE_FIELDS = /* GraphQL */ `
fragment SearchPageFields on SearchPageResult {
  id title path sections { id title path body urls { app } } ancestors { title } urls { app }
}`;

// A missing `query` reaches the service as '' so both interfaces answer the same 400 naming it.
const search = (req: RestRequest) => ({ query: req.query.query ?? '', ...listVariables(req) });

export const searchRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/spaces/:spaceId/search',
    operationId: 'searchSpaceContent',
    document: `query searchSpaceContent($spaceId: ID!, $query: String!, $page: String, $limit: Int) {
      space(id: $spaceId) { search(query: $query, page: $page, limit: $limit) { items { ...SearchPageFields } ${LIST_FIELDS} } }
    } ${SEARCH_PAGE_FIELDS}`,
    variables: (req) => ({ spaceId: req.params.spaceId, ...search(req) }),
    result: (data) => data.space.search,
  },
  {
    method: 'GET',
    path: '/orgs/:organizationId/search',
    operationId: 'searchOrganizationContent',
    document: `query searchOrganizationContent($organizationId: ID!, $query: String!, $page: String, $limit: Int) {
      organization(id: $organizationId) { search(query: $query, page: $page, limit: $limit) { items { id title pages { ...SearchPageFields } } ${LIST_FIELDS} } }
    } ${SEARCH_PAGE_FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, ...search(req) }),
    result: (data) => data.organization.search,
  },
];
