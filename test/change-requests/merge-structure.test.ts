import { beforeAll, describe, expect, it } from 'vitest';
import type { Change } from '../support/content-writes.js';
import { createCr, h, merge, owner, setupChangeRequests, update, write } from './fixtures.js';

/**
 * The rules of the one merge of structure, each by example (docs/using-the-api.md, "When change requests meet"):
 * moves that close a cycle, a page placed under a deleted page, no-op writes, renumbered positions,
 * deletes against edits, inserts, renames and reorders on both sides — through REST and GraphQL, on
 * merge and on update from main.
 */
beforeAll(setupChangeRequests);

type Node = { id: string; title: string; slug: string; pages?: Node[] };

async function spaceWith(titles: string[]) {
  const space = (await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'Docs' } })).body as {
    id: string;
  };
  const seed = await openCr(space.id);
  const { pages } = await write(
    space.id,
    seed.id,
    titles.map((title) => ({ operation: 'insert_page', title, document: { markdown: `${title} body\n` } })),
  );
  expect((await merge(space.id, seed.id)).status).toBe(200);
  return { space: space.id, pages };
}
const openCr = (spaceId: string, subject = 'Edit') => createCr(spaceId, { subject });
const move = (page: string, into: string | null, at?: number): Change => ({
  operation: 'update_page',
  page,
  into,
  ...(at !== undefined ? { at } : {}),
});

