import DataLoader from 'dataloader';

/**
 * A per-request loader that also tells, synchronously, the value of a key whose load has settled
 * (`now`). A field resolver that answers from `now` returns the value itself: graphql-jit then
 * builds no promise for it, which on a page of 100 spaces (six such fields each) was a third of the
 * request's CPU. `now` holds exactly the value of the promise the loader caches at this moment:
 * `clear`, `clearAll` and a later `prime` after a clear forget or replace it as the loader does.
 */
export type Loader<K, V> = DataLoader<K, V> & {
  /** The settled value of `key`'s cached load, or undefined while there is none (no value type here includes undefined). */
  now(key: K): V | undefined;
};

/** DataLoader's cache, noting each promise's value once it settles if it is still the one cached. */
class SettledCache<K, V> {
  private readonly promises = new Map<K, Promise<V>>();
  readonly values = new Map<K, V>();
  get(key: K) {
    return this.promises.get(key);
  }
  set(key: K, promise: Promise<V>) {
    this.promises.set(key, promise);
    this.values.delete(key);
    promise.then(
      (value) => {
        if (this.promises.get(key) === promise) this.values.set(key, value);
      },
      () => undefined,
    );
  }
  delete(key: K) {
    this.values.delete(key);
    return this.promises.delete(key);
  }
  clear() {
    this.values.clear();
    this.promises.clear();
  }
}

function loader<K, V>(batch: (keys: readonly K[]) => Promise<V[]>): Loader<K, V> {
  const cacheMap = new SettledCache<K, V>();
  return Object.assign(new DataLoader<K, V>(batch, { cacheMap }), { now: (key: K) => cacheMap.values.get(key) });
}

/** A per-request loader of rows by id: one `WHERE id IN (...)` per tick, whatever the number of ids. */
export function byId<T extends { id: string }>(fetch: (ids: string[]) => Promise<T[]>): Loader<string, T | null> {
  return loader(async (ids) => {
    const rows = await fetch([...ids]);
    const map = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => map.get(id) ?? null);
  });
}

/** A per-request loader of one value per key, computed in a batch that returns a Map. */
export function batched<K, V>(fetch: (keys: K[]) => Promise<Map<K, V>>, fallback: V): Loader<K, V> {
  return loader(async (keys) => {
    const map = await fetch([...keys]);
    return keys.map((k) => map.get(k) ?? fallback);
  });
}

/** Every perRequest's store, for forgetRequest. */
const everyPerRequest: WeakMap<object, unknown>[] = [];

/**
 * A value made once per request (per GraphQL context), on first use: how every module makes its
 * dataloaders and memos (in its loaders.ts), so nothing central lists them. Keyed by the context
 * object, so a copy of the context (`{ ...ctx, prisma: tx }`) starts with fresh ones.
 */
export function perRequest<C extends object, T>(make: (ctx: C) => T): (ctx: C) => T {
  const made = new WeakMap<C, T>();
  everyPerRequest.push(made as WeakMap<object, unknown>);
  return (ctx) => {
    if (!made.has(ctx)) made.set(ctx, make(ctx));
    return made.get(ctx)!;
  };
}

/**
 * Forgets every value made for `ctx`, so its next use makes fresh ones. A subscription's context
 * lives as long as its stream (src/live/): before each event it forgets what the previous one
 * loaded, so rights are checked and data read as they are now, not as cached at subscribe time.
 */
export function forgetRequest(ctx: object) {
  for (const made of everyPerRequest) made.delete(ctx);
}

/** `Map.groupBy` (not in Node 20). */
export function groupBy<T, K>(items: Iterable<T>, key: (item: T) => K): Map<K, T[]> {
  const map = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = map.get(k);
    if (group) group.push(item);
    else map.set(k, [item]);
  }
  return map;
}
