import { merge as diff3 } from 'node-diff3';
import type { Prisma } from '../../generated/prisma/client.js';
import { parseMarkdownOffLoop } from '../../document/index.js';
import { mergeReusableContents } from './reusable-contents.js';
import {
  type Content,
  getBodies,
  putBodies,
  putObjects,
  sameJson,
  SHARDS,
  type FileEntry,
  type Manifest,
  type PageEntry,
} from './store.js';
import { reallyMoved, settleStructure } from './structure.js';

/**
 * Three-way merge of two contents against their common base, page by page. Shards whose hash one
 * side left unchanged are taken whole from the other, so the work follows the size of the changes,
 * not of the space. Within a page, structure (parent, position), each field and the body merge
 * independently; a body edited on both sides merges line by line (diff3). The tree is then settled
 * by the one merge of structure (structure.ts). The rules, as docs/using-the-api.md states them:
 * - a change that changes nothing (a write of the same values) is no change;
 * - positions renumbered to make room for inserts are no move (the order among siblings decides);
 * - one side deletes a page, the other changes it (fields, body, place): conflict;
 * - both sides change the same field, or move the same page, differently: conflict;
 * - body edits on both sides merge line by line; the same lines edited differently: conflict;
 * - pages added on both sides are all kept (slugs made unique, main's first);
 * - a page placed under a page the other side deleted, and moves closing a cycle: structure.ts.
 * A conflict is reported per page and nothing is written.
 */
export interface MergeConflict {
  page: string;
  title: string;
  reason: string;
  /** The page's body was edited on both sides in the same lines: a resolution (MergeOptions) settles it. */
  body?: true;
}

/** `resolved`: the pages whose conflicting bodies took their resolution (MergeOptions.resolutions). */
export type MergeResult = ({ manifest: string; conflicts: [] } | { manifest: null; conflicts: MergeConflict[] }) & { resolved: string[] };

type Db = Prisma.TransactionClient;
type Shard = Record<string, PageEntry>;

const same = (a: unknown, b: unknown) => sameJson(a ?? null, b ?? null);

const SCALAR_FIELDS = [
  'type',
  'title',
  'slug',
  'emoji',
  'icon',
  'description',
  'hidden',
  'noIndex',
  'noRobotsIndex',
  'condition',
  'href',
  'computed',
] as const;

function merge3<T>(base: T, ours: T, theirs: T): { value: T } | { conflict: true } {
  if (same(ours, theirs)) return { value: ours };
  if (same(ours, base)) return { value: theirs };
  if (same(theirs, base)) return { value: ours };
  return { conflict: true };
}

/** Which side is main: its placement wins where moves on both sides would close a cycle, its slugs where two pages clash. */
export interface MergeOptions {
  main: 'ours' | 'theirs';
  /** Markdown chosen by a person for pages whose bodies conflict (page id → body); other conflicts stay conflicts. */
  resolutions?: ReadonlyMap<string, string>;
}

/** Entries equal but for `updatedAt` (a write that changed nothing is no change). */
const sameEntry = (a: PageEntry | undefined, b: PageEntry | undefined) =>
  a && b ? same({ ...a, updatedAt: '' }, { ...b, updatedAt: '' }) : a === b;

function mergeWhole(
  be: PageEntry | undefined,
  oe: PageEntry | undefined,
  te: PageEntry | undefined,
): { value: PageEntry | undefined } | { conflict: true } {
  if (sameEntry(oe, te)) return { value: oe && te && te.updatedAt > oe.updatedAt ? te : oe };
  if (sameEntry(oe, be)) return { value: te };
  if (sameEntry(te, be)) return { value: oe };
  return { conflict: true };
}

/** Only the position changed, under the same parent: a reorder, or a renumbering that keeps the order. */
const positionOnly = (e: PageEntry | undefined, be: PageEntry | undefined) =>
  !!e && !!be && e.parent === be.parent && e.position !== be.position && sameEntry({ ...e, position: be.position }, be);

type EntryMerge = { entry?: PageEntry; conflicts: MergeConflict[]; body?: { base?: string; ours: string; theirs: string } };

