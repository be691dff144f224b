import { FREE_DOC } from '../../graphql/free-form.js';
import type { Context } from '../../context.js';
import { badRequest, notFound } from '../../errors.js';
import { builder } from '../../graphql/builder.js';
import { perRequest } from '../../loaders.js';
import { requireSpace } from '../../auth/permissions.js';
import type { ComputedSource } from './computed-pages.js';
import { ComputedContentSourceType } from './computed-source-types.js';
import { ContentRefUnion, PageTagType, type ContentRefJson } from './content-refs.js';
import { nodeByPath, pageDocument } from './revision-reads.js';
import { FormatEnum, RevisionType } from './revision.js';
import { reusableContentDocument, reusableContentJson } from './reusable-contents.js';
import {
  bodiesOf,
  checkPageReadOptions,
  evaluatedMarkdown,
  pageJson,
  pageTree,
  viewOf,
  type ContentView,
  type Format,
  type PageTree,
} from './service.js';
import type { PageNode } from './tree.js';

/**
 * Typed pages. A `Page` is a page of a revision's tree as the REST listing shows it: each field
 * resolves from the very JSON object the listing's `pageJson` (service.ts) builds for that page, so
 * the typed fields and the REST bodies cannot drift apart. The tree JSON and the tree itself are built
 * once per revision per request; `children`, `parent` and `ancestors` are lookups in that index, so
 * any depth of `children` costs no statement (the N+1 guard in test/graphql/typed-content.test.ts).
 */
export class PageRef {
  constructor(
    readonly index: PageIndex,
    readonly page: SharedPage,
    /** How `body` reads this page (see BodyRead). */
    readonly read: BodyRead = AS_STORED,
  ) {}
  get view(): ContentView {
    return this.index.view;
  }
  /** The page's GitBook JSON (the listing's: no body, see sharedIndex). */
  get json(): Record<string, any> {
    return this.page.json;
  }
  get node(): PageNode | undefined {
    return this.page.node;
  }
  get parentId(): string | null {
    return this.page.parentId;
  }
  get position(): number {
    return this.page.position;
  }
  /** How the pages below this one read their bodies: as this one, but `evaluated` is this page's alone. */
  get subpageRead(): BodyRead {
    return this.read.evaluated ? { format: this.read.format, dereferenced: this.read.dereferenced } : this.read;
  }

  // The Page type's fields, read as properties: a field without a resolver is a property read that
  // graphql-jit inlines in its compiled query, where a resolver costs a call, a resolve info and a
  // response path per page and field (measured: 8 of the 19 MB a 6,000-page site query allocated).
  get id(): string {
    return this.page.json.id;
  }
  get title(): string {
    return this.page.json.title;
  }
  get linkTitle(): string | null {
    return str(this.page.json.linkTitle);
  }
  get kind(): 'sheet' | 'group' | 'link' | null {
    return this.page.json.kind ?? null;
  }
  get type(): 'document' | 'group' | 'link' | 'computed' {
    return this.page.json.type;
  }
  get emoji(): string | null {
    return str(this.page.json.emoji);
  }
  get icon(): string | null {
    return str(this.page.json.icon);
  }
  get createdAt(): string | null {
    return this.page.json.createdAt ?? null;
  }
  get updatedAt(): string | null {
    return this.page.json.updatedAt ?? null;
  }
  get condition(): string | null {
    return str(this.page.json.condition);
  }
  get slug(): string | null {
    return str(this.page.json.slug);
  }
  get path(): string | null {
    return str(this.page.json.path);
  }
  get description(): string | null {
    return str(this.page.json.description);
  }
  get urls(): { app: string } | null {
    return this.page.json.urls ?? null;
  }
  get hidden(): boolean {
    return this.page.json.hidden === true;
  }
  get noIndex(): boolean {
    return this.page.json.noIndex === true;
  }
  get noRobotsIndex(): boolean {
    return this.page.json.noRobotsIndex === true;
  }
  get layout(): Record<string, string | boolean> | null {
    return this.page.json.layout ?? null;
  }
  get cover(): Record<string, any> | null {
    return this.page.json.cover ?? null;
  }
  get git(): { oid: string; path: string } | null {
    return this.page.json.git ?? null;
  }
  get tags(): unknown[] | null {
    return this.page.json.tags ?? null;
  }
  get variables(): { name: string; value: unknown }[] {
    return variableList(this.page.json.variables);
  }
  get documentId(): string | null {
    return str(this.page.json.documentId);
  }
  get href(): string | null {
    return str(this.page.json.href);
  }
  get target(): unknown {
    return this.page.json.target ?? null;
  }
  get computed(): ComputedSource | null {
    return this.page.json.computed ?? null;
  }
  get depth(): number {
    return this.page.node?.depth ?? 0;
  }
  /** Kept once made: the compiled query reads the property several times (null, iterable, items). */
  private childRefs: PageRef[] | undefined;
  get children(): PageRef[] {
    return (this.childRefs ??= this.index.children(this));
  }
  get parent(): PageRef | null {
    return this.page.parentId ? (this.index.byId(this.page.parentId) ?? null) : null;
  }
  get ancestors(): PageRef[] {
    const out: PageRef[] = [];
    for (let at = this.parent; at; at = at.parent) out.unshift(at);
    return out;
  }
  /** Every page below this one, depth first (each names its parent: `parentId`). */
  get descendants(): PageRef[] {
    const out: PageRef[] = [];
    const walk = (refs: PageRef[]) => refs.forEach((r) => (out.push(r), walk(r.children)));
    walk(this.children);
    return out;
  }
}

