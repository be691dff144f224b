import type { Context } from '../../context.js';
import { badRequest } from '../../errors.js';
import type { Space } from '../../generated/prisma/client.js';
import { serverKeys, type ServerKeys } from '../../secrets.js';
import { documentIdOf } from './document-ids.js';
import { byPosition } from '../../positions.js';
import { fileJson } from './service.js';
import { reallyMoved } from './structure.js';
import { canonicalJson, type Content, type FileEntry, type PageEntry, type ReusableContentEntry } from './store.js';

/**
 * Semantic changes between two contents (GitBook's RevisionSemanticChanges): pages created,
 * edited, deleted and moved, files created, edited and deleted, reusable contents created, edited
 * and deleted, variables edited.
 *
 * Computed from the manifests alone: only shards whose hash differs are read, bodies are compared
 * by hash (never read), and a changed page's path is found by walking up its ancestors one level
 * per query. So the cost follows the size of the change and the depth of the changed pages, never
 * the number of unchanged pages.
 */

export const DEFAULT_CHANGES_LIMIT = 10;
const MAX_CHANGES_LIMIT = 1000;

type Json = Record<string, unknown>;

export interface SemanticChanges {
  changes: Json[];
  /** How many changes were left out by the limit (absent when none were). */
  more?: number;
}

/** The official `limit` (a number, default 10). Lectern caps it at 1000 so one answer stays bounded. */
export function changesLimit(limit: number | null | undefined): number {
  if (limit === null || limit === undefined) return DEFAULT_CHANGES_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CHANGES_LIMIT)
    throw badRequest('limit', `must be an integer from 1 to ${MAX_CHANGES_LIMIT}`);
  return limit;
}

/** Entries of the given pages and of all their ancestors (one batch of shards per tree level). */
async function withAncestors(content: Content, entries: PageEntry[]): Promise<Map<string, PageEntry>> {
  const known = new Map(entries.map((e) => [e.id, e]));
  const missing = new Set<string>();
  let wanted = entries.map((e) => e.parent);
  for (;;) {
    const ids = [...new Set(wanted.filter((p): p is string => !!p && !known.has(p) && !missing.has(p)))];
    if (!ids.length) break;
    const found = await content.pages(ids);
    for (const id of ids) found.has(id) ? known.set(id, found.get(id)!) : missing.add(id);
    wanted = [...found.values()].map((e) => e.parent);
  }
  return known;
}

/** Paths as the page tree makes them (tree.ts): the slugs from the top level down, joined by '/'. */
function pathOf(id: string, pages: Map<string, PageEntry>, memo = new Map<string, string>()): string {
  const known = memo.get(id);
  if (known !== undefined) return known;
  // Iterative, and a ring of parents ends where it closes (a parent that is not there, or a ring,
  // puts the page at the top level, as buildTree does).
  const chain: PageEntry[] = [];
  const seen = new Set<string>();
  for (
    let entry = pages.get(id);
    entry && !seen.has(entry.id) && !memo.has(entry.id);
    entry = entry.parent ? pages.get(entry.parent) : undefined
  ) {
    seen.add(entry.id);
    chain.push(entry);
  }
  const top = chain[chain.length - 1];
  let prefix = top?.parent && memo.has(top.parent) ? memo.get(top.parent)! : null;
  for (const entry of chain.reverse()) {
    prefix = prefix === null ? entry.slug : `${prefix}/${entry.slug}`;
    memo.set(entry.id, prefix);
  }
  return memo.get(id) ?? '';
}

const changedPage = (entry: PageEntry, pages: Map<string, PageEntry>) => ({
  id: entry.id,
  type: entry.type,
  title: entry.title,
  path: pathOf(entry.id, pages),
});

/** `{ before, after }` of a string attribute, or undefined when it did not change. */
function attribute<T>(before: T | undefined, after: T | undefined): { before?: T; after?: T } | undefined {
  if (canonicalJson(before ?? null) === canonicalJson(after ?? null)) return undefined;
  return { ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) };
}

/**
 * The attributes of a page edit the official schema names for the page's type; a body is named by
 * its document id (document-ids.ts), as a page's `documentId`. A change to a field the schema has
 * no attribute for (hidden, position alone) is no `page_edited`: it would have no attribute to show.
 */
