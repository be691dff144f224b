import type { Context } from '../../context.js';
import { requireOrg, requireSpace, visibleContentFilter } from '../../auth/permissions.js';
import { badRequest } from '../../errors.js';
import { selectRowsOnce } from '../../db/early-reads.js';
import { Prisma } from '../../generated/prisma/client.js';
import { paginate, paginateArray, readPageArgs, type ListPage, type PageArgs } from '../../pagination.js';
import * as check from '../../validate.js';
import { INTRO_SECTION, pageEntrySql } from '../content/index.js';

/**
 * Space and organization search over the index kept by `content/search-index.ts` (main content
 * only), with PostgreSQL full-text search: `websearch_to_tsquery('simple', query)` (quoted
 * phrases, `or`, `-word`), `ts_rank` for the order, `ts_headline` for the section snippets.
 *
 * - Results are pages, best first: a page's score is its best section's rank, plus 1 when the
 *   page title alone matches the query (a page named after the query comes before one that
 *   mentions it). Ties break on the page id, so the order is stable between pages of results.
 *   That score is the result's `score`; its one-based place in that order over every matching page
 *   (of every searched space) is its `rank`; a section's `score` is its own rank, a space's its best page's.
 * - A page's `sections` are those whose own heading or text holds a query word, best first, at
 *   most MAX_SECTIONS. A page found only through its title has none.
 * - Organization search groups the same page results by space (only spaces the caller can see,
 *   deleted ones excluded): the list is of spaces, best first, each with its best MAX_PAGES_PER_SPACE pages.
 */
export const MAX_QUERY_CHARS = 512;
export const MAX_SECTIONS = 5;
export const MAX_PAGES_PER_SPACE = 5;

/** A section text this short is shown whole. */
const SHORT_BODY_CHARS = 240;
/** Longer ones: a snippet around the matches, as plain text (no markup: clients highlight). */
const HEADLINE_OPTIONS = 'MaxWords=35, MinWords=15, ShortWord=2, MaxFragments=2, FragmentDelimiter=" … ", StartSel="", StopSel=""';

export interface SearchUrls {
  app: string;
}

export interface SearchSectionResult {
  id: string;
  title: string;
  path: string;
  score: number;
  body: string;
  urls: SearchUrls;
}

export interface SearchPageResult {
  id: string;
  title: string;
  /** The page's own description in the indexed (main) revision; '' when it has none. */
  description: string;
  path: string;
  score: number;
  rank: number;
  sections: SearchSectionResult[];
  ancestors: { title: string }[];
  urls: SearchUrls;
}

export interface SearchSpaceResult {
  id: string;
  title: string;
  score: number;
  pages: SearchPageResult[];
}

/** The `query` argument: required, at most 512 characters. */
export function readQuery(query: string | null | undefined): string {
  if (query == null || !query.trim()) throw badRequest('query', 'is required');
  return check.text('query', query, { max: MAX_QUERY_CHARS });
}

interface Row {
  /** Every matching page (space search) or space (organization search): the list's `count`. */
  total: number;
  /** The columns below are null on the one row of an empty window (it carries only the total). */
  spaceId: string;
  pageId: string;
  pageTitle: string;
  pagePath: string;
  ancestors: string[];
  description: string;
  pageScore: number;
  position: number;
  sectionId: string;
  sectionScore: number;
  title: string;
  own: boolean;
  snippet: string;
}

const tsquery = (query: string) => Prisma.sql`websearch_to_tsquery('simple', ${query})`;

/** Pages left out of a search (the reader's: hidden and conditioned pages), as two parallel arrays. */
export interface ExcludedPages {
  spaces: string[];
  pages: string[];
}

const exclusion = (excluded?: ExcludedPages) =>
  excluded?.pages.length
    ? Prisma.sql`AND NOT EXISTS (SELECT 1 FROM unnest(${excluded.spaces}::text[], ${excluded.pages}::text[]) e(sp, pg) WHERE e.sp = s."spaceId" AND e.pg = s."pageId")`
    : Prisma.empty;

/** Rows matching the query in the given spaces (but the excluded pages), and each page's score. */
const hitStage = (spaceIds: string[], query: string, excluded?: ExcludedPages) => Prisma.sql`
  q AS (
    SELECT tsq, tsvector_to_array(to_tsvector('simple', tsq::text)) AS words FROM (SELECT ${tsquery(query)} AS tsq) x
  ),
  hits AS (
    SELECT s."spaceId", s."pageId", s."sectionId", s."pageTitle", ts_rank(s.search, q.tsq) AS rank
    FROM "SearchSection" s, q
    WHERE s."spaceId" = ANY(${spaceIds}::text[]) AND s.search @@ q.tsq ${exclusion(excluded)}
  ),
  scored AS (
    SELECT x.*, (row_number() OVER (ORDER BY x.score DESC, x."pageId", x."spaceId"))::int AS position FROM (
      SELECT h."spaceId", h."pageId",
        max(h.rank) + CASE WHEN to_tsvector('simple', min(h."pageTitle")) @@ (SELECT tsq FROM q) THEN 1 ELSE 0 END AS score
      FROM hits h GROUP BY h."spaceId", h."pageId"
    ) x
  )`;

