import type { SiteSpace } from '../../generated/prisma/client.js';
import { bodiesOf, pageTree, viewOf, type PageNode } from '../content/index.js';
import { pageMarkdown } from './agents.js';
import {
  pageUrl,
  readingOrder,
  resolveForVisitor,
  sectionsVisible,
  siteSpacesIn,
  spacesOf,
  visibleTree,
  type Reading,
} from './site-model.js';

/**
 * What the published site's MCP server (mcp.ts) answers with: the pages a visitor may see, a
 * search over them and a page's Markdown — the very reads of the HTML reader, for the same visitor
 * (conditions evaluated against their claims; hidden pages out of listings and search, but readable
 * by URL, as in the browser).
 *
 * Search: the site's own pages (titles, descriptions, bodies of the visible pages of every visible
 * site space), ranked in process. Decision: the full-text index serves members (it holds hidden
 * pages and knows no visitor conditions); matching the pages this visitor may see keeps search
 * exactly as visible as the site. Cost: one batched read of the visible pages'
 * bodies (content-addressed, shared between revisions), chunked.
 */

export interface ListedPage {
  title: string;
  description: string;
  /** The page's URL on this server (add `.md` for its Markdown). */
  url: string;
  /** Where the page sits: section and variant titles, then its ancestors' titles. */
  location: string[];
  page: PageNode;
}

/** Every page the visitor may see, in reading order, site space by site space (sections in their order). */
export async function listPages(r: Reading): Promise<ListedPage[]> {
  const entries: { heading: string[]; siteSpace: SiteSpace }[] = [];
  const sections = r.view.sectioned ? sectionsVisible(r) : [null];
  for (const section of sections) {
    const spaces = siteSpacesIn(r, section?.id ?? null).filter((ss) => !ss.hidden);
    for (const ss of spaces) entries.push({ heading: section ? [section.title] : [], siteSpace: ss });
  }
  const spaces = await spacesOf(
    r,
    entries.map((e) => e.siteSpace),
  );
  const lists = await Promise.all(
    entries.map(async (e) => {
      const space = spaces.get(e.siteSpace.spaceId);
      if (!space) return [];
      const tree = await pageTree(r.ctx, await viewOf(r.ctx, space, space.revisionId));
      const variants = siteSpacesIn(r, e.siteSpace.sectionId).filter((ss) => !ss.hidden).length;
      const heading = variants > 1 ? [...e.heading, space.title || e.siteSpace.path] : e.heading;
      return readingOrder(visibleTree(r, tree.roots)).map(
        (p): ListedPage => ({
          title: p.title,
          description: p.description ?? '',
          url: pageUrl(r, e.siteSpace, p),
          location: [...heading, ...p.ancestors.map((a) => a.title)],
          page: p,
        }),
      );
    }),
  );
  return lists.flat();
}

export interface Hit {
  title: string;
  url: string;
  location: string[];
  snippet: string;
  score: number;
}

const BODY_CHUNK = 500;
const FRONT_MATTER = /^\uFEFF?---\r?\n[\s\S]*?\r?\n---\r?\n/;

/** Query terms: lower-cased words (letters and digits of any script), at most 16. */
export function termsOf(query: string): string[] {
  return [...new Set(query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])].slice(0, 16);
}

const count = (text: string, term: string, cap: number) => {
  let n = 0;
  for (let i = text.indexOf(term); i >= 0 && n < cap; i = text.indexOf(term, i + term.length)) n++;
  return n;
};

/** Plain-ish text of a Markdown body for matching and snippets (markup characters and tags dropped). */
const plain = (markdown: string) =>
  markdown
    .replace(FRONT_MATTER, '')
    .replace(/\{%[^%]*%\}/g, ' ')
    .replace(/<[^>]{0,200}>/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[#>*_`|~]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

function snippetOf(text: string, lower: string, terms: string[]): string {
  const at = Math.min(...terms.map((t) => lower.indexOf(t)).filter((i) => i >= 0));
  if (!Number.isFinite(at)) return text.slice(0, 200);
  const start = Math.max(0, at - 80);
  return `${start > 0 ? '…' : ''}${text.slice(start, start + 220).trim()}${start + 220 < text.length ? '…' : ''}`;
}

/**
 * Pages matching every term of `query` (title, description or body), best first: a term in the
 * title counts 10, in the description 4, each occurrence in the body 1 (at most 5 per term); a title
 * that is the whole query 20 more.
 */
export async function searchPages(r: Reading, query: string, limit: number): Promise<Hit[]> {
  const terms = termsOf(query);
  if (!terms.length) return [];
  const pages = await listPages(r);
  const hits: Hit[] = [];
  for (let i = 0; i < pages.length; i += BODY_CHUNK) {
    const chunk = pages.slice(i, i + BODY_CHUNK);
    const bodies = await bodiesOf(r.ctx, [...new Set(chunk.map((p) => p.page.body).filter((b): b is string => !!b))]);
    for (const p of chunk) {
      const text = plain((p.page.body && bodies.get(p.page.body)) || '');
      const lower = text.toLowerCase();
      const title = p.title.toLowerCase();
      const description = p.description.toLowerCase();
      let score = 0;
      let all = true;
      for (const term of terms) {
        const s = (title.includes(term) ? 10 : 0) + (description.includes(term) ? 4 : 0) + count(lower, term, 5);
        if (!s) all = false;
        score += s;
      }
      if (!all) continue;
      if (title.trim() === query.trim().toLowerCase()) score += 20;
      hits.push({ title: p.title, url: p.url, location: p.location, snippet: snippetOf(text, lower, terms) || p.description, score });
    }
  }
  // Best first; equal scores keep the site's reading order (the sort is stable).
  return hits.sort((a, b) => b.score - a.score).slice(0, limit);
}

/**
 * A page's Markdown (as `<page URL>.md` answers it) by its URL on this site (absolute, or a path
 * below the site; `.md`, a query or an anchor are ignored), or null when the visitor may not see
 * such a page.
 */
export async function readPage(r: Reading, address: string): Promise<{ url: string; markdown: string } | null> {
  let path = address.trim();
  try {
    const url = new URL(path, `${r.base}/`);
    path = url.pathname;
  } catch {
    return null;
  }
  const basePath = new URL(r.base).pathname.replace(/\/+$/, '');
  if (path === basePath || path.startsWith(`${basePath}/`)) path = path.slice(basePath.length);
  else if (/^[a-z][a-z0-9+.-]*:/i.test(address.trim())) return null; // another site's or server's URL
  let segments: string[];
  try {
    segments = path.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return null;
  }
  const last = segments.at(-1);
  if (last && /\.md$/i.test(last) && last.length > 3) segments[segments.length - 1] = last.slice(0, -3);
  const res = await resolveForVisitor(
    r,
    segments.filter((s) => !/^readme$/i.test(s)),
  );
  if (res?.page.type !== 'document') return null;
  return { url: pageUrl(r, res.siteSpace, res.page), markdown: await pageMarkdown(r, res) };
}