/** One page merged field by field (structure, each scalar field, the body). */
function mergeEntry(id: string, be: PageEntry | undefined, oe: PageEntry | undefined, te: PageEntry | undefined): EntryMerge {
  const whole = mergeWhole(be, oe, te);
  if ('value' in whole) return { entry: whole.value, conflicts: [] };
  const title = (oe ?? te ?? be)!.title;
  if (!oe || !te) return { conflicts: [{ page: id, title, reason: 'deleted on one side and changed on the other' }] };
  const conflicts: MergeConflict[] = [];
  const merged: PageEntry = { ...oe, updatedAt: oe.updatedAt > te.updatedAt ? oe.updatedAt : te.updatedAt };
  const structure = merge3(
    be ? { parent: be.parent, position: be.position } : null,
    { parent: oe.parent, position: oe.position },
    { parent: te.parent, position: te.position },
  );
  if ('conflict' in structure) conflicts.push({ page: id, title, reason: 'moved differently on both sides' });
  else Object.assign(merged, structure.value);
  for (const key of SCALAR_FIELDS) {
    const field = merge3(be?.[key], oe[key], te[key]);
    if ('conflict' in field) conflicts.push({ page: id, title, reason: `${key} changed differently on both sides` });
    else if (field.value === undefined) delete merged[key];
    else (merged as unknown as Record<string, unknown>)[key] = field.value;
  }
  const body = merge3(be?.body, oe.body, te.body);
  if ('value' in body) {
    merged.body = body.value;
    return { entry: merged, conflicts };
  }
  return { entry: merged, conflicts, body: { base: be?.body, ours: oe.body!, theirs: te.body! } };
}

/**
 * The pages of the contested shards, merged. A conflict where one side only changed a page's
 * position under the same parent is looked at again once: when that side did not change the
 * page's order among its siblings (positions renumbered to make room for inserts), its entry
 * counts as unchanged.
 */
async function mergePages(base: Content, ours: Content, theirs: Content, contested: number[]) {
  const pages: { index: number; id: string; be?: PageEntry; oe?: PageEntry; te?: PageEntry }[] = [];
  for (const index of contested) {
    const [b, o, t] = await Promise.all([base.shard(index), ours.shard(index), theirs.shard(index)]);
    for (const id of new Set([...Object.keys(b), ...Object.keys(o), ...Object.keys(t)]))
      pages.push({ index, id, be: b[id], oe: o[id], te: t[id] });
  }
  const merges = pages.map((p) => mergeEntry(p.id, p.be, p.oe, p.te));
  const suspects = pages.filter((p, i) => merges[i]!.conflicts.length && (positionOnly(p.oe, p.be) || positionOnly(p.te, p.be)));
  if (suspects.length) {
    const [oursMoved, theirsMoved] = await Promise.all([
      reallyMoved(
        base,
        ours,
        suspects.filter((p) => positionOnly(p.oe, p.be)).map((p) => p.oe!),
      ),
      reallyMoved(
        base,
        theirs,
        suspects.filter((p) => positionOnly(p.te, p.be)).map((p) => p.te!),
      ),
    ]);
    for (const p of suspects) {
      const oe = positionOnly(p.oe, p.be) && !oursMoved.has(p.id) ? p.be : p.oe;
      const te = positionOnly(p.te, p.be) && !theirsMoved.has(p.id) ? p.be : p.te;
      merges[pages.indexOf(p)] = mergeEntry(p.id, p.be, oe, te);
    }
  }
  return pages.map((p, i) => ({ index: p.index, ...merges[i]! }));
}

