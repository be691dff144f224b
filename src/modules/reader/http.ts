import { createContext, type Services } from '../../context.js';
import type { User } from '../../generated/prisma/client.js';
import type { HttpRoute, RouteCall } from '../../http/routes.js';
import { sharedCacheControl, type Sharing } from '../../http/conditional.js';
import { readText } from '../../http/body.js';
import { errorResponse } from '../../http/respond.js';
import { AddressLimiter, addressKey } from '../../http/throttle.js';
import {
  countPageFeedback,
  countPageView,
  defaultCustomization,
  FEEDBACK_RATINGS,
  type FeedbackRating,
  findRedirect,
  siteCustomization,
  siteView,
  visitorFallbackUrl,
  type Customization,
  type Resolution,
} from '../sites/index.js';
import { decideAccess, type Access } from './access.js';
import { llmsFullTxt, llmsTxt, pageMarkdown, robotsTxt, sitemapXml } from './agents.js';
import { mcpHttpRoutes } from './mcp.js';
import { documentHtml, htmlHeaders, noticeHtml, type Shell } from './html-layout.js';
import { emptySectionBody, FEEDBACK_PATH, pageBody } from './page.js';
import { searchResults } from './search.js';
import { emptySection, holds, pageUrl, renderPage, resolveForVisitor, siteSpacesIn, spacesOf, type Reading } from './site-model.js';
import { findSiteState, findSiteStateByHost, type SiteState } from './find-site.js';
import { answerKey, audienceKey, cachedAnswer, keepAnswer, serveAnswer, type CachedAnswer } from './page-cache.js';

/**
 * The reader's site: every published site served by Lectern itself at its `urls.published` on this
 * server, `/public/<org hostname or id>/sites/<basename or site id>`, and every page URL below it
 * (`[section path]/[variant path]/[page path]`, as the sites module resolves them):
 *
 * - `GET <page URL>`: the page as HTML (html-layout.ts, page.ts);
 * - `GET <page URL>.md`: its Markdown; `GET <site>/llms.txt`, `llms-full.txt`, `sitemap.xml`,
 *   `robots.txt` (agents.ts) — these four names at the site's root win over pages of that slug;
 * - access and visitor claims as access.ts decides; an unpublished or unknown site, or a page that
 *   does not exist or that the visitor's claims hide, is a 404 page.
 *
 * A site's custom hostname is served at `/` (`serveHosted` below); proxy origins forward to the
 * `/public/…` URL.
 *
 * - The site's stored customization (the sites module's `siteCustomization`, with the page's site
 *   space override) gives the title, colors, logo, favicon, header and footer links, announcement,
 *   theme (default and whether visitors may switch) and the previous/next switch.
 * - A path that shows no page follows the site's redirects (`findRedirect`: 301 when permanent,
 *   302 otherwise) before the 404 page.
 * - `?q=` on any page URL is the search results page (search.ts); the header's box sends it there.
 * - Caching: rendered pages, `.md`, llms.txt, llms-full.txt and sitemap.xml are kept in this process
 *   (page-cache.ts: keyed by the site's fingerprint — hashed by PostgreSQL in the statement that
 *   finds the site —, the URL and the audience's claims), after the access decision, so a page seen
 *   before costs that one statement, and none while the site's state is kept (find-site.ts: up to
 *   1 s, until this process's next write). A public or unlisted site's answers to anonymous visitors (no claims, no cookie
 *   set) are `public, max-age=60, stale-while-revalidate` (a CDN may keep them a minute); every
 *   other audience's are `private, no-cache`; both with an ETag of their bytes and 304 on a match.
 *   Refusals, redirects and 404 pages are not stored; searches are not kept.
 * - Page feedback (`feedback.enabled` in the customization): `POST <site URL>/~gitbook/feedback`
 *   (`serveFeedback` below) and the page's `?feedback=thanks` variant.
 */

// The reader's requests are mostly anonymous: the context's caller is then this placeholder, which
// no read below looks at (membership is asked only when a token was sent).
const ANONYMOUS = {
  id: '',
  email: '',
  displayName: 'Anonymous visitor',
  photoURL: null,
  emailVerified: false,
  createdAt: new Date(0),
} satisfies User;

const AGENT_FILES = new Set(['llms.txt', 'llms-full.txt', 'sitemap.xml', 'robots.txt']);

