import type { RestRoute } from '../../rest/route.js';

/** REST routes of publishing auth (official 0.202.0 operations); the rules are in publishing-auth.ts. */

const SITE = '/orgs/:organizationId/sites/:siteId';
const FIELDS = 'fragment SitePublishingAuthFields on SitePublishingAuth { object backend privateKey fallbackURL logoutURL }';
const ids = (req: { params: Record<string, string> }) => ({ organizationId: req.params.organizationId, siteId: req.params.siteId });

export const publishingAuthRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: `${SITE}/publishing/auth`,
    operationId: 'getSitePublishingAuthById',
    document: `query getSitePublishingAuthById($organizationId: ID!, $siteId: ID!) { site(organizationId: $organizationId, id: $siteId) { publishingAuth { ...SitePublishingAuthFields } } } ${FIELDS}`,
    variables: ids,
    result: (data) => data.site.publishingAuth,
  },
  {
    method: 'PATCH',
    path: `${SITE}/publishing/auth`,
    operationId: 'updateSitePublishingAuthById',
    document: `mutation updateSitePublishingAuthById($organizationId: ID!, $siteId: ID!, $input: SitePublishingAuthUpdateInput!) { updateSitePublishingAuth(organizationId: $organizationId, siteId: $siteId, input: $input) { ...SitePublishingAuthFields } } ${FIELDS}`,
    variables: (req) => ({ ...ids(req), input: req.body }),
    result: (data) => data.updateSitePublishingAuth,
  },
  {
    method: 'POST',
    path: `${SITE}/publishing/auth/regenerate`,
    operationId: 'regenerateSitePublishingAuthById',
    document: `mutation regenerateSitePublishingAuthById($organizationId: ID!, $siteId: ID!) { regenerateSitePublishingAuth(organizationId: $organizationId, siteId: $siteId) { ...SitePublishingAuthFields } } ${FIELDS}`,
    variables: ids,
    result: (data) => data.regenerateSitePublishingAuth,
  },
];
