import type { RestRoute } from '../../rest/route.js';

/**
 * REST route of sortSiteStructure (official 0.202.0); the rules are in structure-sort.ts. routes.ts
 * passes its group fragment and `restGroup` (the nesting of a group's REST shape) in.
 */
export const structureSortRoute = (groupFields: string, restGroup: (group: any) => unknown): RestRoute => ({
  method: 'PATCH',
  path: '/orgs/:organizationId/sites/:siteId/structure/sort',
  operationId: 'sortSiteStructure',
  document: `mutation sortSiteStructure($organizationId: ID!, $siteId: ID!, $input: SortSiteStructureInput!) {
    sortSiteStructure(organizationId: $organizationId, siteId: $siteId, input: $input) {
      __typename ... on SiteSpace { ...SiteSpaceFields } ... on SiteSection { ...SiteSectionFields } ... on SiteSectionGroup { ...SiteSectionGroupFields } ... on SiteExternalLink { ...SiteExternalLinkFields }
    }
  } ${groupFields}`,
  variables: (req) => ({ organizationId: req.params.organizationId, siteId: req.params.siteId, input: req.body }),
  result: (data) => {
    const { __typename, ...item } = data.sortSiteStructure;
    return __typename === 'SiteSectionGroup' ? restGroup(item) : item;
  },
});
