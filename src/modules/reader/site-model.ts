import { LRUCache } from 'lru-cache';
import type { Context } from '../../context.js';
import { accessRows } from '../../auth/access-rows.js';
import { signedFileUrl } from '../../file-urls.js';
import type { Site, SiteSection, SiteSpace, Space } from '../../generated/prisma/client.js';
import { serverKeys } from '../../secrets.js';
import { bodiesOf, flatten, pageTree, resolveHref, viewOf, type PageNode, type PageTree } from '../content/index.js';
import { type defaultCustomization, resolveSegments, siteSpacePath, type Resolution, type SiteView } from '../sites/index.js';
import { conditionHolds, type Visitor } from './conditions.js';
import { includedSlugs, loadHighlighter, renderMarkdown, type LinkTarget, type OutlineItem } from './render-markdown.js';

/**
 * What one request reads of a published site: its structure as this visitor sees it (sections,
 * site spaces and pages whose adaptive conditions hold), URLs, and a page resolved and rendered.
 * Every read goes through the request's loaders (site structure: three statements; a space's
 * content: its revision, manifest and shards; bodies and files batched), so a page costs the same
 * number of statements whatever the size of the site.
 */
export interface Reading {
  ctx: Context;
  site: Site;
  view: SiteView;
  visitor: Visitor;
  /** The site's URL on this server, as the request named it (absolute, no trailing slash; '' at the site's custom hostname). */
  base: string;
  /** The site's published URL (custom hostname or proxy when set). */
  canonical: string;
  customization: ReturnType<typeof defaultCustomization>;
}

export const holds = (r: Reading, condition: string | null | undefined) => conditionHolds(condition, r.visitor);

/** Site spaces of a section (null: the root) the visitor may see (condition holds). */
export const siteSpacesIn = (r: Reading, sectionId: string | null) => r.view.spacesIn(sectionId).filter((ss) => holds(r, ss.condition));

/** Sections the visitor may see: their condition holds and they have a site space the visitor may see. */
export const sectionsVisible = (r: Reading) => r.view.sections.filter((s) => holds(r, s.condition) && siteSpacesIn(r, s.id).length > 0);

/** The site space's URL below `base` ('' at a custom hostname: then '/' for the site's root). */
export function siteSpaceUrl(r: Reading, ss: SiteSpace, base = r.base): string {
  return siteSpaceBase(r, ss, base) || '/';
}

const siteSpaceBase = (r: Reading, ss: SiteSpace, base: string) => {
  const path = siteSpacePath(r.view, ss).map(encodeURIComponent).join('/');
  return path ? `${base}/${path}` : base;
};

