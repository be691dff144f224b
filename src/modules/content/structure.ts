import type { Prisma } from '../../generated/prisma/client.js';
import { byPosition } from '../../positions.js';
import { Content, ContentWriter, type PageEntry } from './store.js';
import { uniqueSlug } from './tree.js';

/**
 * The one merge of structure. Every merge (a change request into main, main into a change request,
 * Git into main) merges pages entry by entry first (merge.ts); this makes the result a tree again
 * by rules a person can predict, so no page is ever lost or unreachable:
 *
 * - **Placed under a deleted page**: a page one side added or moved under a page the other side
 *   deleted stays. It takes the deleted page's former place: under the nearest of its ancestors
 *   still there (the top level when none is), at its position.
 * - **Moves that close a cycle** (A into B on one side, B into A on the other, or a longer ring):
 *   main's placement wins. The other side's moves of the pages in the ring are undone: each stays
 *   where main has it. Main alone is a tree, so the ring always opens.
 * - **Slugs stay unique among siblings**: where two pages meet under one parent with one slug (two
 *   inserts with the same title, a move next to a namesake), main's page keeps its slug and the
 *   other takes the next free one (`slug-1`, `slug-2`…).
 *
 * Only pages placed anew (parent changed from the base, or added) can make a cycle or an orphan,
 * and only pages placed or renamed differently from main can clash, so the work follows the size of
 * the change, not of the space.
 */

type Db = Prisma.TransactionClient;

/** Repairs the tree of a merged content (rules above); returns its manifest (the same when nothing needed repair). */
export async function settleStructure(db: Db, manifest: string, base: Content, main: Content): Promise<string> {
  const merged = await Content.load(db, manifest);
  const writer = new ContentWriter(merged);
  const placed = await placedAnew(merged, base);
  if (placed.length && (await reattach(writer, placed, base, main))) manifest = await writer.write(db);
  return uniqueSlugs(db, manifest, main);
}

/** Pages whose parent differs from the base's (moved or added under a page). */
async function placedAnew(merged: Content, base: Content): Promise<string[]> {
  const shards = merged.changedShards(base);
  await Promise.all([merged.loadShards(shards), base.loadShards(shards)]);
  const ids: string[] = [];
  for (const index of shards) {
    const [after, before] = [await merged.shard(index), await base.shard(index)];
    for (const entry of Object.values(after)) if (entry.parent && before[entry.id]?.parent !== entry.parent) ids.push(entry.id);
  }
  return ids;
}

/**
 * Gives orphans their deleted parent's former place and opens rings in main's favour, until every
 * placed page reaches the top level. Each round changes at least one page towards main's tree or
 * the top level; a page still not settled after a few rounds goes to the top level.
 */
async function reattach(writer: ContentWriter, placed: string[], base: Content, main: Content): Promise<boolean> {
  let changed = false;
  for (let round = 0; round < 8; round++) {
    let repaired = false;
    for (const id of placed) {
      const page = await writer.get(id);
      if (!page?.parent) continue;
      const trouble = await ancestry(writer, page);
      if (trouble.kind === 'ok') continue;
      if (trouble.kind === 'orphan') await writer.put({ ...trouble.page, ...(await formerPlace(writer, base, trouble.page.parent!)) });
      else await openRing(writer, trouble.ring, main, round === 7);
      repaired = changed = true;
    }
    if (!repaired) return changed;
  }
  for (const id of placed) {
    const page = await writer.get(id);
    if (page?.parent && (await ancestry(writer, page)).kind !== 'ok') await writer.put({ ...page, parent: null });
  }
  return true;
}

type Ancestry = { kind: 'ok' } | { kind: 'orphan'; page: PageEntry } | { kind: 'ring'; ring: PageEntry[] };

/** Walks up from a page: it reaches the top level, or meets a missing parent, or a ring. */
async function ancestry(writer: ContentWriter, page: PageEntry): Promise<Ancestry> {
  const path: PageEntry[] = [page];
  const seen = new Set([page.id]);
  let current = page;
  while (current.parent) {
    const parent = await writer.get(current.parent);
    if (!parent) return { kind: 'orphan', page: current };
    if (seen.has(parent.id)) return { kind: 'ring', ring: path.slice(path.findIndex((p) => p.id === parent.id)) };
    seen.add(parent.id);
    path.push(parent);
    current = parent;
  }
  return { kind: 'ok' };
}

/** Where a deleted page was: under its nearest ancestor still there (or the top level), at its position. */
async function formerPlace(writer: ContentWriter, base: Content, deletedId: string): Promise<{ parent: string | null; position: number }> {
  let former = await base.page(deletedId);
  if (!former) return { parent: null, position: Number.MAX_SAFE_INTEGER };
  const seen = new Set<string>();
  while (former.parent && !(await writer.get(former.parent)) && !seen.has(former.parent)) {
    seen.add(former.parent);
    const up = await base.page(former.parent);
    if (!up) return { parent: null, position: former.position };
    former = up;
  }
  const parent = former.parent && (await writer.get(former.parent)) ? former.parent : null;
  return { parent, position: former.position };
}

