import { deletedStatus, LIST_FIELDS, listVariables, type RestRequest, type RestRoute } from '../../rest/route.js';
import { OPENAPI_CONTENT_SELECTION, restContent } from './spec.js';

export const OPENAPI_SPEC_FIELDS = /* GraphQL */ `
fragment OpenAPISpecFields on OpenAPISpec {
  object id createdAt updatedAt slug sourceURL processingState visibility lastVersion lastProcessedAt
  lastProcessErrorCode lastProcessedErrors { message code } lastProcessedErrorCount permissions { view edit } urls { location app published }
}`;

export const OPENAPI_VERSION_FIELDS = /* GraphQL */ `
fragment OpenAPISpecVersionFields on OpenAPISpecVersion { object id createdAt url urls { location } }`;

const spec = (req: RestRequest) => ({ organizationId: req.params.organizationId, slug: req.params.specSlug });
const PATH = '/orgs/:organizationId/openapi/:specSlug';

/** A read below one spec: `organization(id) { openAPISpec(slug) { <selection> } }`. */
function specRead(opts: {
  path: string;
  operationId: string;
  args?: string;
  selection: string;
  fragment?: string;
  pick: (s: any) => unknown;
  variables?: (req: RestRequest) => Record<string, unknown>;
}): RestRoute {
  return {
    method: 'GET',
    path: opts.path,
    operationId: opts.operationId,
    document: `query ${opts.operationId}($organizationId: ID!, $slug: String!${opts.args ?? ''}) {
      organization(id: $organizationId) { openAPISpec(slug: $slug) { ${opts.selection} } }
    } ${opts.fragment ?? ''}`,
    variables: (req) => ({ ...spec(req), ...(opts.variables?.(req) ?? {}) }),
    result: (data) => opts.pick(data.organization.openAPISpec),
  };
}

export const openAPIRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/orgs/:organizationId/openapi',
    operationId: 'listOpenAPISpecs',
    document: `query listOpenAPISpecs($organizationId: ID!, $page: String, $limit: Int) {
      organization(id: $organizationId) { openAPISpecs(page: $page, limit: $limit) { items { ...OpenAPISpecFields } ${LIST_FIELDS} } }
    } ${OPENAPI_SPEC_FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, ...listVariables(req) }),
    result: (data) => data.organization.openAPISpecs,
  },
  {
    method: 'POST',
    path: '/orgs/:organizationId/openapi',
    operationId: 'createOpenAPISpec',
    document: `mutation createOpenAPISpec($organizationId: ID!, $input: CreateOpenAPISpecInput!) {
      createOpenAPISpec(organizationId: $organizationId, input: $input) { ...OpenAPISpecFields }
    } ${OPENAPI_SPEC_FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, input: req.body }),
    result: (data) => data.createOpenAPISpec,
    status: 201,
  },
  specRead({
    path: PATH,
    operationId: 'getOpenAPISpecBySlug',
    selection: '...OpenAPISpecFields',
    fragment: OPENAPI_SPEC_FIELDS,
    pick: (s) => s,
  }),
  {
    method: 'PUT',
    path: PATH,
    operationId: 'createOrUpdateOpenAPISpecBySlug',
    document: `mutation createOrUpdateOpenAPISpecBySlug($organizationId: ID!, $slug: String!, $input: PutOpenAPISpecInput!) {
      putOpenAPISpec(organizationId: $organizationId, slug: $slug, input: $input) { created spec { ...OpenAPISpecFields } }
    } ${OPENAPI_SPEC_FIELDS}`,
    variables: (req) => ({ ...spec(req), input: req.body }),
    result: (data) => data.putOpenAPISpec.spec,
    status: (data) => (data.putOpenAPISpec.created ? 201 : 200),
  },
  {
    method: 'PATCH',
    path: PATH,
    operationId: 'updateOpenAPISpecBySlug',
    document: `mutation updateOpenAPISpecBySlug($organizationId: ID!, $slug: String!, $input: UpdateOpenAPISpecInput!) {
      updateOpenAPISpec(organizationId: $organizationId, slug: $slug, input: $input) { ...OpenAPISpecFields }
    } ${OPENAPI_SPEC_FIELDS}`,
    variables: (req) => ({ ...spec(req), input: req.body }),
    result: (data) => data.updateOpenAPISpec,
  },
  {
    method: 'DELETE',
    path: PATH,
    operationId: 'deleteOpenAPISpecBySlug',
    document: `mutation deleteOpenAPISpecBySlug($organizationId: ID!, $slug: String!) { deleteOpenAPISpec(organizationId: $organizationId, slug: $slug) }`,
    variables: spec,
    result: () => undefined,
    status: (data) => deletedStatus(data.deleteOpenAPISpec),
  },
  specRead({
    path: `${PATH}/versions`,
    operationId: 'listOpenAPISpecVersions',
    args: ', $page: String, $limit: Int',
    selection: `versions(page: $page, limit: $limit) { items { ...OpenAPISpecVersionFields } ${LIST_FIELDS} }`,
    fragment: OPENAPI_VERSION_FIELDS,
    variables: listVariables,
    pick: (s) => s.versions,
  }),
  specRead({
    path: `${PATH}/versions/latest`,
    operationId: 'getLatestOpenAPISpecVersion',
    selection: 'latestVersion { ...OpenAPISpecVersionFields }',
    fragment: OPENAPI_VERSION_FIELDS,
    pick: (s) => s.latestVersion,
  }),
  specRead({
    path: `${PATH}/versions/latest/content`,
    operationId: 'getLatestOpenAPISpecVersionContent',
    selection: `latestContent ${OPENAPI_CONTENT_SELECTION}`,
    pick: (s) => restContent(s.latestContent),
  }),
  specRead({
    path: `${PATH}/versions/:versionId`,
    operationId: 'getOpenAPISpecVersionById',
    args: ', $versionId: ID!',
    selection: 'version(id: $versionId) { ...OpenAPISpecVersionFields }',
    fragment: OPENAPI_VERSION_FIELDS,
    variables: (req) => ({ versionId: req.params.versionId }),
    pick: (s) => s.version,
  }),
  specRead({
    path: `${PATH}/versions/:versionId/content`,
    operationId: 'getOpenAPISpecVersionContentById',
    args: ', $versionId: ID!',
    selection: `versionContent(id: $versionId) ${OPENAPI_CONTENT_SELECTION}`,
    variables: (req) => ({ versionId: req.params.versionId }),
    pick: (s) => restContent(s.versionContent),
  }),
];