export function pageUrl(r: Reading, ss: SiteSpace, page: PageNode, base = r.base): string {
  return `${siteSpaceBase(r, ss, base)}/${page.path.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * The visible trees made of one page tree (trees are kept per manifest by the content module), by
 * which of the tree's conditions hold: visitors for whom the same conditions hold see the same tree,
 * made once (a tree of 10,000 pages costs tens of milliseconds to filter and copy). Shared: never mutated.
 */
const visibleMemo = new WeakMap<PageNode[], { conditions: string[]; trees: Map<string, PageNode[]> }>();
const MAX_TREES_PER_TREE = 64;

function filterTree(r: Reading, roots: PageNode[]): PageNode[] {
  return roots.filter((n) => !n.hidden && holds(r, n.condition)).map((n) => ({ ...n, children: filterTree(r, n.children) }));
}

/** The page tree as the visitor sees it: hidden pages and pages whose condition fails left out (with their children). */
export function visibleTree(r: Reading, roots: PageNode[]): PageNode[] {
  let memo = visibleMemo.get(roots);
  if (!memo) {
    const conditions = [...new Set(flatten(roots).flatMap((n) => (n.condition ? [n.condition] : [])))];
    visibleMemo.set(roots, (memo = { conditions, trees: new Map() }));
  }
  const signature = memo.conditions.map((c) => (holds(r, c) ? '1' : '0')).join('');
  let tree = memo.trees.get(signature);
  if (!tree) {
    tree = filterTree(r, roots);
    if (memo.trees.size >= MAX_TREES_PER_TREE) memo.trees.clear();
    memo.trees.set(signature, tree);
  }
  return tree;
}

const orders = new WeakMap<PageNode[], PageNode[]>();

/** Document pages in reading order (previous/next, llms.txt, sitemap); kept per (visible) tree. */
export function readingOrder(roots: PageNode[]): PageNode[] {
  let order = orders.get(roots);
  if (!order) orders.set(roots, (order = flatten(roots).filter((n) => n.type === 'document')));
  return order;
}

/** Whether the visitor may open `page` (its condition and its ancestors' hold; hidden pages open by URL). */
export function pageAllowed(r: Reading, tree: PageTree, page: PageNode): boolean {
  if (!holds(r, page.condition)) return false;
  return page.ancestors.every((a) => holds(r, tree.byId.get(a.id)?.condition));
}

/**
 * The site space (and section) a path below the site shows, honouring conditions: the site's root
 * goes to the first section and site space the visitor may see (the default ones when visible).
 */
export async function resolveForVisitor(r: Reading, segments: string[]): Promise<Resolution | null> {
  let path = segments;
  if (!segments.length) {
    const sections = sectionsVisible(r);
    const section = r.view.sectioned ? (sections.find((s) => s.id === r.view.defaultSectionId) ?? sections[0]) : null;
    if (r.view.sectioned && !section) return null;
    const spaces = siteSpacesIn(r, section?.id ?? null);
    const ss = spaces.find((x) => x.id === r.view.defaultSiteSpaceIn(section?.id ?? null)) ?? spaces[0];
    if (!ss) return null;
    path = [...(section ? [section.path] : []), ss.path];
  }
  const res = await resolveSegments(r.ctx, r.site, path);
  if (!res) return null;
  if (res.section && !holds(r, res.section.condition)) return null;
  if (!holds(r, res.siteSpace.condition)) return null;
  if (!pageAllowed(r, res.tree, res.page)) {
    // An empty page path landed on the space's first page, which this visitor may not see: their first page instead.
    const named = path.join('/').toLowerCase().endsWith(res.page.path.toLowerCase());
    const first = readingOrder(visibleTree(r, res.tree.roots))[0];
    if (named || !first) return null;
    return { ...res, page: res.tree.byId.get(first.id)! };
  }
  return res;
}

/**
 * The section and site space a path names (the site's root: the default ones) when the visitor sees
 * them but their space has no page the visitor may see: an empty section, shown as such rather than
 * as a missing page. Null for any other path.
 */
export async function emptySection(r: Reading, segments: string[]): Promise<{ section: SiteSection | null; siteSpace: SiteSpace } | null> {
  let section: SiteSection | null = null;
  let rest = segments;
  if (r.view.sectioned) {
    const sections = sectionsVisible(r);
    const named = segments.length ? sections.find((s) => s.path === segments[0]) : undefined;
    section = named ?? (segments.length ? null : (sections.find((s) => s.id === r.view.defaultSectionId) ?? sections[0] ?? null));
    if (!section) return null;
    rest = segments.slice(named ? 1 : 0);
  }
  const spaces = siteSpacesIn(r, section?.id ?? null);
  const named = rest.length === 1 ? spaces.find((x) => x.path === rest[0]) : undefined;
  const siteSpace = rest.length ? named : (spaces.find((x) => x.id === r.view.defaultSiteSpaceIn(section?.id ?? null)) ?? spaces[0]);
  if (!siteSpace || rest.length > 1) return null;
  const space = (await spacesOf(r, [siteSpace])).get(siteSpace.spaceId);
  if (!space) return null;
  const tree = await pageTree(r.ctx, await viewOf(r.ctx, space, space.revisionId));
  return readingOrder(visibleTree(r, tree.roots)).length ? null : { section, siteSpace };
}

export interface RenderedPage {
  html: string;
  outline: OutlineItem[];
  markdown: string;
}

/**
 * Rendered pages, by what their HTML depends on: the revision (immutable: body, variables, reusable
 * contents, files, page paths), the page, the URL its site space has on this site (links are made
 * below it) and the hour (signed file URLs change every hour). Visitor claims do not change a page's
 * body (conditions act on the navigation), so visitors share entries. A cache of this process only:
 * another process renders the same page the same way.
 */
const rendered = new LRUCache<string, RenderedPage>({
  max: 2000,
  maxSize: 64 * 1024 * 1024,
  sizeCalculation: (p) => p.html.length + p.markdown.length + 64,
});
const FILE_URL_HOUR_MS = 3_600_000;

/** The page's Markdown (its body) and HTML: links to pages become site URLs, files signed download URLs. */
export async function renderPage(r: Reading, res: Resolution): Promise<RenderedPage> {
  // The body's hash and the tree's size too: computed pages (OpenAPI) change within one revision.
  const key = `${res.content.revision.id}\n${res.page.id}\n${res.page.body ?? ''}\n${res.tree.byId.size}\n${siteSpaceUrl(r, res.siteSpace)}\n${Math.floor(Date.now() / FILE_URL_HOUR_MS)}`;
  const hit = rendered.get(key);
  if (hit) return hit;
  const page = await renderUncached(r, res);
  rendered.set(key, page);
  return page;
}

async function renderUncached(r: Reading, res: Resolution): Promise<RenderedPage> {
  const { content } = res.content;
  const page = res.page;
  const [bodies, files, keys] = await Promise.all([
    page.body ? bodiesOf(r.ctx, [page.body]) : new Map<string, string>(),
    content.files(),
    serverKeys(r.ctx),
  ]);
  const markdown = (page.body && bodies.get(page.body)) || '';
  const slugs = includedSlugs(markdown);
  const reusable = new Map<string, string>();
  if (slugs.length) {
    const entries = (await content.reusableContents()).filter((e) => slugs.includes(e.slug));
    const texts = await bodiesOf(
      r.ctx,
      entries.map((e) => e.body),
    );
    for (const e of entries) reusable.set(e.slug, texts.get(e.body) ?? '');
  }
  const env = { byPath: res.tree.byPath, byId: res.tree.byId, files, publicUrl: r.ctx.config.publicUrl, spaceId: res.space.id };
  const link = (url: string, image: boolean): LinkTarget => {
    const target = resolveHref(url, page, env);
    if (!target) return { broken: true };
    if (target.kind === 'file') return { href: signedFileUrl(r.ctx.urls, keys, res.space.id, target.file) };
    if (target.kind === 'page') {
      if (image) return { broken: true };
      const anchor = target.anchor ? `#${encodeURIComponent(target.anchor)}` : '';
      if (target.page.id === page.id) return { href: anchor || pageUrl(r, res.siteSpace, page) };
      if (target.page.type === 'link') return { href: target.page.href ?? '#', external: true };
      return { href: `${pageUrl(r, res.siteSpace, target.page)}${anchor}` };
    }
    return target.status === 'broken' ? { broken: true } : { href: target.url, external: target.status === 'ok' };
  };
  await loadHighlighter();
  const { html, outline } = renderMarkdown({ markdown, title: page.title, variables: content.manifest.variables, reusable, link });
  return { html, outline, markdown };
}

/** The Markdown of every page of a site space the visitor may see (llms-full.txt), bodies in one batch. */
export async function markdownOf(r: Reading, pages: PageNode[]): Promise<Map<string, string>> {
  return bodiesOf(r.ctx, [...new Set(pages.map((p) => p.body).filter((b): b is string => !!b))]);
}

/** The spaces behind site spaces (titles for the variant switcher), one batched statement. */
export async function spacesOf(r: Reading, siteSpaces: SiteSpace[]): Promise<Map<string, Space>> {
  const rows = await accessRows(r.ctx).space.loadMany(siteSpaces.map((ss) => ss.spaceId));
  return new Map(rows.flatMap((row) => (row && !(row instanceof Error) && !row.deletedAt ? [[row.id, row] as const] : [])));
}

export type { SiteSection };
