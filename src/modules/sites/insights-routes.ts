import type { RestRequest, RestRoute } from '../../rest/route.js';
import { checkedAggregation, checkedEvents } from './insights.js';
import { AGGREGATION_SELECTION, aggregationInput, officialAggregation, trackInput } from './insights-types.js';

/** REST routes of site insights (official trackEventsInSiteById, aggregateSiteEvents); the rules are in insights.ts. */

const SITE = '/orgs/:organizationId/sites/:siteId';
const ids = (req: RestRequest) => ({ organizationId: req.params.organizationId, siteId: req.params.siteId });
// A body is checked by the service's own reading before it becomes GraphQL input, so a 400 names
// the body's field as it always did; then what Lectern reads of it is given on.

export const insightsRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: `${SITE}/insights/events`,
    operationId: 'trackEventsInSiteById',
    document: `mutation trackEventsInSiteById($organizationId: ID!, $siteId: ID!, $input: SiteInsightsTrackEventsInput!) {
      trackSiteEvents(organizationId: $organizationId, siteId: $siteId, input: $input)
    }`,
    variables: (req) => (checkedEvents(req.body), { ...ids(req), input: trackInput(req.body) }),
    result: () => undefined,
    status: 204,
  },
  {
    method: 'POST',
    path: `${SITE}/insights/events/aggregate`,
    operationId: 'aggregateSiteEvents',
    document: `query aggregateSiteEvents($organizationId: ID!, $siteId: ID!, $query: SiteInsightsQueryInput!) {
      site(organizationId: $organizationId, id: $siteId) { insights(query: $query) ${AGGREGATION_SELECTION} }
    }`,
    variables: (req) => (checkedAggregation(req.body), { ...ids(req), query: aggregationInput(req.body) }),
    result: (data) => officialAggregation(data.site.insights),
    status: 200,
  },
];
