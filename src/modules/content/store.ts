import { createHash } from 'node:crypto';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import type { ComputedSource } from './computed-pages.js';

/**
 * The content store. A revision's content is a manifest object; pages live in SHARDS objects keyed
 * by page id (a persistent hash map, one level deep), page bodies in BODY objects, files in a FILES
 * object. Every object is immutable and content-addressed (SHA-256 of its canonical JSON), so a new
 * revision shares everything it did not change with its parent: editing one page of a 10,000-page
 * space writes one body, one shard (~40 entries) and one manifest — never the other pages.
 * Merges compare shard hashes first, so their cost follows the size of the change, not of the space.
 */
export const SHARDS = 256;

export type PageType = 'document' | 'group' | 'link' | 'computed';

/** One page as stored: its place in the tree, its fields, and its body's hash. */
export interface PageEntry {
  id: string;
  parent: string | null;
  /** Order among siblings (fractional, so inserting between two pages rewrites nothing else). */
  position: number;
  type: PageType;
  title: string;
  slug: string;
  emoji?: string;
  /** Icon name (GitBook's `icon`), beside or instead of an emoji. */
  icon?: string;
  description?: string;
  hidden?: boolean;
  /** Left out of search and ask. */
  noIndex?: boolean;
  /** Not indexable by search engine robots. */
  noRobotsIndex?: boolean;
  /** Adaptive-content condition (an expression) deciding whether a visitor sees the page. */
  condition?: string;
  /** document pages: hash of the BODY object holding the markdown. */
  body?: string;
  /** link pages: the target URL. */
  href?: string;
  /** computed pages: what computes their content (computed-pages.ts). */
  computed?: ComputedSource;
  createdAt: string;
  updatedAt: string;
}

export interface FileEntry {
  id: string;
  name: string;
  contentType: string;
  size: number;
  /** hash of the FileBlob */
  blob: string;
  createdAt: string;
}

/** A reusable content (GitBook's RevisionReusableContent): a titled body pages include. */
export interface ReusableContentEntry {
  id: string;
  title: string;
  /** Unique among the revision's reusable contents: pages include it as `.gitbook/includes/<slug>.md`. */
  slug: string;
  /** hash of the BODY object holding the markdown */
  body: string;
  createdAt: string;
  updatedAt: string;
}

export interface Manifest {
  /** Shard object hashes by shard index; null for an empty shard. */
  shards: (string | null)[];
  /** Hash of the FILES object, or null when there are no files. */
  files: string | null;
  variables: Record<string, string>;
  /** Hash of the REUSABLE object; absent when there are none (so older manifests keep their hash). */
  reusableContents?: string;
}

type Shard = Record<string, PageEntry>;
type Db = Pick<PrismaClient, '$queryRaw' | '$executeRaw' | 'contentObject' | 'fileBlob' | 'bodyLink'> | Prisma.TransactionClient;

/**
 * JSON with object keys sorted, so equal values always hash the same. Written by the engine's own
 * JSON.stringify given every key of the value, sorted, as its property list (which also orders each
 * object's keys): a merge in a 10,000-page space hashes shards of ~40 entries, and the recursive
 * form below spent ~13 ms a merge there. Values that form would write differently (an array
 * holding undefined, a function, an object with toJSON such as a Date) take the recursive form.
 */
export function canonicalJson(value: unknown): string {
  const keys = new Set<string>();
  return plainKeys(value, keys) ? JSON.stringify(value, [...keys].sort()) : canonicalJsonOf(value);
}

/** Adds every object key within `value` to `keys`; false when `value` holds something JSON.stringify would write differently. */
function plainKeys(value: unknown, keys: Set<string>): boolean {
  if (value === null || typeof value !== 'object') return typeof value !== 'function' && typeof value !== 'symbol';
  if (Array.isArray(value)) {
    for (const item of value) if (item === undefined || !plainKeys(item, keys)) return false;
    return true;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) return false;
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    if (!plainKeys(item, keys)) return false;
    keys.add(key);
  }
  return true;
}

