import { boolParam, deletedStatus, intParam, LIST_FIELDS, type RestRequest, type RestRoute } from '../../rest/route.js';
import { badRequest } from '../../errors.js';
import { CUSTOMIZATION_FRAGMENT, OUTPUT_SHAPE, OVERRIDE_SHAPE, PUT_SHAPE, toGraphQL, toOfficialJson } from './customization-model.js';
import { checkedOverride, checkedSettings } from './customization-service.js';

/** REST routes of the renderer API: site customization, site-space overrides and redirects (official 0.202.0 operations). */

const SITE = '/orgs/:organizationId/sites/:siteId';
const ids = (req: RestRequest) => ({ organizationId: req.params.organizationId, siteId: req.params.siteId });
const DESTINATION = `destination {
  ... on SiteRedirectDestinationSiteSection { kind siteSectionId }
  ... on SiteRedirectDestinationSiteSpace { kind siteSpaceId }
  ... on SiteRedirectDestinationPage { kind siteSpaceId pageId }
  ... on SiteRedirectDestinationExternal { kind url }
}`;
const REDIRECT_FIELDS = `object id source draft captureWildcard permanent ${DESTINATION} createdAt updatedAt`;
const ORDER_BY = ['createdAt', 'updatedAt', 'source'];

// The deprecated `unmasked` query parameter of the customization reads changes nothing here (no
// setting is masked); it is accepted when it is a boolean, as documented.
const customizationRead = (req: RestRequest) => (boolParam(req.query, 'unmasked'), ids(req));
// A body is checked against the official schema before it becomes GraphQL input, so a 400 names
// the body's field in the official words (as the service would), then reshaped for the input types.
const settingsInput = (req: RestRequest) => toGraphQL(PUT_SHAPE, checkedSettings(req.body), true);
const overrideInput = (req: RestRequest) => toGraphQL(OVERRIDE_SHAPE, checkedOverride(req.body), true);
/** The official JSON of a selected customization (CUSTOMIZATION_FRAGMENT). */
export const officialCustomization = (value: unknown) => toOfficialJson(OUTPUT_SHAPE, value);