/**
 * How `Page.body` reads a page: the format, variables replaced (`evaluated`) and reusable contents
 * included (`dereferenced`), as the official page read takes them. A page read (`Revision.page`,
 * `pageByPath`) sets them for the page; the pages below it read theirs the same way, but with their
 * bodies as written (`evaluated` is the read page's alone, as in the official answer). Pages
 * reached otherwise read their Markdown as stored, as the official listings carry it.
 */
export interface BodyRead {
  format: Format;
  evaluated?: string | null;
  dereferenced?: string | null;
}
const AS_STORED: BodyRead = Object.freeze({ format: 'markdown' as const });

type PageBody = { markdown: string } | { document: unknown };

/** A document page's body as its read asks (BodyRead); null on other pages and on a page without a body. */
async function pageBody(ctx: Context, p: PageRef): Promise<PageBody | null> {
  const body = p.node?.body;
  if (p.type !== 'document' || !body) return null;
  const { format, evaluated, dereferenced } = p.read;
  if (format === 'markdown') return { markdown: evaluatedMarkdown(p.view, (await bodiesOf(ctx, [body])).get(body) ?? '', evaluated) };
  return { document: await pageDocument(ctx, p.view, p.id, { evaluated, dereferenced }, p.index.tree) };
}

/** The children of every leaf (frozen: shared by every request). */
const NO_PAGES: PageRef[] = Object.freeze([]) as unknown as PageRef[];
const str = (v: unknown) => (typeof v === 'string' ? v : null);
const variableList = (vars: Record<string, unknown> | undefined | null) =>
  Object.entries(vars ?? {}).map(([name, value]) => ({ name, value }));

/** A page as every request reading the same tree of the same space shares it. */
interface SharedPage {
  json: Record<string, any>;
  node: PageNode | undefined;
  parentId: string | null;
  /** Its place among its parent's pages (or the top-level pages), from 0. */
  position: number;
  type: string;
  children: SharedPage[];
}
interface SharedIndex {
  roots: SharedPage[];
  byId: Map<string, SharedPage>;
  byPath: Map<string, SharedPage>;
}

/**
 * The listing JSON of every page, once per tree and space: a page's JSON depends on the tree (its
 * manifest), the space (URLs, document ids) and the server's keys and public URL, nothing else. A
 * stored tree is one object for as long as the process keeps it (service.ts, storedTrees), so the
 * JSON hangs off it in a WeakMap and goes with it; a tree expanded per request (computed pages)
 * takes its JSON with it. Building this JSON (6,000 pages: paths, URLs, a MAC per document id) was
 * most of a site query's time; now a request only wraps the pages it reaches (PageRef).
 */
const sharedIndexes = new WeakMap<PageTree, Map<string, SharedIndex>>();

