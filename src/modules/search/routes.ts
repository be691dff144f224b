import { readPageArgs, type PageArgs } from '../../pagination.js';
import { LIST_FIELDS, listVariables, type RestRequest, type RestRoute } from '../../rest/route.js';
import { readQuery, spaceSearchSql } from './service.js';

export const SEARCH_PAGE_FIELDS = /* GraphQL */ `
fragment SearchPageFields on SearchPageResult {
  id title description path score rank sections { id title path score body urls { app } } ancestors { title } urls { app }
}`;

// A missing `query` reaches the service as '' so both interfaces answer the same 400 naming it.
const search = (req: RestRequest) => ({ query: req.query.query ?? '', ...listVariables(req) });

export const searchRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/spaces/:spaceId/search',
    operationId: 'searchSpaceContent',
    // The root field rather than space(id) { search }: the access check and the search statement run together.
    document: `query searchSpaceContent($spaceId: ID!, $query: String!, $page: String, $limit: Int) {
      spaceSearch(spaceId: $spaceId, query: $query, page: $page, limit: $limit) { items { ...SearchPageFields } ${LIST_FIELDS} }
    } ${SEARCH_PAGE_FIELDS}`,
    variables: (req) => ({ spaceId: req.params.spaceId, ...search(req) }),
    // The search statement is begun while the token is checked (src/db/early-reads.ts): the one the
    // service sends for these variables (searchSpaceById), so a search waits for one round trip, not two.
    early: (v) => {
      const { offset, limit } = readPageArgs(v as PageArgs);
      return spaceSearchSql(v.spaceId as string, readQuery(v.query as string), offset, limit);
    },
    result: (data) => data.spaceSearch,
  },
  {
    method: 'GET',
    path: '/orgs/:organizationId/search',
    operationId: 'searchOrganizationContent',
    document: `query searchOrganizationContent($organizationId: ID!, $query: String!, $page: String, $limit: Int) {
      organization(id: $organizationId) { search(query: $query, page: $page, limit: $limit) { items { id title score pages { ...SearchPageFields } } ${LIST_FIELDS} } }
    } ${SEARCH_PAGE_FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, ...search(req) }),
    // `type` tells a space result from others in GitBook's union (GraphQL has the type name).
    result: (data) => ({
      ...data.organization.search,
      items: data.organization.search.items.map((item: object) => ({ type: 'space', ...item })),
    }),
  },
];