/**
 * Whether two values have the same canonical JSON, without writing it: compared member by member
 * (keys in any order, undefined members absent), falling back to the text for anything unusual. A
 * three-way merge compares every entry of every contested shard up to six times: ~40 entries a
 * shard in a 10,000-page space.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return canonicalJson(a) === canonicalJson(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return canonicalJson(a) === canonicalJson(b);
    for (let i = 0; i < a.length; i++)
      if (a[i] === undefined || b[i] === undefined || !sameJson(a[i], b[i])) return canonicalJson(a) === canonicalJson(b);
    return true;
  }
  if (typeof (a as { toJSON?: unknown }).toJSON === 'function' || typeof (b as { toJSON?: unknown }).toJSON === 'function')
    return canonicalJson(a) === canonicalJson(b);
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let defined = 0;
  for (const key of Object.keys(x)) {
    const value = x[key];
    if (value === undefined) continue;
    if (typeof value === 'function' || typeof value === 'symbol') return canonicalJson(a) === canonicalJson(b);
    defined++;
    if (!Object.hasOwn(y, key) || y[key] === undefined || !sameJson(value, y[key])) return false;
  }
  for (const key of Object.keys(y)) if (y[key] !== undefined && --defined < 0) return false;
  return defined === 0;
}

function canonicalJsonOf(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJsonOf).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJsonOf((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export const hashOf = (kind: string, data: unknown) =>
  createHash('sha256').update(kind).update('\0').update(canonicalJson(data)).digest('hex');

export const shardOf = (pageId: string) => createHash('sha256').update(pageId).digest().readUInt16BE(0) % SHARDS;

/**
 * `Content.page` in SQL, for a statement that reads a few pages' fields beside other rows (search
 * results' descriptions): the stored entry (jsonb, null when absent) of the page whose id is the
 * text expression `pageId`, in the content whose manifest data (jsonb) is the expression
 * `manifest`. The shard is `shardOf`'s: the first two bytes of the id's SHA-256, big-endian,
 * modulo SHARDS. Both arguments are SQL expressions written by the caller, never input.
 */
export const pageEntrySql = (manifest: string, pageId: string) => {
  const digest = `sha256(convert_to(${pageId}, 'UTF8'))`;
  return `(SELECT shard.data -> ${pageId} FROM "ContentObject" shard WHERE shard.hash = ${manifest} -> 'shards' ->> ((get_byte(${digest}, 0) * 256 + get_byte(${digest}, 1)) % ${SHARDS}))`;
};

export const EMPTY_MANIFEST: Manifest = { shards: Array.from({ length: SHARDS }, () => null), files: null, variables: {} };

/**
 * The objects a transaction has read or written, by hash: a merge reads the same shards several
 * times (the three-way merge, the slug check, the search reindex) and reads back the shards it has
 * just written; content objects are immutable, so one read each is enough. Only for a
 * transaction's client (it has no `$transaction`), which lives for one write, and kept weakly: the
 * long-lived client would keep every object it ever read.
 */
const inTransaction = new WeakMap<object, Map<string, unknown>>();
function transactionObjects(db: Db): Map<string, unknown> | undefined {
  if ('$transaction' in db) return undefined;
  let objects = inTransaction.get(db);
  if (!objects) inTransaction.set(db, (objects = new Map()));
  return objects;
}

/** An object to write; a shard may name the stored shard it was made from (`from`), to be sent as its difference. */
export interface NewObject {
  kind: string;
  data: unknown;
  from?: { hash: string; data: Record<string, unknown> } | null;
}

/**
 * Writes objects (idempotently: an object that exists is the same object). Returns their hashes.
 *
 * A shard made from a stored one is sent as its difference (the entries set, the ids removed) and
 * built in PostgreSQL from the stored shard (`data - removed || set`: jsonb's `||` replaces top-level
 * keys): editing one page of a 10,000-page space changes one entry of a ~40-entry shard, and the
 * whole shards made the one parameter of a 10-page merge ~120 KB, which Prisma's query compiler
 * took ~7 ms to pass on and PostgreSQL ~5 ms to parse. The object stored is the object hashed: the
 * difference is taken by `sameJson`, which is equality of canonical JSON (test/content).
 */
