import type { RestRoute } from '../../rest/route.js';

/** REST routes of site insights (official trackEventsInSiteById, aggregateSiteEvents); the rules are in insights.ts. */

const SITE = '/orgs/:organizationId/sites/:siteId';

export const insightsRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: `${SITE}/insights/events`,
    operationId: 'trackEventsInSiteById',
    document: `mutation trackEventsInSiteById($organizationId: ID!, $siteId: ID!, $input: JSON!) { trackSiteEvents(organizationId: $organizationId, siteId: $siteId, input: $input) }`,
    variables: (req) => ({ organizationId: req.params.organizationId, siteId: req.params.siteId, input: req.body }),
    result: () => undefined,
    status: 204,
  },
  {
    method: 'POST',
    path: `${SITE}/insights/events/aggregate`,
    operationId: 'aggregateSiteEvents',
    document: `query aggregateSiteEvents($organizationId: ID!, $siteId: ID!, $query: JSON!) { site(organizationId: $organizationId, id: $siteId) { insights(query: $query) } }`,
    variables: (req) => ({ organizationId: req.params.organizationId, siteId: req.params.siteId, query: req.body }),
    result: (data) => data.site.insights,
    status: 200,
  },
];
