import type { Context } from '../../context.js';
import { canReadSpace, orgRole, publishedSiteAudience } from '../../auth/permissions.js';
import { accessRows } from '../../auth/access-rows.js';
import { badRequest } from '../../errors.js';
import type { Site, SiteSection, SiteSpace, Space } from '../../generated/prisma/client.js';
import { builder } from '../../graphql/builder.js';
import { FormatEnum, pageInTree, PageType, pageTree, viewOf, type ContentView, type PageNode, type PageTree } from '../content/index.js';
import { SpaceType } from '../spaces/index.js';
import { acceptShareKey, isActiveShareKey, publishedUrl, siteSpacePath } from './links.js';
import { SiteRef, SiteSectionRef, SiteSpaceRef } from './refs.js';
import { publishedOnly } from './site-space.js';
import { siteView, type SiteView } from './structure.js';

/**
 * URL resolution for front-ends: a published URL (or a path below a site) → the site, section,
 * site space, space, revision and page it shows. The URL forms are exactly those Lectern hands out
 * (src/urls.ts `publishedSite`):
 *
 * - `<public URL>/public/<org hostname or id>/sites/<basename or site id>/<rest>`;
 * - `https://<custom hostname>/<rest>` (a proven hostname: only those are stored on the site);
 * - `https://<proxy origin host/path>/<rest>`;
 * - each with `?share=<key>` for a share-link site.
 *
 * `<rest>` is `[section path]/[site space path]/[page path]`: the default section lives at the
 * site's root and the default site space at its section's root (links.ts), so a first segment that
 * is no other section's path belongs to the default section, and likewise for site spaces; the
 * default named by its own path resolves too (its `canonicalUrl` leaves the path out). An empty
 * page path is the site space's first page. Who gets an answer is who may read the published site
 * (`publishedSiteAudience`, as `publishedSite`); anyone else, and any URL that names nothing, gets
 * null: no answer tells a site the caller may not see from one that does not exist.
 */
export interface Resolution {
  view: SiteView;
  section: SiteSection | null;
  siteSpace: SiteSpace;
  space: Space;
  content: ContentView;
  tree: PageTree;
  page: PageNode;
  /** How the segments were read: the page's segments (empty: the first page), and whether the section / site space was named by its path. */
  reading: { pagePath: string[]; sectionNamed: boolean; siteSpaceNamed: boolean };
}

/** Whether the caller may read the published site; an active share key is kept for the request's published URLs. */
export async function inAudience(ctx: Context, site: Site, shareKey: string | null | undefined): Promise<boolean> {
  const member = (await orgRole(ctx, site.organizationId)) !== undefined;
  const activeShareKey = !!shareKey && (await isActiveShareKey(ctx, site.id, shareKey));
  if (!publishedSiteAudience(site, { member, activeShareKey })) return false;
  if (activeShareKey) await acceptShareKey(ctx, site, shareKey);
  return true;
}

/** The first page a reader lands on: the first visible document page, depth first (else the first document page). */
function firstPage(roots: PageNode[]): PageNode | undefined {
  const all: PageNode[] = [];
  const walk = (nodes: PageNode[]) => nodes.forEach((n) => (all.push(n), walk(n.children)));
  walk(roots);
  const documents = all.filter((n) => n.type === 'document');
  return documents.find((n) => !n.hidden) ?? documents[0];
}

/** The page at `path` (as a page read by path: lower-case slugs, link pages have no path). */
function pageAt(tree: PageTree, path: string): PageNode | undefined {
  const node = tree.byPath.get(path) ?? tree.byPath.get(path.toLowerCase());
  return node && node.type !== 'link' ? node : undefined;
}

/**
 * Ways to read `segments` below a parent whose children have paths and one of which is the default:
 * another child's path names that child; otherwise the rest belongs to the default child, which is
 * also tried under its own path (so links made while it was not the default keep working).
 */
function readings<T extends { id: string; path: string }>(
  children: T[],
  defaultId: string | null,
  segments: string[],
): { child: T; rest: string[] }[] {
  const named = segments.length ? children.find((c) => c.path === segments[0]) : undefined;
  if (named && named.id !== defaultId) return [{ child: named, rest: segments.slice(1) }];
  const fallback = children.find((c) => c.id === defaultId);
  if (!fallback) return [];
  return [{ child: fallback, rest: segments }, ...(named ? [{ child: fallback, rest: segments.slice(1) }] : [])];
}

