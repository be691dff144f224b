import { merge as diff3 } from 'node-diff3';
import type { Prisma } from '../../generated/prisma/client.js';
import { parseMarkdownOffLoop } from '../../document/index.js';
import { mergeReusableContents } from './reusable-contents.js';
import { Content, getBodies, putBodies, putObjects, sameJson, shardOf, SHARDS, type FileEntry, type Manifest, type PageEntry } from './store.js';

/**
 * Three-way merge of two contents against their common base, page by page. Shards whose hash one
 * side left unchanged are taken whole from the other, so the work follows the size of the changes,
 * not of the space. Within a page, structure (parent, position), each field and the body merge
 * independently; a body edited on both sides merges line by line (diff3). Anything both sides
 * changed differently is a conflict, reported per page; nothing is written then.
 */
export interface MergeConflict {
  page: string;
  title: string;
  reason: string;
}

export type MergeResult = { manifest: string; conflicts: [] } | { manifest: null; conflicts: MergeConflict[] };

type Db = Prisma.TransactionClient;
type Shard = Record<string, PageEntry>;

const same = (a: unknown, b: unknown) => sameJson(a ?? null, b ?? null);

const SCALAR_FIELDS = ['type', 'title', 'slug', 'emoji', 'icon', 'description', 'hidden', 'noIndex', 'noRobotsIndex', 'condition', 'href', 'computed'] as const;

function merge3<T>(base: T, ours: T, theirs: T): { value: T } | { conflict: true } {
  if (same(ours, theirs)) return { value: ours };
  if (same(ours, base)) return { value: theirs };
  if (same(theirs, base)) return { value: ours };
  return { conflict: true };
}

