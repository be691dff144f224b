import { FREE_DOC } from '../../graphql/free-form.js';
import { requireSpace } from '../../auth/permissions.js';
import type { Context } from '../../context.js';
import { documentsOf } from '../../document/index.js';
import { badRequest, notFound } from '../../errors.js';
import { builder } from '../../graphql/builder.js';
import { boolParam, type RestRoute } from '../../rest/route.js';
import { serverKeys } from '../../secrets.js';
import { PAGE_REST_FIELDS, restPageRead } from './page-rest.js';
import { CONTENT_REF_SELECTION, PageMetaLinksType, type ContentRefJson } from './content-refs.js';
import { bodyHashOfDocument } from './document-ids.js';
import { resolveDocumentRefs } from './link-targets.js';
import { includeReusableContents } from './reusable-contents.js';
import { RevisionType } from './revision.js';
import { contentReadRoutes, PAGE_READ_ARGS, pageReadVariables, revisionConditional, type ContentRead } from './routes.js';
import {
  bodiesOf,
  checkPageReadOptions,
  evaluatedMarkdown,
  pageTree,
  viewOf,
  type ContentView,
  type PageReadOptions,
  type PageTree,
} from './service.js';

/**
 * Reads by revision id, by page path, of one page's document, of a page's meta links, and of a
 * document by id. Reads that exist on main, on a change request and on a revision are entries of
 * the content read table (routes.ts makes the three routes of each); the others are routes here.
 */

// ---------------------------------------------------------------------------------------------
// Rules

/** Any revision of a space (main's, a change request's, a past one) by id; a revision of another space is a 404. */
export async function spaceRevision(ctx: Context, spaceId: string, revisionId: string): Promise<ContentView> {
  // Checked here, not only on `space(id)`: a Space object also reaches a published site's visitors.
  const space = await requireSpace(ctx, spaceId, 'read');
  return viewOf(ctx, space, revisionId);
}

/**
 * A page by its path in the revision: the `path` the page JSON answers (`guides/getting-started`;
 * a group's own slug is a segment of its pages' paths, see tree.ts), with or without leading and
 * trailing slashes. Slugs are lower case, so a path in another case finds its page too. Link pages
 * have no path of their own (the official answer is a document or a group page): not found.
 */
export function nodeByPath<T extends { type: string }>(byPath: Map<string, T>, path: string): T | undefined {
  const clean = path.replace(/^\/+|\/+$/g, '');
  const node = byPath.get(clean) ?? byPath.get(clean.toLowerCase());
  return node && node.type !== 'link' ? node : undefined;
}

/**
 * The document of one page, as `page.document` of a page read (links into the revision become page
 * and file references) but without the page around it or its children's bodies. A document page
 * with an empty body has an empty document; group and link pages have none (404).
 */
export async function pageDocument(ctx: Context, view: ContentView, pageId: string, opts: PageReadOptions, built?: PageTree) {
  checkPageReadOptions(opts);
  // A caller reading many pages' documents passes the tree it already built.
  const tree = built ?? (await pageTree(ctx, view));
  const node = tree.byId.get(pageId);
  if (!node) throw notFound('Page');
  if (node.type !== 'document') throw notFound(`Document of page ${pageId} (a ${node.type} page has no body)`);
  const stored = node.body ? ((await bodiesOf(ctx, [node.body])).get(node.body) ?? '') : '';
  const markdown = evaluatedMarkdown(view, stored, opts.evaluated);
  // Through the parse-once cache: a body read before is not parsed again.
  const documents = await documentsOf([markdown]);
  await includeReusableContents(ctx, view, documents, opts.dereferenced);
  return resolveDocumentRefs(documents.get(markdown)!, node, {
    ...tree,
    files: await view.content.files(),
    publicUrl: ctx.config.publicUrl,
    spaceId: view.space.id,
  });
}

/**
 * A page's meta links (official `RevisionPageMetaLinks`: a canonical link and alternates, e.g. the
 * page in other languages). No write sets them in Lectern (the official page writes have no such
 * field), so every page has none: no canonical and an empty list of alternates. A page the
 * revision does not have is a 404. A stored page costs one shard; only another id (perhaps a page
 * a computed page generates) needs the whole tree.
 */
async function pageMetaLinks(ctx: Context, view: ContentView, pageId: string) {
  if (!(await view.content.page(pageId)) && !(await pageTree(ctx, view)).byId.has(pageId)) throw notFound('Page');
  return { alternates: [] as ContentRefJson[] };
}

const DOCUMENT_SCHEMAS = ['current', 'next'];

/**
 * A document by id in a space (ids: document-ids.ts). Documents are shared by every page with the
 * same body, so a document has no location of its own: its links stay as written (`url` refs),
 * where a page's document resolves relative links from the page. Includes of reusable contents
 * become `reusable-content` blocks as on a page, named by the space's main content (a document has
 * no revision either). `schema`: Lectern has one document schema, answered for both `current` and
 * `next`.
 */