/** Undoes the moves in a ring that main does not have; `last`: the first page goes to the top level if none can be undone. */
async function openRing(writer: ContentWriter, ring: PageEntry[], main: Content, last: boolean) {
  const inMain = await main.pages(ring.map((p) => p.id));
  let undone = false;
  for (const page of ring) {
    const mainPage = inMain.get(page.id);
    if (mainPage && (mainPage.parent !== page.parent || mainPage.position !== page.position)) {
      await writer.put({ ...page, parent: mainPage.parent, position: mainPage.position });
      undone = true;
    }
  }
  if (!undone || last) await writer.put({ ...ring[0]!, parent: null });
}

/** Main's siblings have unique slugs: a clash needs a page placed or named differently from main. */
async function uniqueSlugs(db: Db, manifest: string, main: Content): Promise<string> {
  const merged = await Content.load(db, manifest);
  const shards = merged.changedShards(main);
  await Promise.all([merged.loadShards(shards), main.loadShards(shards)]);
  let placed = false;
  for (const index of shards) {
    const [after, before] = [await merged.shard(index), await main.shard(index)];
    placed ||= Object.values(after).some((e) => before[e.id]?.slug !== e.slug || (before[e.id]?.parent ?? null) !== (e.parent ?? null));
  }
  if (!placed) return manifest;
  const bySiblings = new Map<string, PageEntry[]>();
  for (const page of await merged.allPages()) {
    const key = `${page.parent ?? ''}\0${page.slug}`;
    bySiblings.set(key, [...(bySiblings.get(key) ?? []), page]);
  }
  const clashes = [...bySiblings.values()].filter((pages) => pages.length > 1);
  if (!clashes.length) return manifest;
  const writer = new ContentWriter(merged);
  const mainSlugs = await main.pages(clashes.flat().map((p) => p.id));
  for (const pages of clashes) {
    // The page main knows under this slug first, then by id (deterministic).
    pages.sort(
      (a, b) => Number(mainSlugs.get(b.id)?.slug === b.slug) - Number(mainSlugs.get(a.id)?.slug === a.slug) || (a.id < b.id ? -1 : 1),
    );
    for (const page of pages.slice(1)) {
      const siblings = (await writer.allPages()).filter((p) => p.parent === page.parent);
      await writer.put({ ...page, slug: uniqueSlug(page.slug, siblings, page.id) });
    }
  }
  return writer.write(db);
}

/**
 * Which of `entries` (pages of `after` under the same parent as in `before`, at another position)
 * really changed their order among the siblings both contents share. Positions are renumbered when
 * inserts run out of room between two pages; a page renumbered keeps its order and is not moved.
 * Siblings whose position did not change are the anchors: a page that passed one of them moved.
 * Pages between the same two anchors before and after moved only if their order among themselves
 * changed, and then only those outside the longest run kept in order (what a person dragged).
 * Reads both trees, so callers ask only when such entries exist.
 */
export async function reallyMoved(before: Content, after: Content, entries: PageEntry[]): Promise<Set<string>> {
  const moved = new Set<string>();
  if (!entries.length) return moved;
  const [beforePages, afterPages] = await Promise.all([before.allPages(), after.allPages()]);
  for (const parent of new Set(entries.map((e) => e.parent))) {
    const was = new Map(beforePages.filter((p) => p.parent === parent).map((p) => [p.id, p]));
    const is = afterPages.filter((p) => p.parent === parent && was.has(p.id));
    const anchors = is.filter((p) => p.position === was.get(p.id)!.position).sort(byPosition);
    const gap = (page: PageEntry) => {
      let lo = 0;
      for (let hi = anchors.length; lo < hi; ) {
        const mid = (lo + hi) >> 1;
        if (byPosition(anchors[mid]!, page) < 0) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    const gaps = new Map<number, PageEntry[]>();
    for (const page of is) {
      if (page.position === was.get(page.id)!.position) continue;
      const g = gap(page);
      if (g !== gap(was.get(page.id)!)) moved.add(page.id);
      else gaps.set(g, [...(gaps.get(g) ?? []), page]);
    }
    for (const pages of gaps.values()) {
      const rank = new Map(
        pages
          .map((p) => was.get(p.id)!)
          .sort(byPosition)
          .map((p, i) => [p.id, i]),
      );
      const kept = longestIncreasing(
        [...pages].sort(byPosition).map((p) => p.id),
        (id) => rank.get(id)!,
      );
      for (const page of pages) if (!kept.has(page.id)) moved.add(page.id);
    }
  }
  for (const id of moved) if (!entries.some((e) => e.id === id)) moved.delete(id);
  return moved;
}

/** The longest subsequence of `items` whose keys increase (patience sorting, O(n log n)). */
function longestIncreasing(items: string[], key: (item: string) => number): Set<string> {
  const tails: number[] = [];
  const previous: number[] = [];
  for (let i = 0; i < items.length; i++) {
    const k = key(items[i]!);
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (key(items[tails[mid]!]!) < k) lo = mid + 1;
      else hi = mid;
    }
    previous[i] = lo > 0 ? tails[lo - 1]! : -1;
    tails[lo] = i;
  }
  const kept = new Set<string>();
  for (let i = tails.length ? tails[tails.length - 1]! : -1; i >= 0; i = previous[i]!) kept.add(items[i]!);
  return kept;
}