export async function mergeContents(db: Db, base: Content, ours: Content, theirs: Content): Promise<MergeResult> {
  const conflicts: MergeConflict[] = [];
  const shardHashes: (string | null)[] = [];
  const mergedShards: { index: number; shard: Shard }[] = [];
  const bodyMerges: { entry: PageEntry; base?: string; ours: string; theirs: string }[] = [];

  const contested: number[] = [];
  /** Pages the merge puts under a parent they did not have in the base (added or moved). */
  const placed: PageEntry[] = [];
  for (let i = 0; i < SHARDS; i++) {
    const [b, o, t] = [base.manifest.shards[i], ours.manifest.shards[i], theirs.manifest.shards[i]];
    if (o === t || t === b) shardHashes[i] = o ?? null;
    else if (o === b) shardHashes[i] = t ?? null;
    else contested.push(i);
  }
  await Promise.all([base.loadShards(contested), ours.loadShards(contested), theirs.loadShards(contested)]);

  for (const index of contested) {
    const [b, o, t] = await Promise.all([base.shard(index), ours.shard(index), theirs.shard(index)]);
    const shard: Shard = {};
    for (const id of new Set([...Object.keys(b), ...Object.keys(o), ...Object.keys(t)])) {
      const [be, oe, te] = [b[id], o[id], t[id]];
      const whole = merge3(be, oe, te);
      if ('value' in whole) {
        if (whole.value) shard[id] = whole.value;
        if (whole.value?.parent && whole.value.parent !== be?.parent) placed.push(whole.value);
        continue;
      }
      const title = (oe ?? te ?? be)!.title;
      if (!oe || !te) {
        conflicts.push({ page: id, title, reason: 'deleted on one side and changed on the other' });
        continue;
      }
      const merged: PageEntry = { ...oe, updatedAt: oe.updatedAt > te.updatedAt ? oe.updatedAt : te.updatedAt };
      const structure = merge3(be ? { parent: be.parent, position: be.position } : null, { parent: oe.parent, position: oe.position }, { parent: te.parent, position: te.position });
      if ('conflict' in structure) conflicts.push({ page: id, title, reason: 'moved differently on both sides' });
      else Object.assign(merged, structure.value);
      for (const key of SCALAR_FIELDS) {
        const field = merge3(be?.[key], oe[key], te[key]);
        if ('conflict' in field) conflicts.push({ page: id, title, reason: `${key} changed differently on both sides` });
        else if (field.value === undefined) delete merged[key];
        else (merged as unknown as Record<string, unknown>)[key] = field.value;
      }
      const body = merge3(be?.body, oe.body, te.body);
      if ('value' in body) merged.body = body.value;
      else bodyMerges.push({ entry: merged, base: be?.body, ours: oe.body!, theirs: te.body! });
      shard[id] = merged;
      if (merged.parent && merged.parent !== be?.parent) placed.push(merged);
    }
    mergedShards.push({ index, shard });
  }

  if (bodyMerges.length) {
    const bodies = await getBodies(db, bodyMerges.flatMap((m) => [m.base, m.ours, m.theirs].filter((h): h is string => !!h)));
    const mergedBodies: { entry: PageEntry; markdown: string }[] = [];
    for (const m of bodyMerges) {
      const lines = (hash?: string) => (hash ? bodies.get(hash) ?? '' : '').split('\n');
      const result = diff3(lines(m.ours), lines(m.base), lines(m.theirs));
      if (result.conflict) conflicts.push({ page: m.entry.id, title: m.entry.title, reason: 'its body was edited on both sides in the same place' });
      else mergedBodies.push({ entry: m.entry, markdown: result.result.join('\n') });
    }
    if (!conflicts.length && mergedBodies.length) {
      const parsed = await Promise.all(mergedBodies.map((b) => parseMarkdownOffLoop(b.markdown, ['links'])));
      const hashes = await putBodies(db, mergedBodies.map((b, i) => ({ markdown: b.markdown, links: parsed[i]!.links })));
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
      const list: FileEntry[] = [...of, ...tf.filter((f) => !baseIds.has(f.id) && !of.some((x) => x.id === f.id))].filter((f) => !removed.has(f.id));
      files = list.length ? (await putObjects(db, [{ kind: 'files', data: { files: list } }]))[0]! : null;
    }
  }

  const variables: Record<string, string> = {};
  const bv = base.manifest.variables, ov = ours.manifest.variables, tv = theirs.manifest.variables;
  for (const key of new Set([...Object.keys(bv), ...Object.keys(ov), ...Object.keys(tv)])) {
    const v = merge3(bv[key], ov[key], tv[key]);
    if ('conflict' in v) conflicts.push({ page: '', title: '', reason: `variable ${key} changed differently on both sides` });
    else if (v.value !== undefined) variables[key] = v.value;
  }

  if (!conflicts.length) {
    // A page moved or added under a parent the other side deleted would be orphaned.
    // Pages to check: those added or moved under another parent, in the shards both sides changed
    // and in the shards taken whole from one side — the only way a page can end up under a parent
    // the other side deleted (a deletion takes the pages below it along).
    const contestedShards = new Map(mergedShards.map((s) => [s.index, s.shard]));
    const entries = [...placed];
    const fromOursAt = (index: number) => shardHashes[index] === (ours.manifest.shards[index] ?? null);
    const oneSided = [...Array(SHARDS).keys()].filter((i) => !contestedShards.has(i) && shardHashes[i] !== (base.manifest.shards[i] ?? null));
    await Promise.all([base.loadShards(oneSided), ours.loadShards(oneSided.filter(fromOursAt)), theirs.loadShards(oneSided.filter((i) => !fromOursAt(i)))]);
    for (const index of oneSided) {
      const [after, before] = await Promise.all([(fromOursAt(index) ? ours : theirs).shard(index), base.shard(index)]);
      for (const entry of Object.values(after)) if (entry.parent && before[entry.id]?.parent !== entry.parent) entries.push(entry);
    }
    // A parent outside the contested shards lives in a shard taken whole from one side: look them
    // all up at once, one batch per side (not one query per page).
    const outside = [...new Set(entries.map((e) => e.parent).filter((p): p is string => !!p && !contestedShards.has(shardOf(p))))];
    const fromOurs = (p: string) => fromOursAt(shardOf(p));
    const [inOurs, inTheirs] = await Promise.all([ours.pages(outside.filter(fromOurs)), theirs.pages(outside.filter((p) => !fromOurs(p)))]);
    const exists = (pageId: string) => {
      const shard = contestedShards.get(shardOf(pageId));
      return shard ? pageId in shard : inOurs.has(pageId) || inTheirs.has(pageId);
    };
    for (const entry of entries) {
      if (entry.parent && !exists(entry.parent)) conflicts.push({ page: entry.id, title: entry.title, reason: 'its parent page was deleted on the other side' });
    }
  }
  const reusableContents = await mergeReusableContents(db, base, ours, theirs, (title, reason) => conflicts.push({ page: '', title, reason }));
  if (conflicts.length) return { manifest: null, conflicts };

  // Each merged shard is sent as its difference from ours (src/modules/content/store.ts putObjects).
  const hashes = await putObjects(db, await Promise.all(mergedShards.map(async (s) => ({ kind: 'shard', data: s.shard, from: await ours.storedShard(s.index) }))));
  mergedShards.forEach((s, i) => (shardHashes[s.index] = Object.keys(s.shard).length ? hashes[i]! : null));
  const manifest: Manifest = { shards: shardHashes, files, variables, ...(reusableContents ? { reusableContents } : {}) };
  const [hash] = await putObjects(db, [{ kind: 'manifest', data: manifest }]);
  return { manifest: hash!, conflicts: [] };
}