function sharedIndex(ctx: Context, view: ContentView, tree: PageTree): SharedIndex {
  let bySpace = sharedIndexes.get(tree);
  if (!bySpace) sharedIndexes.set(tree, (bySpace = new Map()));
  const cached = bySpace.get(view.space.id);
  if (cached) return cached;
  // Without bodies: `markdown` loads a page's body only when selected (batched), so a front-end's
  // tree of titles and paths reads no body at all.
  const index: SharedIndex = { roots: [], byId: new Map(), byPath: new Map() };
  const walk = (nodes: Record<string, any>[], parentId: string | null): SharedPage[] =>
    nodes.map((json, position) => {
      const page: SharedPage = { json, node: tree.byId.get(json.id), parentId, position, type: String(json.type), children: [] };
      index.byId.set(json.id, page);
      if (typeof json.path === 'string') index.byPath.set(json.path, page);
      page.children = walk(json.pages ?? [], json.id);
      return page;
    });
  index.roots = walk(
    tree.roots.map((node) => pageJson(ctx, view, node)),
    null,
  );
  bySpace.set(view.space.id, index);
  return index;
}

/** A revision's pages for one request: the shared pages, wrapped with the request's view as reached. */
class PageIndex {
  constructor(
    readonly view: ContentView,
    readonly tree: PageTree,
    private readonly shared: SharedIndex,
  ) {}
  ref(page: SharedPage, read?: BodyRead): PageRef {
    return new PageRef(this, page, read);
  }
  get roots(): PageRef[] {
    return this.shared.roots.map((p) => this.ref(p));
  }
  /** Every page, depth first. */
  get all(): PageRef[] {
    const out: PageRef[] = [];
    const walk = (pages: SharedPage[]) => pages.forEach((p) => (out.push(this.ref(p)), walk(p.children)));
    walk(this.shared.roots);
    return out;
  }
  byId(id: string, read?: BodyRead): PageRef | undefined {
    const page = this.shared.byId.get(id);
    return page && this.ref(page, read);
  }
  byPath(path: string): PageRef | undefined {
    const page = nodeByPath(this.shared.byPath, path);
    return page && this.ref(page);
  }
  children(ref: PageRef): PageRef[] {
    if (!ref.page.children.length) return NO_PAGES;
    const read = ref.subpageRead;
    return ref.page.children.map((p) => this.ref(p, read));
  }
}

/**
 * A page of a tree a read already built (a published URL's page, a link's location), typed: the
 * index of that very tree, so the page is the one the read found.
 */
export function pageInTree(ctx: Context, view: ContentView, tree: PageTree, id: string, read?: BodyRead): PageRef | undefined {
  return new PageIndex(view, tree, sharedIndex(ctx, view, tree)).byId(id, read);
}

async function buildIndex(ctx: Context, view: ContentView, computed: boolean): Promise<PageIndex> {
  const tree = await pageTree(ctx, view, { computed });
  return new PageIndex(view, tree, sharedIndex(ctx, view, tree));
}

const indexes = perRequest((_ctx: Context) => new Map<string, Promise<PageIndex>>());

/** The typed page index of a revision, once per request. */
export function pageIndex(ctx: Context, view: ContentView, computed = true): Promise<PageIndex> {
  const memo = indexes(ctx);
  const key = `${view.space.id}:${view.revision.id}:${computed}`;
  if (!memo.has(key)) memo.set(key, buildIndex(ctx, view, computed));
  return memo.get(key)!;
}

/**
 * A page by path (as getPageByPath finds it: slashes trimmed, any case, link pages have no path), or
 * by id; null when the revision has none. Null rather than an error: a front-end resolving a
 * visitor's path asks "is there a page here", and a GraphQL error would fail the whole answer.
 */
export async function findPage(
  ctx: Context,
  view: ContentView,
  by: { id?: string | null; path?: string | null },
  computed = true,
): Promise<PageRef | null> {
  const index = await pageIndex(ctx, view, computed);
  if (by.id != null) return index.byId(by.id) ?? null;
  if (by.path != null) return index.byPath(by.path) ?? null;
  return null;
}

// ---------------------------------------------------------------------------------------------
// Types

const PageKindEnum = builder.enumType('PageKind', { values: ['sheet', 'group', 'link'] as const });
const PageTypeEnum = builder.enumType('PageType', { values: ['document', 'group', 'link', 'computed'] as const });

