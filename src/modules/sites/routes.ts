import {
  boolParam,
  deletedStatus,
  fragmentName,
  LIST_FIELDS,
  listParam,
  listVariables,
  type RestRequest,
  type RestRoute,
} from '../../rest/route.js';
import { SPACE_FIELDS } from '../spaces/index.js';
import { customizationRoutes, officialCustomization } from './customization-routes.js';
import { CUSTOMIZATION_FRAGMENT } from './customization-model.js';
import { siteSearchRoutes } from './site-search-routes.js';
import { publishingAuthRoutes } from './publishing-auth-routes.js';
import { structureSortRoute } from './structure-sort-routes.js';
import { duplicateSiteSpaceRoute } from './site-space-duplicate.js';
import { insightsRoutes } from './insights-routes.js';

export const SITE_FIELDS = /* GraphQL */ `
fragment SiteFields on Site {
  object id type appliedType title hostname basename proxy { origin target } visibility published defaultLevel siteSpaces: siteSpaceCount createdAt
  adaptiveContent { enabled } agentsContext features permissions { view access edit create admin installIntegration viewAdaptiveSchema editAdaptiveSchema }
  urls { location app preview published }
}`;

export const SITE_SPACE_FIELDS = /* GraphQL */ `
fragment SiteSpaceFields on SiteSpace {
  object id path section space { ...SpaceFields } title default condition hidden draft hasAdvancedCustomizationFeature urls { published }
}
${SPACE_FIELDS}`;

export const SITE_SECTION_FIELDS = /* GraphQL */ `
fragment SiteSectionFields on SiteSection {
  object id title description default path condition sectionGroup icon draft urls { published } siteSpaces { ...SiteSpaceFields }
}
${SITE_SPACE_FIELDS}`;

/**
 * A group's REST shape nests its sections and groups to any depth, which a GraphQL selection cannot
 * follow (and spelling levels out would repeat the section fields at each level). So the documents
 * read the site's structure flat — every section once, every group with its children's ids — and
 * `restGroup`/`restStructure` nest them into the GitBook shape.
 */
export const SITE_EXTERNAL_LINK_FIELDS = /* GraphQL */ `
fragment SiteExternalLinkFields on SiteExternalLink { object id title localizedTitle description localizedDescription icon url sectionGroup draft condition }`;

export const SITE_STRUCTURE_PARTS = /* GraphQL */ `
fragment SiteStructureParts on SiteStructure {
  sections { ...SiteSectionFields }
  groups { object id title icon sectionGroup draft children { ... on SiteSection { id } ... on SiteSectionGroup { id } ... on SiteExternalLink { id } } }
  externalLinks { ...SiteExternalLinkFields }
}
${SITE_SECTION_FIELDS}
${SITE_EXTERNAL_LINK_FIELDS}`;

export const SITE_SECTION_GROUP_FIELDS = /* GraphQL */ `
fragment SiteSectionGroupFields on SiteSectionGroup { id siteStructure { ...SiteStructureParts } }
${SITE_STRUCTURE_PARTS}`;

const STRUCTURE_FIELDS = `type structure { ... on SiteSection { id } ... on SiteSectionGroup { id } ... on SiteExternalLink { id } ... on SiteSpace { ...SiteSpaceFields } } ...SiteStructureParts`;

interface StructureParts {
  sections: { id: string }[];
  groups: { id: string; children: { id: string }[] }[];
  externalLinks: { id: string }[];
}