export async function documentById(ctx: Context, spaceId: string, documentId: string, schema?: string | null) {
  const space = await requireSpace(ctx, spaceId, 'read');
  if (schema && !DOCUMENT_SCHEMAS.includes(schema)) throw badRequest('schema', 'must be current or next');
  const hash = bodyHashOfDocument(await serverKeys(ctx), space.id, documentId);
  const markdown = hash ? (await bodiesOf(ctx, [hash])).get(hash) : undefined;
  if (markdown === undefined) throw notFound('Document');
  const documents = await documentsOf([markdown]);
  // Only a body with an include needs the main content's reusable contents.
  if (markdown.includes('{%')) await includeReusableContents(ctx, await viewOf(ctx, space, space.revisionId), documents, undefined);
  return documents.get(markdown)!;
}

// ---------------------------------------------------------------------------------------------
// GraphQL (Space.revisionById and Space.document are added by the spaces module, which stands on content)

builder.objectFields(RevisionType, (t) => ({
  pageDocument: t.field({
    type: 'JSON',
    description: `${FREE_DOC}A document page's body`,
    args: {
      id: t.arg.id({ required: true }),
      evaluated: t.arg.string({ required: false }),
      dereferenced: t.arg.string({ required: false }),
    },
    resolve: (v, args, ctx) => pageDocument(ctx, v, String(args.id), { evaluated: args.evaluated, dereferenced: args.dereferenced }),
  }),
  pageMetaLinks: t.field({
    type: PageMetaLinksType,
    description: "A page's meta links (canonical, alternates): none are kept in Lectern",
    args: { id: t.arg.id({ required: true }) },
    resolve: (v, args, ctx) => pageMetaLinks(ctx, v, String(args.id)),
  }),
}));

// ---------------------------------------------------------------------------------------------
// REST

const PAGE_READS: ContentRead[] = [
  {
    // Greedy: the official client puts the path in the URL as is (`…/path/guides/getting-started`);
    // an encoded one (`guides%2Fgetting-started`) is decoded by the adapter.
    suffix: '/path/:pagePath+',
    spaceOperation: 'getPageByPath',
    changeRequestOperation: 'getPageInChangeRequestByPath',
    revisionOperation: 'getPageInRevisionByPath',
    args: { pagePath: 'String!', ...PAGE_READ_ARGS, computed: 'Boolean' },
    variables: (req) => {
      // A boolean; Lectern keeps no Git metadata, so serving it from a cache changes nothing.
      boolParam(req.query, 'cachedMetadata');
      return { ...pageReadVariables(req), pagePath: req.params.pagePath };
    },
    selection: `pageByPath(path: $pagePath, format: $format, evaluated: $evaluated, dereferenced: $dereferenced, computed: $computed) {
      ...RestPageFields descendants { parentId ...RestPageFields }
    }`,
    fragments: PAGE_REST_FIELDS,
    pick: (r) => restPageRead(r.pageByPath),
    live: 'computed',
  },
  {
    suffix: '/page/:pageId/meta-links',
    spaceOperation: 'listSpacePageMetaLinks',
    changeRequestOperation: 'listChangeRequestPageMetaLinks',
    revisionOperation: 'listRevisionPageMetaLinks',
    args: { pageId: 'ID!' },
    variables: (req) => ({ pageId: req.params.pageId }),
    selection: `pageMetaLinks(id: $pageId) { canonical ${CONTENT_REF_SELECTION} alternates ${CONTENT_REF_SELECTION} }`,
    pick: (r) => r.pageMetaLinks,
    // Whether the page exists can follow a spec (a computed page's id).
    live: 'computed',
  },
];

const REVISION_ONLY_ROUTES: RestRoute[] = [
  {
    method: 'GET',
    path: '/spaces/:spaceId/revisions/:revisionId/page/:pageId/document',
    operationId: 'getPageDocumentInRevisionById',
    document: `query getPageDocumentInRevisionById($spaceId: ID!, $revisionId: ID!, $pageId: ID!, $evaluated: String, $dereferenced: String) {
      space(id: $spaceId) { revisionById(id: $revisionId) { pageDocument(id: $pageId, evaluated: $evaluated, dereferenced: $dereferenced) } }
    }`,
    variables: (req) => ({
      spaceId: req.params.spaceId,
      revisionId: req.params.revisionId,
      pageId: req.params.pageId,
      evaluated: req.query.evaluated || undefined,
      dereferenced: req.query.dereferenced || undefined,
    }),
    result: (data) => data.space.revisionById.pageDocument,
    // A page computed from a spec has a document too.
    conditional: revisionConditional('computed'),
  },
  {
    method: 'GET',
    path: '/spaces/:spaceId/documents/:documentId',
    operationId: 'getDocumentById',
    document: `query getDocumentById($spaceId: ID!, $documentId: String!, $schema: String) { space(id: $spaceId) { document(id: $documentId, schema: $schema) } }`,
    variables: (req) => ({ spaceId: req.params.spaceId, documentId: req.params.documentId, schema: req.query.schema || undefined }),
    result: (data) => data.space.document,
  },
];

export const revisionReadRoutes: RestRoute[] = [...contentReadRoutes(PAGE_READS), ...REVISION_ONLY_ROUTES];