function genericShell(base: string): Shell {
  return {
    lang: 'en',
    title: 'Not found',
    siteTitle: 'Not found',
    primary: { light: '#346DDB', dark: '#346DDB' },
    base,
    noindex: true,
    headerLinks: [],
    footerGroups: [],
    trademark: true,
  };
}

type ContentRef = { kind?: string; url?: string; page?: string; space?: string; anchor?: string } | null | undefined;
type LinkSetting = { title?: string; to?: ContentRef; links?: LinkSetting[]; condition?: string };

/** A customization link's target: URLs, and pages of the page's own space (other content references have no URL here). */
function hrefOf(r: Reading, ref: ContentRef, res: Resolution | null): string | null {
  if (!ref) return null;
  if (ref.kind === 'url' && typeof ref.url === 'string' && /^(https?:|mailto:)/i.test(ref.url)) return ref.url;
  if (ref.kind === 'page' && res && (!ref.space || ref.space === res.space.id)) {
    const page = ref.page ? res.tree.byId.get(ref.page) : undefined;
    if (page && page.type === 'document') return pageUrl(r, res.siteSpace, page);
  }
  return null;
}

function linksOf(r: Reading, items: LinkSetting[] | undefined, res: Resolution | null): { title: string; url: string }[] {
  return (items ?? []).flatMap((item) => {
    if (!item?.title || (item.condition && !holds(r, item.condition))) return [];
    const url = hrefOf(r, item.to, res);
    // A header item without a destination of its own stands for its dropdown's links.
    return url ? [{ title: item.title, url }] : linksOf(r, item.links, res);
  });
}

/** An emoji setting: the character, or its code points in hex (`1f4d8`, `1f1eb-1f1f7`). */
function emojiOf(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value) return undefined;
  if (/^[0-9a-f]{4,6}(-[0-9a-f]{4,6})*$/i.test(value)) return String.fromCodePoint(...value.split('-').map((h) => parseInt(h, 16)));
  return value;
}

function themed(value: unknown): { light: string; dark: string } | undefined {
  const v = value as { light?: unknown; dark?: unknown } | undefined;
  const light = typeof v?.light === 'string' && v.light ? v.light : undefined;
  const dark = typeof v?.dark === 'string' && v.dark ? v.dark : undefined;
  return light || dark ? { light: (light ?? dark)!, dark: (dark ?? light)! } : undefined;
}

function shellOf(r: Reading, title: string, res: Resolution | null = null, c: Customization = r.customization as Customization): Shell {
  const announcement = c.announcement?.enabled && typeof c.announcement.message === 'string' ? c.announcement : null;
  const announcementLink = announcement?.link ? hrefOf(r, announcement.link.to, res) : null;
  const favicon = c.favicon as { icon?: unknown; emoji?: unknown } | undefined;
  return {
    lang: c.internationalization.locale || 'en',
    title,
    siteTitle: c.title || r.site.title,
    primary: c.styling.primaryColor,
    base: r.base,
    noindex: r.site.visibility !== 'public',
    headerLinks: linksOf(r, c.header.links as LinkSetting[], res),
    footerGroups: ((c.footer?.groups ?? []) as { title?: string; links?: LinkSetting[] }[]).flatMap((g) => {
      const links = linksOf(r, g.links, res);
      return g.title || links.length ? [{ title: g.title ?? '', links }] : [];
    }),
    trademark: c.trademark.enabled,
    logo: themed((c.header as Record<string, unknown>).logo),
    favicon: { ...themed(favicon?.icon), emoji: emojiOf(favicon?.emoji) },
    announcement: announcement
      ? {
          message: announcement.message,
          style: ['info', 'warning', 'danger', 'success'].includes(announcement.style) ? announcement.style : 'info',
          ...(announcementLink ? { link: { title: announcement.link.title || announcementLink, url: announcementLink } } : {}),
        }
      : undefined,
    theme: { default: c.themes?.default ?? 'system', toggeable: c.themes?.toggeable !== false },
    copyright: ((c.footer as Record<string, unknown>).copyright as string | undefined) || undefined,
    searchAction: res ? pageUrl(r, res.siteSpace, res.page) : r.base || '/',
  };
}

function respond(status: number, body: string, headers: Record<string, string>, cookies: string[], cache: string): Response {
  const h = new Headers(headers);
  for (const c of cookies) h.append('set-cookie', c);
  h.set('cache-control', cache);
  h.set('vary', 'Cookie, Authorization');
  return new Response(body, { status, headers: h });
}