function pageAttributes(before: PageEntry, after: PageEntry, documentId: (bodyHash: string) => string): Json | undefined {
  const target = (e: PageEntry) => (e.type === 'link' && e.href !== undefined ? { kind: 'url', url: e.href } : undefined);
  const candidates: Record<string, Json | undefined> =
    after.type === 'document'
      ? {
          title: attribute(before.title, after.title),
          description: attribute(before.description, after.description),
          slug: attribute(before.slug, after.slug),
          document: attribute(before.body && documentId(before.body), after.body && documentId(after.body)),
          emoji: attribute(before.emoji, after.emoji),
        }
      : after.type === 'group'
        ? {
            title: attribute(before.title, after.title),
            emoji: attribute(before.emoji, after.emoji),
            slug: attribute(before.slug, after.slug),
          }
        : {
            title: attribute(before.title, after.title),
            emoji: attribute(before.emoji, after.emoji),
            target: attribute(target(before), target(after)),
          };
  const attributes = Object.fromEntries(Object.entries(candidates).filter(([, v]) => v !== undefined));
  return Object.keys(attributes).length ? attributes : undefined;
}

async function pageChanges(keys: ServerKeys, space: Space, before: Content, after: Content): Promise<{ path: string; change: Json }[]> {
  const shards = after.changedShards(before);
  if (!shards.length) return [];
  await Promise.all([before.loadShards(shards), after.loadShards(shards)]);
  const created: PageEntry[] = [];
  const deleted: PageEntry[] = [];
  const kept: { before: PageEntry; after: PageEntry }[] = [];
  for (const index of shards) {
    const [b, a] = await Promise.all([before.shard(index), after.shard(index)]);
    for (const id of new Set([...Object.keys(b), ...Object.keys(a)])) {
      const [be, ae] = [b[id], a[id]];
      if (be && ae) {
        if (canonicalJson(be) !== canonicalJson(ae)) kept.push({ before: be, after: ae });
      } else if (ae) created.push(ae);
      else if (be) deleted.push(be);
    }
  }
  // Under the same parent, only a change of order among the shared siblings is a move (positions
  // renumbered to make room for inserts keep the order).
  const reordered = kept.filter((k) => k.before.parent === k.after.parent && k.before.position !== k.after.position);
  const reorderedMoved = await reallyMoved(
    before,
    after,
    reordered.map((k) => k.after),
  );
  const moved = kept.filter((k) => k.before.parent !== k.after.parent || reorderedMoved.has(k.after.id));
  // Ancestors are needed for paths, and a moved page's old and new parents for `parent`.
  const [beforePages, afterPages] = await Promise.all([
    withAncestors(before, [...deleted, ...kept.map((k) => k.before)]),
    withAncestors(after, [...created, ...kept.map((k) => k.after)]),
  ]);
  const out: { path: string; change: Json }[] = [];
  const sorted = (entries: PageEntry[]) => [...entries].sort(byPosition);
  for (const e of sorted(created))
    out.push({ path: pathOf(e.id, afterPages), change: { type: 'page_created', page: changedPage(e, afterPages) } });
  for (const k of kept) {
    const attributes = pageAttributes(k.before, k.after, (hash) => documentIdOf(keys, space.id, hash));
    if (attributes)
      out.push({
        path: pathOf(k.after.id, afterPages),
        change: { type: 'page_edited', page: changedPage(k.after, afterPages), attributes },
      });
  }
  for (const k of moved) {
    // A reorder among the same siblings is a move too (what dragging a page in the tree does);
    // `before`/`after` are absent for the top level.
    const parent = (entry: PageEntry, pages: Map<string, PageEntry>) =>
      entry.parent && pages.has(entry.parent) ? changedPage(pages.get(entry.parent)!, pages) : undefined;
    const from = parent(k.before, beforePages);
    const to = parent(k.after, afterPages);
    out.push({
      path: pathOf(k.after.id, afterPages),
      change: {
        type: 'page_moved',
        page: changedPage(k.after, afterPages),
        parent: { ...(from ? { before: from } : {}), ...(to ? { after: to } : {}) },
      },
    });
  }
  for (const e of sorted(deleted))
    out.push({ path: pathOf(e.id, beforePages), change: { type: 'page_deleted', page: changedPage(e, beforePages) } });
  return out;
}

