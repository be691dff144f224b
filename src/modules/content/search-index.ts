import { createHash } from 'node:crypto';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { derivedBody, OFFLOAD_CHARS, parseMarkdownOffLoop, type MarkdownSection } from '../../document/index.js';
import { Content, EMPTY_MANIFEST, getBodies, getObjects, type Manifest, type PageEntry } from './store.js';

/**
 * The search index of each space's main content: one `SearchSection` row per section of each page
 * (the text before the first heading, then one per heading), carrying what a result shows without
 * reading the content again (page title, path, ancestors' titles). The row's generated `search`
 * tsvector ('simple' configuration: no stemming, no stop words, any language) covers the page
 * title, the section title and the section text; a GIN index serves `@@`.
 *
 * Only main content is indexed: change-request revisions are not searchable until merged.
 *
 * What is indexed: document pages (their sections; a page without text gets one empty section, so
 * its title is still found) and group pages (one empty section). Link pages point elsewhere and
 * are not indexed. Hidden pages are indexed: this API serves members, who see them in the tree.
 */

type Tx = Prisma.TransactionClient;

/** Section ids are heading anchors; the text before the first heading has none. */
export const INTRO_SECTION = '';

/**
 * Longest section text kept in the index, in characters. PostgreSQL refuses a tsvector over 1 MB;
 * a section this long is far past what a search result shows.
 */
const MAX_SECTION_CHARS = 100_000;
/** A heading this long is kept in the index shortened. */
const MAX_HEADING_CHARS = 1000;
const MAX_ANCHOR_CHARS = 200;
/** Rows per INSERT statement (sent as one JSON parameter). */
const INSERT_CHUNK = 2000;
/** Bodies per read when rebuilding (keeps the IN list of one query bounded). */
const BODY_CHUNK = 2000;

interface SectionRow {
  pageId: string;
  sectionId: string;
  pageTitle: string;
  pagePath: string;
  title: string;
  body: string;
  ancestors: string[];
}

interface Placement {
  path: string;
  ancestors: string[];
}

// A page marked noIndex is left out of search (the official field: "not indexable in the search and ask features").
const indexable = (entry: PageEntry | undefined): entry is PageEntry =>
  !!entry && (entry.type === 'document' || entry.type === 'group') && !entry.noIndex;

// PostgreSQL text cannot hold NUL.
const clean = (text: string) => text.replace(/\u0000/g, '');

/** The index rows of one page: its sections, or one empty section when it has none. */
function rowsOf(
  entry: PageEntry,
  place: Placement,
  markdown: string | undefined,
  parsedLarge: Map<string, MarkdownSection[]>,
): SectionRow[] {
  let sections: { id: string; title: string; body: string }[] = [];
  if (entry.type === 'document' && markdown) {
    try {
      sections = parsedLarge.get(markdown) ?? derivedBody(markdown).sections;
    } catch {
      // A body that no longer parses (it was accepted when written) is indexed as plain text.
      sections = [{ id: INTRO_SECTION, title: '', body: markdown }];
    }
  }
  if (!sections.length) sections = [{ id: INTRO_SECTION, title: '', body: '' }];
  return sections.map((s) => ({
    pageId: entry.id,
    sectionId: sectionKey(s.id),
    pageTitle: clean(entry.title),
    pagePath: clean(place.path),
    title: clean(truncate(s.title, MAX_HEADING_CHARS)),
    body: clean(truncate(s.body, MAX_SECTION_CHARS)),
    ancestors: place.ancestors.map(clean),
  }));
}

const truncate = (text: string, max: number) => (text.length > max ? [...text].slice(0, max).join('') : text);

/**
 * The section id is part of the row's primary key, whose entries PostgreSQL caps at about 2.7 kB:
 * the anchor of an absurdly long heading is shortened (a hash keeps it unique) rather than failing
 * the merge that indexes it.
 */
function sectionKey(anchor: string): string {
  if (anchor.length <= MAX_ANCHOR_CHARS) return anchor;
  return `${[...anchor].slice(0, MAX_ANCHOR_CHARS - 9).join('')}-${createHash('sha256').update(anchor).digest('hex').slice(0, 8)}`;
}

/** Paths and ancestor titles of `ids` in `content`, resolved by walking up: one query per tree level at most (shards are cached). */
async function placements(content: Content, pageIds: Iterable<string>): Promise<Map<string, Placement>> {
  const ids = [...new Set(pageIds)];
  const known = new Map<string, PageEntry>();
  let frontier = ids;
  while (frontier.length) {
    const found = await content.pages(frontier.filter((id) => !known.has(id)));
    for (const [id, entry] of found) known.set(id, entry);
    frontier = [...new Set([...found.values()].map((e) => e.parent).filter((p): p is string => !!p && !known.has(p)))];
  }
  const memo = new Map<string, Placement>();
  const place = (id: string, seen: Set<string>): Placement => {
    const cached = memo.get(id);
    if (cached) return cached;
    const entry = known.get(id)!;
    // As in buildTree: a page whose parent is missing sits at the top level.
    const parent = entry.parent && !seen.has(entry.parent) ? known.get(entry.parent) : undefined;
    const result: Placement = parent
      ? (() => {
          const p = place(parent.id, new Set(seen).add(id));
          return { path: `${p.path}/${entry.slug}`, ancestors: [...p.ancestors, parent.title] };
        })()
      : { path: entry.slug, ancestors: [] };
    memo.set(id, result);
    return result;
  };
  const out = new Map<string, Placement>();
  for (const id of ids) if (known.has(id)) out.set(id, place(id, new Set()));
  return out;
}