const text = (type: string) => ({ 'content-type': `${type}; charset=utf-8`, 'x-content-type-options': 'nosniff' });

/** A site at `/public/<org>/sites/<site>/…` on this server. */
function publicSiteAt(call: RouteCall): SiteAt {
  const raw = new URL(call.request.url).pathname.split('/');
  // ['', 'public', org, 'sites', site, ...rest]
  const publicUrl = call.services.config.publicUrl.replace(/\/+$/, '');
  const prefix = new URL(publicUrl).pathname.replace(/\/+$/, '');
  const sitePath = `/public/${raw[2] ?? ''}/sites/${raw[4] ?? ''}`;
  return {
    base: `${publicUrl}${sitePath}`,
    cookiePath: `${prefix}${sitePath}`,
    rest: raw.slice(5),
    state: () => findSiteState(call, call.params.org!, call.params.site!),
  };
}

const serve = (call: RouteCall) => serveSite(call, publicSiteAt(call));

/**
 * A site's custom hostname (`Site.hostname`, proven: see the sites module's hostname claims), served
 * at `/` when a request names that host (src/app.ts asks `siteHostedAt` before its router): every
 * GET and HEAD but the API's own paths (HOST_KEPT), as `/public/…` would be, with a base of '' so
 * every link of the page is relative to `/` and the visitor stays on the hostname. The site's
 * cookies live at `/` there. Proxy origins need nothing here: a proxy forwards to the site's
 * `/public/…` URL on this server.
 */
function serveHosted(call: RouteCall): Promise<Response> {
  const url = new URL(call.request.url);
  const at: SiteAt = {
    base: '',
    cookiePath: '/',
    rest: url.pathname.split('/').slice(1),
    state: () => findSiteStateByHost(call, url.hostname.toLowerCase()),
  };
  return call.request.method === 'POST' ? serveFeedback(call, at) : serveSite(call, at);
}

/** Paths that keep their meaning on every host: the API, GraphQL, probes, and this server's own `/public/…` URLs. */
const HOST_KEPT = /^\/(v1|graphql|healthz|readyz|public)(\/|$)/;

/**
 * Whether `request` is for a site served at its custom hostname (a GET or HEAD to a host other than
 * this server's public URL, outside HOST_KEPT, naming a site's hostname): the kept site state, so a
 * hit costs no statement and a miss (another name of this server) one a second.
 */
export async function siteHostedAt(services: Services, request: Request): Promise<boolean> {
  const url = new URL(request.url);
  const feedback = request.method === 'POST' && url.pathname === `/${FEEDBACK_PATH}`;
  if (request.method !== 'GET' && request.method !== 'HEAD' && !feedback) return false;
  if (HOST_KEPT.test(url.pathname)) return false;
  const host = url.hostname.toLowerCase();
  if (host === new URL(services.config.publicUrl).hostname.toLowerCase()) return false;
  return !!(await findSiteStateByHost({ services }, host));
}

/** The route src/app.ts serves a custom hostname's requests with (after `siteHostedAt`). */
export const hostedReaderRoute: HttpRoute = { method: 'GET', path: '/*', handle: serveHosted, optionalToken: true };

function notFoundPage(base: string, cookies: string[] = [], shell = genericShell(base)): Response {
  return respond(404, noticeHtml(shell, 'Page not found', 'There is no such page on this site.'), htmlHeaders(shell), cookies, 'no-store');
}

/** A visitor the site does not admit: its 404 page, the publishing-auth fallback (302), or the sign-in notice (401). */
async function refused(
  ctx: ReturnType<typeof createContext>,
  site: SiteState['site'],
  base: string,
  access: Extract<Access, { ok: false }>,
  rest: string[],
): Promise<Response> {
  const shell = { ...genericShell(base), siteTitle: site.title, title: site.title };
  if (access.status === 404) return notFoundPage(base, access.setCookies, shell);
  // A visitor-auth site with a fallback URL (publishing auth) sends refused visitors there, with the path they asked for.
  const fallback = site.visibility === 'visitor-auth' ? await visitorFallbackUrl(ctx, site.id) : null;
  if (fallback) {
    const to = new URL(fallback);
    to.searchParams.set('location', `/${rest.map(encodeURIComponent).join('/')}`);
    return respond(302, '', { location: to.toString() }, access.setCookies, 'no-store');
  }
  return respond(
    401,
    noticeHtml({ ...shell, title: `Sign-in required · ${site.title}` }, 'Sign-in required', access.message),
    htmlHeaders(shell),
    access.setCookies,
    'no-store',
  );
}

