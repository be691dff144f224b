import { intParam, type RestRequest, type RestRoute } from '../../rest/route.js';

const RUN = `fragment ImportRunFields on ImportRun {
  object id status reason source { type files } target { space changeRequest page } site createdBy createdAt updatedAt
  startedAt completedAt pages { id type status sourceURL } urls { location } progress { pagesDone pagesTotal } skipped { path reason }
}`;
const org = (req: RestRequest) => ({ organizationId: req.params.organizationId });

/** The official imports operations (0.202.0; note the singular `/org/` of the imports paths, as the description has them). */
export const importRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/orgs/:organizationId/storage/upload',
    operationId: 'generateStorageUploadURL',
    document: `mutation generateStorageUploadURL($organizationId: ID!, $input: GenerateStorageUploadURLInput!) {
      generateStorageUploadURL(organizationId: $organizationId, input: $input) { object url key urls { location } }
    }`,
    variables: (req) => ({ ...org(req), input: req.body }),
    result: (data) => data.generateStorageUploadURL,
    status: 201,
  },
  {
    method: 'GET',
    path: '/org/:organizationId/imports',
    operationId: 'listImportRuns',
    document: `query listImportRuns($organizationId: ID!, $space: String, $changeRequest: String, $site: String, $status: String, $page: String, $limit: Int) {
      importRuns(organizationId: $organizationId, space: $space, changeRequest: $changeRequest, site: $site, status: $status, page: $page, limit: $limit) {
        items { ...ImportRunFields } count next { page }
      }
    } ${RUN}`,
    variables: (req) => ({
      ...org(req),
      space: req.query.space || undefined,
      changeRequest: req.query.changeRequest || undefined,
      site: req.query.site || undefined,
      status: req.query.status || undefined,
      page: req.query.page || undefined,
      limit: intParam(req.query, 'limit'),
    }),
    result: (data) => data.importRuns,
  },
  {
    method: 'POST',
    path: '/org/:organizationId/imports',
    operationId: 'startImportRun',
    document: `mutation startImportRun($organizationId: ID!, $input: StartImportRunInput!) { startImportRun(organizationId: $organizationId, input: $input) { ...ImportRunFields } } ${RUN}`,
    variables: (req) => ({ ...org(req), input: req.body }),
    result: (data) => data.startImportRun,
    status: 201,
  },
  {
    method: 'GET',
    path: '/org/:organizationId/imports/:importRunId',
    operationId: 'getImportRun',
    document: `query getImportRun($organizationId: ID!, $id: ID!) { importRun(organizationId: $organizationId, id: $id) { ...ImportRunFields } } ${RUN}`,
    variables: (req) => ({ ...org(req), id: req.params.importRunId }),
    result: (data) => data.importRun,
  },
  {
    method: 'POST',
    path: '/org/:organizationId/imports/:importRunId/cancel',
    operationId: 'cancelImportRun',
    document: `mutation cancelImportRun($organizationId: ID!, $id: ID!) { cancelImportRun(organizationId: $organizationId, id: $id) { ...ImportRunFields } } ${RUN}`,
    variables: (req) => ({ ...org(req), id: req.params.importRunId }),
    result: (data) => data.cancelImportRun,
  },
];