export async function mergeContents(db: Db, base: Content, ours: Content, theirs: Content, opts: MergeOptions): Promise<MergeResult> {
  const conflicts: MergeConflict[] = [];
  const shardHashes: (string | null)[] = [];
  const bodyMerges: { entry: PageEntry; base?: string; ours: string; theirs: string }[] = [];
  const resolvedPages: string[] = [];

  const contested: number[] = [];
  for (let i = 0; i < SHARDS; i++) {
    const [b, o, t] = [base.manifest.shards[i], ours.manifest.shards[i], theirs.manifest.shards[i]];
    if (o === t || t === b) shardHashes[i] = o ?? null;
    else if (o === b) shardHashes[i] = t ?? null;
    else contested.push(i);
  }
  await Promise.all([base.loadShards(contested), ours.loadShards(contested), theirs.loadShards(contested)]);

  const mergedShards = new Map<number, Shard>(contested.map((index) => [index, {}]));
  for (const page of await mergePages(base, ours, theirs, contested)) {
    conflicts.push(...page.conflicts);
    if (page.entry) mergedShards.get(page.index)![page.entry.id] = page.entry;
    if (page.entry && page.body) bodyMerges.push({ entry: page.entry, ...page.body });
  }

  if (bodyMerges.length) {
    const bodies = await getBodies(
      db,
      bodyMerges.flatMap((m) => [m.base, m.ours, m.theirs].filter((h): h is string => !!h)),
    );
    const mergedBodies: { entry: PageEntry; markdown: string }[] = [];
    for (const m of bodyMerges) {
      const lines = (hash?: string) => (hash ? (bodies.get(hash) ?? '') : '').split('\n');
      const result = diff3(lines(m.ours), lines(m.base), lines(m.theirs));
      const resolved = result.conflict ? opts.resolutions?.get(m.entry.id) : undefined;
      if (resolved !== undefined) {
        mergedBodies.push({ entry: m.entry, markdown: resolved });
        resolvedPages.push(m.entry.id);
      } else if (result.conflict)
        conflicts.push({
          page: m.entry.id,
          title: m.entry.title,
          reason: 'its body was edited on both sides in the same place',
          body: true,
        });
      else mergedBodies.push({ entry: m.entry, markdown: result.result.join('\n') });
    }
    if (!conflicts.length && mergedBodies.length) {
      const parsed = await Promise.all(mergedBodies.map((b) => parseMarkdownOffLoop(b.markdown, ['links'])));
      const hashes = await putBodies(
        db,
        mergedBodies.map((b, i) => ({ markdown: b.markdown, links: parsed[i]!.links })),
      );
      mergedBodies.forEach((b, i) => (b.entry.body = hashes[i]));
    }
  }

  // Files: added on either side are kept, removed on either side are removed.
  const [bf, of, tf] = await Promise.all([base.files(), ours.files(), theirs.files()]);
  let files = ours.manifest.files;
  if (!same(of, tf) && !same(tf, bf)) {
    if (same(of, bf)) files = theirs.manifest.files;
    else {
      const baseIds = new Set(bf.map((f) => f.id));
      const removed = new Set([...bf.filter((f) => !of.some((x) => x.id === f.id) || !tf.some((x) => x.id === f.id)).map((f) => f.id)]);
      const list: FileEntry[] = [...of, ...tf.filter((f) => !baseIds.has(f.id) && !of.some((x) => x.id === f.id))].filter(
        (f) => !removed.has(f.id),
      );
      files = list.length ? (await putObjects(db, [{ kind: 'files', data: { files: list } }]))[0]! : null;
    }
  }

  const variables: Record<string, string> = {};
  const bv = base.manifest.variables,
    ov = ours.manifest.variables,
    tv = theirs.manifest.variables;
  for (const key of new Set([...Object.keys(bv), ...Object.keys(ov), ...Object.keys(tv)])) {
    const v = merge3(bv[key], ov[key], tv[key]);
    if ('conflict' in v) conflicts.push({ page: '', title: '', reason: `variable ${key} changed differently on both sides` });
    else if (v.value !== undefined) variables[key] = v.value;
  }

  const reusableContents = await mergeReusableContents(db, base, ours, theirs, (title, reason) =>
    conflicts.push({ page: '', title, reason }),
  );
  if (conflicts.length) return { manifest: null, conflicts, resolved: resolvedPages };

  // Each merged shard is sent as its difference from ours (src/modules/content/store.ts putObjects).
  const written = [...mergedShards].map(([index, shard]) => ({ index, shard }));
  const hashes = await putObjects(
    db,
    await Promise.all(written.map(async (s) => ({ kind: 'shard', data: s.shard, from: await ours.storedShard(s.index) }))),
  );
  written.forEach((s, i) => (shardHashes[s.index] = Object.keys(s.shard).length ? hashes[i]! : null));
  const manifest: Manifest = { shards: shardHashes, files, variables, ...(reusableContents ? { reusableContents } : {}) };
  const [hash] = await putObjects(db, [{ kind: 'manifest', data: manifest }]);
  return { manifest: await settleStructure(db, hash!, base, opts.main === 'ours' ? ours : theirs), conflicts: [], resolved: resolvedPages };
}