/** Where a site is served: its base URL ('' at its custom hostname), its cookies' path, the raw path segments below it, its state. */
interface SiteAt {
  base: string;
  cookiePath: string;
  rest: string[];
  state: () => Promise<SiteState | null>;
}

async function serveSite(call: RouteCall, at: SiteAt): Promise<Response> {
  const { services, request, caller } = call;
  const url = new URL(request.url);
  const { base } = at;
  const secure = services.config.publicUrl.startsWith('https:') || url.protocol === 'https:';
  let rest: string[];
  try {
    rest = at.rest.filter(Boolean).map(decodeURIComponent);
  } catch {
    rest = ['\u0000'];
  }
  const notFound = (cookies: string[] = [], shell = genericShell(base)) => notFoundPage(base, cookies, shell);

  // The site, its organization's hostname and the fingerprint of what it shows: one statement, or none while kept.
  const state = await at.state();
  if (!state?.site.published) return notFound();
  const { site } = state;

  const ctx = createContext(services, caller?.user ?? ANONYMOUS, caller?.session);
  const access = await decideAccess(ctx, site, request, !!caller, at.cookiePath, secure);
  if (!access.ok) return refused(ctx, site, base, access, rest);
  if (access.cleanUrl) {
    // Keys and tokens leave the address bar (and the history, and Referer headers): the cookie carries them now.
    return respond(302, '', { location: access.cleanUrl }, access.setCookies, 'no-store');
  }
  // What a shared cache may keep: a public or unlisted site as anyone sees it (no member, no claims, no cookie being set).
  const sharing: Sharing =
    (site.visibility === 'public' || site.visibility === 'unlisted') && access.audience === 'anyone' && !access.setCookies.length
      ? 'public'
      : 'private';

  // Rendered answers are kept (page-cache.ts), keyed by the site's fingerprint, the URL and the
  // audience; searches, redirects and 404 pages are not. Access was decided above, before any lookup.
  const query = url.searchParams.get('q');
  // The page after a rating (`?feedback=thanks`, serveFeedback's 303): its own entry, never the plain page's, and no page view counted again.
  const thanks = url.searchParams.get('feedback') === 'thanks';
  let key: string | null = null;
  if (query === null || (rest.length === 1 && AGENT_FILES.has(rest[0]!))) {
    key = answerKey({
      site,
      fingerprint: state.fingerprint,
      base,
      kind: thanks ? 'GET feedback=thanks' : 'GET',
      path: JSON.stringify(rest),
      audience: audienceKey(access.audience, access.visitor),
    });
    const hit = cachedAnswer(key);
    if (hit) {
      const answer = serveAnswer(request, hit, sharing, access.setCookies);
      return hit.view ? countPageView(ctx, hit.view, answer) : answer;
    }
  }
  const ok = (body: string, headers: Record<string, string>, view?: CachedAnswer['view']) =>
    serveAnswer(request, keepAnswer(key, body, headers, view), sharing, access.setCookies);

  const view = await siteView(ctx, site);
  // The customization is read once the page (and so its site space, whose override applies) is known.
  const customization = defaultCustomization(site.title);
  const canonical = ctx.urls.publishedSite(site, state.hostname);
  const r: Reading = { ctx, site, view, visitor: access.visitor, base, canonical, customization };

  // The agents' files at the site's root.
  if (rest.length === 1 && AGENT_FILES.has(rest[0]!)) return agentFile(r, rest[0]!, ok);

  const last = rest.at(-1);
  const wantsMarkdown = !!last && /\.md$/i.test(last) && last.length > 3;
  const segments = wantsMarkdown ? [...rest.slice(0, -1), last!.slice(0, -3)] : rest;
  const res = await resolveForVisitor(
    r,
    segments.filter((s) => !/^readme$/i.test(s) || !wantsMarkdown),
  );
  // The page's site space may override the site's customization.
  r.customization = await siteCustomization(ctx, site, res?.siteSpace.id);
  const shell = shellOf(r, site.title, res);
  if (query !== null && !wantsMarkdown) return searchAnswer(r, res, shell, url, query, ok);
  if (!res) {
    // Redirects apply where no page is (a live page wins over a stale redirect).
    const redirect = await findRedirect(ctx, site, `/${rest.join('/')}`);
    if (redirect)
      return respond(redirect.permanent ? 301 : 302, '', { location: redirect.target }, access.setCookies, sharedCacheControl(sharing));
    // A section (or the site's root) whose space has no page yet is there, only empty: not a missing page.
    const empty = wantsMarkdown ? null : await emptySection(r, segments);
    if (empty) {
      const emptyShell: Shell = { ...shell, title: `${empty.section?.title || site.title} | ${shell.siteTitle}` };
      return ok(documentHtml(emptyShell, emptySectionBody(r, empty.section), true), htmlHeaders(emptyShell));
    }
    return notFound(access.setCookies, shell);
  }
  if (wantsMarkdown) return ok(await pageMarkdown(r, res), text('text/markdown'));
  return pageAnswer(r, res, shell, thanks, ok);
}

