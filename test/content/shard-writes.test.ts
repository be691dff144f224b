import { beforeAll, describe, expect, it } from 'vitest';
import { getObjects, hashOf, putObjects, sameJson, type PageEntry } from '../../src/modules/content/store.js';
import { setupHarness, type Harness } from '../support/harness.js';

/**
 * A shard made from a stored one is sent as its difference and built in PostgreSQL
 * (src/modules/content/store.ts putObjects): what is stored must be exactly the object hashed —
 * entries changed, added and removed, members dropped (undefined), and a large change sent whole.
 */
let h: Harness;
beforeAll(async () => {
  h = await setupHarness();
});

const at = '2026-01-01T00:00:00.000Z';
const entry = (id: string, extra: Partial<PageEntry> = {}): PageEntry => ({
  id,
  parent: null,
  position: 1,
  type: 'document',
  title: `Page ${id}`,
  slug: id,
  body: hashOf('body', id),
  createdAt: at,
  updatedAt: at,
  ...extra,
});
const shardOf = (ids: string[]) => Object.fromEntries(ids.map((id) => [id, entry(id)]));

async function storedAs(hash: string) {
  const object = (await getObjects<Record<string, unknown>>(h.db.prisma, [hash])).get(hash);
  expect(object, hash).toBeDefined();
  return object!;
}

describe('shards written as their difference from a stored shard', () => {
  it('store exactly the shard that was hashed', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `page-${i}`);
    const base = shardOf(ids);
    const [baseHash] = await putObjects(h.db.prisma, [{ kind: 'shard', data: base }]);
    const next: Record<string, PageEntry> = { ...base };
    next['page-3'] = entry('page-3', { title: 'Renamed', description: 'Now with a description', hidden: true });
    next['page-7'] = { ...entry('page-7'), emoji: undefined, icon: 'book' };
    delete next['page-9'];
    next['page-new'] = entry('page-new', { parent: 'page-1', position: 0.5, computed: { type: 'openapi', spec: 'pets' } as never });
    const [hash] = await putObjects(h.db.prisma, [{ kind: 'shard', data: next, from: { hash: baseHash!, data: base } }]);
    expect(hash).toBe(hashOf('shard', next));
    const stored = await storedAs(hash!);
    expect(sameJson(stored, next)).toBe(true);
    expect(hashOf('shard', stored)).toBe(hash);
    expect(Object.keys(stored)).toHaveLength(40);
    expect(stored['page-9']).toBeUndefined();
    // The base is unchanged (objects are immutable).
    expect(sameJson(await storedAs(baseHash!), base)).toBe(true);
  });

  it('send a mostly new shard whole, and an unchanged one as nothing new', async () => {
    const base = shardOf(['a', 'b', 'c', 'd']);
    const [baseHash] = await putObjects(h.db.prisma, [{ kind: 'shard', data: base }]);
    const other = shardOf(['e', 'f', 'g']);
    const [otherHash, sameHash] = await putObjects(h.db.prisma, [
      { kind: 'shard', data: other, from: { hash: baseHash!, data: base } },
      { kind: 'shard', data: { ...base }, from: { hash: baseHash!, data: base } },
    ]);
    expect(sameJson(await storedAs(otherHash!), other)).toBe(true);
    expect(sameHash).toBe(baseHash);
  });

  it('fail rather than store a wrong object when the shard it was made from is not stored', async () => {
    const base = shardOf(['x', 'y', 'z', 'w', 'v']);
    const next = { ...base, x: entry('x', { title: 'X' }) };
    await expect(putObjects(h.db.prisma, [{ kind: 'shard', data: next, from: { hash: 'no-such-object', data: base } }])).rejects.toThrow();
    expect((await getObjects(h.db.prisma, [hashOf('shard', next)])).size).toBe(0);
  });
});