export const customizationRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: `${SITE}/customization`,
    operationId: 'getSiteCustomizationById',
    document: `query getSiteCustomizationById($organizationId: ID!, $siteId: ID!) {
      site(organizationId: $organizationId, id: $siteId) { customization { ...CustomizationFields } }
    } ${CUSTOMIZATION_FRAGMENT}`,
    variables: customizationRead,
    result: (data) => officialCustomization(data.site.customization),
  },
  {
    method: 'PUT',
    path: `${SITE}/customization`,
    operationId: 'updateSiteCustomizationById',
    document: `mutation updateSiteCustomizationById($organizationId: ID!, $siteId: ID!, $input: SiteCustomizationInput!) {
      updateSiteCustomization(organizationId: $organizationId, siteId: $siteId, input: $input) { ...CustomizationFields }
    } ${CUSTOMIZATION_FRAGMENT}`,
    variables: (req) => ({ ...ids(req), input: settingsInput(req) }),
    result: (data) => officialCustomization(data.updateSiteCustomization),
  },
  {
    method: 'GET',
    path: `${SITE}/site-spaces/:siteSpaceId/customization`,
    operationId: 'getSiteSpaceCustomizationById',
    document: `query getSiteSpaceCustomizationById($organizationId: ID!, $siteId: ID!, $siteSpaceId: ID!) {
      site(organizationId: $organizationId, id: $siteId) { customization(siteSpace: $siteSpaceId) { ...CustomizationFields } }
    } ${CUSTOMIZATION_FRAGMENT}`,
    variables: (req) => ({ ...customizationRead(req), siteSpaceId: req.params.siteSpaceId }),
    result: (data) => officialCustomization(data.site.customization),
  },
  {
    method: 'PATCH',
    path: `${SITE}/site-spaces/:siteSpaceId/customization`,
    operationId: 'overrideSiteSpaceCustomizationById',
    document: `mutation overrideSiteSpaceCustomizationById($organizationId: ID!, $siteId: ID!, $siteSpaceId: ID!, $input: SiteCustomizationOverrideInput!) {
      overrideSiteSpaceCustomization(organizationId: $organizationId, siteId: $siteId, siteSpaceId: $siteSpaceId, input: $input) {
        ...CustomizationFields
      }
    } ${CUSTOMIZATION_FRAGMENT}`,
    variables: (req) => ({ ...ids(req), siteSpaceId: req.params.siteSpaceId, input: overrideInput(req) }),
    result: (data) => officialCustomization(data.overrideSiteSpaceCustomization),
  },
  {
    method: 'DELETE',
    path: `${SITE}/site-spaces/:siteSpaceId/customization`,
    operationId: 'deleteSiteSpaceCustomizationById',
    document: `mutation deleteSiteSpaceCustomizationById($organizationId: ID!, $siteId: ID!, $siteSpaceId: ID!) {
      deleteSiteSpaceCustomization(organizationId: $organizationId, siteId: $siteId, siteSpaceId: $siteSpaceId)
    }`,
    variables: (req) => ({ ...ids(req), siteSpaceId: req.params.siteSpaceId }),
    result: () => undefined,
    status: (data) => deletedStatus(data.deleteSiteSpaceCustomization),
  },

  // Redirects
  {
    method: 'GET',
    path: `${SITE}/redirects`,
    operationId: 'listSiteRedirects',
    document: `query listSiteRedirects($organizationId: ID!, $siteId: ID!, $page: String, $limit: Int, $search: String, $draft: Boolean, $orderBy: SiteRedirectOrderBy) {
      site(organizationId: $organizationId, id: $siteId) {
        redirects(page: $page, limit: $limit, search: $search, draft: $draft, orderBy: $orderBy) { items { ${REDIRECT_FIELDS} } ${LIST_FIELDS} }
      }
    }`,
    variables: (req) => {
      const orderBy = req.query.orderBy || undefined;
      if (orderBy !== undefined && !ORDER_BY.includes(orderBy)) throw badRequest('orderBy', `must be one of ${ORDER_BY.join(', ')}`);
      return {
        ...ids(req),
        page: req.query.page || undefined,
        limit: intParam(req.query, 'limit'),
        search: req.query.search || undefined,
        draft: boolParam(req.query, 'draft'),
        orderBy,
      };
    },
    result: (data) => data.site.redirects,
  },
  {
    method: 'POST',
    path: `${SITE}/redirects`,
    operationId: 'createSiteRedirect',
    document: `mutation createSiteRedirect($organizationId: ID!, $siteId: ID!, $input: CreateSiteRedirectInput!) {
      createSiteRedirect(organizationId: $organizationId, siteId: $siteId, input: $input) { ${REDIRECT_FIELDS} }
    }`,
    variables: (req) => ({ ...ids(req), input: req.body }),
    result: (data) => data.createSiteRedirect,
    status: 201,
  },
  {
    method: 'PUT',
    path: `${SITE}/redirects`,
    operationId: 'bulkUpsertSiteRedirects',
    document: `mutation bulkUpsertSiteRedirects($organizationId: ID!, $siteId: ID!, $input: BulkUpsertSiteRedirectsInput!) {
      bulkUpsertSiteRedirects(organizationId: $organizationId, siteId: $siteId, input: $input) { results { status source draft id error } }
    }`,
    variables: (req) => ({ ...ids(req), input: req.body }),
    result: (data) => data.bulkUpsertSiteRedirects,
  },
  {
    method: 'PATCH',
    path: `${SITE}/redirects/:siteRedirectId`,
    operationId: 'updateSiteRedirectById',
    document: `mutation updateSiteRedirectById($organizationId: ID!, $siteId: ID!, $id: ID!, $input: UpdateSiteRedirectInput!) {
      updateSiteRedirect(organizationId: $organizationId, siteId: $siteId, id: $id, input: $input) { ${REDIRECT_FIELDS} }
    }`,
    variables: (req) => ({ ...ids(req), id: req.params.siteRedirectId, input: req.body }),
    result: (data) => data.updateSiteRedirect,
  },
  {
    method: 'DELETE',
    path: `${SITE}/redirects/:siteRedirectId`,
    operationId: 'deleteSiteRedirectById',
    document: `mutation deleteSiteRedirectById($organizationId: ID!, $siteId: ID!, $id: ID!) { deleteSiteRedirect(organizationId: $organizationId, siteId: $siteId, id: $id) }`,
    variables: (req) => ({ ...ids(req), id: req.params.siteRedirectId }),
    result: () => undefined,
    status: (data) => deletedStatus(data.deleteSiteRedirect),
  },
  {
    method: 'GET',
    path: `${SITE}/redirect`,
    operationId: 'getSiteRedirectBySource',
    document: `query getSiteRedirectBySource($organizationId: ID!, $siteId: ID!, $source: String!, $shareKey: String) {
      site(organizationId: $organizationId, id: $siteId) { redirect(source: $source, shareKey: $shareKey) { redirect { ${REDIRECT_FIELDS} } target } }
    }`,
    // A missing `source` reaches the service as '' so both interfaces answer the same 400 naming it.
    variables: (req) => ({ ...ids(req), source: req.query.source ?? '', shareKey: req.query.shareKey ?? undefined }),
    result: (data) => data.site.redirect,
  },
];
