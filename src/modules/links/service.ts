import type { Context } from '../../context.js';
import { badRequest, notFound } from '../../errors.js';
import { perRequest } from '../../loaders.js';
import { paginateArray, type ListPage, type PageArgs } from '../../pagination.js';
import { serverKeys } from '../../secrets.js';
import {
  fileJson,
  pageInTree,
  type PageRef,
  type PageTree,
  pageTree,
  viewOf,
  type ContentView,
  type FileEntry,
  flatten,
  type PageNode,
  resolveHref,
  type LinkEnv,
  type LinkStatus,
} from '../content/index.js';

/**
 * The links of a revision, GitBook's "content references": every link of every page, grouped by
 * target. They come from the `BodyLink` index (written once per distinct body when it is stored),
 * read with one query for all the revision's bodies — nothing is parsed per request — and are
 * resolved against the revision's page tree and files.
 */
export const LINK_STATUSES = ['ok', 'broken', 'in-app'] as const;

export type LinkTarget =
  | { kind: 'page'; page: PageNode; anchor?: string }
  | { kind: 'file'; file: FileEntry }
  | { kind: 'url'; url: string };

/** One target and the pages linking to it (in reading order). */
export interface LinkUsage {
  /** Identifies the target within the revision (`page:<id>#anchor`, `file:<id>`, `url:<href>`). */
  key: string;
  status: LinkStatus;
  target: LinkTarget;
  locations: PageNode[];
}

export interface RevisionLinks {
  /** The page tree the links were resolved in (locations are its pages). */
  tree: PageTree;
  usages: LinkUsage[];
  byId: Map<string, PageNode>;
  files: FileEntry[];
  /** Reading order of the pages. */
  order: Map<PageNode, number>;
}

const cache = perRequest((_ctx: Context) => new Map<string, Promise<RevisionLinks>>());

/** Every link usage of a revision (computed once per request and revision). */
export function revisionLinks(ctx: Context, view: ContentView): Promise<RevisionLinks> {
  const memo = cache(ctx);
  if (!memo.has(view.revision.id)) memo.set(view.revision.id, computeLinks(ctx, view));
  return memo.get(view.revision.id)!;
}

async function computeLinks(ctx: Context, view: ContentView): Promise<RevisionLinks> {
  const [tree, files] = await Promise.all([pageTree(ctx, view), view.content.files()]);
  const { roots, byId, byPath } = tree;
  const pages = flatten(roots);
  const hashes = [...new Set(pages.map((p) => p.body).filter((b): b is string => !!b))];
  // One query, one array parameter, whatever the number of bodies.
  const rows = hashes.length
    ? await ctx.prisma.$queryRaw<{ bodyHash: string; href: string }[]>`
        SELECT "bodyHash", "href" FROM "BodyLink" WHERE "bodyHash" = ANY(${hashes}::text[]) ORDER BY "bodyHash", "position"`
    : [];
  const hrefs = new Map<string, string[]>();
  for (const row of rows) {
    const list = hrefs.get(row.bodyHash);
    if (list) list.push(row.href);
    else hrefs.set(row.bodyHash, [row.href]);
  }

  const env: LinkEnv = { byPath, byId, files, publicUrl: ctx.config.publicUrl, spaceId: view.space.id };
  const usages = new Map<string, LinkUsage>();
  for (const page of pages) {
    for (const href of (page.body && hrefs.get(page.body)) || []) {
      const resolved = resolveHref(href, page, env);
      if (!resolved) continue;
      let key: string;
      let target: LinkTarget;
      if (resolved.kind === 'page') {
        key = `page:${resolved.page.id}${resolved.anchor ? `#${resolved.anchor}` : ''}`;
        target = { kind: 'page', page: resolved.page, ...(resolved.anchor ? { anchor: resolved.anchor } : {}) };
      } else if (resolved.kind === 'file') {
        key = `file:${resolved.file.id}`;
        target = { kind: 'file', file: resolved.file };
      } else {
        key = `${resolved.status}:${resolved.url}`;
        target = { kind: 'url', url: resolved.url };
      }
      let usage = usages.get(key);
      if (!usage) usages.set(key, (usage = { key, status: resolved.status, target, locations: [] }));
      // Pages are walked one at a time: a page already listed is the last one.
      if (usage.locations[usage.locations.length - 1] !== page) usage.locations.push(page);
    }
  }
  return { tree, usages: [...usages.values()], byId, files, order: new Map(pages.map((p, i) => [p, i])) };
}

/** The keys of the broken usages of a revision (a change request's base), to tell the links the change request broke. */
async function brokenKeys(ctx: Context, view: ContentView, revisionId: string): Promise<Set<string>> {
  const base = await revisionLinks(ctx, await viewOf(ctx, view.space, revisionId));
  return new Set(base.usages.filter((u) => u.status === 'broken').map((u) => u.key));
}

// ---------------------------------------------------------------------------------------------
// JSON shapes (GitBook's ContentReferenceUsage / ContentLocation, without the organization and
// space objects: GraphQL gives those once per listing and the REST routes repeat them).
// ---------------------------------------------------------------------------------------------

export interface LocationJson {
  kind: 'page' | 'file' | 'url';
  page?: PageRef;
  file?: ReturnType<typeof fileJson>;
  url?: string;
  internalLocation?: { type: 'anchor'; anchor: string };
}

export interface UsageJson {
  status: LinkStatus;
  relation: 'reference';
  targetReference: LocationJson;
  locationReferences: LocationJson[];
}

