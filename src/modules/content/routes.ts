import { badRequest } from '../../errors.js';
import { boolParam, LIST_FIELDS, listVariables, type RestRequest, type RestRoute } from '../../rest/route.js';

/**
 * Content reads exist twice: on a space's main revision and on a change request's head, with the
 * same shapes. Each table entry below makes both routes; only the path prefix and how the GraphQL
 * document reaches the revision differ.
 */
const FILE_FIELDS = 'id name contentType downloadURL size';

interface ContentRead {
  suffix: string;
  spaceOperation: string;
  changeRequestOperation: string;
  /** Variables (beyond the ids) and their GraphQL types. */
  args: Record<string, string>;
  variables?: (req: RestRequest) => Record<string, unknown>;
  /** Selection on the Revision. */
  selection: string;
  pick: (revision: any) => unknown;
}

/** `metadata` and `computed` are accepted on every content read (and checked to be booleans). */
const contentOptions = (req: RestRequest) => {
  boolParam(req.query, 'metadata');
  boolParam(req.query, 'computed');
  return {};
};

const READS: ContentRead[] = [
  { suffix: '', spaceOperation: 'getCurrentRevision', changeRequestOperation: 'getRevisionOfChangeRequestById', args: {}, variables: contentOptions, selection: 'rest', pick: (r) => r.rest },
  { suffix: '/pages', spaceOperation: 'listPages', changeRequestOperation: 'listPagesInChangeRequest', args: {}, variables: contentOptions, selection: 'pages', pick: (r) => ({ pages: r.pages }) },
  {
    suffix: '/files',
    spaceOperation: 'listFiles',
    changeRequestOperation: 'listFilesInChangeRequestById',
    args: { page: 'String', limit: 'Int' },
    variables: (req) => ({ ...contentOptions(req), ...listVariables(req) }),
    selection: `files(page: $page, limit: $limit) { items { ${FILE_FIELDS} } ${LIST_FIELDS} }`,
    pick: (r) => r.files,
  },
  {
    suffix: '/files/:fileId',
    spaceOperation: 'getFileById',
    changeRequestOperation: 'getFileInChangeRequestById',
    args: { fileId: 'ID!' },
    variables: (req) => ({ ...contentOptions(req), fileId: req.params.fileId }),
    selection: `file(id: $fileId) { ${FILE_FIELDS} }`,
    pick: (r) => r.file,
  },
  {
    suffix: '/page/:pageId',
    spaceOperation: 'getPageById',
    changeRequestOperation: 'getPageInChangeRequestById',
    args: { pageId: 'ID!', format: 'ContentFormat', evaluated: 'String', dereferenced: 'String' },
    variables: (req) => ({
      ...contentOptions(req),
      pageId: req.params.pageId,
      format: req.query.format || undefined,
      evaluated: req.query.evaluated || undefined,
      dereferenced: req.query.dereferenced || undefined,
    }),
    selection: 'page(id: $pageId, format: $format, evaluated: $evaluated, dereferenced: $dereferenced)',
    pick: (r) => r.page,
  },
];

function declare(args: Record<string, string>) {
  return Object.entries(args)
    .map(([name, type]) => `, $${name}: ${type}`)
    .join('');
}

/** Applies a template (a few pages) live to main or to a change request. */
const TEMPLATE_ROUTE: RestRoute = {
  method: 'POST',
  path: '/spaces/:spaceId/content/template',
  operationId: 'applyTemplateToSpace',
  document: `mutation ApplyTemplate($spaceId: ID!, $input: ApplySpaceTemplateInput!) { applyTemplateToSpace(spaceId: $spaceId, input: $input) { revision } }`,
  variables: (req: RestRequest) => {
    if (typeof req.body.id !== 'string' || !req.body.id) throw badRequest('id', 'is required (a template id)');
    return { spaceId: req.params.spaceId, input: { id: req.body.id, params: req.body.params, changeRequestId: req.body.changeRequestId } };
  },
  // 201 with no content, as the official operation answers.
  result: () => undefined,
  status: 201,
};

export const contentRoutes: RestRoute[] = [
  ...READS.flatMap((read) => [
    {
      method: 'GET' as const,
      path: `/spaces/:spaceId/content${read.suffix}`,
      operationId: read.spaceOperation,
      document: `query ${read.spaceOperation}($spaceId: ID!${declare(read.args)}) { space(id: $spaceId) { content { ${read.selection} } } }`,
      variables: (req: RestRequest) => ({ spaceId: req.params.spaceId, ...read.variables?.(req) }),
      result: (data: any) => read.pick(data.space.content),
    },
    {
      method: 'GET' as const,
      path: `/spaces/:spaceId/change-requests/:changeRequestId/content${read.suffix}`,
      operationId: read.changeRequestOperation,
      document: `query ${read.changeRequestOperation}($spaceId: ID!, $changeRequestId: String!${declare(read.args)}) {
        space(id: $spaceId) { changeRequest(id: $changeRequestId) { content { ${read.selection} } } }
      }`,
      variables: (req: RestRequest) => ({ spaceId: req.params.spaceId, changeRequestId: req.params.changeRequestId, ...read.variables?.(req) }),
      result: (data: any) => read.pick(data.space.changeRequest.content),
    },
  ]),
  TEMPLATE_ROUTE,
];