/** Resolves `segments` (decoded path segments below the site) for a caller already in the site's audience. */
export async function resolveSegments(ctx: Context, site: Site, segments: string[]): Promise<Resolution | null> {
  const view = await siteView(ctx, site);
  const bySection: { section: SiteSection | null; rest: string[] }[] = view.sectioned
    ? readings(view.sections, view.defaultSectionId, segments).map(({ child, rest }) => ({ section: child, rest }))
    : [{ section: null, rest: segments }];
  const candidates = bySection.flatMap(({ section, rest }) =>
    readings(view.spacesIn(section?.id ?? null), view.defaultSiteSpaceIn(section?.id ?? null), rest).map(({ child, rest: pagePath }) => ({
      section,
      siteSpace: child,
      pagePath,
      reading: { pagePath, sectionNamed: rest.length < segments.length, siteSpaceNamed: pagePath.length < rest.length },
    })),
  );
  // The most literal reading first; each candidate's space is read once per request (loaders and content cache).
  for (const { section, siteSpace, pagePath, reading } of candidates) {
    const space = await accessRows(ctx).space.load(siteSpace.spaceId);
    if (!space || space.deletedAt) continue;
    // The site publishes its spaces' current content: its audience reads it without rights on the space.
    const content = await viewOf(ctx, space, space.revisionId);
    const tree = await pageTree(ctx, content);
    const page = pagePath.length ? pageAt(tree, pagePath.join('/')) : firstPage(tree.roots);
    if (page) return { view, section, siteSpace, space, content, tree, page, reading };
  }
  return null;
}

/** Decoded, non-empty segments of a path; null when a segment is not valid percent-encoding. */
function segmentsOf(path: string): string[] | null {
  try {
    return path.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return null;
  }
}