export interface LinkStats {
  total: number;
  broken: { total: number; changeRequest?: number | null };
}

export type LinkListing = ListPage<UsageJson> & { stats: LinkStats };

/** The typed page of a location: the page of the tree the links were found in. */
const pageObject = (ctx: Context, view: ContentView, tree: PageTree) => (node: PageNode) => pageInTree(ctx, view, tree, node.id)!;

async function usagesJson(ctx: Context, view: ContentView, tree: PageTree, usages: LinkUsage[]): Promise<UsageJson[]> {
  const [page, keys] = [pageObject(ctx, view, tree), await serverKeys(ctx)];
  const target = (t: LinkTarget): LocationJson => {
    if (t.kind === 'page')
      return { kind: 'page', page: page(t.page), ...(t.anchor ? { internalLocation: { type: 'anchor', anchor: t.anchor } } : {}) };
    if (t.kind === 'file') return { kind: 'file', file: fileJson(ctx, keys, view.space.id, t.file) };
    return { kind: 'url', url: t.url };
  };
  return usages.map((u) => ({
    status: u.status,
    relation: 'reference',
    targetReference: target(u.target),
    locationReferences: u.locations.map((l) => ({ kind: 'page', page: page(l) })),
  }));
}

export interface LinkFilter extends PageArgs {
  status?: string | null;
  /**
   * On a change request's content: the main revision last merged into it. Its broken links are not
   * the change request's doing: `stats.broken.changeRequest` counts the others.
   */
  baseRevision?: string | null;
  /** Change request content: `change-request` lists only the broken links the change request broke. */
  brokenContext?: string | null;
}

function checkStatus(status: string | null | undefined): LinkStatus | undefined {
  if (status == null) return undefined;
  if (!(LINK_STATUSES as readonly string[]).includes(status)) throw badRequest('status', `must be one of ${LINK_STATUSES.join(', ')}`);
  return status as LinkStatus;
}

async function listing(ctx: Context, view: ContentView, tree: PageTree, usages: LinkUsage[], filter: LinkFilter): Promise<LinkListing> {
  const status = checkStatus(filter.status);
  if (filter.brokenContext != null && filter.brokenContext !== 'change-request' && filter.brokenContext !== 'space') {
    throw badRequest('brokenContext', 'must be change-request or space');
  }
  const base = filter.baseRevision ? await brokenKeys(ctx, view, filter.baseRevision) : undefined;
  const broken = usages.filter((u) => u.status === 'broken');
  const brokenHere = base ? new Set(broken.filter((u) => !base.has(u.key))) : undefined;
  let selected = status ? usages.filter((u) => u.status === status) : usages;
  if (filter.brokenContext === 'change-request' && brokenHere)
    selected = selected.filter((u) => u.status !== 'broken' || brokenHere.has(u));
  const page = paginateArray(filter, selected);
  return {
    ...page,
    items: await usagesJson(ctx, view, tree, page.items),
    stats: { total: usages.length, broken: { total: broken.length, ...(brokenHere ? { changeRequest: brokenHere.size } : {}) } },
  };
}

/** Every link of the revision (listSpaceLinks, listChangeRequestLinks). */
export async function listLinks(ctx: Context, view: ContentView, filter: LinkFilter): Promise<LinkListing> {
  const links = await revisionLinks(ctx, view);
  return listing(ctx, view, links.tree, links.usages, filter);
}

/** The links written in one page (listPageLinksInSpace, listPageLinksInChangeRequest). */
export async function listPageLinks(ctx: Context, view: ContentView, pageId: string, filter: LinkFilter): Promise<LinkListing> {
  const links = await revisionLinks(ctx, view);
  const page = links.byId.get(pageId);
  if (!page) throw notFound('Page');
  const usages = links.usages.filter((u) => u.locations.includes(page)).map((u) => ({ ...u, locations: [page] }));
  return listing(ctx, view, links.tree, usages, filter);
}

/** The pages linking to a file of the revision (list…FileBacklinks). */
export async function listFileBacklinks(ctx: Context, view: ContentView, fileId: string, args: PageArgs): Promise<ListPage<LocationJson>> {
  const links = await revisionLinks(ctx, view);
  if (!links.files.some((f) => f.id === fileId)) throw notFound('File');
  return backlinks(ctx, view, links, (t) => t.kind === 'file' && t.file.id === fileId, args);
}

/** The pages linking to a page of the revision, anchors included (list…PageBacklinks). */
export async function listPageBacklinks(ctx: Context, view: ContentView, pageId: string, args: PageArgs): Promise<ListPage<LocationJson>> {
  const links = await revisionLinks(ctx, view);
  if (!links.byId.has(pageId)) throw notFound('Page');
  return backlinks(ctx, view, links, (t) => t.kind === 'page' && t.page.id === pageId, args);
}

async function backlinks(ctx: Context, view: ContentView, links: RevisionLinks, matches: (t: LinkTarget) => boolean, args: PageArgs) {
  const pages = new Set<PageNode>();
  for (const usage of links.usages) if (matches(usage.target)) for (const page of usage.locations) pages.add(page);
  // Reading order, whichever usage named the page first.
  const all = [...pages].sort((a, b) => links.order.get(a)! - links.order.get(b)!);
  const page = paginateArray(args, all);
  const json = pageObject(ctx, view, links.tree);
  return { ...page, items: page.items.map((p): LocationJson => ({ kind: 'page', page: json(p) })) };
}