function nest(parts: StructureParts) {
  const sections = new Map(parts.sections.map((s) => [s.id, s]));
  const groups = new Map(parts.groups.map((g) => [g.id, g]));
  // Links the structure lists (the published one leaves drafts out: a group's child not listed is left out too).
  const links = new Map(parts.externalLinks.map((l) => [l.id, l]));
  const group = (id: string, seen: Set<string>): Record<string, unknown> => {
    const { children, ...fields } = groups.get(id)!;
    seen.add(id);
    const nested = children.flatMap((c) =>
      sections.has(c.id)
        ? [sections.get(c.id)!]
        : links.has(c.id)
          ? [links.get(c.id)!]
          : groups.has(c.id) && !seen.has(c.id)
            ? [group(c.id, seen)]
            : [],
    );
    return { ...fields, sections: nested.filter((c) => sections.has(c.id as string)), children: nested };
  };
  return { item: (id: string) => sections.get(id) ?? links.get(id) ?? (groups.has(id) ? group(id, new Set()) : undefined) };
}

/** A group as GitBook shows it: its sections and its children (sections and groups, nested). */
export const restGroup = (g: { id: string; siteStructure: StructureParts }) => nest(g.siteStructure).item(g.id);

/** A site structure as GitBook shows it: the top-level sections, groups (nested) and external links, or the root site spaces. */
export function restStructure(structure: StructureParts & { type: string; structure: { id: string }[] }) {
  if (structure.type !== 'sections') return { type: structure.type, structure: structure.structure };
  const { item } = nest(structure);
  return { type: structure.type, structure: structure.structure.flatMap((s) => item(s.id) ?? []) };
}

export const SHARE_LINK_FIELDS = /* GraphQL */ `
fragment SiteShareLinkFields on SiteShareLink { object id createdAt name active urls { published } }`;

const ADAPTIVE_SCHEMA_FIELDS = 'object jsonSchema updatedAt';

const BASE = '/orgs/:organizationId/sites';
const SITE = `${BASE}/:siteId`;

const siteIds = (req: RestRequest) => ({ organizationId: req.params.organizationId, siteId: req.params.siteId });

/** `type=basic&type=premium`, or `type=basic,premium`. */
const typeParam = (req: RestRequest) =>
  listParam(req, 'type')
    ?.flatMap((v) => v.split(','))
    .filter(Boolean);

/** A mutation on one item of a site (`id` from `idParam`), answering the item (or a Boolean for deletes). */
function itemMutation(opts: {
  method: RestRoute['method'];
  path: string;
  operationId: string;
  field: string;
  idParam?: string;
  input?: { type: string; required: boolean };
  fragment?: string;
  /** Reshapes the answered item (groups: `restGroup`). */
  shape?: (item: any) => unknown;
  status?: number;
  location?: RestRoute['location'];
}): RestRoute {
  const args = [
    '$organizationId: ID!',
    '$siteId: ID!',
    ...(opts.idParam ? ['$id: ID!'] : []),
    ...(opts.input ? [`$input: ${opts.input.type}${opts.input.required ? '!' : ''}`] : []),
  ];
  const call = [
    'organizationId: $organizationId',
    'siteId: $siteId',
    ...(opts.idParam ? ['id: $id'] : []),
    ...(opts.input ? ['input: $input'] : []),
  ];
  const selection = opts.fragment ? ` { ...${fragmentName(opts.fragment)} }` : '';
  return {
    method: opts.method,
    path: opts.path,
    operationId: opts.operationId,
    document: `mutation ${opts.operationId}(${args.join(', ')}) { ${opts.field}(${call.join(', ')})${selection} } ${opts.fragment ?? ''}`,
    variables: (req) => ({
      ...siteIds(req),
      ...(opts.idParam ? { id: req.params[opts.idParam] } : {}),
      ...(opts.input ? { input: req.body } : {}),
    }),
    result: opts.fragment ? (data) => (opts.shape ?? ((x) => x))(data[opts.field]) : () => undefined,
    status: opts.fragment ? opts.status : (data) => deletedStatus(data[opts.field]),
    location: opts.location,
  };
}

