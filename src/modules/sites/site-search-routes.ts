import { badRequest } from '../../errors.js';
import { LIST_FIELDS, listVariables, type RestRoute } from '../../rest/route.js';

/** REST route of the site search (official searchSiteContent); the rules are in site-search.ts. */

const PAGE_FIELDS =
  'id title description path score rank sections { id title path score body urls { app } } ancestors { title } urls { app }';

export const siteSearchRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/orgs/:organizationId/sites/:siteId/search',
    operationId: 'searchSiteContent',
    document: `query searchSiteContent($organizationId: ID!, $siteId: ID!, $query: String!, $scope: SiteSearchScopeInput, $mode: SiteSearchLegacyMode, $siteSpaceId: String, $siteSpaceIds: [String!], $page: String, $limit: Int) {
      site(organizationId: $organizationId, id: $siteId) {
        search(query: $query, scope: $scope, mode: $mode, siteSpaceId: $siteSpaceId, siteSpaceIds: $siteSpaceIds, page: $page, limit: $limit) {
          items { id title score pages { ${PAGE_FIELDS} } } ${LIST_FIELDS}
        }
      }
    }`,
    variables: (req) => {
      const { query, scope, mode, siteSpaceId, siteSpaceIds } = req.body;
      // A missing query reaches the service as '' so both interfaces answer the same 400 naming it.
      if (query != null && typeof query !== 'string') throw badRequest('query', 'must be a string');
      return {
        organizationId: req.params.organizationId,
        siteId: req.params.siteId,
        query: query ?? '',
        scope,
        mode,
        siteSpaceId,
        siteSpaceIds,
        ...listVariables(req),
      };
    },
    // `type` tells a space result from the official union's other member (context records, which Lectern has none of).
    result: (data) => ({ ...data.site.search, items: data.site.search.items.map((item: object) => ({ type: 'space', ...item })) }),
  },
];
