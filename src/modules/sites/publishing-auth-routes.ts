import type { RestRoute } from '../../rest/route.js';

/** REST routes of publishing auth (official 0.202.0 operations); the rules are in publishing-auth.ts. */

const SITE = '/orgs/:organizationId/sites/:siteId';
const ids = (req: { params: Record<string, string> }) => ({ organizationId: req.params.organizationId, siteId: req.params.siteId });

export const publishingAuthRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: `${SITE}/publishing/auth`,
    operationId: 'getSitePublishingAuthById',
    document: `query getSitePublishingAuthById($organizationId: ID!, $siteId: ID!) { site(organizationId: $organizationId, id: $siteId) { publishingAuth } }`,
    variables: ids,
    result: (data) => data.site.publishingAuth,
  },
  {
    method: 'PATCH',
    path: `${SITE}/publishing/auth`,
    operationId: 'updateSitePublishingAuthById',
    document: `mutation updateSitePublishingAuthById($organizationId: ID!, $siteId: ID!, $input: JSON!) { updateSitePublishingAuth(organizationId: $organizationId, siteId: $siteId, input: $input) }`,
    variables: (req) => ({ ...ids(req), input: req.body }),
    result: (data) => data.updateSitePublishingAuth,
  },
  {
    method: 'POST',
    path: `${SITE}/publishing/auth/regenerate`,
    operationId: 'regenerateSitePublishingAuthById',
    document: `mutation regenerateSitePublishingAuthById($organizationId: ID!, $siteId: ID!) { regenerateSitePublishingAuth(organizationId: $organizationId, siteId: $siteId) }`,
    variables: ids,
    result: (data) => data.regenerateSitePublishingAuth,
  },
];