const PageUrls = builder.objectRef<{ app: string }>('PageUrls').implement({
  fields: (t) => ({ app: t.exposeString('app', { description: 'Location of the page in the app' }) }),
});

type Layout = Record<string, string | boolean>;
const PageLayout = builder.objectRef<Layout>('PageLayout').implement({
  description: 'How a document page is shown (official RevisionPageLayoutOptions)',
  fields: (t) => ({
    width: t.string({ nullable: true, resolve: (l) => (l.width as string) ?? null }),
    cover: t.boolean({ nullable: true, resolve: (l) => (l.cover as boolean) ?? null }),
    coverSize: t.string({ nullable: true, resolve: (l) => (l.coverSize as string) ?? null }),
    coverMask: t.string({ nullable: true, resolve: (l) => (l.coverMask as string) ?? null }),
    ...Object.fromEntries(
      (['title', 'description', 'tableOfContents', 'outline', 'pagination', 'metadata', 'tags', 'actions', 'anchors'] as const).map(
        (name) => [name, t.boolean({ nullable: true, resolve: (l: Layout) => (l[name] as boolean) ?? null })],
      ),
    ),
  }),
});

const PageCover = builder.objectRef<Record<string, any>>('PageCover').implement({
  description: 'A document page cover (official RevisionPageDocumentCover)',
  fields: (t) => ({
    ref: t.field({ type: ContentRefUnion, nullable: true, description: 'The image: a file or a URL', resolve: (c) => c.ref ?? null }),
    refDark: t.field({ type: ContentRefUnion, nullable: true, description: 'The image in dark mode', resolve: (c) => c.refDark ?? null }),
    textColor: t.string({ nullable: true, resolve: (c) => c.textColor ?? null }),
    textColorDark: t.string({ nullable: true, resolve: (c) => c.textColorDark ?? null }),
    yPos: t.float({ resolve: (c) => c.yPos }),
    height: t.float({ nullable: true, resolve: (c) => c.height ?? null }),
  }),
});

const GitBlob = builder.objectRef<{ oid: string; path: string }>('GitSyncBlob').implement({
  fields: (t) => ({ oid: t.exposeString('oid'), path: t.exposeString('path') }),
});

export const VariableType = builder.objectRef<{ name: string; value: unknown }>('Variable').implement({
  description: 'A content variable (`{{ variables.name }}` in a body)',
  fields: (t) => ({
    name: t.exposeString('name'),
    value: t.field({ type: 'JSON', description: 'Free-form: a variable holds any JSON value', resolve: (v) => v.value }),
  }),
});
const PageMarkdownBody = builder.objectRef<{ markdown: string }>('PageMarkdownBody').implement({
  description: "A document page's body in Markdown",
  fields: (t) => ({ markdown: t.exposeString('markdown') }),
});
const PageDocumentBody = builder.objectRef<{ document: unknown }>('PageDocumentBody').implement({
  description: "A document page's body as a document (the official JSONDocument)",
  fields: (t) => ({
    document: t.field({
      type: 'JSON',
      description: `${FREE_DOC}The body, its links into the revision as page and file references`,
      resolve: (b) => b.document,
    }),
  }),
});
const PageBodyUnion = builder.unionType('PageBody', {
  description: 'A document page body: Markdown or a document, as the read that reached the page asked',
  types: [PageMarkdownBody, PageDocumentBody],
  resolveType: (b) => ('markdown' in b ? PageMarkdownBody : PageDocumentBody),
});

/**
 * Complexity of the page fields read from the in-memory tree (a property of PageRef, or a small
 * object of one): nothing to load or compute, so free. A page costs its own field, its body and
 * its pages below; a REST route selecting every field of 1000 link locations stays in the limit.
 */
const IN_MEMORY = 0;
const IN_MEMORY_OBJECT = { field: 0, multiplier: 0 };