/**
 * The rest of a search, after `chosen` (spaceId, pageId, score, position of the result window's
 * pages): each page's description, read from its space's main revision (the one the index holds)
 * in the same statement (the index keeps none, and only a window of pages needs one), then the best sections of each
 * page with their snippets. Every page keeps at least one row (for its title, path and
 * ancestors), flagged `own = false` when none of its sections holds a query word itself.
 *
 * The statement answers the list's total (`count`, over `scored`) on every row, and one row of
 * nulls besides the total when the window is empty: the count and the window are one statement.
 */
const resultStage = (count: Prisma.Sql, order: Prisma.Sql) => Prisma.sql`
  described AS (
    SELECT c.*, COALESCE((
      SELECT ${Prisma.raw(pageEntrySql('m.data', 'c."pageId"'))} ->> 'description'
      FROM "Space" x JOIN "Revision" r ON r.id = x."revisionId" JOIN "ContentObject" m ON m.hash = r.manifest
      WHERE x.id = c."spaceId"
    ), '') AS description
    FROM chosen c
  ),
  ranked AS (
    SELECT c.*, h."sectionId", h.rank,
      (tsvector_to_array(to_tsvector('simple', s.title || ' ' || s.body)) && (SELECT words FROM q)) AS own,
      s.title, s.body, s."pageTitle", s."pagePath", s.ancestors
    FROM described c
    JOIN hits h ON h."spaceId" = c."spaceId" AND h."pageId" = c."pageId"
    JOIN "SearchSection" s ON s."spaceId" = h."spaceId" AND s."pageId" = h."pageId" AND s."sectionId" = h."sectionId"
  ),
  numbered AS (
    SELECT r.*, row_number() OVER (PARTITION BY r."spaceId", r."pageId" ORDER BY r.own DESC, r.rank DESC, r."sectionId") AS n FROM ranked r
  ),
  results AS (
    SELECT n.*,
      CASE WHEN NOT n.own THEN ''
        WHEN length(n.body) <= ${SHORT_BODY_CHARS} THEN n.body
        ELSE ts_headline('simple', n.body, (SELECT tsq FROM q), ${HEADLINE_OPTIONS}) END AS snippet
    FROM numbered n
    WHERE n.n <= ${MAX_SECTIONS} AND (n.own OR n.n = 1)
  )
  SELECT t.total, r."spaceId", r."pageId", r."pageTitle", r."pagePath", r.ancestors, r.description, r.score AS "pageScore", r.position,
    r."sectionId", r.rank AS "sectionScore", r.title, r.own, r.snippet
  FROM (SELECT (${count})::int AS total FROM scored) t LEFT JOIN results r ON true
  ORDER BY ${order}, r.n`;

function pageResults(ctx: Context, rows: Row[]): { spaceId: string; page: SearchPageResult }[] {
  const out: { spaceId: string; page: SearchPageResult }[] = [];
  let current: SearchPageResult | undefined;
  for (const row of rows) {
    if (row.pageId === null) continue;
    if (current?.id !== row.pageId || out.at(-1)!.spaceId !== row.spaceId) {
      const urls = ctx.urls.page(row.spaceId, row.pagePath);
      current = {
        id: row.pageId,
        title: row.pageTitle,
        description: row.description,
        path: row.pagePath,
        score: row.pageScore,
        rank: row.position,
        sections: [],
        ancestors: row.ancestors.map((title) => ({ title })),
        urls: { app: urls.app },
      };
      out.push({ spaceId: row.spaceId, page: current });
    }
    if (!row.own) continue;
    // The text before the first heading has no anchor: it is the page itself.
    const intro = row.sectionId === INTRO_SECTION;
    const anchor = intro ? '' : `#${row.sectionId}`;
    current.sections.push({
      id: intro ? row.pageId : row.sectionId,
      title: intro ? row.pageTitle : row.title,
      path: `${row.pagePath}${anchor}`,
      score: row.sectionScore,
      body: row.snippet,
      urls: { app: `${current.urls.app}${anchor}` },
    });
  }
  return out;
}

/**
 * One search statement, run straight through `pg` (src/db/rows.ts: Prisma would compile even a raw
 * query on the event loop) and paged: the total and the window come from the same rows.
 */
async function searchPage<T>(
  ctx: Context,
  args: PageArgs,
  statement: (skip: number, take: number) => Prisma.Sql,
  shape: (rows: Row[]) => T[],
): Promise<ListPage<T>> {
  let total!: (n: number) => void;
  const counted = new Promise<number>((resolve) => (total = resolve));
  return paginate(
    args,
    () => counted,
    async ({ skip, take }) => {
      const sql = statement(skip, take);
      // A space search's statement may have been begun while the token was checked (the REST route's `early`).
      const rows = await selectRowsOnce<Row>(ctx, ctx.db.pool, sql);
      total(rows[0]?.total ?? 0);
      return shape(rows);
    },
  );
}

