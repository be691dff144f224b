import { LecternError } from '../../errors.js';
import type { SiteSpace } from '../../generated/prisma/client.js';
import type { PageNode, PageTree } from '../content/index.js';
import type { SearchSpaceResult } from '../search/index.js';
import { searchSiteFor } from '../sites/index.js';
import { esc } from './html-layout.js';
import { holds, sectionsVisible, siteSpacesIn, siteSpaceUrl, spacesOf, type Reading } from './site-model.js';

/**
 * The reader's search results page: `<any page URL>?q=words` (the search box on every page is a
 * plain GET form, so it works without a script), server-rendered, backed by the sites module's
 * site search (`searchSiteFor`, the same statement as the API's searchSiteContent).
 *
 * - Scope: by default the official `default` scope with the page's site space as the current one
 *   (its section's variant stands in for the default; other sections' defaults, or their variant in
 *   the same language); `&scope=all` searches every site space. Only site spaces the visitor sees
 *   (sections and site spaces whose conditions hold) are searched.
 * - Pages the visitor may not open through navigation are never found: hidden pages (and their
 *   children) and pages whose condition, or an ancestor's, fails for the visitor's claims.
 * - At most RESULTS_PER_PAGE spaces per page of results, `&page=` for the following ones.
 */
export const RESULTS_PER_PAGE = 20;
export const MAX_QUERY = 512;

export interface SearchRequest {
  query: string;
  all: boolean;
  page: string | null;
}

/** The site spaces a visitor sees (visible sections, or the root, whose conditions hold). */
function visibleSiteSpaces(r: Reading): SiteSpace[] {
  if (!r.view.sectioned) return siteSpacesIn(r, null);
  return sectionsVisible(r).flatMap((s) => siteSpacesIn(r, s.id));
}

function findable(r: Reading, page: PageNode, tree: PageTree): boolean {
  if (page.hidden || !holds(r, page.condition)) return false;
  return page.ancestors.every((a) => {
    const node = tree.byId.get(a.id);
    return !!node && !node.hidden && holds(r, node.condition);
  });
}

export interface SearchOutcome {
  html: string;
  /** The form's values, for the search box. */
  query: string;
}

/** The results (or the message in their place) as the main column's HTML. */
export async function searchResults(
  r: Reading,
  current: SiteSpace | null,
  req: SearchRequest,
  selfUrl: (params: Record<string, string>) => string,
): Promise<string> {
  const q = req.query.trim();
  const heading = `<h1 class="title">Search</h1>`;
  const form = searchForm(selfUrl({}), q, req.all, !!current);
  if (!q) return `${heading}${form}<p class="description">Type words to look for in this site.</p>`;
  if ([...q].length > MAX_QUERY)
    return `${heading}${form}<p class="description">The search is too long (at most ${MAX_QUERY} characters).</p>`;

  const siteSpaces = visibleSiteSpaces(r);
  const scope = req.all || !current ? ({ mode: 'all' } as const) : ({ mode: 'default', currentSiteSpace: current.id } as const);
  let found: Awaited<ReturnType<typeof searchSiteFor>>;
  try {
    found = await searchSiteFor(r.ctx, r.site, siteSpaces, q, scope, { page: req.page, limit: RESULTS_PER_PAGE }, (_spaceId, page, tree) =>
      findable(r, page, tree),
    );
  } catch (error) {
    // A page cursor that is not one of ours: start again from the first page.
    if (error instanceof LecternError && error.code === 'BAD_REQUEST' && req.page)
      return searchResults(r, current, { ...req, page: null }, selfUrl);
    throw error;
  }
  const { siteSpaces: searched, results } = found;
  // A space published twice in the site: its results link to the current site space when it is one of them, else the first.
  const siteSpaceOf = new Map<string, SiteSpace>();
  for (const ss of searched) if (!siteSpaceOf.has(ss.spaceId) || ss.id === current?.id) siteSpaceOf.set(ss.spaceId, ss);
  const titled = searched.length > 1;
  const names = titled ? await spacesOf(r, searched) : new Map();
  const label = (item: SearchSpaceResult) => {
    const ss = siteSpaceOf.get(item.id);
    const section = ss?.sectionId ? r.view.section(ss.sectionId) : undefined;
    const title = names.get(item.id)?.title || item.title;
    return section && r.view.sectioned ? `${section.title} · ${title}` : title;
  };
  const summary = `<p class="description" role="status">${results.count === 0 ? 'No results' : `${results.items.reduce((n, i) => n + i.pages.length, 0)} pages found`} for “${esc(q)}”.</p>`;
  const groups = results.items
    .map((item) => {
      const ss = siteSpaceOf.get(item.id);
      if (!ss) return '';
      const base = siteSpaceUrl(r, ss).replace(/\/$/, ''); // '/' at a custom hostname's root: no '//' before the page path
      const pages = item.pages
        .map((p) => {
          const url = `${base}/${p.path.split('/').map(encodeURIComponent).join('/')}`;
          const crumbs = p.ancestors.length ? `<div class="breadcrumbs">${p.ancestors.map((a) => esc(a.title)).join(' / ')}</div>` : '';
          const sections = p.sections
            .filter((s) => s.path.includes('#') || s.body)
            .map((s) => {
              const anchor = s.path.includes('#') ? `#${encodeURIComponent(s.path.slice(s.path.indexOf('#') + 1))}` : '';
              return `<li><a href="${esc(url + anchor)}">${esc(s.title)}</a>${s.body ? `<p>${esc(s.body)}</p>` : ''}</li>`;
            })
            .join('');
          return `<li class="result">${crumbs}<a class="result-title" href="${esc(url)}">${esc(p.title)}</a>${p.description ? `<p>${esc(p.description)}</p>` : ''}${sections ? `<ul class="result-sections">${sections}</ul>` : ''}</li>`;
        })
        .join('');
      return `<section class="result-space">${titled ? `<h2>${esc(label(item))}</h2>` : ''}<ol class="results">${pages}</ol></section>`;
    })
    .join('');
  const more = results.next
    ? `<nav class="pager" aria-label="More results"><a class="next" rel="next" href="${esc(selfUrl({ q, ...(req.all ? { scope: 'all' } : {}), page: results.next.page }))}"><small>Next</small>More results</a></nav>`
    : '';
  return `${heading}${form}${summary}${groups}${more}`;
}

/** The search form of the results page (the header's box is the short form of it). */
function searchForm(action: string, q: string, all: boolean, scoped: boolean): string {
  const scope = scoped
    ? `<label class="scope"><input type="checkbox" name="scope" value="all"${all ? ' checked' : ''}> Search every section and variant</label>`
    : '';
  return `<form class="search-page" role="search" method="get" action="${esc(action)}"><input type="search" name="q" value="${esc(q)}" aria-label="Search this site" maxlength="${MAX_QUERY}" required><button type="submit">Search</button>${scope}</form>`;
}
