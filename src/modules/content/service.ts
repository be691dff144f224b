import DataLoader from 'dataloader';
import type { Context } from '../../context.js';
import { requireRevisionReadable, requireSpace } from '../../auth/permissions.js';
import { badRequest, notFound } from '../../errors.js';
import type { Revision, Space } from '../../generated/prisma/client.js';
import { perRequest } from '../../loaders.js';
import { paginateArray, type PageArgs } from '../../pagination.js';
import { derivedBody, type MarkdownDocument } from '../../document/index.js';
import { LRUCache } from 'lru-cache';
import { Content, getObjects, type FileEntry, type PageEntry } from './store.js';
import { signedFileUrl } from '../../file-urls.js';
import { serverKeys, type ServerKeys } from '../../secrets.js';
import { buildTree, resolveRelativeLink, type PageNode } from './tree.js';
import { resolveDocumentRefs, type LinkEnv } from './link-targets.js';
import { contentLoaders } from './loaders.js';
import { expandComputedPages } from './computed-pages.js';
import { documentIdOf } from './document-ids.js';

/** The content a read is about: a space's main revision, or a change request's head. */
export interface ContentView {
  space: Space;
  revision: Revision;
  content: Content;
  /** The server's keys (document ids are signed per space: see documentIdOf). */
  keys: ServerKeys;
}

/**
 * Contents loaded once per request, by manifest, with their objects fetched through one batching
 * loader: listing the content of many spaces costs one query per level (revisions, manifests,
 * shards), not one per space.
 */
const objectLoader = perRequest(
  (ctx: Context) =>
    new DataLoader<string, unknown>(async (hashes) => {
      const found = await getObjects<unknown>(ctx.prisma, [...hashes]);
      return hashes.map((h) => found.get(h));
    }),
);
const contents = perRequest((_ctx: Context) => new Map<string, Promise<Content>>());

/** Markdown bodies by hash, through the request's batching loader. */
export async function bodiesOf(ctx: Context, hashes: string[]): Promise<Map<string, string>> {
  const values = await objectLoader(ctx).loadMany(hashes);
  const failed = values.find((v) => v instanceof Error);
  if (failed) throw failed;
  return new Map(
    hashes.flatMap((h, i) => (values[i] && !(values[i] instanceof Error) ? [[h, (values[i] as { markdown: string }).markdown]] : [])),
  );
}
/** The manifest hash of each content loaded from the store (contents made in memory have none). */
const manifestHashes = new WeakMap<Content, string>();

export function loadContent(ctx: Context, manifest: string): Promise<Content> {
  const cache = contents(ctx);
  if (!cache.has(manifest)) {
    const loader = objectLoader(ctx);
    const fetch = async <T>(hashes: string[]) => {
      const values = await loader.loadMany(hashes);
      // A failed batch (the database went away) fails the read with its own error (answered 503).
      const failed = values.find((v) => v instanceof Error);
      if (failed) throw failed;
      return new Map(hashes.flatMap((h, i) => (values[i] !== undefined && !(values[i] instanceof Error) ? [[h, values[i] as T]] : [])));
    };
    cache.set(
      manifest,
      Content.load(ctx.prisma, manifest, fetch).then((content) => (manifestHashes.set(content, manifest), content)),
    );
  }
  return cache.get(manifest)!;
}

export async function requireRevision(ctx: Context, spaceId: string, revisionId: string): Promise<Revision> {
  const revision = await contentLoaders(ctx).revision.load(revisionId);
  if (!revision || revision.spaceId !== spaceId) throw notFound('Revision');
  // Only a site token's reads are narrower (the permission module decides); checked only then so
  // that other reads keep their timing, which batched loads depend on.
  if (ctx.session.siteScope) await requireRevisionReadable(ctx, spaceId, revisionId);
  return revision;
}

export async function viewOf(ctx: Context, space: Space, revisionId: string): Promise<ContentView> {
  const [revision, keys] = await Promise.all([requireRevision(ctx, space.id, revisionId), serverKeys(ctx)]);
  return { space, revision, content: await loadContent(ctx, revision.manifest), keys };
}

export async function spaceContent(ctx: Context, spaceId: string): Promise<ContentView> {
  const space = await requireSpace(ctx, spaceId, 'read');
  return viewOf(ctx, space, space.revisionId);
}