/** `Site.resolve(path:)`: a path below the site's published URL. */
export async function resolveInSite(ctx: Context, site: Site, path: string, shareKey?: string | null): Promise<Resolution | null> {
  const segments = segmentsOf(path.split(/[?#]/)[0]!);
  if (!segments || !(await inAudience(ctx, site, shareKey))) return null;
  return resolveSegments(ctx, site, segments);
}

/** The site a URL of this server's `/public/<org>/sites/<site>/…` form names, and the segments after it. */
async function siteOnThisServer(ctx: Context, segments: string[]): Promise<{ site: Site; rest: string[] } | null> {
  const [org, kind, siteKey, ...rest] = segments;
  if (!org || kind !== 'sites' || !siteKey) return null;
  // One statement whatever the number of sites: ids first, then basenames (not unique), published first, oldest first.
  const sites = await ctx.prisma.site.findMany({
    where: { organization: { OR: [{ id: org }, { hostname: org }] }, OR: [{ id: siteKey }, { basename: siteKey }] },
    orderBy: [{ published: 'desc' }, { createdAt: 'asc' }, { id: 'asc' }],
  });
  const site = sites.find((s) => s.id === siteKey) ?? sites.find((s) => s.basename === siteKey);
  // A site shown under its org's hostname is also reached under the org's id (as `urls.published` gives either).
  return site ? { site, rest } : null;
}

/** The site a custom hostname or proxy origin URL names (the longest proxy path wins), and the segments after it. */
async function siteOnItsOwnHost(ctx: Context, host: string, segments: string[]): Promise<{ site: Site; rest: string[] } | null> {
  const prefixes = segments.map((_s, i) => `${host}/${segments.slice(0, i + 1).join('/')}`);
  const sites = await ctx.prisma.site.findMany({
    where: { OR: [{ hostname: host }, ...(prefixes.length ? [{ proxy: { in: prefixes } }] : [])] },
  });
  for (let i = prefixes.length - 1; i >= 0; i--) {
    const site = sites.find((s) => s.proxy === prefixes[i]);
    if (site) return { site, rest: segments.slice(i + 1) };
  }
  const site = sites.find((s) => s.hostname === host);
  return site ? { site, rest: segments } : null;
}

/** The site a published URL names (no permission check): its row, the URL's segments up to the site and below it. */
export interface SiteOfUrl {
  url: URL;
  site: Site;
  /** Decoded path segments of the URL that lead to the site (`public/<org>/sites/<site>`, a proxy's path, or none). */
  siteSegments: string[];
  /** Decoded path segments below the site. */
  rest: string[];
}

/** The site an absolute URL names, null when none (400 naming `field` when it is not an http(s) URL). */
export async function siteOfUrl(ctx: Context, url: string, field = 'url'): Promise<SiteOfUrl | null> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest(field, 'must be an absolute http(s) URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw badRequest(field, 'must be an absolute http(s) URL');
  const segments = segmentsOf(parsed.pathname);
  if (!segments) return null;
  const server = new URL(ctx.config.publicUrl);
  const serverSegments = server.pathname.split('/').filter(Boolean);
  const onThisServer =
    parsed.origin === server.origin && serverSegments.every((s, i) => segments[i] === s) && segments[serverSegments.length] === 'public';
  const found = onThisServer
    ? await siteOnThisServer(ctx, segments.slice(serverSegments.length + 1))
    : await siteOnItsOwnHost(ctx, parsed.hostname.toLowerCase(), segments);
  if (!found) return null;
  accessRows(ctx).site.prime(found.site.id, found.site);
  return { url: parsed, site: found.site, siteSegments: segments.slice(0, segments.length - found.rest.length), rest: found.rest };
}

/** `publishedContent(url:)`: any published URL of a site (400 naming `url` when it is not an http(s) URL). */
export async function resolvePublishedUrl(ctx: Context, url: string): Promise<Resolution | null> {
  const found = await siteOfUrl(ctx, url);
  if (!found) return null;
  if (!(await inAudience(ctx, found.site, found.url.searchParams.get('share')))) return null;
  return resolveSegments(ctx, found.site, found.rest);
}

// ---------------------------------------------------------------------------------------------
// GraphQL

const PublishedContentResolution = builder.objectRef<Resolution>('PublishedContentResolution').implement({
  description: 'What a published URL shows: its site, section, site space, space, revision and page',
  fields: (t) => ({
    site: t.field({ type: SiteRef, resolve: (r) => r.view.site }),
    section: t.field({ type: SiteSectionRef, nullable: true, description: 'Null for a site without sections', resolve: (r) => r.section }),
    siteSpace: t.field({ type: SiteSpaceRef, resolve: (r) => r.siteSpace }),
    space: t.field({
      type: SpaceType,
      description:
        'The space, as SiteSpace.space shows it: all of it to whoever can read the space, else only what the site publishes of it',
      resolve: async (r, _a, ctx) => ((await canReadSpace(ctx, r.space)) ? r.space : publishedOnly(ctx, r.space)),
    }),
    revisionId: t.id({ description: 'The revision the site shows (the space’s current content)', resolve: (r) => r.content.revision.id }),
    pageId: t.id({ resolve: (r) => r.page.id }),
    pagePath: t.string({
      description: 'The page’s path in the space (empty page paths resolve to the first page)',
      resolve: (r) => r.page.path,
    }),
    page: t.field({
      type: PageType,
      description: 'The page as the official page read answers it (RevisionPage); `body` in the format asked',
      args: { format: t.arg({ type: FormatEnum, required: false, description: 'document (default) or markdown' }) },
      // The page of the very tree the URL was resolved in.
      resolve: (r, args, ctx) => pageInTree(ctx, r.content, r.tree, r.page.id, { format: args.format ?? 'document' })!,
    }),
    canonicalUrl: t.string({
      nullable: true,
      description: 'The published URL of the page (carrying the share key that opened it, for a share-link site)',
      resolve: (r, _a, ctx) => publishedUrl(ctx, r.view.site, [...siteSpacePath(r.view, r.siteSpace), r.page.path]),
    }),
  }),
});

builder.objectField(SiteRef, 'resolve', (t) =>
  t.field({
    type: PublishedContentResolution,
    nullable: true,
    description:
      'What a path below the published site shows (`[section]/[variant]/[page path]`); null when it names nothing or the caller may not read the published site',
    args: {
      path: t.arg.string({ required: true }),
      shareKey: t.arg.string({ required: false, description: 'Key of an active share link (share-link sites)' }),
    },
    resolve: (site, args, ctx) => resolveInSite(ctx, site, args.path, args.shareKey),
  }),
);

builder.queryField('publishedContent', (t) =>
  t.field({
    type: PublishedContentResolution,
    nullable: true,
    description:
      'What a published URL shows (this server’s /public/… URLs, custom hostnames and proxy origins, `?share=` keys); null when it names nothing or the caller may not read the site',
    args: { url: t.arg.string({ required: true }) },
    resolve: (_r, args, ctx) => resolvePublishedUrl(ctx, args.url),
  }),
);
