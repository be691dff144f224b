import type { Context } from '../../context.js';
import { badRequest } from '../../errors.js';
import { builder } from '../../graphql/builder.js';
import { perRequest } from '../../loaders.js';
import { requireSpace } from '../../auth/permissions.js';
import { nodeByPath, pageDocument } from './revision-reads.js';
import { RevisionType } from './revision.js';
import { reusableContentDocument, reusableContentJson } from './reusable-contents.js';
import { evaluatedMarkdown, pagesJson, pageTree, viewOf, type ContentView, type PageTree } from './service.js';
import type { PageNode } from './tree.js';

/**
 * Typed pages. A `Page` is a page of a revision's tree as the REST listing shows it: each field
 * resolves from the very JSON object `pagesJson` (service.ts → pageJson) builds for that page, so the
 * typed fields and the REST bodies cannot drift apart. The tree JSON and the tree itself are built
 * once per revision per request; `children`, `parent` and `ancestors` are lookups in that index, so
 * any depth of `children` costs no statement (the N+1 guard in test/graphql/typed-content.test.ts).
 */
export interface PageRef {
  view: ContentView;
  index: PageIndex;
  /** The page's GitBook JSON (the listing's: markdown, no document). */
  json: Record<string, any>;
  node: PageNode | undefined;
  parentId: string | null;
}

interface PageIndex {
  roots: PageRef[];
  byId: Map<string, PageRef>;
  byPath: Map<string, PageRef & { type: string }>;
  tree: PageTree;
}

async function buildIndex(ctx: Context, view: ContentView, computed: boolean): Promise<PageIndex> {
  const [{ pages }, tree] = await Promise.all([pagesJson(ctx, view, { computed }), pageTree(ctx, view, { computed })]);
  const index: PageIndex = { roots: [], byId: new Map(), byPath: new Map(), tree };
  const walk = (nodes: Record<string, any>[], parentId: string | null): PageRef[] =>
    nodes.map((json) => {
      const ref: PageRef = { view, index, json, node: tree.byId.get(json.id), parentId };
      index.byId.set(json.id, ref);
      if (typeof json.path === 'string') index.byPath.set(json.path, Object.assign(ref, { type: String(json.type) }));
      walk(json.pages ?? [], json.id);
      return ref;
    });
  index.roots = walk(pages as Record<string, any>[], null);
  return index;
}

const indexes = perRequest((_ctx: Context) => new Map<string, Promise<PageIndex>>());

/** The typed page index of a revision, once per request (as pagesJson). */
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
export async function findPage(ctx: Context, view: ContentView, by: { id?: string | null; path?: string | null }, computed = true): Promise<PageRef | null> {
  const index = await pageIndex(ctx, view, computed);
  if (by.id != null) return index.byId.get(by.id) ?? null;
  if (by.path != null) return nodeByPath(index.byPath, by.path) ?? null;
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
      (['title', 'description', 'tableOfContents', 'outline', 'pagination', 'metadata', 'tags', 'actions', 'anchors'] as const).map((name) => [
        name,
        t.boolean({ nullable: true, resolve: (l: Layout) => (l[name] as boolean) ?? null }),
      ]),
    ),
  }),
});