export type Format = 'markdown' | 'document';
export interface ReadOptions {
  format?: Format | null;
  /** false: leave out mutable git metadata (none is kept here yet). */
  metadata?: boolean | null;
  /** false: leave computed pages as they are, uncomputed (computed-pages.ts). */
  computed?: boolean | null;
}

const DEFAULT_LAYOUT = {
  width: 'default',
  cover: false,
  coverSize: 'full',
  // No cover is shown, so none is masked.
  coverMask: 'none',
  title: true,
  description: true,
  tableOfContents: true,
  outline: true,
  pagination: true,
  metadata: true,
  // Where a page shows its tags (it has none here), its actions menu (a published site's
  // customization lists the actions it offers) and its headings' anchors (each section has one).
  tags: true,
  actions: true,
  anchors: true,
};

/**
 * The GitBook JSON of a page, and of its children (without bodies unless asked). With `links`,
 * documents carry page/file references for their links into the revision (see link-targets.ts).
 */
export function pageJson(
  ctx: Context,
  view: ContentView,
  node: PageNode,
  bodies?: Map<string, string>,
  format?: Format | null,
  links?: LinkEnv,
  /** Documents already made from the bodies' text (documentsOf: large bodies parse off the event loop). */
  documents?: Map<string, MarkdownDocument>,
): Record<string, unknown> {
  const common = {
    id: node.id,
    title: node.title,
    ...(node.emoji ? { emoji: node.emoji } : {}),
    ...(node.icon ? { icon: node.icon } : {}),
    createdAt: node.createdAt,
    updatedAt: node.updatedAt,
    ...(node.hidden ? { hidden: true } : {}),
    ...(node.condition ? { condition: node.condition } : {}),
  };
  // Link pages have no indexing flags in the official schema.
  const indexing = { ...(node.noIndex ? { noIndex: true } : {}), ...(node.noRobotsIndex ? { noRobotsIndex: true } : {}) };
  if (node.type === 'link') {
    return { ...common, kind: 'link', type: 'link', href: node.href, target: { kind: 'url', url: node.href } };
  }
  // Groups only exist at the top level (the write path enforces it), as in GitBook.
  const children = node.children.map((c) => pageJson(ctx, view, c, bodies, format, links, documents));
  // Read with computed=false (or while its source cannot be computed): the computed page itself.
  if (node.type === 'computed') return { ...common, type: 'computed', computed: node.computed };
  if (node.type === 'group') {
    return { ...common, ...indexing, kind: 'group', type: 'group', slug: node.slug, path: node.path, pages: children };
  }
  const markdown = node.body && bodies ? (bodies.get(node.body) ?? '') : undefined;
  return {
    ...common,
    kind: 'sheet',
    type: 'document',
    urls: ctx.urls.page(view.space.id, node.path),
    slug: node.slug,
    path: node.path,
    ...(node.description ? { description: node.description } : {}),
    ...indexing,
    ...(node.body ? { documentId: documentIdOf(view.keys, view.space.id, node.body) } : {}),
    pages: children,
    // Lectern keeps no per-page layout yet: GitBook's defaults.
    layout: DEFAULT_LAYOUT,
    // Lectern has no page tags (nothing writes one), so every page has none.
    tags: [],
    ...(markdown !== undefined && format === 'markdown' ? { markdown } : {}),
    ...(markdown !== undefined && format !== 'markdown' ? { document: documentOf(markdown, node, links, documents) } : {}),
  };
}

function documentOf(markdown: string, node: PageNode, links?: LinkEnv, documents?: Map<string, MarkdownDocument>) {
  const document = documents?.get(markdown) ?? derivedBody(markdown).document();
  return links ? resolveDocumentRefs(document, node, links) : document;
}

export type PageTree = ReturnType<typeof buildTree>;

