import { beforeAll, describe, expect, it } from 'vitest';
import { Content, ContentWriter, repairSpaces } from '../../src/modules/content/index.js';
import { newId } from '../../src/ids.js';
import { setupHarness, type Harness } from '../support/harness.js';
import { writeCr } from '../support/content-writes.js';

/**
 * Data written before merges settled the tree can hold a ring of parents or a page whose parent is
 * missing. Reading such a revision never fails (every page is listed once, at the top level where
 * its place is broken), and `lectern repair` (repairSpaces) writes the repair in a new revision.
 */
let h: Harness;
let owner: Awaited<ReturnType<Harness['owner']>>;
beforeAll(async () => {
  h = await setupHarness();
  owner = await h.owner();
});

type Node = { id: string; title: string; pages?: Node[] };
const flat = (nodes: Node[]): string[] => nodes.flatMap((n) => [n.title, ...flat(n.pages ?? [])]);

/** A space whose main holds a ring (A → B → A), an orphan (C under a page that is not there) and a sound page D with a child E. */
async function brokenSpace() {
  const space = (await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'Old data' } })).body as {
    id: string;
  };
  const cr = (await h.call('POST', `/v1/spaces/${space.id}/change-requests`, { token: owner.token, body: { subject: 'Seed' } })).body as {
    id: string;
  };
  const { pages } = await writeCr(
    h,
    owner.token,
    space.id,
    cr.id,
    ['A', 'B', 'C', 'D'].map((title) => ({ operation: 'insert_page', title, document: { markdown: `${title}\n` } })),
  );
  const [a, b, c, d] = pages as [string, string, string, string];
  await writeCr(h, owner.token, space.id, cr.id, [{ operation: 'insert_page', title: 'E', into: d, document: { markdown: 'E\n' } }]);
  expect((await h.call('POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/merge`, { token: owner.token })).status).toBe(200);
  const row = await h.db.prisma.space.findUniqueOrThrow({ where: { id: space.id } });
  const head = await h.db.prisma.revision.findUniqueOrThrow({ where: { id: row.revisionId } });
  const writer = new ContentWriter(await Content.load(h.db.prisma, head.manifest));
  await writer.put({ ...(await writer.get(a))!, parent: b });
  await writer.put({ ...(await writer.get(b))!, parent: a });
  await writer.put({ ...(await writer.get(c))!, parent: 'missing-page-id' });
  const manifest = await writer.write(h.db.prisma);
  const revision = newId();
  await h.db.prisma.revision.create({ data: { id: revision, spaceId: space.id, parents: [head.id], type: 'edits', manifest } });
  await h.db.prisma.space.update({ where: { id: space.id }, data: { revisionId: revision } });
  return { space: space.id, pages: { a, b, c, d } };
}

describe('pages outside the tree', () => {
  it('are read, listed once each, never a 500', async () => {
    const { space, pages } = await brokenSpace();
    const listed = await h.call('GET', `/v1/spaces/${space}/content/pages`, { token: owner.token });
    expect(listed.status).toBe(200);
    expect(flat(listed.body.pages).sort()).toEqual(['A', 'B', 'C', 'D', 'E']);
    for (const id of Object.values(pages))
      expect((await h.call('GET', `/v1/spaces/${space}/content/page/${id}`, { token: owner.token })).status).toBe(200);
    const revision = (await h.db.prisma.space.findUniqueOrThrow({ where: { id: space } })).revisionId;
    expect((await h.call('GET', `/v1/spaces/${space}/revisions/${revision}/changes`, { token: owner.token })).status).toBe(200);
  });

  it('are re-attached at the top level by repair, in a new revision, and a second repair finds nothing', async () => {
    const { space, pages } = await brokenSpace();
    const before = (await h.db.prisma.space.findUniqueOrThrow({ where: { id: space } })).revisionId;
    const repaired = (await repairSpaces(h.db.prisma)).filter((r) => r.spaceId === space);
    expect(repaired).toHaveLength(1);
    expect(repaired[0]!.pages.sort()).toEqual([pages.a < pages.b ? pages.a : pages.b, pages.c].sort());
    const row = await h.db.prisma.space.findUniqueOrThrow({ where: { id: space } });
    expect(row.revisionId).toBe(repaired[0]!.revision);
    expect((await h.db.prisma.revision.findUniqueOrThrow({ where: { id: row.revisionId } })).parents).toEqual([before]);
    const revision = await h.db.prisma.revision.findUniqueOrThrow({ where: { id: row.revisionId } });
    const entries = await (await Content.load(h.db.prisma, revision.manifest)).allPages();
    const byId = new Map(entries.map((e) => [e.id, e]));
    for (const e of entries) {
      const seen = new Set<string>();
      for (let p = e; p.parent; p = byId.get(p.parent)!) {
        expect(byId.has(p.parent)).toBe(true);
        expect(seen.has(p.parent)).toBe(false);
        seen.add(p.parent);
      }
    }
    expect(byId.get(pages.c)!.parent).toBeNull();
    expect(entries).toHaveLength(5);
    expect((await repairSpaces(h.db.prisma)).filter((r) => r.spaceId === space)).toEqual([]);
  });
});