type Answer = (body: string, headers: Record<string, string>, view?: CachedAnswer['view']) => Response;
type Resolved = NonNullable<Awaited<ReturnType<typeof resolveForVisitor>>>;

/** The agents' files at the site's root: robots.txt, sitemap.xml, llms.txt, llms-full.txt. */
async function agentFile(r: Reading, name: string, ok: Answer): Promise<Response> {
  r.customization = await siteCustomization(r.ctx, r.site);
  switch (name) {
    case 'robots.txt':
      return ok(robotsTxt(r), text('text/plain'));
    case 'sitemap.xml':
      return ok(await sitemapXml(r), text('application/xml'));
    case 'llms.txt':
      return ok(await llmsTxt(r), text('text/markdown'));
    default:
      return ok(await llmsFullTxt(r), text('text/markdown'));
  }
}

/** The results page of a search (`?q=`), in the page's site space or the whole site. */
async function searchAnswer(r: Reading, res: Resolved | null, shell: Shell, url: URL, query: string, ok: Answer): Promise<Response> {
  const self = (params: Record<string, string>) => {
    const search = new URLSearchParams(params).toString();
    return `${url.pathname}${search ? `?${search}` : ''}`;
  };
  const main = await searchResults(
    r,
    res?.siteSpace ?? null,
    { query, all: url.searchParams.get('scope') === 'all', page: url.searchParams.get('page') },
    self,
  );
  const searchShell: Shell = { ...shell, title: `Search: ${query.slice(0, 80)} | ${shell.siteTitle}`, noindex: true, searchQuery: query };
  return ok(
    documentHtml(
      searchShell,
      `<div class="layout layout-search"><aside class="sidebar"></aside><main id="content">${main}</main><aside class="outline"></aside></div>`,
      false,
    ),
    htmlHeaders(searchShell),
  );
}

/** A page, rendered, its view counted (not for the page after a rating). */
async function pageAnswer(r: Reading, res: Resolved, shell: Shell, thanks: boolean, ok: Answer): Promise<Response> {
  const { ctx, site, canonical } = r;
  const options = siteSpacesIn(r, res.siteSpace.sectionId);
  const [rendered, spaces] = await Promise.all([
    renderPage(r, res),
    options.length > 1 ? spacesOf(r, options) : Promise.resolve(new Map()),
  ]);
  const pageShell: Shell = {
    ...shell,
    title: `${res.page.title} | ${shell.siteTitle}`,
    description: res.page.description,
    canonical: pageUrl(r, res.siteSpace, res.page, canonical),
    markdownUrl: `${pageUrl(r, res.siteSpace, res.page)}.md`,
    noindex: shell.noindex || !!res.page.noIndex || !!res.page.noRobotsIndex,
  };
  const pageView = {
    siteId: site.id,
    siteSectionId: res.siteSpace.sectionId,
    siteSpaceId: res.siteSpace.id,
    spaceId: res.space.id,
    pageId: res.page.id,
  };
  const html = documentHtml(pageShell, pageBody(r, res, rendered, spaces, thanks), true);
  if (thanks) return ok(html, htmlHeaders(pageShell));
  return countPageView(ctx, pageView, ok(html, htmlHeaders(pageShell), pageView));
}

/** Ratings one client address may post: 20 at once, then 20 a minute (per process, as the other address budgets: src/http/throttle.ts). */
const FEEDBACK_PER_MINUTE = 20;
const feedbackLimiters = new WeakMap<Services, AddressLimiter>();
const FEEDBACK_BODY_LIMIT = 4096;