export async function putObjects(db: Db, objects: NewObject[]): Promise<string[]> {
  const rows = objects.map((o) => {
    const hash = hashOf(o.kind, o.data);
    const delta = o.from ? difference(o.from.data, o.data as Record<string, unknown>) : null;
    return delta ? { hash, kind: o.kind, base: o.from!.hash, ...delta } : { hash, kind: o.kind, data: o.data };
  });
  // One plain statement with the rows as one JSON parameter: Prisma's createMany compiles large
  // JSON values on the event loop (measured: 100 shards of 40 pages, 298 ms against 128 ms here).
  // A base that is not stored gives a null object, which the table refuses: never a wrong one.
  if (rows.length) {
    await db.$executeRaw`
      INSERT INTO "ContentObject" (hash, kind, data)
      SELECT r.hash, r.kind,
        COALESCE(r.data, ((SELECT b.data FROM "ContentObject" b WHERE b.hash = r.base) - ARRAY(SELECT jsonb_array_elements_text(r.removed))) || r.set)
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(hash text, kind text, data jsonb, base text, removed jsonb, set jsonb)
      ON CONFLICT (hash) DO NOTHING`;
  }
  const seen = transactionObjects(db);
  if (seen) objects.forEach((o, i) => seen.set(rows[i]!.hash, o.data));
  return rows.map((r) => r.hash);
}

/** What turns shard `from` into shard `to` (entries set, ids removed), or null when sending `to` whole is no larger. */
function difference(
  from: Record<string, unknown>,
  to: Record<string, unknown>,
): { set: Record<string, unknown>; removed: string[] } | null {
  const set: Record<string, unknown> = {};
  let changed = 0;
  for (const id of Object.keys(to)) {
    if (to[id] === undefined || (from[id] !== undefined && sameJson(from[id], to[id]))) continue;
    set[id] = to[id];
    changed++;
  }
  const removed = Object.keys(from).filter((id) => from[id] !== undefined && to[id] === undefined);
  return changed + removed.length < Object.keys(to).length / 2 ? { set, removed } : null;
}

export async function getObjects<T>(db: Db, hashes: string[]): Promise<Map<string, T>> {
  const unique = [...new Set(hashes)];
  if (!unique.length) return new Map();
  const seen = transactionObjects(db);
  const missing = seen ? unique.filter((h) => !seen.has(h)) : unique;
  // As text, parsed here: Prisma walks a returned JSON value member by member to convert it, which
  // for the shards of a 10,000-page space (~40 entries each) was the largest size-dependent cost of a merge.
  const rows = missing.length
    ? (
        await db.$queryRaw<
          { hash: string; data: string }[]
        >`SELECT hash, data::text AS data FROM "ContentObject" WHERE hash = ANY(${missing}::text[])`
      ).map((r) => ({ hash: r.hash, data: JSON.parse(r.data) as unknown }))
    : [];
  if (!seen) return new Map(rows.map((r) => [r.hash, r.data as T]));
  for (const r of rows) seen.set(r.hash, r.data);
  return new Map(unique.flatMap((h) => (seen.has(h) ? [[h, seen.get(h) as T]] : [])));
}

export const manifestHash = (manifest: Manifest) => hashOf('manifest', manifest);

/** The manifest of an empty space, stored if needed. */
export async function emptyManifest(db: Db): Promise<string> {
  const [hash] = await putObjects(db, [{ kind: 'manifest', data: EMPTY_MANIFEST }]);
  return hash!;
}

/** Fetches objects by hash; a request passes a batching one so many contents load together. */
export type ObjectFetcher = <T>(hashes: string[]) => Promise<Map<string, T>>;

/** A revision's content, loaded lazily shard by shard. */
export class Content {
  private shardCache = new Map<number, Shard>();
  private filesCache: FileEntry[] | undefined;
  private reusableCache: ReusableContentEntry[] | undefined;
  private readonly fetch: ObjectFetcher;

  constructor(
    db: Db,
    readonly manifest: Manifest,
    fetch?: ObjectFetcher,
  ) {
    this.fetch = fetch ?? (<T>(hashes: string[]) => getObjects<T>(db, hashes));
  }

