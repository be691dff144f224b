import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { byPosition, indexFor, placeAt, type Positioned } from '../../src/positions.js';
import { setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { writeLive } from '../support/content-writes.js';

/**
 * Fractional positions (src/positions.ts): the helper itself, and 300 insertions before the same
 * sibling among pages, collections and site sections through the REST API, where each one halves
 * the same gap (a float runs out after about 50): the order must stay exactly right.
 */

const item = (id: string, position: number): Positioned => ({ id, position });

/** What the database keeps of a double (measured through Prisma: 16 significant digits, 1 + 2^-52 comes back as 1). */
const storedByDatabase = (x: number) => Number(x.toPrecision(16));

/** Inserts at `index` as a caller does: applies the renumbering, then the new item, as stored. */
function insert(list: Positioned[], index: number, id: string) {
  const { position, renumber } = placeAt(list, index);
  for (const r of renumber) r.item.position = storedByDatabase(r.position);
  list.splice(index, 0, item(id, storedByDatabase(position)));
  return renumber.length;
}

function expectStrictlyIncreasing(list: Positioned[]) {
  for (let i = 1; i < list.length; i++)
    expect(list[i]!.position, `${list[i - 1]!.position} < ${list[i]!.position} at ${i}`).toBeGreaterThan(list[i - 1]!.position);
}

describe('placeAt (unit)', () => {
  it('places first, at the end, at the start and between without renumbering', () => {
    expect(placeAt([], 0)).toEqual({ position: 0, renumber: [] });
    const list = [item('a', 1), item('b', 2)];
    expect(placeAt(list, 2)).toEqual({ position: 3, renumber: [] });
    expect(placeAt(list, 0)).toEqual({ position: 0, renumber: [] });
    expect(placeAt(list, 1)).toEqual({ position: 1.5, renumber: [] });
  });

  it('renumbers a small window when two neighbours have no float between them, keeping the rest', () => {
    const tight = 1 + Number.EPSILON;
    const list = [item('x', -5), item('a', 1), item('b', tight), item('y', 9)];
    const { position, renumber } = placeAt(list, 2);
    expect(renumber.map((r) => r.item.id).sort()).toEqual(['a', 'b']);
    const after = [
      item('x', -5),
      item('a', renumber.find((r) => r.item.id === 'a')!.position),
      item('new', position),
      item('b', renumber.find((r) => r.item.id === 'b')!.position),
      item('y', 9),
    ];
    expectStrictlyIncreasing(after);
  });

  it('renumbers equal positions (ties from older data) instead of adding a third equal one', () => {
    const list = [item('a', 2), item('b', 2)];
    const { position, renumber } = placeAt(list, 1);
    expect(renumber).toHaveLength(2);
    expectStrictlyIncreasing([item('a', renumber[0]!.position), item('n', position), item('b', renumber[1]!.position)]);
  });

  it('keeps the order through 10,000 insertions before one sibling, and 3,000 at random places, renumbering rarely', () => {
    const list = [item('first', 1), item('anchor', 2), item('last', 3)];
    let writes = 0;
    for (let i = 0; i < 10_000; i++) writes += insert(list, list.length - 2, `x${i}`);
    expect(list.map((p) => p.id)).toEqual(['first', ...Array.from({ length: 10_000 }, (_, i) => `x${i}`), 'anchor', 'last']);
    expectStrictlyIncreasing(list);
    // Amortized: a few renumbered rows per insertion, not the whole list each time.
    expect(writes / 10_000).toBeLessThan(5);

    // A deterministic pseudo-random mix of places (many at the front, where gaps are smallest).
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const mixed: Positioned[] = [];
    const expected: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const index = random() < 0.5 ? Math.min(1, mixed.length) : Math.floor(random() * (mixed.length + 1));
      insert(mixed, index, `r${i}`);
      expected.splice(index, 0, `r${i}`);
    }
    expect(mixed.map((p) => p.id)).toEqual(expected);
    expectStrictlyIncreasing(mixed);
  });

  it('orders by position, ties by id; indexFor resolves before/after pointers', () => {
    expect([item('b', 1), item('a', 1), item('c', 0)].sort(byPosition).map((p) => p.id)).toEqual(['c', 'a', 'b']);
    const list = ['a', 'b', 'c'];
    expect(indexFor(list, null)).toBe(3);
    expect(indexFor(list, { after: false, matches: (s) => s === 'b' })).toBe(1);
    expect(indexFor(list, { after: true, matches: (s) => s === 'b' })).toBe(2);
    expect(indexFor(list, { after: true, matches: (s) => s === 'z' })).toBe(-1);
  });
});

