import { FREE_DOC } from '../../graphql/free-form.js';
import type { Context } from '../../context.js';
import { badRequest } from '../../errors.js';
import { builder } from '../../graphql/builder.js';
import { perRequest } from '../../loaders.js';
import { requireSpace } from '../../auth/permissions.js';
import { ContentRefUnion, PageTagType, type ContentRefJson } from './content-refs.js';
import { nodeByPath, pageDocument } from './revision-reads.js';
import { RevisionType } from './revision.js';
import { reusableContentDocument, reusableContentJson } from './reusable-contents.js';
import { bodiesOf, evaluatedMarkdown, pageJson, pageTree, viewOf, type ContentView, type PageTree } from './service.js';
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
  get computed(): unknown {
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
    nodes.map((json) => {
      const page: SharedPage = { json, node: tree.byId.get(json.id), parentId, type: String(json.type), children: [] };
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
  ref(page: SharedPage): PageRef {
    return new PageRef(this, page);
  }
  get roots(): PageRef[] {
    return this.shared.roots.map((p) => this.ref(p));
  }
  byId(id: string): PageRef | undefined {
    const page = this.shared.byId.get(id);
    return page && this.ref(page);
  }
  byPath(path: string): PageRef | undefined {
    const page = nodeByPath(this.shared.byPath, path);
    return page && this.ref(page);
  }
  children(ref: PageRef): PageRef[] {
    return ref.page.children.length ? ref.page.children.map((p) => this.ref(p)) : NO_PAGES;
  }
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
export const PageType = builder.objectRef<PageRef>('Page');
PageType.implement({
  description: 'A page of a revision: every field of the official RevisionPage (document, group, link or computed)',
  // Every field but the bodies is exposed: a property of PageRef (see there), no resolver.
  fields: (t) => ({
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    linkTitle: t.exposeString('linkTitle', { nullable: true, description: 'Lectern keeps none' }),
    kind: t.expose('kind', { type: PageKindEnum, nullable: true, description: 'None on computed pages' }),
    type: t.expose('type', { type: PageTypeEnum }),
    emoji: t.exposeString('emoji', { nullable: true }),
    icon: t.exposeString('icon', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', nullable: true }),
    condition: t.exposeString('condition', { nullable: true, description: 'Adaptive-content condition' }),
    slug: t.exposeString('slug', { nullable: true, description: 'Document and group pages' }),
    path: t.exposeString('path', { nullable: true, description: 'Document and group pages' }),
    description: t.exposeString('description', { nullable: true }),
    urls: t.expose('urls', { type: PageUrls, nullable: true, description: 'Document pages' }),
    hidden: t.exposeBoolean('hidden'),
    noIndex: t.exposeBoolean('noIndex'),
    noRobotsIndex: t.exposeBoolean('noRobotsIndex'),
    layout: t.expose('layout', { type: PageLayout, nullable: true, description: 'Document pages' }),
    cover: t.expose('cover', { type: PageCover, nullable: true, description: 'Lectern keeps no covers' }),
    git: t.expose('git', { type: GitBlob, nullable: true, description: 'Lectern keeps no Git metadata' }),
    tags: t.field({
      type: [PageTagType],
      nullable: true,
      description: 'Document pages (RevisionPageTag)',
      resolve: (p) => p.tags as { tag: ContentRefJson }[] | null,
    }),
    variables: t.expose('variables', { type: [VariableType], description: "The page's own variables (none are kept per page in Lectern)" }),
    documentId: t.exposeString('documentId', { nullable: true }),
    href: t.exposeString('href', { nullable: true, description: 'Link pages' }),
    target: t.field({
      type: ContentRefUnion,
      nullable: true,
      description: 'Link pages: where the link points',
      resolve: (p) => p.target as ContentRefJson | null,
    }),
    computed: t.expose('computed', { type: 'JSON', nullable: true, description: 'Computed pages read with computed: false' }),
    depth: t.exposeInt('depth', { description: '0 for a top-level page' }),
    children: t.expose('children', {
      type: [PageType],
      description: 'The pages directly under this one (select children again for a deeper subtree)',
      // Not a multiplier: however deep `children` is selected, the pages of every level together are
      // at most the tree's (which `pageTree` costs), all lookups in one in-memory tree.
      complexity: { field: 1, multiplier: 1 },
    }),
    parent: t.expose('parent', { type: PageType, nullable: true }),
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
// Revision fields (the JSON ones, `pages`/`page`/`pageByPath`/`rest`, stay: the REST adapter reads them)

builder.objectFields(RevisionType, (t) => ({
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
