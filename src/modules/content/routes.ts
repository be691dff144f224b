import { badRequest } from '../../errors.js';
import { boolParam, LIST_FIELDS, listVariables, type RestRequest, type RestRoute } from '../../rest/route.js';
import { IMMUTABLE, REVALIDATE, urlWindow, type LiveInputs } from '../../http/conditional.js';
import { FILE_URL_HOUR_S } from '../../file-urls.js';
import { PAGE_REST_FIELDS, restPageRead, restTree } from './page-rest.js';

/**
 * Content reads exist three times: on a space's main revision, on a change request's head and on
 * any revision of the space by id, with the same shapes. Each table entry below makes the three
 * routes; only the path prefix and how the GraphQL document reaches the revision differ.
 */
const FILE_FIELDS = 'id name contentType downloadURL size';

export interface ContentRead {
  suffix: string;
  spaceOperation: string;
  changeRequestOperation: string;
  revisionOperation: string;
  /** Variables (beyond the ids) and their GraphQL types. */
  args: Record<string, string>;
  variables?: (req: RestRequest) => Record<string, unknown>;
  /** Selection on the Revision. */
  selection: string;
  pick: (revision: any) => unknown;
  /** Fragment definitions the selection spreads (appended to each document). */
  fragments?: string;
  /**
   * What the answer depends on besides the revision (conditional GET of the by-revision route, see
   * revisionConditional): `computed`, pages computed from OpenAPI specs that change (unless read
   * with computed=false); `files`, signed download URLs minted per hour; `mutable`, live data that
   * no tag computed beforehand can follow (no conditional GET). Default: nothing.
   */
  live?: 'computed' | 'files' | 'mutable';
}

/**
 * Conditional GET of a read of a revision by id (src/http/conditional.ts). The check is the
 * permission check of the read (`space(id)` then `revisionById`: a revision of another space is a
 * 404) without its work; for reads with pages it also answers what computed pages come from.
 */
export function revisionConditional(live?: 'computed' | 'files'): NonNullable<RestRoute['conditional']> {
  const field = live === 'computed' ? 'computedInputs' : 'id';
  return {
    check: `query RevisionCheck($spaceId: ID!, $revisionId: ID!) { space(id: $spaceId) { revisionById(id: $revisionId) { ${field} } } }`,
    liveNeedsCheck: live === 'computed',
    live: (req, checked): LiveInputs => {
      if (live === 'files') return urlWindow(FILE_URL_HOUR_S);
      if (live !== 'computed') return { inputs: null, freshness: IMMUTABLE };
      const computed = boolParam(req.query, 'computed') === false ? '' : (checked?.space?.revisionById?.computedInputs ?? '');
      // With computed pages the answer follows their specs: revalidate on each use (cheap: the tag
      // is known before the work). Without, it never changes.
      return computed ? { inputs: { computed }, freshness: REVALIDATE } : { inputs: null, freshness: IMMUTABLE };
    },
  };
}

/** `metadata` and `computed` are accepted on every content read (and checked to be booleans). */
export const contentOptions = (req: RestRequest) => {
  boolParam(req.query, 'metadata');
  // Reads whose answer holds pages declare $computed; the others ignore it.
  return { computed: boolParam(req.query, 'computed') };
};

/** The options of a read answering a page (`format`, `evaluated`, `dereferenced`). */
export const pageReadVariables = (req: RestRequest) => ({
  ...contentOptions(req),
  format: req.query.format || undefined,
  evaluated: req.query.evaluated || undefined,
  dereferenced: req.query.dereferenced || undefined,
});
export const PAGE_READ_ARGS = { format: 'ContentFormat', evaluated: 'String', dereferenced: 'String' };

// The revision itself (suffix '') is read through the change-requests module: a merge revision
// names the change request it merged (`mergedFrom`), which only that module can answer.
const READS: ContentRead[] = [
  {
    suffix: '/pages',
    spaceOperation: 'listPages',
    changeRequestOperation: 'listPagesInChangeRequest',
    revisionOperation: 'listPagesInRevisionById',
    args: { computed: 'Boolean' },
    variables: contentOptions,
    selection: 'pageEntries(computed: $computed) { parentId ...RestPageFields }',
    fragments: PAGE_REST_FIELDS,
    pick: (r) => ({ pages: restTree(r.pageEntries) }),
    live: 'computed',
  },
  {
    suffix: '/files',
    spaceOperation: 'listFiles',
    changeRequestOperation: 'listFilesInChangeRequestById',
    revisionOperation: 'listFilesInRevisionById',
    args: { page: 'String', limit: 'Int' },
    variables: (req) => ({ ...contentOptions(req), ...listVariables(req) }),
    selection: `files(page: $page, limit: $limit) { items { ${FILE_FIELDS} } ${LIST_FIELDS} }`,
    pick: (r) => r.files,
    live: 'files',
  },
  {
    suffix: '/files/:fileId',
    spaceOperation: 'getFileById',
    changeRequestOperation: 'getFileInChangeRequestById',
    revisionOperation: 'getFileInRevisionById',
    args: { fileId: 'ID!' },
    variables: (req) => ({ ...contentOptions(req), fileId: req.params.fileId }),
    selection: `file(id: $fileId) { ${FILE_FIELDS} }`,
    pick: (r) => r.file,
    live: 'files',
  },
  {
    suffix: '/page/:pageId',
    spaceOperation: 'getPageById',
    changeRequestOperation: 'getPageInChangeRequestById',
    revisionOperation: 'getPageInRevisionById',
    args: { pageId: 'ID!', ...PAGE_READ_ARGS, computed: 'Boolean' },
    variables: (req) => ({ ...pageReadVariables(req), pageId: req.params.pageId }),
    selection: `page(id: $pageId, format: $format, evaluated: $evaluated, dereferenced: $dereferenced, computed: $computed) {
      ...RestPageFields descendants { parentId ...RestPageFields }
    }`,
    fragments: PAGE_REST_FIELDS,
    pick: (r) => restPageRead(r.page),
    live: 'computed',
  },
];