async function insertRows(tx: Tx, spaceId: string, revisionId: string, rows: SectionRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const chunk = JSON.stringify(rows.slice(i, i + INSERT_CHUNK));
    await tx.$executeRaw`
      INSERT INTO "SearchSection" ("spaceId", "pageId", "sectionId", "revisionId", "pageTitle", "pagePath", "title", "body", "ancestors")
      SELECT ${spaceId}, r."pageId", r."sectionId", ${revisionId}, r."pageTitle", r."pagePath", r.title, r.body, coalesce(r.ancestors, '{}')
      FROM jsonb_to_recordset(${chunk}::jsonb) AS r("pageId" text, "sectionId" text, "pageTitle" text, "pagePath" text, title text, body text, ancestors text[])`;
  }
}

/** Parses and writes the rows of `entries` (their old rows must be gone). */
async function indexPages(tx: Tx, spaceId: string, revisionId: string, content: Content, entries: PageEntry[]): Promise<void> {
  if (!entries.length) return;
  const places = await placements(
    content,
    entries.map((e) => e.id),
  );
  const rows: SectionRow[] = [];
  for (let i = 0; i < entries.length; i += BODY_CHUNK) {
    const batch = entries.slice(i, i + BODY_CHUNK);
    const bodies = await getBodies(
      tx,
      batch.map((e) => e.body).filter((b): b is string => !!b),
    );
    // Large bodies are parsed off the event loop first (src/document/markdown-offload.ts); one that fails is
    // indexed as plain text, as rowsOf does.
    const parsedLarge = new Map<string, MarkdownSection[]>();
    await Promise.all(
      [...bodies.values()]
        .filter((markdown) => markdown.length > OFFLOAD_CHARS)
        .map((markdown) =>
          parseMarkdownOffLoop(markdown, ['sections']).then(
            (p) => void parsedLarge.set(markdown, p.sections),
            () => void parsedLarge.set(markdown, [{ id: INTRO_SECTION, title: '', body: markdown }]),
          ),
        ),
    );
    for (const entry of batch)
      rows.push(...rowsOf(entry, places.get(entry.id)!, entry.body ? bodies.get(entry.body) : undefined, parsedLarge));
    if (rows.length >= INSERT_CHUNK) await insertRows(tx, spaceId, revisionId, rows.splice(0));
  }
  await insertRows(tx, spaceId, revisionId, rows);
}

async function deletePages(tx: Tx, spaceId: string, pageIds: string[]): Promise<void> {
  if (pageIds.length) await tx.$executeRaw`DELETE FROM "SearchSection" WHERE "spaceId" = ${spaceId} AND "pageId" = ANY(${pageIds}::text[])`;
}

async function contentsOf(tx: Tx, revisionIds: string[]): Promise<Content[]> {
  const revisions = await tx.revision.findMany({ where: { id: { in: revisionIds } }, select: { id: true, manifest: true } });
  const manifestOf = new Map(revisions.map((r) => [r.id, r.manifest]));
  const manifests = await getObjects<Manifest>(tx, [...manifestOf.values()].filter(Boolean));
  return revisionIds.map((id) => {
    if (!manifestOf.has(id)) throw new Error(`search index: missing revision ${id}`);
    const hash = manifestOf.get(id)!;
    if (hash && !manifests.has(hash)) throw new Error(`search index: missing manifest ${hash}`);
    return new Content(tx, hash ? manifests.get(hash)! : EMPTY_MANIFEST);
  });
}

/**
 * Keeps the search index of a space's main content current; called inside the transaction that
 * moves main from revision `from` to `to`. Its cost follows the size of the change:
 *
 * - Only shards whose hashes differ are read (from both contents), and only their entries compared.
 * - A new page, or one whose body or type changed, is parsed and its rows replaced.
 * - A page whose title, slug or parent changed keeps its rows; their page title, path and
 *   ancestors are rewritten. Its descendants' paths and ancestors change too: they are found in
 *   the index itself (rows whose path starts with the page's old path — one query over this
 *   space's rows, no content read) and rewritten the same way, without parsing their bodies. A
 *   rename high in the tree thus rewrites every row below it, which is the size of what changed.
 * - Deleted pages (and pages that became links) lose their rows.
 */