describe('300 insertions before the same sibling (REST)', () => {
  const N = 300;
  let h: Harness;
  let owner: TestUser & { orgId: string };
  beforeAll(async () => {
    h = await setupHarness();
    owner = await h.owner();
  });

  const ok = async (method: string, path: string, body?: unknown, status = 200) => {
    const res = await h.call(method, path, { token: owner.token, body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
    return res.body;
  };

  it('pages: write batches of insert_page before one page', async () => {
    const space = await ok('POST', `/v1/orgs/${owner.orgId}/spaces`, { title: 'Docs' }, 201);
    const [first, anchor] = (
      await writeLive(h, owner.token, space.id, [
        { operation: 'insert_page', title: 'First', document: { markdown: '' } },
        { operation: 'insert_page', title: 'Anchor', document: { markdown: '' } },
      ])
    ).pages;
    const inserted: string[] = [];
    for (let batch = 0; batch < N / 50; batch++) {
      // Each change goes just before the anchor: `at` is the anchor's index among the siblings at that moment.
      const changes = Array.from({ length: 50 }, (_, i) => ({
        operation: 'insert_page',
        title: `P ${batch * 50 + i}`,
        at: 1 + batch * 50 + i,
        document: { markdown: '' },
      }));
      inserted.push(...(await writeLive(h, owner.token, space.id, changes)).pages);
    }
    const pages = (await ok('GET', `/v1/spaces/${space.id}/content/pages`)).pages as { id: string }[];
    expect(pages.map((p) => p.id)).toEqual([first, ...inserted, anchor]);
  });

  it('collections: moves before one collection', async () => {
    const first = await ok('POST', `/v1/orgs/${owner.orgId}/collections`, { title: 'First' }, 201);
    const anchor = await ok('POST', `/v1/orgs/${owner.orgId}/collections`, { title: 'Anchor' }, 201);
    // Created directly after the anchor (one statement rather than 300 requests): each is then moved through REST.
    const ids = Array.from({ length: N }, () => newId());
    await h.db.prisma.collection.createMany({
      data: ids.map((id, i) => ({ id, organizationId: owner.orgId, title: `C ${i}`, position: 100 + i })),
    });
    for (const id of ids)
      await ok('POST', `/v1/collections/${id}/move`, { position: { before: { type: 'collection', collection: anchor.id } } });
    const listed = (await ok('GET', `/v1/orgs/${owner.orgId}/collections?limit=1000`)).items as { id: string }[];
    expect(listed.map((c) => c.id)).toEqual([first.id, ...ids, anchor.id]);
    const rows = await h.db.prisma.collection.findMany({ where: { organizationId: owner.orgId } });
    expect(new Set(rows.map((r) => r.position)).size).toBe(N + 2);
  });

  it('site sections: moves before one section', async () => {
    const site = await ok('POST', `/v1/orgs/${owner.orgId}/sites`, { title: 'Site' }, 201);
    const path = `/v1/orgs/${owner.orgId}/sites/${site.id}`;
    const sectionFor = async (title: string) => {
      const space = await ok('POST', `/v1/orgs/${owner.orgId}/spaces`, { title }, 201);
      return (await ok('POST', `${path}/sections`, { spaceId: space.id, title }, 201)).id as string;
    };
    const first = await sectionFor('First');
    const anchor = await sectionFor('Anchor');
    // Sections without site spaces, created after the anchor in one statement, then each moved through REST.
    const ids = Array.from({ length: N }, () => newId());
    await h.db.prisma.siteSection.createMany({
      data: ids.map((id, i) => ({ id, siteId: site.id, title: `S ${i}`, path: `s-${i}`, position: 100 + i })),
    });
    for (const id of ids)
      await ok('POST', `${path}/sections/${id}/move`, { position: { before: { type: 'site-section', siteSection: anchor } } });
    const listed = (await ok('GET', `${path}/sections?limit=1000`)).items as { id: string }[];
    expect(listed.map((s) => s.id)).toEqual([first, ...ids, anchor]);
    const rows = await h.db.prisma.siteSection.findMany({ where: { siteId: site.id } });
    expect(new Set(rows.map((r) => r.position)).size).toBe(N + 2);
  });
});