/**
 * `POST <site URL>/~gitbook/feedback` — Lectern's own route, not an official operation (GitBook's
 * renderer sends page ratings through its API from a script; the reader has none): the page's
 * feedback form (page.ts) posts `page` (its id), `path` (its path below the site) and `rating`
 * (the official PageFeedbackRating: good, ok, bad), form-encoded. Answered, for a visitor the site
 * admits (refusals exactly as the page's: 404, 401 or the publishing-auth fallback), when the
 * page's customization has feedback enabled (else the 404 page), by counting an official
 * `page_post_feedback` with its rating (site insights: aggregateSiteEvents counts it) and a 303
 * back to the page with `?feedback=thanks`. A field that is wrong is a 400 naming it; more than
 * FEEDBACK_PER_MINUTE ratings from one address a 429. Nothing about the visitor is kept.
 */
async function serveFeedback(call: RouteCall, at: SiteAt): Promise<Response> {
  const { services, request, caller } = call;
  let limiter = feedbackLimiters.get(services);
  if (!limiter)
    feedbackLimiters.set(services, (limiter = new AddressLimiter(services.config.rateLimit.limit > 0 ? FEEDBACK_PER_MINUTE : 0, 60)));
  const taken = limiter.take(addressKey(call.clientAddress));
  if (!taken.ok)
    return errorResponse(429, 'Too many ratings from this address; try again later', { 'retry-after': String(taken.retryAfter) });

  const url = new URL(request.url);
  const secure = services.config.publicUrl.startsWith('https:') || url.protocol === 'https:';
  const state = await at.state();
  if (!state?.site.published) return notFoundPage(at.base);
  const { site } = state;
  const ctx = createContext(services, caller?.user ?? ANONYMOUS, caller?.session);
  const access = await decideAccess(ctx, site, request, !!caller, at.cookiePath, secure);
  if (!access.ok) return refused(ctx, site, at.base, access, []);

  const form = new URLSearchParams(call.body ?? (await readText(request, FEEDBACK_BODY_LIMIT)));
  const field = (name: string) => form.get(name) ?? '';
  let segments: string[];
  try {
    segments = field('path').split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return errorResponse(400, 'path: must be the path of a page of this site');
  }
  const view = await siteView(ctx, site);
  const r: Reading = {
    ctx,
    site,
    view,
    visitor: access.visitor,
    base: at.base,
    canonical: ctx.urls.publishedSite(site, state.hostname),
    customization: defaultCustomization(site.title),
  };
  const res = await resolveForVisitor(r, segments);
  // Feedback is switched on per site (and per site space's override): off, this route is not there.
  r.customization = await siteCustomization(ctx, site, res?.siteSpace.id);
  if (!r.customization.feedback?.enabled) return notFoundPage(at.base, access.setCookies);
  const pageId = field('page');
  if (!pageId || !res || res.page.id !== pageId)
    return errorResponse(400, 'page: must be the id of the page of this site at path (a page the visitor can read)');
  const rating = field('rating');
  if (!(FEEDBACK_RATINGS as readonly string[]).includes(rating))
    return errorResponse(400, `rating: must be one of ${FEEDBACK_RATINGS.join(', ')}`);

  countPageFeedback(
    ctx,
    { siteId: site.id, siteSectionId: res.siteSpace.sectionId, siteSpaceId: res.siteSpace.id, spaceId: res.space.id, pageId: res.page.id },
    rating as FeedbackRating,
  );
  return respond(303, '', { location: `${pageUrl(r, res.siteSpace, res.page)}?feedback=thanks` }, access.setCookies, 'no-store');
}

const serveFeedbackAt = (call: RouteCall) => serveFeedback(call, publicSiteAt(call));

export const readerHttpRoutes: HttpRoute[] = [
  ...mcpHttpRoutes, // <site URL>/~gitbook/mcp (mcp.ts), before the pages' wildcard
  {
    method: 'POST',
    path: `/public/:org/sites/:site/${FEEDBACK_PATH}`,
    handle: serveFeedbackAt,
    optionalToken: true,
    bodyLimit: FEEDBACK_BODY_LIMIT,
  },
  { method: 'GET', path: '/public/:org/sites/:site', handle: serve, optionalToken: true },
  { method: 'GET', path: '/public/:org/sites/:site/*', handle: serve, optionalToken: true },
];