export const PageType = builder.objectRef<PageRef>('Page');
PageType.implement({
  description: 'A page of a revision: every field of the official RevisionPage (document, group, link or computed)',
  // Every field but the bodies is exposed: a property of PageRef (see there), no resolver.
  fields: (t) => ({
    id: t.exposeID('id', { complexity: IN_MEMORY }),
    title: t.exposeString('title', { complexity: IN_MEMORY }),
    linkTitle: t.exposeString('linkTitle', { complexity: IN_MEMORY, nullable: true, description: 'Lectern keeps none' }),
    kind: t.expose('kind', { complexity: IN_MEMORY, type: PageKindEnum, nullable: true, description: 'None on computed pages' }),
    type: t.expose('type', { complexity: IN_MEMORY, type: PageTypeEnum }),
    emoji: t.exposeString('emoji', { complexity: IN_MEMORY, nullable: true }),
    icon: t.exposeString('icon', { complexity: IN_MEMORY, nullable: true }),
    createdAt: t.expose('createdAt', { complexity: IN_MEMORY, type: 'DateTime', nullable: true }),
    updatedAt: t.expose('updatedAt', { complexity: IN_MEMORY, type: 'DateTime', nullable: true }),
    condition: t.exposeString('condition', { complexity: IN_MEMORY, nullable: true, description: 'Adaptive-content condition' }),
    slug: t.exposeString('slug', { complexity: IN_MEMORY, nullable: true, description: 'Document and group pages' }),
    path: t.exposeString('path', { complexity: IN_MEMORY, nullable: true, description: 'Document and group pages' }),
    description: t.exposeString('description', { complexity: IN_MEMORY, nullable: true }),
    urls: t.expose('urls', { complexity: IN_MEMORY_OBJECT, type: PageUrls, nullable: true, description: 'Document pages' }),
    hidden: t.exposeBoolean('hidden', { complexity: IN_MEMORY }),
    noIndex: t.exposeBoolean('noIndex', { complexity: IN_MEMORY }),
    noRobotsIndex: t.exposeBoolean('noRobotsIndex', { complexity: IN_MEMORY }),
    layout: t.expose('layout', { complexity: IN_MEMORY_OBJECT, type: PageLayout, nullable: true, description: 'Document pages' }),
    cover: t.expose('cover', { complexity: IN_MEMORY_OBJECT, type: PageCover, nullable: true, description: 'Lectern keeps no covers' }),
    git: t.expose('git', { complexity: IN_MEMORY_OBJECT, type: GitBlob, nullable: true, description: 'Lectern keeps no Git metadata' }),
    tags: t.field({
      type: [PageTagType],
      complexity: IN_MEMORY_OBJECT,
      nullable: true,
      description: 'Document pages (RevisionPageTag)',
      resolve: (p) => p.tags as { tag: ContentRefJson }[] | null,
    }),
    variables: t.expose('variables', {
      complexity: IN_MEMORY_OBJECT,
      type: [VariableType],
      description: "The page's own variables (none are kept per page in Lectern)",
    }),
    documentId: t.exposeString('documentId', { complexity: IN_MEMORY, nullable: true }),
    href: t.exposeString('href', { complexity: IN_MEMORY, nullable: true, description: 'Link pages' }),
    target: t.field({
      type: ContentRefUnion,
      complexity: IN_MEMORY_OBJECT,
      nullable: true,
      description: 'Link pages: where the link points',
      resolve: (p) => p.target as ContentRefJson | null,
    }),
    computed: t.expose('computed', {
      complexity: IN_MEMORY_OBJECT,
      type: ComputedContentSourceType,
      nullable: true,
      description: 'Its source: computed pages read with computed: false',
    }),
    depth: t.exposeInt('depth', { complexity: IN_MEMORY, description: '0 for a top-level page' }),
    children: t.expose('children', {
      type: [PageType],
      description: 'The pages directly under this one (select children again for a deeper subtree)',
      // Not a multiplier: however deep `children` is selected, the pages of every level together are
      // at most the tree's (which `pageTree` costs), all lookups in one in-memory tree.
      complexity: { field: 1, multiplier: 1 },
    }),
    parent: t.expose('parent', { type: PageType, nullable: true }),
    parentId: t.exposeID('parentId', {
      complexity: IN_MEMORY,
      nullable: true,
      description: 'The page this one is directly under; null at the top level',
    }),
    position: t.exposeInt('position', {
      complexity: IN_MEMORY,
      description: "Its place among its parent's pages (or the top-level pages), from 0",
    }),
    descendants: t.expose('descendants', {
      type: [PageType],
      description: 'Every page below this one, depth first, each with its `parentId` and `position`: the whole subtree in one selection',
      complexity: { field: 1, multiplier: 1 },
    }),
    body: t.field({
      type: PageBodyUnion,
      nullable: true,
      // A body to load (and perhaps parse): it costs; what it holds is one value.
      complexity: { field: 1, multiplier: 0 },
      description:
        "A document page's body as the read that reached it asks: `Revision.page`/`pageByPath` with their format and options (the pages below read theirs as written), elsewhere its Markdown as stored. Null on other pages and on a page without a body",
      resolve: (p, _a, ctx) => pageBody(ctx, p),
    }),
    ancestors: t.expose('ancestors', { type: [PageType], description: 'From the top-level page down to the parent (breadcrumbs)' }),
    markdown: t.string({
      nullable: true,
      description: "A document page's body in Markdown (null on other pages)",
      args: { evaluated: t.arg.string({ required: false, description: 'true: `{{ variables.name }}` replaced by its value' }) },
      resolve: async (p, args, ctx) => {
        if (p.json.type !== 'document') return null;
        const body = p.node?.body;
        const markdown = body ? ((await bodiesOf(ctx, [body])).get(body) ?? '') : '';
        return evaluatedMarkdown(p.view, markdown, args.evaluated);
      },
    }),
    document: t.field({
      type: 'JSON',
      nullable: true,
      description: `${FREE_DOC}A document page's body, as getPageById answers it (null on other pages)`,
      args: { evaluated: t.arg.string({ required: false }), dereferenced: t.arg.string({ required: false }) },
      resolve: (p, args, ctx) =>
        p.json.type === 'document'
          ? pageDocument(ctx, p.view, p.json.id, { evaluated: args.evaluated, dereferenced: args.dereferenced }, p.index.tree)
          : null,
    }),
  }),
});