const PageCover = builder.objectRef<Record<string, any>>('PageCover').implement({
  description: 'A document page cover (official RevisionPageDocumentCover)',
  fields: (t) => ({
    ref: t.field({ type: 'JSON', nullable: true, resolve: (c) => c.ref ?? null }),
    refDark: t.field({ type: 'JSON', nullable: true, resolve: (c) => c.refDark ?? null }),
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
  fields: (t) => ({ name: t.exposeString('name'), value: t.field({ type: 'JSON', resolve: (v) => v.value }) }),
});
const variableList = (vars: Record<string, unknown> | undefined | null) => Object.entries(vars ?? {}).map(([name, value]) => ({ name, value }));

const str = (v: unknown) => (typeof v === 'string' ? v : null);

export const PageType = builder.objectRef<PageRef>('Page');
PageType.implement({
  description: 'A page of a revision: every field of the official RevisionPage (document, group, link or computed)',
  fields: (t) => ({
    id: t.id({ resolve: (p) => p.json.id }),
    title: t.string({ resolve: (p) => p.json.title }),
    linkTitle: t.string({ nullable: true, description: 'Lectern keeps none', resolve: (p) => str(p.json.linkTitle) }),
    kind: t.field({ type: PageKindEnum, nullable: true, description: 'None on computed pages', resolve: (p) => p.json.kind ?? null }),
    type: t.field({ type: PageTypeEnum, resolve: (p) => p.json.type }),
    emoji: t.string({ nullable: true, resolve: (p) => str(p.json.emoji) }),
    icon: t.string({ nullable: true, resolve: (p) => str(p.json.icon) }),
    createdAt: t.field({ type: 'DateTime', nullable: true, resolve: (p) => p.json.createdAt ?? null }),
    updatedAt: t.field({ type: 'DateTime', nullable: true, resolve: (p) => p.json.updatedAt ?? null }),
    condition: t.string({ nullable: true, description: 'Adaptive-content condition', resolve: (p) => str(p.json.condition) }),
    slug: t.string({ nullable: true, description: 'Document and group pages', resolve: (p) => str(p.json.slug) }),
    path: t.string({ nullable: true, description: 'Document and group pages', resolve: (p) => str(p.json.path) }),
    description: t.string({ nullable: true, resolve: (p) => str(p.json.description) }),
    urls: t.field({ type: PageUrls, nullable: true, description: 'Document pages', resolve: (p) => p.json.urls ?? null }),
    hidden: t.boolean({ resolve: (p) => p.json.hidden === true }),
    noIndex: t.boolean({ resolve: (p) => p.json.noIndex === true }),
    noRobotsIndex: t.boolean({ resolve: (p) => p.json.noRobotsIndex === true }),
    layout: t.field({ type: PageLayout, nullable: true, description: 'Document pages', resolve: (p) => p.json.layout ?? null }),
    cover: t.field({ type: PageCover, nullable: true, description: 'Lectern keeps no covers', resolve: (p) => p.json.cover ?? null }),
    git: t.field({ type: GitBlob, nullable: true, description: 'Lectern keeps no Git metadata', resolve: (p) => p.json.git ?? null }),
    tags: t.field({ type: ['JSON'], nullable: true, description: 'Document pages (RevisionPageTag)', resolve: (p) => p.json.tags ?? null }),
    variables: t.field({ type: [VariableType], description: "The page's own variables (none are kept per page in Lectern)", resolve: (p) => variableList(p.json.variables) }),
    documentId: t.string({ nullable: true, resolve: (p) => str(p.json.documentId) }),
    href: t.string({ nullable: true, description: 'Link pages', resolve: (p) => str(p.json.href) }),
    target: t.field({ type: 'JSON', nullable: true, description: 'Link pages (ContentRef)', resolve: (p) => p.json.target ?? null }),
    computed: t.field({ type: 'JSON', nullable: true, description: 'Computed pages read with computed: false', resolve: (p) => p.json.computed ?? null }),
    depth: t.int({ description: '0 for a top-level page', resolve: (p) => p.node?.depth ?? 0 }),
    children: t.field({
      type: [PageType],
      description: 'The pages directly under this one (select children again for a deeper subtree)',
      resolve: (p) => ((p.json.pages ?? []) as Record<string, any>[]).map((c) => p.index.byId.get(c.id)!),
    }),
    parent: t.field({ type: PageType, nullable: true, resolve: (p) => (p.parentId ? (p.index.byId.get(p.parentId) ?? null) : null) }),
    ancestors: t.field({
      type: [PageType],
      description: 'From the top-level page down to the parent (breadcrumbs)',
      resolve: (p) => {
        const out: PageRef[] = [];
        for (let at = p.parentId ? p.index.byId.get(p.parentId) : undefined; at; at = at.parentId ? p.index.byId.get(at.parentId) : undefined) out.unshift(at);
        return out;
      },
    }),
    markdown: t.string({
      nullable: true,
      description: "A document page's body in Markdown (null on other pages)",
      args: { evaluated: t.arg.string({ required: false, description: 'true: `{{ variables.name }}` replaced by its value' }) },
      resolve: (p, args) => (p.json.type === 'document' ? evaluatedMarkdown(p.view, p.json.markdown ?? '', args.evaluated) : null),
    }),
    document: t.field({
      type: 'JSON',
      nullable: true,
      description: "A document page's body as a GitBook JSON document, as getPageById answers it (null on other pages)",
      args: { evaluated: t.arg.string({ required: false }), dereferenced: t.arg.string({ required: false }) },
      resolve: (p, args, ctx) =>
        p.json.type === 'document' ? pageDocument(ctx, p.view, p.json.id, { evaluated: args.evaluated, dereferenced: args.dereferenced }, p.index.tree) : null,
    }),
  }),
});

/** A reusable content, typed: the fields of its REST JSON (reusableContentJson) and its document. */
const ReusableContentType = builder.objectRef<{ view: ContentView; json: ReturnType<typeof reusableContentJson> }>('ReusableContent').implement({
  fields: (t) => ({
    id: t.string({ resolve: (r) => r.json.id }),
    title: t.string({ resolve: (r) => r.json.title }),
    documentId: t.string({ description: 'The document id (REST `document`)', resolve: (r) => r.json.document }),
    document: t.field({
      type: 'JSON',
      description: 'Its body as a GitBook JSON document (getReusableContentDocumentInRevisionById)',
      args: { evaluated: t.arg.string({ required: false }), dereferenced: t.arg.string({ required: false }) },
      resolve: (r, args, ctx) => reusableContentDocument(ctx, r.view, r.json.id, { evaluated: args.evaluated, dereferenced: args.dereferenced }),
    }),
  }),
});

// ---------------------------------------------------------------------------------------------
// Revision fields (the JSON ones, `pages`/`page`/`pageByPath`/`rest`, stay: the REST adapter reads them)

builder.objectFields(RevisionType, (t) => ({
  pageTree: t.field({
    type: [PageType],
    description: 'The top-level pages, typed; select `children` for as deep a subtree as wanted',
    args: { computed: t.arg.boolean({ required: false, description: 'false: computed pages as they are (default: replaced by the pages they compute)' }) },
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
  variableList: t.field({ type: [VariableType], description: "The revision's variables, typed", resolve: (v) => variableList(v.content.manifest.variables) }),
  parentRevisions: t.field({
    type: [RevisionType],
    description: 'The parent revisions (two for a merge), typed',
    // The space was checked to reach this revision. A parent outside the space (a duplicated
    // space's first revision names its source's) is left out: reading it would need that space.
    resolve: async (v, _a, ctx) =>
      (await Promise.all(v.revision.parents.map((id) => viewOf(ctx, v.space, id).catch(() => null)))).filter((p): p is ContentView => p !== null),
  }),
}));

/** A page of a space's main content by path (Space.page): the space checked as `space.content` does. */
export async function spacePageByPath(ctx: Context, spaceId: string, path: string) {
  const space = await requireSpace(ctx, spaceId, 'read');
  return findPage(ctx, await viewOf(ctx, space, space.revisionId), { path });
}