function declare(args: Record<string, string>) {
  return Object.entries(args)
    .map(([name, type]) => `, $${name}: ${type}`)
    .join('');
}

/**
 * Template params as SpaceTemplateParamsInput takes them: its one key, contentRefs (free-form, the
 * service checks it); other keys were never read and are dropped. A value that is no object is
 * refused as the service refuses it (applyTemplate in change-requests).
 */
function templateParams(params: unknown): unknown {
  if (params === undefined || params === null) return params;
  if (typeof params !== 'object' || Array.isArray(params)) throw badRequest('params', 'must be an object');
  return 'contentRefs' in params ? { contentRefs: params.contentRefs } : {};
}

/** Applies a template (a few pages) live to main or to a change request. */
const TEMPLATE_ROUTE: RestRoute = {
  method: 'POST',
  path: '/spaces/:spaceId/content/template',
  operationId: 'applyTemplateToSpace',
  document: `mutation ApplyTemplate($spaceId: ID!, $input: ApplySpaceTemplateInput!) { applyTemplateToSpace(spaceId: $spaceId, input: $input) { revision } }`,
  variables: (req: RestRequest) => {
    if (typeof req.body.id !== 'string' || !req.body.id) throw badRequest('id', 'is required (a template id)');
    return {
      spaceId: req.params.spaceId,
      input: { id: req.body.id, params: templateParams(req.body.params), changeRequestId: req.body.changeRequestId },
    };
  },
  // 201 with no content, as the official operation answers.
  result: () => undefined,
  status: 201,
};

/** The three routes of each read (space main, change request head, revision by id). */
export const contentReadRoutes = (reads: ContentRead[]): RestRoute[] =>
  reads.flatMap((read): RestRoute[] => [
    {
      method: 'GET' as const,
      path: `/spaces/:spaceId/content${read.suffix}`,
      operationId: read.spaceOperation,
      document: `query ${read.spaceOperation}($spaceId: ID!${declare(read.args)}) { space(id: $spaceId) { content { ${read.selection} } } } ${read.fragments ?? ''}`,
      variables: (req: RestRequest) => ({ spaceId: req.params.spaceId, ...read.variables?.(req) }),
      result: (data: any) => read.pick(data.space.content),
    },
    {
      method: 'GET' as const,
      path: `/spaces/:spaceId/change-requests/:changeRequestId/content${read.suffix}`,
      operationId: read.changeRequestOperation,
      document: `query ${read.changeRequestOperation}($spaceId: ID!, $changeRequestId: String!${declare(read.args)}) {
        space(id: $spaceId) { changeRequest(id: $changeRequestId) { content { ${read.selection} } } }
      } ${read.fragments ?? ''}`,
      variables: (req: RestRequest) => ({
        spaceId: req.params.spaceId,
        changeRequestId: req.params.changeRequestId,
        ...read.variables?.(req),
      }),
      result: (data: any) => read.pick(data.space.changeRequest.content),
    },
    {
      method: 'GET' as const,
      path: `/spaces/:spaceId/revisions/:revisionId${read.suffix}`,
      operationId: read.revisionOperation,
      document: `query ${read.revisionOperation}($spaceId: ID!, $revisionId: ID!${declare(read.args)}) {
        space(id: $spaceId) { revisionById(id: $revisionId) { ${read.selection} } }
      } ${read.fragments ?? ''}`,
      variables: (req: RestRequest) => ({ spaceId: req.params.spaceId, revisionId: req.params.revisionId, ...read.variables?.(req) }),
      result: (data: any) => read.pick(data.space.revisionById),
      ...(read.live === 'mutable' ? {} : { conditional: revisionConditional(read.live) }),
    },
  ]);

export const contentRoutes: RestRoute[] = [...contentReadRoutes(READS), TEMPLATE_ROUTE];