  static async load(db: Db, manifestHash: string, fetch?: ObjectFetcher): Promise<Content> {
    if (!manifestHash) return new Content(db, EMPTY_MANIFEST, fetch);
    const manifest = (await (fetch ?? (<T>(h: string[]) => getObjects<T>(db, h)))<Manifest>([manifestHash])).get(manifestHash);
    if (!manifest) throw new Error(`missing manifest ${manifestHash}`);
    return new Content(db, manifest, fetch);
  }

  /** Loads the given shards (all when omitted) in one query. */
  async loadShards(indexes?: number[]): Promise<void> {
    const wanted = (indexes ?? [...Array(SHARDS).keys()]).filter((i) => !this.shardCache.has(i));
    const hashes = wanted.map((i) => this.manifest.shards[i]).filter((h): h is string => !!h);
    const objects = await this.fetch<Shard>(hashes);
    for (const i of wanted) {
      const hash = this.manifest.shards[i];
      // A shard the manifest names is always stored (objects are never deleted): one missing means
      // the read failed. Say so here, not later as a TypeError on an undefined shard.
      if (hash && !objects.has(hash)) throw new Error(`content shard ${hash} could not be read`);
      this.shardCache.set(i, hash ? objects.get(hash)! : {});
    }
  }

  async shard(index: number): Promise<Shard> {
    if (!this.shardCache.has(index)) await this.loadShards([index]);
    return this.shardCache.get(index)!;
  }

  async page(id: string): Promise<PageEntry | undefined> {
    return (await this.shard(shardOf(id)))[id];
  }

  async pages(ids: string[]): Promise<Map<string, PageEntry>> {
    await this.loadShards([...new Set(ids.map(shardOf))]);
    const out = new Map<string, PageEntry>();
    for (const id of ids) {
      const entry = this.shardCache.get(shardOf(id))![id];
      if (entry) out.set(id, entry);
    }
    return out;
  }

  /** Every page entry (loads every shard: one query). */
  async allPages(): Promise<PageEntry[]> {
    await this.loadShards();
    return [...this.shardCache.values()].flatMap((s) => Object.values(s));
  }

  async files(): Promise<FileEntry[]> {
    if (!this.filesCache) {
      const files = this.manifest.files
        ? (await this.fetch<{ files: FileEntry[] }>([this.manifest.files])).get(this.manifest.files)
        : undefined;
      this.filesCache = files?.files ?? [];
    }
    return this.filesCache;
  }

  async reusableContents(): Promise<ReusableContentEntry[]> {
    if (!this.reusableCache) {
      const hash = this.manifest.reusableContents;
      this.reusableCache = (hash ? (await this.fetch<{ items: ReusableContentEntry[] }>([hash])).get(hash)?.items : undefined) ?? [];
    }
    return this.reusableCache;
  }

  /** The shard at `index` with its hash, when it is stored (what a shard made from it is written as the difference from). */
  async storedShard(index: number): Promise<{ hash: string; data: Shard } | null> {
    const hash = this.manifest.shards[index];
    return hash ? { hash, data: await this.shard(index) } : null;
  }

  /** Shard hashes that differ from another content's. */
  changedShards(other: Content): number[] {
    return [...Array(SHARDS).keys()].filter((i) => this.manifest.shards[i] !== other.manifest.shards[i]);
  }
}

/** Accumulates changes on top of a content and writes the new objects. */
export class ContentWriter {
  private dirty = new Map<number, Shard>();
  private files: FileEntry[] | undefined;
  private reusable: ReusableContentEntry[] | undefined;
  private variables: Record<string, string>;

  constructor(readonly base: Content) {
    this.variables = { ...base.manifest.variables };
  }

  private async editableShard(index: number): Promise<Shard> {
    if (!this.dirty.has(index)) this.dirty.set(index, { ...(await this.base.shard(index)) });
    return this.dirty.get(index)!;
  }

  async get(id: string): Promise<PageEntry | undefined> {
    const index = shardOf(id);
    return this.dirty.has(index) ? this.dirty.get(index)![id] : this.base.page(id);
  }

  async put(entry: PageEntry): Promise<void> {
    (await this.editableShard(shardOf(entry.id)))[entry.id] = entry;
  }