export async function reindexSpace(tx: Tx, spaceId: string, from: string, to: string): Promise<void> {
  if (from === to) return;
  const [before, after] = await contentsOf(tx, [from, to]);
  const shards = after!.changedShards(before!);
  if (!shards.length) return;
  await Promise.all([before!.loadShards(shards), after!.loadShards(shards)]);

  const reparse: PageEntry[] = [];
  /** Pages whose rows stay but whose title/path/ancestors must be rewritten. */
  const replace = new Set<string>();
  /** Pages whose old path may prefix other pages' paths (moved, renamed, deleted). */
  const structural = new Set<string>();
  const removed = new Set<string>();
  for (const index of shards) {
    const [old, next] = await Promise.all([before!.shard(index), after!.shard(index)]);
    for (const id of new Set([...Object.keys(old), ...Object.keys(next)])) {
      const a = old[id];
      const b = next[id];
      const moved = !!a && !!b && (a.title !== b.title || a.slug !== b.slug || (a.parent ?? null) !== (b.parent ?? null));
      if (a && (!b || moved)) structural.add(id);
      if (!indexable(b)) {
        if (indexable(a)) removed.add(id);
      } else if (!indexable(a) || a.type !== b.type || a.body !== b.body) reparse.push(b);
      else if (moved) replace.add(id);
    }
  }

  if (structural.size) {
    // Descendants, from the index: rows below the old path of each moved/renamed/deleted page.
    const below = await tx.$queryRaw<{ pageId: string }[]>`
      WITH moved AS (
        SELECT DISTINCT "pagePath" FROM "SearchSection" WHERE "spaceId" = ${spaceId} AND "pageId" = ANY(${[...structural]}::text[])
      )
      SELECT DISTINCT s."pageId" FROM "SearchSection" s JOIN moved m
        ON s."pagePath" LIKE replace(replace(replace(m."pagePath", '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '/%'
      WHERE s."spaceId" = ${spaceId}`;
    const reparsed = new Set(reparse.map((e) => e.id));
    for (const { pageId } of below) if (!removed.has(pageId) && !reparsed.has(pageId)) replace.add(pageId);
  }

  await deletePages(tx, spaceId, [...removed, ...reparse.map((e) => e.id)]);
  await indexPages(tx, spaceId, to, after!, reparse);

  if (replace.size) {
    const entries = await after!.pages([...replace]);
    const places = await placements(after!, entries.keys());
    const updates = [...entries.values()].filter(indexable).map((e) => ({ pageId: e.id, pageTitle: clean(e.title), ...places.get(e.id)! }));
    const touched = await tx.$queryRaw<{ pageId: string }[]>`
      WITH u AS (
        UPDATE "SearchSection" s
        SET "pageTitle" = r."pageTitle", "pagePath" = r.path, "ancestors" = coalesce(r.ancestors, '{}'), "revisionId" = ${to}
        FROM jsonb_to_recordset(${JSON.stringify(updates)}::jsonb) AS r("pageId" text, "pageTitle" text, path text, ancestors text[])
        WHERE s."spaceId" = ${spaceId} AND s."pageId" = r."pageId"
        RETURNING s."pageId"
      )
      SELECT DISTINCT "pageId" FROM u`;
    // A page that had no rows (never indexed) is indexed now rather than left out.
    const done = new Set(touched.map((t) => t.pageId));
    await indexPages(
      tx,
      spaceId,
      to,
      after!,
      [...entries.values()].filter((e) => indexable(e) && !done.has(e.id)),
    );
  }
}

/** Rebuilds a space's whole index from one revision (e.g. after a bulk import, or to repair it). */
export async function rebuildSearchIndex(tx: Tx, spaceId: string, revisionId: string): Promise<void> {
  const [content] = await contentsOf(tx, [revisionId]);
  await tx.$executeRaw`DELETE FROM "SearchSection" WHERE "spaceId" = ${spaceId}`;
  await indexPages(tx, spaceId, revisionId, content!, (await content!.allPages()).filter(indexable));
}

/**
 * Gives a new space the index of another whose main content it shares (a duplicate): rows are
 * copied, not recomputed. `sourceRevisionId` is the revision the source's index reflects; when the
 * new space's revision differs from it, the difference is then applied as for any move of main.
 */
export async function copySearchIndex(
  tx: Tx,
  sourceSpaceId: string,
  sourceRevisionId: string,
  spaceId: string,
  revisionId: string,
): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO "SearchSection" ("spaceId", "pageId", "sectionId", "revisionId", "pageTitle", "pagePath", "title", "body", "ancestors")
    SELECT ${spaceId}, "pageId", "sectionId", ${revisionId}, "pageTitle", "pagePath", "title", "body", "ancestors"
    FROM "SearchSection" WHERE "spaceId" = ${sourceSpaceId}`;
  await reindexSpace(tx, spaceId, sourceRevisionId, revisionId);
}

/** The statement removing the index of spaces that are gone for good (for a batch transaction). */
export function dropSearchIndexStatement(db: PrismaClient, spaceIds: string[]) {
  return db.$executeRaw`DELETE FROM "SearchSection" WHERE "spaceId" = ANY(${spaceIds}::text[])`;
}