/**
 * The statement of a space search (the total and one window of results, with descriptions),
 * exported so the bench can time the same SQL without the API around it.
 */
export const spaceSearchSql = (spaceId: string, query: string, skip: number, take: number) => Prisma.sql`
  WITH ${hitStage([spaceId], query)},
  chosen AS (SELECT "spaceId", "pageId", score, position FROM scored ORDER BY position LIMIT ${take} OFFSET ${skip}),
  ${resultStage(Prisma.sql`count(*)`, Prisma.sql`r.position`)}`;

const spaceSearch = (ctx: Context, spaceId: string, query: string, args: PageArgs) =>
  searchPage(
    ctx,
    args,
    (skip, take) => spaceSearchSql(spaceId, query, skip, take),
    (rows) => pageResults(ctx, rows).map((r) => r.page),
  );

/** Pages of one space matching `query`, best first (`Space.search`: the space is already the caller's to read). */
export async function searchSpace(ctx: Context, spaceId: string, query: string, args: PageArgs): Promise<ListPage<SearchPageResult>> {
  const space = await requireSpace(ctx, spaceId, 'read');
  return spaceSearch(ctx, space.id, readQuery(query), args);
}

/**
 * The same answer for a space given by id (the root `spaceSearch`, which the REST operation runs):
 * the access check and the search statement go to the database together, so the request waits
 * for one round trip after authentication instead of two. The statement only reads; its rows are
 * answered only once `requireSpace` let the caller through, and a refusal (404/403) is answered as
 * soon as it is known, before the input's 400s as `space(id) { search }` answers them.
 */
export async function searchSpaceById(ctx: Context, spaceId: string, query: string, args: PageArgs): Promise<ListPage<SearchPageResult>> {
  const access = requireSpace(ctx, spaceId, 'read');
  let q: string;
  try {
    q = readQuery(query);
    readPageArgs(args);
  } catch (error) {
    await access;
    throw error;
  }
  const answer = spaceSearch(ctx, spaceId, q, args);
  // Refused callers never see it; a failure of the statement after a refusal is not a second error.
  answer.catch(() => {});
  await access;
  return answer;
}

/** Spaces of an organization (those the caller can see) with pages matching `query`, best first. */
export async function searchOrganization(
  ctx: Context,
  organizationId: string,
  query: string,
  args: PageArgs,
): Promise<ListPage<SearchSpaceResult>> {
  await requireOrg(ctx, organizationId);
  const q = readQuery(query);
  const filter = await visibleContentFilter(ctx, organizationId);
  const spaces = await ctx.prisma.space.findMany({
    where: { AND: [{ organizationId, deletedAt: null }, filter.spaces] },
    select: { id: true, title: true },
  });
  return searchSpacesGrouped(ctx, spaces, q, args);
}

/**
 * The given spaces (already the caller's to search; `query` already checked) with their pages
 * matching `query`, grouped by space, best first: the organization search, and the site search
 * of the sites module (searchSiteContent, the reader) through `searchSpaces` (site-search.ts).
 */
export async function searchSpacesGrouped(
  ctx: Context,
  spaces: { id: string; title: string }[],
  q: string,
  args: PageArgs,
  excluded?: ExcludedPages,
): Promise<ListPage<SearchSpaceResult>> {
  if (!spaces.length) return paginateArray(args, []);
  const ids = spaces.map((s) => s.id);
  const titles = new Map(spaces.map((s) => [s.id, s.title]));
  return searchPage(
    ctx,
    args,
    (skip, take) => Prisma.sql`
      WITH ${hitStage(ids, q, excluded)},
      bestBySpace AS (SELECT "spaceId", max(score) AS best FROM scored GROUP BY "spaceId" ORDER BY best DESC, "spaceId" LIMIT ${take} OFFSET ${skip}),
      chosen AS (
        SELECT "spaceId", "pageId", score, position, best FROM (
          SELECT p.*, b.best, row_number() OVER (PARTITION BY p."spaceId" ORDER BY p.score DESC, p."pageId") AS pn
          FROM scored p JOIN bestBySpace b ON b."spaceId" = p."spaceId"
        ) x WHERE pn <= ${MAX_PAGES_PER_SPACE}
      ),
      ${resultStage(Prisma.sql`count(DISTINCT "spaceId")`, Prisma.sql`r.best DESC, r."spaceId", r.score DESC, r."pageId"`)}`,
    (rows) => {
      const out: SearchSpaceResult[] = [];
      // Pages come best first within a space: its score is its first page's.
      for (const { spaceId, page } of pageResults(ctx, rows)) {
        if (out.at(-1)?.id !== spaceId) out.push({ id: spaceId, title: titles.get(spaceId) ?? '', score: page.score, pages: [] });
        out.at(-1)!.pages.push(page);
      }
      return out;
    },
  );
}
