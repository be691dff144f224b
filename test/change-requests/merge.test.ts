import { beforeAll, describe, expect, it } from 'vitest';
import { createCr, h, merge, newSpace, owner, setupChangeRequests, write } from './fixtures.js';

/** Merge semantics: fast-forward, clean three-way, conflicts (409, nothing changed), revisions never mutated. */
beforeAll(setupChangeRequests);

const openCr = (spaceId: string, subject = 'Edit') => createCr(spaceId, { subject });
async function pageMarkdown(spaceId: string, pageId: string) {
  const res = await h.rest('getPageById', 'GET', `/v1/spaces/${spaceId}/content/page/${pageId}?format=markdown`, { token: owner.token });
  return res.body.markdown as string;
}

describe('change request merges', () => {
  it('fast-forwards when main has not moved', async () => {
    const space = await newSpace();
    const cr = await openCr(space.id);
    const { revision, pages } = await write(space.id, cr.id, [
      { operation: 'insert_page', title: 'Intro', document: { markdown: '# Hello\n\nWorld' } },
    ]);
    const merged = await h.rest('mergeChangeRequest', 'POST', `/v1/spaces/${space.id}/change-requests/${cr.number}/merge`, {
      token: owner.token,
    });
    expect(merged.body).toEqual({ revision, result: 'merge' });
    expect((await h.call('GET', `/v1/spaces/${space.id}`, { token: owner.token })).body.revision).toBe(revision);
    expect(await pageMarkdown(space.id, pages[0]!)).toBe('# Hello\n\nWorld');
    const after = await h.rest('getChangeRequestById', 'GET', `/v1/spaces/${space.id}/change-requests/${cr.id}`, { token: owner.token });
    expect(after.body).toMatchObject({ status: 'merged', revisionMerged: revision, outdated: false });
  });

  it('merges three ways: body edits in different places and a move with an edit', async () => {
    const space = await newSpace();
    const seed = await openCr(space.id);
    const seeded = await write(space.id, seed.id, [
      { operation: 'insert_page', title: 'Guide', document: { markdown: 'line 1\nline 2\nline 3\nline 4\nline 5\n' } },
      { operation: 'insert_page', title: 'Folder', document: { markdown: '' } },
    ]);
    expect((await merge(space.id, seed.id)).status).toBe(200);
    const [guide, folder] = seeded.pages as [string, string];

    const a = await openCr(space.id, 'A');
    const b = await openCr(space.id, 'B');
    await write(space.id, a.id, [
      { operation: 'update_page', page: guide, document: { markdown: 'line 1 (a)\nline 2\nline 3\nline 4\nline 5\n' } },
    ]);
    await write(space.id, b.id, [
      { operation: 'update_page', page: guide, document: { markdown: 'line 1\nline 2\nline 3\nline 4\nline 5 (b)\n' }, into: folder },
    ]);
    expect((await merge(space.id, a.id)).status).toBe(200);
    const before = await h.db.prisma.revision.findMany({ orderBy: { id: 'asc' } });
    const res = await merge(space.id, b.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const head = await h.db.prisma.revision.findUnique({ where: { id: res.body.revision } });
    expect(head).toMatchObject({ type: 'merge' });
    expect(head!.parents).toHaveLength(2);
    expect(await pageMarkdown(space.id, guide)).toBe('line 1 (a)\nline 2\nline 3\nline 4\nline 5 (b)\n');
    const pages = (await h.rest('listPages', 'GET', `/v1/spaces/${space.id}/content/pages`, { token: owner.token })).body.pages;
    const folderPage = pages.find((p: { id: string }) => p.id === folder);
    expect(folderPage.pages.map((p: { id: string }) => p.id)).toEqual([guide]);
    // Revisions are immutable: every earlier revision row is exactly as it was.
    const still = await h.db.prisma.revision.findMany({ where: { id: { in: before.map((r) => r.id) } }, orderBy: { id: 'asc' } });
    expect(still).toEqual(before);
  });

  it('answers 409 naming the page on a true conflict, and changes nothing', async () => {
    const space = await newSpace();
    const seed = await openCr(space.id);
    const { pages } = await write(space.id, seed.id, [{ operation: 'insert_page', title: 'Spec', document: { markdown: 'same line\n' } }]);
    await merge(space.id, seed.id);
    const a = await openCr(space.id, 'A');
    const b = await openCr(space.id, 'B');
    await write(space.id, a.id, [{ operation: 'update_page', page: pages[0], document: { markdown: 'from a\n' } }]);
    await write(space.id, b.id, [{ operation: 'update_page', page: pages[0], document: { markdown: 'from b\n' } }]);
    expect((await merge(space.id, a.id)).status).toBe(200);
    const before = await h.snapshot();
    const crBefore = await h.db.prisma.changeRequest.findUnique({ where: { id: b.id } });
    const res = await merge(space.id, b.id);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain('Spec');
    expect(await h.snapshot()).toBe(before);
    expect(await h.db.prisma.changeRequest.findUnique({ where: { id: b.id } })).toEqual(crBefore);
    // `update` reports the same conflict; the change request can then resolve it by reverting.
    expect((await h.call('POST', `/v1/spaces/${space.id}/change-requests/${b.id}/update`, { token: owner.token })).status).toBe(409);
    await write(space.id, b.id, [{ operation: 'revert_page', page: pages[0] }]);
    const updated = await h.rest('updateChangeRequest', 'POST', `/v1/spaces/${space.id}/change-requests/${b.id}/update`, {
      token: owner.token,
    });
    expect(updated.body.result).toBe('update');
    const fresh = await h.rest('getChangeRequestById', 'GET', `/v1/spaces/${space.id}/change-requests/${b.id}`, { token: owner.token });
    expect(fresh.body.outdated).toBe(false);
  });
  it("keeps pages one side added under a page the other side deleted, at the deleted page's former place", async () => {
    const space = await newSpace();
    const seed = await openCr(space.id);
    // Several parents, so that some sit in other shards than the pages added under them.
    const { pages: parents } = await write(
      space.id,
      seed.id,
      Array.from({ length: 8 }, (_, i) => ({ operation: 'insert_page', title: `Parent ${i}`, document: { markdown: '' } })),
    );
    await merge(space.id, seed.id);
    const adds = await openCr(space.id, 'Adds');
    const removes = await openCr(space.id, 'Removes');
    await write(
      space.id,
      adds.id,
      parents.map((parent, i) => ({ operation: 'insert_page', title: `Child ${i}`, into: parent, document: { markdown: '' } })),
    );
    await write(
      space.id,
      removes.id,
      parents.slice(0, 4).map((page) => ({ operation: 'delete_page', page })),
    );
    expect((await merge(space.id, removes.id)).status).toBe(200);
    const res = await merge(space.id, adds.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const tree = (await h.call('GET', `/v1/spaces/${space.id}/content/pages`, { token: owner.token })).body.pages as {
      title: string;
      pages?: { title: string }[];
    }[];
    // Top level, in order: each deleted parent's child where the parent was, then the parents kept with their child.
    expect(tree.map((p) => p.title)).toEqual(['Child 0', 'Child 1', 'Child 2', 'Child 3', 'Parent 4', 'Parent 5', 'Parent 6', 'Parent 7']);
    expect(tree.slice(4).map((p) => p.pages?.map((c) => c.title))).toEqual([['Child 4'], ['Child 5'], ['Child 6'], ['Child 7']]);
  });
  it('issues as many SQL statements for a three-way merge in a space of 510 pages as in one of 60', async () => {
    const statementsOfMerge = async (childrenPerParent: number) => {
      const space = await newSpace();
      const seed = await openCr(space.id);
      const { pages: parents } = await write(
        space.id,
        seed.id,
        Array.from({ length: 10 }, (_, i) => ({
          operation: 'insert_page',
          title: `Part ${i}`,
          document: { markdown: 'line a\nline b\nline c\n' },
        })),
      );
      for (const parent of parents) {
        await write(
          space.id,
          seed.id,
          Array.from({ length: childrenPerParent - 1 }, (_, i) => ({
            operation: 'insert_page',
            title: `Page ${i}`,
            into: parent,
            document: { markdown: `Page ${i}\n` },
          })),
        );
      }
      await merge(space.id, seed.id);
      const [a, b] = [await openCr(space.id, 'A'), await openCr(space.id, 'B')];
      // Both edit the same five pages in different lines: a real three-way body merge.
      await write(
        space.id,
        a.id,
        parents.slice(0, 5).map((page) => ({ operation: 'update_page', page, document: { markdown: 'line a from A\nline b\nline c\n' } })),
      );
      await write(
        space.id,
        b.id,
        parents.slice(0, 5).map((page) => ({ operation: 'update_page', page, document: { markdown: 'line a\nline b\nline c from B\n' } })),
      );
      expect((await merge(space.id, a.id)).status).toBe(200);
      const before = h.db.statements.count;
      const res = await merge(space.id, b.id);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(await pageMarkdown(space.id, parents[0]!)).toContain('line a from A\nline b\nline c from B');
      return h.db.statements.count - before;
    };
    const small = await statementsOfMerge(6);
    const large = await statementsOfMerge(51);
    expect(large).toBe(small);
  });
});