/** A reusable content, typed: the fields of its REST JSON (reusableContentJson) and its document. */
export const ReusableContentType = builder
  .objectRef<{ view: ContentView; json: ReturnType<typeof reusableContentJson> }>('ReusableContent')
  .implement({
    fields: (t) => ({
      id: t.string({ resolve: (r) => r.json.id }),
      title: t.string({ resolve: (r) => r.json.title }),
      documentId: t.string({ description: 'The document id (REST `document`)', resolve: (r) => r.json.document }),
      document: t.field({
        type: 'JSON',
        description: `${FREE_DOC}Its body (getReusableContentDocumentInRevisionById)`,
        args: { evaluated: t.arg.string({ required: false }), dereferenced: t.arg.string({ required: false }) },
        resolve: (r, args, ctx) =>
          reusableContentDocument(ctx, r.view, r.json.id, { evaluated: args.evaluated, dereferenced: args.dereferenced }),
      }),
    }),
  });

// ---------------------------------------------------------------------------------------------
// Revision fields. A selection cannot follow a tree of any depth: `pages`/`pageTree` give the
// top-level pages (select `children` to a fixed depth), `pageEntries` and `Page.descendants` every
// page flat, in order, each naming its parent, for clients (the REST routes) that need all of it.

const COMPUTED_ARG = 'false: computed pages as they are (default: replaced by the pages they compute)';
const BODY_ARGS = 'format, evaluated, dereferenced: how `body` reads the page (the official page read options)';

