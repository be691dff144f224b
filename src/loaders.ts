import DataLoader from 'dataloader';

/** A per-request loader of rows by id: one `WHERE id IN (...)` per tick, whatever the number of ids. */
export function byId<T extends { id: string }>(fetch: (ids: string[]) => Promise<T[]>) {
  return new DataLoader<string, T | null>(async (ids) => {
    const rows = await fetch([...ids]);
    const map = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => map.get(id) ?? null);
  });
}

/** A per-request loader of one value per key, computed in a batch that returns a Map. */
export function batched<K, V>(fetch: (keys: K[]) => Promise<Map<K, V>>, fallback: V) {
  return new DataLoader<K, V>(async (keys) => {
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
