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