  async remove(id: string): Promise<void> {
    delete (await this.editableShard(shardOf(id)))[id];
  }

  /** The current view of all pages (base plus pending changes). */
  async allPages(): Promise<PageEntry[]> {
    await this.base.loadShards();
    const pages: PageEntry[] = [];
    for (let i = 0; i < SHARDS; i++) pages.push(...Object.values(this.dirty.get(i) ?? (await this.base.shard(i))));
    return pages;
  }

  async getFiles(): Promise<FileEntry[]> {
    return this.files ?? (await this.base.files());
  }

  setFiles(files: FileEntry[]) {
    this.files = files;
  }

  setVariables(variables: Record<string, string>) {
    this.variables = variables;
  }

  async getReusableContents(): Promise<ReusableContentEntry[]> {
    return this.reusable ?? (await this.base.reusableContents());
  }

  setReusableContents(items: ReusableContentEntry[]) {
    this.reusable = items;
  }

  get changed(): boolean {
    return (
      this.dirty.size > 0 ||
      this.files !== undefined ||
      this.reusable !== undefined ||
      canonicalJson(this.variables) !== canonicalJson(this.base.manifest.variables)
    );
  }

  /** Writes the changed shards, the files list and the manifest; returns the manifest's hash. */
  async write(db: Db): Promise<string> {
    const shards = [...this.base.manifest.shards];
    const dirty = [...this.dirty].map(([index, shard]) => ({ index, shard }));
    const shardHashes = await putObjects(
      db,
      await Promise.all(dirty.map(async (d) => ({ kind: 'shard', data: d.shard, from: await this.base.storedShard(d.index) }))),
    );
    dirty.forEach((d, i) => (shards[d.index] = Object.keys(d.shard).length ? shardHashes[i]! : null));
    // The written shards are now stored objects (a transaction keeps them by hash, above): a later
    // edit through this writer changes a copy, never them.
    for (const d of dirty) this.dirty.set(d.index, { ...d.shard });
    let files = this.base.manifest.files;
    if (this.files !== undefined)
      files = this.files.length ? (await putObjects(db, [{ kind: 'files', data: { files: this.files } }]))[0]! : null;
    let reusableContents = this.base.manifest.reusableContents;
    if (this.reusable !== undefined)
      reusableContents = this.reusable.length
        ? (await putObjects(db, [{ kind: 'reusable', data: { items: this.reusable } }]))[0]!
        : undefined;
    const manifest: Manifest = { shards, files, variables: this.variables, ...(reusableContents ? { reusableContents } : {}) };
    const [hash] = await putObjects(db, [{ kind: 'manifest', data: manifest }]);
    return hash!;
  }
}

/** Stores a markdown body (and indexes its links once); returns its hash. */
export async function putBody(db: Db, markdown: string, links: { href: string; text: string }[]): Promise<string> {
  return (await putBodies(db, [{ markdown, links }]))[0]!;
}

/** Stores many bodies in two statements whatever their number (bodies, then their links). */
export async function putBodies(db: Db, bodies: { markdown: string; links: { href: string; text: string }[] }[]): Promise<string[]> {
  const hashes = await putObjects(
    db,
    bodies.map((b) => ({ kind: 'body', data: { markdown: b.markdown } })),
  );
  const links = bodies.flatMap((b, i) => b.links.map((l, position) => ({ bodyHash: hashes[i]!, position, href: l.href, text: l.text })));
  // One plain statement: Prisma's createMany compiles its query in proportion to the rows, on the
  // event loop (measured: ~0.5 s for the 8,000 links of a 1 MB page).
  if (links.length) {
    await db.$executeRaw`
      INSERT INTO "BodyLink" ("bodyHash", position, href, text)
      SELECT r."bodyHash", r.position, r.href, r.text FROM jsonb_to_recordset(${JSON.stringify(links)}::jsonb) AS r("bodyHash" text, position int, href text, text text)
      ON CONFLICT DO NOTHING`;
  }
  return hashes;
}

export async function getBodies(db: Db, hashes: string[]): Promise<Map<string, string>> {
  const objects = await getObjects<{ markdown: string }>(db, hashes);
  return new Map([...objects].map(([h, o]) => [h, o.markdown]));
}