async function tree(spaceId: string, crId?: string): Promise<Node[]> {
  const path = crId ? `/v1/spaces/${spaceId}/change-requests/${crId}/content/pages` : `/v1/spaces/${spaceId}/content/pages`;
  const res = await h.call('GET', path, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.pages;
}
const shape = (nodes: Node[]): unknown[] => nodes.map((n) => (n.pages?.length ? { [n.title]: shape(n.pages) } : n.title));
const titlesIn = (nodes: Node[]): string[] => nodes.flatMap((n) => [n.title, ...titlesIn(n.pages ?? [])]);

describe("moves on both sides that close a cycle: main's placement wins", () => {
  it('A into B here, B into A there: merged in either order, both pages stay, as main has them', async () => {
    const {
      space,
      pages: [a, b],
    } = await spaceWith(['A', 'B']);
    const [cr2, cr3] = [await openCr(space), await openCr(space)];
    await write(space, cr2.id, [move(b!, a!)]);
    await write(space, cr3.id, [move(a!, b!)]);
    expect((await merge(space, cr3.id)).status).toBe(200);
    const res = await merge(space, cr2.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(shape(await tree(space))).toEqual([{ B: ['A'] }]);
    for (const page of [a, b])
      expect((await h.call('GET', `/v1/spaces/${space}/content/page/${page}`, { token: owner.token })).status).toBe(200);
    const changes = await h.call('GET', `/v1/spaces/${space}/revisions/${res.body.revision}/changes`, { token: owner.token });
    expect(changes.status).toBe(200);
  });

  it('a ring of three over three change requests keeps all three pages', async () => {
    const {
      space,
      pages: [a, b, c],
    } = await spaceWith(['A', 'B', 'C']);
    const crs = [await openCr(space), await openCr(space), await openCr(space)];
    await write(space, crs[0]!.id, [move(a!, b!)]);
    await write(space, crs[1]!.id, [move(b!, c!)]);
    await write(space, crs[2]!.id, [move(c!, a!)]);
    for (const cr of crs) expect((await merge(space, cr.id)).status).toBe(200);
    // A into B, then B into C; C into A would close the ring, so C stays where main has it.
    expect(shape(await tree(space))).toEqual([{ C: [{ B: ['A'] }] }]);
  });

  it('a longer ring through a child (main moves b1 under b10, the branch b10 under b3, a child of b1)', async () => {
    const { space, pages } = await spaceWith(Array.from({ length: 10 }, (_, i) => `b${i + 1}`));
    const setup = await openCr(space);
    await write(space, setup.id, [move(pages[2]!, pages[0]!)]);
    expect((await merge(space, setup.id)).status).toBe(200);
    const [mainSide, branch] = [await openCr(space), await openCr(space)];
    await write(space, mainSide.id, [move(pages[0]!, pages[9]!)]);
    await write(space, branch.id, [move(pages[9]!, pages[2]!)]);
    expect((await merge(space, mainSide.id)).status).toBe(200);
    expect((await merge(space, branch.id)).status).toBe(200);
    const after = await tree(space);
    expect(titlesIn(after).sort()).toEqual(pages.map((_, i) => `b${i + 1}`).sort());
    expect(shape(after).find((n) => typeof n === 'object' && 'b10' in (n as object))).toEqual({ b10: [{ b1: ['b3'] }] });
  });

  it('update from main settles the ring in the change request the same way (main wins)', async () => {
    const {
      space,
      pages: [a, b],
    } = await spaceWith(['A', 'B']);
    const [first, second] = [await openCr(space), await openCr(space)];
    await write(space, first.id, [move(a!, b!)]);
    await write(space, second.id, [move(b!, a!)]);
    expect((await merge(space, first.id)).status).toBe(200);
    expect((await update(space, second.id)).status).toBe(200);
    expect(shape(await tree(space, second.id))).toEqual([{ B: ['A'] }]);
    expect((await merge(space, second.id)).status).toBe(200);
    expect(shape(await tree(space))).toEqual([{ B: ['A'] }]);
  });

  it('GraphQL merges by the same rule', async () => {
    const {
      space,
      pages: [a, b],
    } = await spaceWith(['A', 'B']);
    const [first, second] = [await openCr(space), await openCr(space)];
    await write(space, first.id, [move(a!, b!)]);
    await write(space, second.id, [move(b!, a!)]);
    const mutation = 'mutation($s: ID!, $c: String!) { mergeChangeRequest(spaceId: $s, changeRequestId: $c) { result } }';
    for (const cr of [first, second]) {
      const res = await h.graphql(owner.token, mutation, { s: space, c: cr.id });
      expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
    }
    expect(shape(await tree(space))).toEqual([{ B: ['A'] }]);
  });
});

describe('a conflict is only what really conflicts', () => {
  it('an update that changes nothing does not conflict with a delete', async () => {
    const {
      space,
      pages: [, b],
    } = await spaceWith(['A', 'B']);
    const [deletes, touches] = [await openCr(space), await openCr(space)];
    await write(space, deletes.id, [{ operation: 'delete_page', page: b! }]);
    await write(space, touches.id, [{ operation: 'update_page', page: b!, title: 'B' }]);
    expect((await h.call('GET', `/v1/spaces/${space}/change-requests/${touches.id}/changes`, { token: owner.token })).body.changes).toEqual(
      [],
    );
    expect((await merge(space, deletes.id)).status).toBe(200);
    expect((await update(space, touches.id)).status).toBe(200);
    expect((await merge(space, touches.id)).status).toBe(200);
    expect(shape(await tree(space))).toEqual(['A']);
  });

  it('positions renumbered by 48 inserts are no move: no page_moved, and a delete of a renumbered page merges', async () => {
    const {
      space,
      pages: [, b],
    } = await spaceWith(['A', 'B', 'C']);
    const [inserts, deletes] = [await openCr(space), await openCr(space)];
    await write(
      space,
      inserts.id,
      Array.from({ length: 48 }, (_, i) => ({ operation: 'insert_page', title: `New ${i}`, document: { markdown: '' }, at: 2 })),
    );
    const changes = (await h.call('GET', `/v1/spaces/${space}/change-requests/${inserts.id}/changes?limit=100`, { token: owner.token }))
      .body.changes as { type: string }[];
    expect(changes.filter((c) => c.type === 'page_moved')).toEqual([]);
    expect(changes.filter((c) => c.type === 'page_created')).toHaveLength(48);
    await write(space, deletes.id, [{ operation: 'delete_page', page: b! }]);
    expect((await merge(space, deletes.id)).status).toBe(200);
    const res = await merge(space, inserts.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const titles = (await tree(space)).map((n) => n.title);
    expect(titles).toHaveLength(50);
    expect(titles[0]).toBe('A');
    expect(titles.at(-1)).toBe('C');
    expect(titles).not.toContain('B');
  });
});

describe('the written rules for both sides', () => {
  it('delete against an edit: 409 naming the page, nothing changed', async () => {
    const {
      space,
      pages: [a],
    } = await spaceWith(['A', 'B']);
    const [deletes, edits] = [await openCr(space), await openCr(space)];
    await write(space, deletes.id, [{ operation: 'delete_page', page: a! }]);
    await write(space, edits.id, [{ operation: 'update_page', page: a!, document: { markdown: 'A edited\n' } }]);
    expect((await merge(space, deletes.id)).status).toBe(200);
    const before = await h.snapshot();
    const res = await merge(space, edits.id);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain('"A"');
    expect(res.body.error.message).toContain('deleted on one side and changed on the other');
    expect(await h.snapshot()).toBe(before);
  });

  it("inserts with the same title under the same parent on both sides: both kept, main's keeps the slug", async () => {
    const { space } = await spaceWith(['A']);
    const [one, two] = [await openCr(space), await openCr(space)];
    await write(space, one.id, [{ operation: 'insert_page', title: 'Setup', document: { markdown: 'one\n' } }]);
    await write(space, two.id, [{ operation: 'insert_page', title: 'Setup', document: { markdown: 'two\n' } }]);
    expect((await merge(space, one.id)).status).toBe(200);
    expect((await merge(space, two.id)).status).toBe(200);
    const after = await tree(space);
    expect(after.map((n) => n.title)).toEqual(['A', 'Setup', 'Setup']);
    expect(after.map((n) => n.slug).sort()).toEqual(['a', 'setup', 'setup-1']);
  });

  it('renames on both sides: the same name merges, different names conflict', async () => {
    const {
      space,
      pages: [a, b],
    } = await spaceWith(['A', 'B']);
    const [one, two] = [await openCr(space), await openCr(space)];
    await write(space, one.id, [
      { operation: 'update_page', page: a!, title: 'Alpha' },
      { operation: 'update_page', page: b!, title: 'Beta' },
    ]);
    await write(space, two.id, [
      { operation: 'update_page', page: a!, title: 'Alpha' },
      { operation: 'update_page', page: b!, title: 'Bravo' },
    ]);
    expect((await merge(space, one.id)).status).toBe(200);
    const res = await merge(space, two.id);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain('title changed differently on both sides');
    expect(res.body.error.message).not.toContain('"Alpha"');
  });

  it('reorders on both sides: different pages merge, the same page moved differently conflicts', async () => {
    const {
      space,
      pages: [a, b, c, d],
    } = await spaceWith(['A', 'B', 'C', 'D']);
    const [one, two, three] = [await openCr(space), await openCr(space), await openCr(space)];
    await write(space, one.id, [move(a!, null, 3)]); // B C D A
    await write(space, two.id, [move(d!, null, 0)]); // D A B C
    await write(space, three.id, [move(a!, null, 1)]); // B A C D
    expect((await merge(space, one.id)).status).toBe(200);
    expect((await merge(space, two.id)).status).toBe(200);
    expect((await tree(space)).map((n) => n.title)).toEqual(['D', 'B', 'C', 'A']);
    const res = await merge(space, three.id);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain('moved differently on both sides');
    void b;
    void c;
  });
});
