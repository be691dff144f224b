import type { Context } from '../../context.js';
import { requireOrg, requireSpace, visibleContentFilter } from '../../auth/permissions.js';
import { badRequest } from '../../errors.js';
import { Prisma } from '../../generated/prisma/client.js';
import { paginate, paginateArray, type ListPage, type PageArgs } from '../../pagination.js';
import * as check from '../../validate.js';
import { INTRO_SECTION, loadContent, requireRevision } from '../content/index.js';

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
function readQuery(query: string | null | undefined): string {
  if (query == null || !query.trim()) throw badRequest('query', 'is required');
  return check.text('query', query, { max: MAX_QUERY_CHARS });
}

interface Row {
  spaceId: string;
  pageId: string;
  pageTitle: string;
  pagePath: string;
  ancestors: string[];
  pageScore: number;
  position: number;
  sectionId: string;
  sectionScore: number;
  title: string;
  own: boolean;
  snippet: string;
}

const tsquery = (query: string) => Prisma.sql`websearch_to_tsquery('simple', ${query})`;

/**
 * The section stage shared by both searches: from `chosen` (spaceId, pageId, score, rows of the
 * result window, with an `ord` giving the result order), the best sections of each page with
 * their snippets. Every page keeps at least one row (for its title, path and ancestors), flagged
 * `own = false` when none of its sections holds a query word itself.
 */
const sectionStage = (order: Prisma.Sql) => Prisma.sql`
  ranked AS (
    SELECT c.*, h."sectionId", h.rank,
      (tsvector_to_array(to_tsvector('simple', s.title || ' ' || s.body)) && (SELECT words FROM q)) AS own,
      s.title, s.body, s."pageTitle", s."pagePath", s.ancestors
    FROM chosen c
    JOIN hits h ON h."spaceId" = c."spaceId" AND h."pageId" = c."pageId"
    JOIN "SearchSection" s ON s."spaceId" = h."spaceId" AND s."pageId" = h."pageId" AND s."sectionId" = h."sectionId"
  ),
  numbered AS (
    SELECT r.*, row_number() OVER (PARTITION BY r."spaceId", r."pageId" ORDER BY r.own DESC, r.rank DESC, r."sectionId") AS n FROM ranked r
  )
  SELECT n."spaceId", n."pageId", n."pageTitle", n."pagePath", n.ancestors, n.score AS "pageScore", n.position,
    n."sectionId", n.rank AS "sectionScore", n.title, n.own,
    CASE WHEN NOT n.own THEN ''
      WHEN length(n.body) <= ${SHORT_BODY_CHARS} THEN n.body
      ELSE ts_headline('simple', n.body, (SELECT tsq FROM q), ${HEADLINE_OPTIONS}) END AS snippet
  FROM numbered n
  WHERE n.n <= ${MAX_SECTIONS} AND (n.own OR n.n = 1)
  ORDER BY ${order}, n.n`;

/** Rows matching the query in the given spaces, and each page's score. */
const hitStage = (spaceIds: string[], query: string) => Prisma.sql`
  q AS (
    SELECT tsq, tsvector_to_array(to_tsvector('simple', tsq::text)) AS words FROM (SELECT ${tsquery(query)} AS tsq) x
  ),
  hits AS (
    SELECT s."spaceId", s."pageId", s."sectionId", s."pageTitle", ts_rank(s.search, q.tsq) AS rank
    FROM "SearchSection" s, q
    WHERE s."spaceId" = ANY(${spaceIds}::text[]) AND s.search @@ q.tsq
  ),
  scored AS (
    SELECT x.*, (row_number() OVER (ORDER BY x.score DESC, x."pageId", x."spaceId"))::int AS position FROM (
      SELECT h."spaceId", h."pageId",
        max(h.rank) + CASE WHEN to_tsvector('simple', min(h."pageTitle")) @@ (SELECT tsq FROM q) THEN 1 ELSE 0 END AS score
      FROM hits h GROUP BY h."spaceId", h."pageId"
    ) x
  )`;