async function fileChanges(ctx: Context, space: Space, before: Content, after: Content): Promise<Json[]> {
  if (before.manifest.files === after.manifest.files) return [];
  const [bf, af, keys] = await Promise.all([before.files(), after.files(), serverKeys(ctx)]);
  const byId = new Map(bf.map((f) => [f.id, f]));
  const afterIds = new Set(af.map((f) => f.id));
  const changed = (file: FileEntry) => {
    const json = fileJson(ctx, keys, space.id, file);
    return { id: json.id, name: json.name, contentType: json.contentType, downloadURL: json.downloadURL };
  };
  const out: Json[] = [];
  for (const file of af) {
    const old = byId.get(file.id);
    if (!old) {
      out.push({ type: 'file_created', file: changed(file) });
      continue;
    }
    if (canonicalJson(old) === canonicalJson(file)) continue;
    const attributes = Object.fromEntries(
      Object.entries({
        name: attribute(old.name, file.name),
        contentType: attribute(old.contentType, file.contentType),
        size: attribute(old.size, file.size),
        // Another blob is another download: both URLs are signed for the caller.
        downloadURL: old.blob !== file.blob ? { before: changed(old).downloadURL, after: changed(file).downloadURL } : undefined,
      }).filter(([, v]) => v !== undefined),
    );
    if (Object.keys(attributes).length) out.push({ type: 'file_edited', file: changed(file), attributes });
  }
  for (const file of bf) if (!afterIds.has(file.id)) out.push({ type: 'file_deleted', file: changed(file) });
  return out;
}

async function reusableContentChanges(keys: ServerKeys, space: Space, before: Content, after: Content): Promise<Json[]> {
  if (before.manifest.reusableContents === after.manifest.reusableContents) return [];
  const [bl, al] = await Promise.all([before.reusableContents(), after.reusableContents()]);
  const document = (e: ReusableContentEntry) => documentIdOf(keys, space.id, e.body);
  const changed = (e: ReusableContentEntry) => ({ id: e.id, title: e.title, document: document(e) });
  const old = new Map(bl.map((e) => [e.id, e]));
  const out: Json[] = [];
  for (const e of al) {
    const b = old.get(e.id);
    if (!b) out.push({ type: 'reusable_content_created', reusableContent: changed(e) });
    else {
      const attributes = Object.fromEntries(
        Object.entries({
          title: attribute(b.title, e.title),
          document: b.body !== e.body ? { before: document(b), after: document(e) } : undefined,
        }).filter(([, v]) => v),
      );
      if (Object.keys(attributes).length) out.push({ type: 'reusable_content_edited', reusableContent: changed(e), attributes });
    }
  }
  const kept = new Set(al.map((e) => e.id));
  for (const e of bl) if (!kept.has(e.id)) out.push({ type: 'reusable_content_deleted', reusableContent: changed(e) });
  return out;
}

function variableChanges(before: Content, after: Content): Json[] {
  const [bv, av] = [before.manifest.variables, after.manifest.variables];
  const variables: Record<string, Json> = {};
  for (const name of [...new Set([...Object.keys(bv), ...Object.keys(av)])].sort()) {
    const change = attribute(bv[name], av[name]);
    if (change) variables[name] = change;
  }
  return Object.keys(variables).length ? [{ type: 'variables_edited', variables }] : [];
}

/** The semantic changes from `before` to `after`: pages (in path order), then files, then variables. */
export async function semanticChanges(
  ctx: Context,
  space: Space,
  before: Content,
  after: Content,
  limit: number,
): Promise<SemanticChanges> {
  const keys = await serverKeys(ctx);
  const [pages, files, reusable] = await Promise.all([
    pageChanges(keys, space, before, after),
    fileChanges(ctx, space, before, after),
    reusableContentChanges(keys, space, before, after),
  ]);
  pages.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const all = [...pages.map((p) => p.change), ...files, ...reusable, ...variableChanges(before, after)];
  return { changes: all.slice(0, limit), ...(all.length > limit ? { more: all.length - limit } : {}) };
}