/**
 * Page trees as stored, by manifest hash, shared by every request of the process. A manifest is
 * immutable and content-addressed, so its tree (what buildTree makes of its entries: order, paths,
 * depths, ancestors) never changes: a front-end's nested query over 100 spaces reads no shard and
 * sorts no tree once their trees are here. Trees are read-only once built (no caller mutates a
 * PageNode: they copy what they change). Bounded by pages, least recently used first. Measured
 * (bench/front-end.ts data, heap after a forced GC): a page costs ~1.5 KB here (its node, strings,
 * ancestors and map entries) and ~1 KB more in its typed listing (page-type.ts, sharedIndex, which
 * lives as long as the tree), so the bound keeps ~85 MB at most: every page of the bench's 500
 * spaces, where 50,000 pages would let it reach ~130 MB, which V8 then multiplies when it sizes
 * its heap for the next collection.
 */
export const PAGE_TREE_CACHE_PAGES = 32_000;
interface StoredTree {
  tree: PageTree;
  /**
   * The entries as stored, kept only when some page is computed: such trees expand from OpenAPI
   * specs, which change, so they are expanded per request from these. Other trees keep their nodes
   * alone (each node copies its entry's fields: the entries would double the objects kept).
   */
  entries: PageEntry[] | null;
}
const storedTrees = new LRUCache<string, StoredTree>({
  maxSize: PAGE_TREE_CACHE_PAGES,
  sizeCalculation: (t) => Math.max(1, t.tree.byId.size),
});

async function storedTree(view: ContentView): Promise<StoredTree> {
  // Keyed by the content's own manifest hash, not the revision's: a read may look at a content made
  // in memory (computed-reads.ts), which has no hash and is never kept.
  const key = manifestHashes.get(view.content);
  const hit = key === undefined ? undefined : storedTrees.get(key);
  if (hit) return hit;
  const entries = await view.content.allPages();
  const stored = { tree: buildTree(entries), entries: entries.some((e) => e.type === 'computed') ? entries : null };
  if (key !== undefined) storedTrees.set(key, stored);
  return stored;
}

/** The page tree; computed pages replaced by the pages they compute unless `computed` is false (computed-pages.ts). */
export async function pageTree(ctx: Context, view: ContentView, opts: ReadOptions = {}): Promise<PageTree> {
  const stored = await storedTree(view);
  if (opts.computed === false || !stored.entries) return stored.tree;
  const loader = objectLoader(ctx);
  return buildTree(
    await expandComputedPages(ctx, view.space.organizationId, stored.entries, (hash, markdown) => loader.prime(hash, { markdown })),
  );
}

/** A file of a space's revision; its `downloadURL` is signed and expires (src/file-urls.ts). */
export function fileJson(ctx: Context, keys: ServerKeys, spaceId: string, file: FileEntry) {
  return {
    id: file.id,
    name: file.name,
    contentType: file.contentType,
    downloadURL: signedFileUrl(ctx.urls, keys, spaceId, file),
    size: file.size,
  };
}

export interface PageReadOptions extends ReadOptions {
  evaluated?: string | null;
  dereferenced?: string | null;
}

export function checkPageReadOptions(opts: PageReadOptions) {
  if (opts.evaluated && !['true', 'false', 'deterministic-only'].includes(opts.evaluated))
    throw badRequest('evaluated', 'must be true, false or deterministic-only');
  if (opts.dereferenced && !['true', 'false', 'reusable-contents'].includes(opts.dereferenced))
    throw badRequest('dereferenced', 'must be true, false or reusable-contents');
}

/** A body as read with `evaluated`: `{{ variables.name }}` takes the space's (or page's) variable value. */
export function evaluatedMarkdown(view: ContentView, markdown: string, evaluated: string | null | undefined) {
  if (!evaluated || evaluated === 'false') return markdown;
  const vars = view.content.manifest.variables;
  return markdown.replace(/\{\{\s*(?:space\.)?(?:vars|variables)\.([\w-]+)\s*\}\}/g, (m, name: string) => vars[name] ?? m);
}

export async function listFiles(ctx: Context, view: ContentView, args: PageArgs) {
  const [files, keys] = await Promise.all([view.content.files(), serverKeys(ctx)]);
  return paginateArray(
    args,
    files.map((f) => fileJson(ctx, keys, view.space.id, f)),
  );
}

export async function fileById(ctx: Context, view: ContentView, fileId: string) {
  const file = (await view.content.files()).find((f) => f.id === fileId);
  if (!file) throw notFound('File');
  return fileJson(ctx, await serverKeys(ctx), view.space.id, file);
}

export { resolveRelativeLink };