/** A read below `site(organizationId, id)`. */
function siteQuery(opts: {
  path: string;
  operationId: string;
  vars?: string;
  select: string;
  fragments?: string;
  variables?: (req: RestRequest) => Record<string, unknown>;
  result: (site: any) => unknown;
}): RestRoute {
  return {
    method: 'GET',
    path: opts.path,
    operationId: opts.operationId,
    document: `query ${opts.operationId}($organizationId: ID!, $siteId: ID!${opts.vars ? `, ${opts.vars}` : ''}) {
      site(organizationId: $organizationId, id: $siteId) { ${opts.select} }
    } ${opts.fragments ?? ''}`,
    variables: (req) => ({ ...siteIds(req), ...opts.variables?.(req) }),
    result: (data) => opts.result(data.site),
  };
}

const shareKey = (req: RestRequest) => ({ shareKey: req.query.shareKey ?? undefined });

export const siteRoutes: RestRoute[] = [
  // Sites
  {
    method: 'GET',
    path: BASE,
    operationId: 'listSites',
    document: `query listSites($organizationId: ID!, $page: String, $limit: Int, $space: ID, $title: String, $published: Boolean, $type: [SiteType!]) {
      organization(id: $organizationId) {
        sites(page: $page, limit: $limit, space: $space, title: $title, published: $published, type: $type) { items { ...SiteFields } ${LIST_FIELDS} }
      }
    } ${SITE_FIELDS}`,
    variables: (req) => ({
      organizationId: req.params.organizationId,
      ...listVariables(req),
      space: req.query.space || undefined,
      title: req.query.title ?? undefined,
      published: boolParam(req.query, 'published'),
      type: typeParam(req),
    }),
    result: (data) => data.organization.sites,
  },
  {
    method: 'POST',
    path: BASE,
    operationId: 'createSite',
    document: `mutation createSite($organizationId: ID!, $input: CreateSiteInput) { createSite(organizationId: $organizationId, input: $input) { ...SiteFields } } ${SITE_FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, input: req.body }),
    result: (data) => data.createSite,
    status: 201,
  },
  siteQuery({ path: SITE, operationId: 'getSiteById', select: '...SiteFields', fragments: SITE_FIELDS, result: (site) => site }),
  {
    method: 'PATCH',
    path: SITE,
    operationId: 'updateSiteById',
    document: `mutation updateSiteById($organizationId: ID!, $id: ID!, $input: UpdateSiteInput!) { updateSite(organizationId: $organizationId, id: $id, input: $input) { ...SiteFields } } ${SITE_FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, id: req.params.siteId, input: req.body }),
    result: (data) => data.updateSite,
  },
  {
    method: 'DELETE',
    path: SITE,
    operationId: 'deleteSiteById',
    document: `mutation deleteSiteById($organizationId: ID!, $id: ID!) { deleteSite(organizationId: $organizationId, id: $id) }`,
    variables: (req) => ({ organizationId: req.params.organizationId, id: req.params.siteId }),
    result: () => undefined,
    status: (data) => deletedStatus(data.deleteSite),
  },
  ...(['publishSite', 'unpublishSite'] as const).map(
    (field): RestRoute => ({
      method: 'POST',
      path: `${SITE}/${field === 'publishSite' ? 'publish' : 'unpublish'}`,
      operationId: field,
      document: `mutation ${field}($organizationId: ID!, $id: ID!) { ${field}(organizationId: $organizationId, id: $id) { ...SiteFields } } ${SITE_FIELDS}`,
      variables: (req) => ({ organizationId: req.params.organizationId, id: req.params.siteId }),
      result: (data) => data[field],
    }),
  ),
  {
    method: 'GET',
    path: `${SITE}/published`,
    operationId: 'getPublishedContentSite',
    document: `query getPublishedContentSite($organizationId: ID!, $id: ID!, $shareKey: String) {
      publishedSite(organizationId: $organizationId, id: $id, shareKey: $shareKey) {
        object site { ...SiteFields } structure { ${STRUCTURE_FIELDS} }
        customizations { site { ...CustomizationFields } siteSpaces { siteSpaceId customization { ...CustomizationFields } } }
        scripts { script contentSecurityPolicy cookies }
      }
    } ${SITE_FIELDS} ${SITE_STRUCTURE_PARTS} ${CUSTOMIZATION_FRAGMENT}`,
    variables: (req) => ({ organizationId: req.params.organizationId, id: req.params.siteId, ...shareKey(req) }),
    result: (data) => ({
      ...data.publishedSite,
      structure: restStructure(data.publishedSite.structure),
      customizations: {
        site: officialCustomization(data.publishedSite.customizations.site),
        siteSpaces: Object.fromEntries(
          (data.publishedSite.customizations.siteSpaces as { siteSpaceId: string; customization: unknown }[]).map((s) => [
            s.siteSpaceId,
            officialCustomization(s.customization),
          ]),
        ),
      },
    }),
    // Live (the structure changes on publication) and for a token only (the official security is
    // bearer or OAuth site:read): revalidated by its bytes, never kept by a shared cache.
    revalidate: true,
  },
  siteQuery({
    path: `${SITE}/structure`,
    operationId: 'getSiteStructure',
    vars: '$shareKey: String',
    select: `structure(shareKey: $shareKey) { ${STRUCTURE_FIELDS} }`,
    fragments: SITE_STRUCTURE_PARTS,
    variables: shareKey,
    result: (site) => restStructure(site.structure),
  }),

  // Adaptive content
  {
    method: 'GET',
    path: `${SITE}/adaptive-schema`,
    operationId: 'getSiteAdaptiveSchema',
    document: `query getSiteAdaptiveSchema($organizationId: ID!, $siteId: ID!) { siteAdaptiveSchema(organizationId: $organizationId, siteId: $siteId) { ${ADAPTIVE_SCHEMA_FIELDS} } }`,
    variables: siteIds,
    result: (data) => data.siteAdaptiveSchema,
  },
  {
    method: 'PUT',
    path: `${SITE}/adaptive-schema`,
    operationId: 'updateSiteAdaptiveSchema',
    document: `mutation updateSiteAdaptiveSchema($organizationId: ID!, $siteId: ID!, $input: UpdateSiteAdaptiveSchemaInput!) {
      updateSiteAdaptiveSchema(organizationId: $organizationId, siteId: $siteId, input: $input) { ${ADAPTIVE_SCHEMA_FIELDS} }
    }`,
    variables: (req) => ({ ...siteIds(req), input: req.body }),
    result: (data) => data.updateSiteAdaptiveSchema,
  },
  siteQuery({
    path: `${SITE}/adaptive-schema/template-conditions`,
    operationId: 'listSiteAdaptiveTemplateConditions',
    select: 'adaptiveTemplateConditions { description condition }',
    result: (site) => ({ items: site.adaptiveTemplateConditions }),
  }),

  // Sections
  siteQuery({
    path: `${SITE}/sections`,
    operationId: 'listSiteSections',
    vars: '$page: String, $limit: Int, $shareKey: String',
    select: `sections(page: $page, limit: $limit, shareKey: $shareKey) { items { ...SiteSectionFields } ${LIST_FIELDS} }`,
    fragments: SITE_SECTION_FIELDS,
    variables: (req) => ({ ...listVariables(req), ...shareKey(req) }),
    result: (site) => site.sections,
  }),
  itemMutation({
    method: 'POST',
    path: `${SITE}/sections`,
    operationId: 'addSectionToSite',
    field: 'addSiteSection',
    input: { type: 'AddSiteSectionInput', required: true },
    fragment: SITE_SECTION_FIELDS,
    status: 201,
  }),
  itemMutation({
    method: 'DELETE',
    path: `${SITE}/sections/:siteSectionId`,
    operationId: 'deleteSiteSectionById',
    field: 'deleteSiteSection',
    idParam: 'siteSectionId',
  }),
  itemMutation({
    method: 'PATCH',
    path: `${SITE}/sections/:siteSectionId`,
    operationId: 'updateSiteSectionById',
    field: 'updateSiteSection',
    idParam: 'siteSectionId',
    input: { type: 'UpdateSiteSectionInput', required: true },
    fragment: SITE_SECTION_FIELDS,
  }),
  itemMutation({
    method: 'POST',
    path: `${SITE}/sections/:siteSectionId/move`,
    operationId: 'moveSiteSection',
    field: 'moveSiteSection',
    idParam: 'siteSectionId',
    input: { type: 'MoveSiteSectionInput', required: false },
    fragment: SITE_SECTION_FIELDS,
  }),

  // Section groups
  siteQuery({
    path: `${SITE}/section-groups`,
    operationId: 'listSiteSectionGroups',
    vars: '$page: String, $limit: Int',
    // The page of groups, and the site's structure once to nest them from.
    select: `sectionGroups(page: $page, limit: $limit) { items { id } ${LIST_FIELDS} } structure { ...SiteStructureParts }`,
    fragments: SITE_STRUCTURE_PARTS,
    variables: listVariables,
    result: (site) => {
      const { item } = nest(site.structure);
      return { ...site.sectionGroups, items: site.sectionGroups.items.map((g: { id: string }) => item(g.id)) };
    },
  }),
  itemMutation({
    method: 'POST',
    path: `${SITE}/section-groups`,
    operationId: 'addSectionGroupToSite',
    field: 'createSiteSectionGroup',
    input: { type: 'CreateSiteSectionGroupInput', required: true },
    fragment: SITE_SECTION_GROUP_FIELDS,
    shape: restGroup,
    status: 201,
  }),
  itemMutation({
    method: 'DELETE',
    path: `${SITE}/section-groups/:siteSectionGroupId`,
    operationId: 'deleteSiteSectionGroupById',
    field: 'deleteSiteSectionGroup',
    idParam: 'siteSectionGroupId',
  }),
  itemMutation({
    method: 'PATCH',
    path: `${SITE}/section-groups/:siteSectionGroupId`,
    operationId: 'updateSiteSectionGroupById',
    field: 'updateSiteSectionGroup',
    idParam: 'siteSectionGroupId',
    input: { type: 'UpdateSiteSectionGroupInput', required: true },
    fragment: SITE_SECTION_GROUP_FIELDS,
    shape: restGroup,
  }),
  itemMutation({
    method: 'POST',
    path: `${SITE}/section-groups/:siteSectionGroupId/sections`,
    operationId: 'addSectionToGroup',
    field: 'addSectionToSiteSectionGroup',
    idParam: 'siteSectionGroupId',
    input: { type: 'AddSectionToGroupInput', required: true },
    fragment: SITE_SECTION_GROUP_FIELDS,
    shape: restGroup,
    status: 201,
    // The answer is the group the section joined: it is where the change lives.
    location: (group, req) => `/orgs/${req.params.organizationId}/sites/${req.params.siteId}/section-groups/${group.id}`,
  }),
  itemMutation({
    method: 'POST',
    path: `${SITE}/section-groups/:siteSectionGroupId/move`,
    operationId: 'moveSiteSectionGroup',
    field: 'moveSiteSectionGroup',
    idParam: 'siteSectionGroupId',
    input: { type: 'MoveSiteSectionGroupInput', required: false },
    fragment: SITE_SECTION_GROUP_FIELDS,
    shape: restGroup,
  }),
  {
    method: 'DELETE',
    path: `${SITE}/section-groups/:siteSectionGroupId/sections/:siteSectionId`,
    operationId: 'removeSectionFromGroup',
    document: `mutation removeSectionFromGroup($organizationId: ID!, $siteId: ID!, $id: ID!, $sectionId: ID!) {
      removeSectionFromSiteSectionGroup(organizationId: $organizationId, siteId: $siteId, id: $id, sectionId: $sectionId)
    }`,
    variables: (req) => ({ ...siteIds(req), id: req.params.siteSectionGroupId, sectionId: req.params.siteSectionId }),
    result: () => undefined,
    status: (data) => deletedStatus(data.removeSectionFromSiteSectionGroup),
  },

  // External links (external-link-service.ts); listed in the site structure, moved by sortSiteStructure.
  itemMutation({
    method: 'POST',
    path: `${SITE}/external-links`,
    operationId: 'addExternalLinkToSite',
    field: 'addSiteExternalLink',
    input: { type: 'AddSiteExternalLinkInput', required: true },
    fragment: SITE_EXTERNAL_LINK_FIELDS,
    status: 201,
  }),
  itemMutation({
    method: 'PATCH',
    path: `${SITE}/external-links/:siteExternalLinkId`,
    operationId: 'updateSiteExternalLinkById',
    field: 'updateSiteExternalLink',
    idParam: 'siteExternalLinkId',
    input: { type: 'UpdateSiteExternalLinkInput', required: true },
    fragment: SITE_EXTERNAL_LINK_FIELDS,
  }),
  itemMutation({
    method: 'DELETE',
    path: `${SITE}/external-links/:siteExternalLinkId`,
    operationId: 'deleteSiteExternalLinkById',
    field: 'deleteSiteExternalLink',
    idParam: 'siteExternalLinkId',
  }),

  // Site spaces
  siteQuery({
    path: `${SITE}/site-spaces`,
    operationId: 'listSiteSpaces',
    vars: '$page: String, $limit: Int, $shareKey: String, $default: Boolean',
    select: `siteSpaces(page: $page, limit: $limit, shareKey: $shareKey, default: $default) { items { ...SiteSpaceFields } ${LIST_FIELDS} }`,
    fragments: SITE_SPACE_FIELDS,
    variables: (req) => ({ ...listVariables(req), ...shareKey(req), default: boolParam(req.query, 'default') }),
    result: (site) => site.siteSpaces,
  }),
  itemMutation({
    method: 'POST',
    path: `${SITE}/site-spaces`,
    operationId: 'addSpaceToSite',
    field: 'addSiteSpace',
    input: { type: 'AddSiteSpaceInput', required: true },
    fragment: SITE_SPACE_FIELDS,
    status: 201,
  }),
  itemMutation({
    method: 'DELETE',
    path: `${SITE}/site-spaces/:siteSpaceId`,
    operationId: 'deleteSiteSpaceById',
    field: 'deleteSiteSpace',
    idParam: 'siteSpaceId',
  }),
  itemMutation({
    method: 'PATCH',
    path: `${SITE}/site-spaces/:siteSpaceId`,
    operationId: 'updateSiteSpaceById',
    field: 'updateSiteSpace',
    idParam: 'siteSpaceId',
    input: { type: 'UpdateSiteSpaceInput', required: true },
    fragment: SITE_SPACE_FIELDS,
  }),
  itemMutation({
    method: 'POST',
    path: `${SITE}/site-spaces/:siteSpaceId/move`,
    operationId: 'moveSiteSpace',
    field: 'moveSiteSpace',
    idParam: 'siteSpaceId',
    input: { type: 'MoveSiteSpaceInput', required: false },
    fragment: SITE_SPACE_FIELDS,
  }),

  // Share links
  siteQuery({
    path: `${SITE}/share-links`,
    operationId: 'listSiteShareLinks',
    vars: '$page: String, $limit: Int',
    select: `shareLinks(page: $page, limit: $limit) { items { ...SiteShareLinkFields } ${LIST_FIELDS} }`,
    fragments: SHARE_LINK_FIELDS,
    variables: listVariables,
    result: (site) => site.shareLinks,
  }),
  itemMutation({
    method: 'POST',
    path: `${SITE}/share-links`,
    operationId: 'createSiteShareLink',
    field: 'createSiteShareLink',
    input: { type: 'CreateSiteShareLinkInput', required: true },
    fragment: SHARE_LINK_FIELDS,
    status: 201,
  }),
  itemMutation({
    method: 'DELETE',
    path: `${SITE}/share-links/:shareLinkId`,
    operationId: 'deleteSiteShareLinkById',
    field: 'deleteSiteShareLink',
    idParam: 'shareLinkId',
  }),
  itemMutation({
    method: 'PATCH',
    path: `${SITE}/share-links/:shareLinkId`,
    operationId: 'updateSiteShareLinkById',
    field: 'updateSiteShareLink',
    idParam: 'shareLinkId',
    input: { type: 'UpdateSiteShareLinkInput', required: true },
    fragment: SHARE_LINK_FIELDS,
  }),
  {
    method: 'GET',
    path: '/custom-hostnames/:hostname',
    operationId: 'getCustomHostname',
    document: `query CustomHostname($hostname: String!) {
      customHostname(hostname: $hostname) { object hostname target { type site } isActive status verification { type name value } urls { location } }
    }`,
    variables: (req) => ({ hostname: req.params.hostname }),
    result: (data) => data.customHostname,
  },
  {
    method: 'PATCH',
    path: '/custom-hostnames/:hostname',
    operationId: 'dnsRevalidateCustomHostname',
    document: `mutation RevalidateCustomHostname($hostname: String!) { revalidateCustomHostname(hostname: $hostname) }`,
    variables: (req) => ({ hostname: req.params.hostname }),
    result: () => undefined,
    status: 204,
  },
  {
    method: 'DELETE',
    path: '/custom-hostnames/:hostname',
    operationId: 'removeCustomHostname',
    document: `mutation RemoveCustomHostname($hostname: String!) { removeCustomHostname(hostname: $hostname) }`,
    variables: (req) => ({ hostname: req.params.hostname }),
    result: () => undefined,
    status: (data) => deletedStatus(data.removeCustomHostname),
  },
  // URL lookup (published-url.ts): the official POST and its deprecated GET form.
  {
    method: 'POST',
    path: '/urls/published',
    operationId: 'resolvePublishedContentByUrl',
    document: `query resolvePublishedContentByUrl($input: PublishedContentLookupInput!) { publishedContentLookup(input: $input) {
      ... on PublishedSiteContent {
        site siteSection siteSpace space revision pathname basePath siteBasePath apiToken organization shareKey complete contextId canonicalUrl
      }
      ... on PublishedContentRedirect { target site redirect }
    } }`,
    variables: (req) => ({ input: req.body }),
    result: (data) => data.publishedContentLookup,
  },
  {
    method: 'GET',
    path: '/urls/published',
    operationId: 'getPublishedContentByUrl',
    document: `query getPublishedContentByUrl($input: PublishedContentLookupInput!) { publishedContentLookup(input: $input) {
      ... on PublishedSiteContent {
        site siteSection siteSpace space revision pathname basePath siteBasePath apiToken organization shareKey complete contextId canonicalUrl
      }
      ... on PublishedContentRedirect { target site redirect }
    } }`,
    variables: (req) => ({
      input: {
        url: req.query.url,
        visitorAuthToken: req.query.visitorAuthToken || undefined,
        redirectOnError: boolParam(req.query, 'redirectOnError'),
      },
    }),
    result: (data) => data.publishedContentLookup,
  },
  // The renderer API: customization, site-space overrides, redirects (customization-routes.ts).
  ...customizationRoutes,
  ...siteSearchRoutes,
  ...publishingAuthRoutes,
  ...insightsRoutes,
  structureSortRoute(SITE_SECTION_GROUP_FIELDS, restGroup),
  duplicateSiteSpaceRoute(SITE_SPACE_FIELDS),
];