function pageResults(ctx: Context, rows: Row[], descriptions: Map<string, string>): { spaceId: string; page: SearchPageResult }[] {
  const out: { spaceId: string; page: SearchPageResult }[] = [];
  let current: SearchPageResult | undefined;
  for (const row of rows) {
    if (current?.id !== row.pageId || out.at(-1)!.spaceId !== row.spaceId) {
      const urls = ctx.urls.page(row.spaceId, row.pagePath);
      current = {
        id: row.pageId,
        title: row.pageTitle,
        description: descriptions.get(`${row.spaceId} ${row.pageId}`) ?? '',
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
 * The result pages' descriptions (`spaceId pageId` → text), read from each space's main revision
 * (the one the index holds): the index keeps no description, and only a window of pages needs one.
 */
async function pageDescriptions(ctx: Context, rows: Row[], revisionOf: Map<string, string>): Promise<Map<string, string>> {
  const pagesBySpace = new Map<string, Set<string>>();
  for (const row of rows) {
    if (!pagesBySpace.has(row.spaceId)) pagesBySpace.set(row.spaceId, new Set());
    pagesBySpace.get(row.spaceId)!.add(row.pageId);
  }
  const out = new Map<string, string>();
  await Promise.all(
    [...pagesBySpace].map(async ([spaceId, pageIds]) => {
      const revision = await requireRevision(ctx, spaceId, revisionOf.get(spaceId)!);
      const entries = await (await loadContent(ctx, revision.manifest)).pages([...pageIds]);
      for (const [pageId, entry] of entries) out.set(`${spaceId} ${pageId}`, entry.description ?? '');
    }),
  );
  return out;
}

/**
 * The two statements of a space search (the total and one window of results), exported so the
 * bench can time the same SQL without the API around it.
 */
export const spaceSearchSql = {
  count: (spaceId: string, query: string) => Prisma.sql`
    SELECT count(DISTINCT "pageId")::int AS n FROM "SearchSection" WHERE "spaceId" = ${spaceId} AND search @@ ${tsquery(query)}`,
  window: (spaceId: string, query: string, skip: number, take: number) => Prisma.sql`
    WITH ${hitStage([spaceId], query)},
    chosen AS (SELECT "spaceId", "pageId", score, position FROM scored ORDER BY position LIMIT ${take} OFFSET ${skip}),
    ${sectionStage(Prisma.sql`n.score DESC, n."pageId"`)}`,
};

/** Pages of one space matching `query`, best first. */
export async function searchSpace(ctx: Context, spaceId: string, query: string, args: PageArgs): Promise<ListPage<SearchPageResult>> {
  const space = await requireSpace(ctx, spaceId, 'read');
  const q = readQuery(query);
  return paginate(
    args,
    async () => (await ctx.prisma.$queryRaw<{ n: number }[]>(spaceSearchSql.count(space.id, q)))[0]?.n ?? 0,
    async ({ skip, take }) => {
      const rows = await ctx.prisma.$queryRaw<Row[]>(spaceSearchSql.window(space.id, q, skip, take));
      return pageResults(ctx, rows, await pageDescriptions(ctx, rows, new Map([[space.id, space.revisionId]]))).map((r) => r.page);
    },
  );
}

/** Spaces of an organization (those the caller can see) with pages matching `query`, best first. */
export async function searchOrganization(ctx: Context, organizationId: string, query: string, args: PageArgs): Promise<ListPage<SearchSpaceResult>> {
  await requireOrg(ctx, organizationId);
  const q = readQuery(query);
  const filter = await visibleContentFilter(ctx, organizationId);
  const spaces = await ctx.prisma.space.findMany({ where: { AND: [{ organizationId, deletedAt: null }, filter.spaces] }, select: { id: true, title: true, revisionId: true } });
  if (!spaces.length) return paginateArray(args, []);
  const ids = spaces.map((s) => s.id);
  const titles = new Map(spaces.map((s) => [s.id, s.title]));
  return paginate(
    args,
    async () => {
      const [row] = await ctx.prisma.$queryRaw<{ n: number }[]>`
        SELECT count(DISTINCT "spaceId")::int AS n FROM "SearchSection" WHERE "spaceId" = ANY(${ids}::text[]) AND search @@ ${tsquery(q)}`;
      return row?.n ?? 0;
    },
    async ({ skip, take }) => {
      const rows = await ctx.prisma.$queryRaw<Row[]>`
        WITH ${hitStage(ids, q)},
        bestBySpace AS (SELECT "spaceId", max(score) AS best FROM scored GROUP BY "spaceId" ORDER BY best DESC, "spaceId" LIMIT ${take} OFFSET ${skip}),
        chosen AS (
          SELECT "spaceId", "pageId", score, position, best FROM (
            SELECT p.*, b.best, row_number() OVER (PARTITION BY p."spaceId" ORDER BY p.score DESC, p."pageId") AS pn
            FROM scored p JOIN bestBySpace b ON b."spaceId" = p."spaceId"
          ) x WHERE pn <= ${MAX_PAGES_PER_SPACE}
        ),
        ${sectionStage(Prisma.sql`n.best DESC, n."spaceId", n.score DESC, n."pageId"`)}`;
      const out: SearchSpaceResult[] = [];
      const descriptions = await pageDescriptions(ctx, rows, new Map(spaces.map((s) => [s.id, s.revisionId])));
      // Pages come best first within a space: its score is its first page's.
      for (const { spaceId, page } of pageResults(ctx, rows, descriptions)) {
        if (out.at(-1)?.id !== spaceId) out.push({ id: spaceId, title: titles.get(spaceId) ?? '', score: page.score, pages: [] });
        out.at(-1)!.pages.push(page);
      }
      return out;
    },
  );
}