/** A page read (getPageById, getPageByPath): its options checked first, as the official read does. */
async function readPage(
  ctx: Context,
  view: ContentView,
  by: { id: string } | { path: string },
  args: { format?: Format | null; evaluated?: string | null; dereferenced?: string | null; computed?: boolean | null },
): Promise<PageRef> {
  const read: BodyRead = { format: args.format ?? 'document', evaluated: args.evaluated, dereferenced: args.dereferenced };
  checkPageReadOptions(read);
  if ('path' in by && !by.path.replace(/\//g, '')) throw badRequest('pagePath', 'is required (a page path, e.g. guides/getting-started)');
  const index = await pageIndex(ctx, view, args.computed !== false);
  // By path, the tree's own paths: a computed page read with computed=false has one (its JSON shows none).
  const id = 'id' in by ? by.id : nodeByPath(index.tree.byPath, by.path)?.id;
  const page = id === undefined ? undefined : index.byId(id, read);
  if (!page) throw notFound('Page');
  return page;
}

builder.objectFields(RevisionType, (t) => ({
  pages: t.field({
    type: [PageType],
    description: 'The top-level pages (the page tree of the official revision); select `children` or `descendants` for the pages below',
    args: { computed: t.arg.boolean({ required: false, description: COMPUTED_ARG }) },
    resolve: async (v, args, ctx) => (await pageIndex(ctx, v, args.computed !== false)).roots,
  }),
  pageEntries: t.field({
    type: [PageType],
    description: 'Every page, depth first (reading order), each with its `parentId` and `position`: the whole tree in one selection',
    args: { computed: t.arg.boolean({ required: false, description: COMPUTED_ARG }) },
    complexity: { field: 1, multiplier: 1 },
    resolve: async (v, args, ctx) => (await pageIndex(ctx, v, args.computed !== false)).all,
  }),
  page: t.field({
    type: PageType,
    description: `One page by id (getPageById); ${BODY_ARGS}`,
    args: {
      id: t.arg.id({ required: true }),
      format: t.arg({ type: FormatEnum, required: false, description: 'document (default) or markdown' }),
      evaluated: t.arg.string({ required: false }),
      dereferenced: t.arg.string({ required: false }),
      computed: t.arg.boolean({ required: false, description: COMPUTED_ARG }),
    },
    resolve: (v, args, ctx) => readPage(ctx, v, { id: String(args.id) }, { ...args, format: args.format as Format | null }),
  }),
  pageByPath: t.field({
    type: PageType,
    description: `A document or group page by its path (e.g. \`guides/getting-started\`, getPageByPath); ${BODY_ARGS}`,
    args: {
      path: t.arg.string({ required: true }),
      format: t.arg({ type: FormatEnum, required: false, description: 'document (default) or markdown' }),
      evaluated: t.arg.string({ required: false }),
      dereferenced: t.arg.string({ required: false }),
      computed: t.arg.boolean({ required: false, description: COMPUTED_ARG }),
    },
    resolve: (v, args, ctx) => readPage(ctx, v, { path: args.path }, { ...args, format: args.format as Format | null }),
  }),
  pageTree: t.field({
    type: [PageType],
    description: 'The top-level pages, typed; select `children` for as deep a subtree as wanted',
    args: {
      computed: t.arg.boolean({
        required: false,
        description: 'false: computed pages as they are (default: replaced by the pages they compute)',
      }),
    },
    resolve: async (v, args, ctx) => (await pageIndex(ctx, v, args.computed !== false)).roots,
  }),
  typedPage: t.field({
    type: PageType,
    nullable: true,
    description: 'One page by id or by path (typed); null when the revision has no such page',
    args: { id: t.arg.id({ required: false }), path: t.arg.string({ required: false }), computed: t.arg.boolean({ required: false }) },
    resolve: (v, args, ctx) => {
      if (args.id == null && args.path == null) throw badRequest('id', 'or path is required');
      return findPage(ctx, v, { id: args.id == null ? null : String(args.id), path: args.path }, args.computed !== false);
    },
  }),
  reusableContentList: t.field({
    type: [ReusableContentType],
    description: "The revision's reusable contents, typed",
    resolve: async (v) => (await v.content.reusableContents()).map((r) => ({ view: v, json: reusableContentJson(v, r) })),
  }),
  variableList: t.field({
    type: [VariableType],
    description: "The revision's variables, typed",
    resolve: (v) => variableList(v.content.manifest.variables),
  }),
  parentRevisions: t.field({
    type: [RevisionType],
    description: 'The parent revisions (two for a merge), typed',
    // The space was checked to reach this revision. A parent outside the space (a duplicated
    // space's first revision names its source's) is left out: reading it would need that space.
    resolve: async (v, _a, ctx) =>
      (await Promise.all(v.revision.parents.map((id) => viewOf(ctx, v.space, id).catch(() => null)))).filter(
        (p): p is ContentView => p !== null,
      ),
  }),
}));

/** A page of a space's main content by path (Space.page): the space checked as `space.content` does. */
export async function spacePageByPath(ctx: Context, spaceId: string, path: string) {
  const space = await requireSpace(ctx, spaceId, 'read');
  return findPage(ctx, await viewOf(ctx, space, space.revisionId), { path });
}
