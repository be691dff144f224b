import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { rebuildSearchIndex } from '../../src/modules/content/search-index.js';
import { purgeDeletedSpaces } from '../../src/modules/spaces/service.js';
import { BASE, setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { writeCr, writeLive, type Change } from '../support/content-writes.js';

/**
 * Space and organization search: what is found (titles, headings, text), the result shape
 * (sections split at headings, ancestors, urls), freshness after merges and live edits, rights,
 * input limits and pagination. Every write goes through the REST write path.
 */
let h: Harness;
let owner: TestUser & { orgId: string };

beforeAll(async () => {
  h = await setupHarness();
  owner = await h.owner('Search Org');
});

async function newSpace(title = 'Docs', token = owner.token, orgId = owner.orgId) {
  const res = await h.rest('createSpace', 'POST', `/v1/orgs/${orgId}/spaces`, { token, body: { title } });
  expect(res.status).toBe(201);
  return res.body as { id: string; title: string };
}

/** Writes through a change request and merges it; answers the ids of inserted pages. */
async function merged(spaceId: string, changes: Change[], token = owner.token): Promise<string[]> {
  const cr = await h.call('POST', `/v1/spaces/${spaceId}/change-requests`, { token, body: { subject: 'edit' } });
  expect(cr.status, JSON.stringify(cr.body)).toBe(201);
  const written = await writeCr(h, token, spaceId, cr.body.id, changes);
  const merge = await h.call('POST', `/v1/spaces/${spaceId}/change-requests/${cr.body.id}/merge`, { token });
  expect(merge.status, JSON.stringify(merge.body)).toBe(200);
  return written.pages;
}

/** A live edit of main. */
async function live(spaceId: string, changes: Change[], token = owner.token): Promise<string[]> {
  return (await writeLive(h, token, spaceId, changes)).pages;
}

async function search(spaceId: string, query: string, opts: { token?: string; extra?: string } = {}) {
  const res = await h.rest(
    'searchSpaceContent',
    'GET',
    `/v1/spaces/${spaceId}/search?query=${encodeURIComponent(query)}${opts.extra ?? ''}`,
    {
      token: opts.token ?? owner.token,
    },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { items: any[]; count: number; next?: { page: string } };
}

async function orgSearch(orgId: string, query: string, opts: { token?: string; extra?: string } = {}) {
  const res = await h.rest(
    'searchOrganizationContent',
    'GET',
    `/v1/orgs/${orgId}/search?query=${encodeURIComponent(query)}${opts.extra ?? ''}`,
    {
      token: opts.token ?? owner.token,
    },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { items: any[]; count: number; next?: { page: string } };
}

/** The space's index rows, without the revision they were written at. */
async function indexRows(spaceId: string) {
  const rows = await h.db.prisma.searchSection.findMany({
    where: { spaceId },
    select: { pageId: true, sectionId: true, pageTitle: true, pagePath: true, title: true, body: true, ancestors: true, revisionId: true },
    orderBy: [{ pageId: 'asc' }, { sectionId: 'asc' }],
  });
  return rows;
}

/** The incremental index must equal a full rebuild from the space's current revision. */
async function expectIndexMatchesRebuild(spaceId: string) {
  const strip = (rows: Awaited<ReturnType<typeof indexRows>>) => rows.map(({ revisionId: _r, ...rest }) => rest);
  const incremental = strip(await indexRows(spaceId));
  const space = (await h.db.prisma.space.findUnique({ where: { id: spaceId } }))!;
  let rebuilt: ReturnType<typeof strip> = [];
  // Rebuilt inside a transaction that is rolled back: the index under test stays as it was.
  await h.db.prisma
    .$transaction(async (tx) => {
      await rebuildSearchIndex(tx, spaceId, space.revisionId);
      rebuilt = strip(
        await tx.searchSection.findMany({
          where: { spaceId },
          select: {
            pageId: true,
            sectionId: true,
            pageTitle: true,
            pagePath: true,
            title: true,
            body: true,
            ancestors: true,
            revisionId: true,
          },
          orderBy: [{ pageId: 'asc' }, { sectionId: 'asc' }],
        }),
      );
      throw new Error('rollback');
    })
    .catch((e) => {
      if ((e as Error).message !== 'rollback') throw e;
    });
  expect(rebuilt.length).toBeGreaterThan(0);
  expect(incremental).toEqual(rebuilt);
}

const INSTALL_MD = [
  'Before anything else, read about zephyrine winds.',
  '',
  '## Requirements',
  '',
  'You need a quokka runtime and a terminal.',
  '',
  '## Upgrading',
  '',
  'Run the quokka upgrade command, then restart.',
  '',
  '### Rollback',
  '',
  'Nothing to see.',
].join('\n');

describe('space search', () => {
  let space: { id: string };
  let guides: string;
  let install: string;
  let linux: string;

  beforeAll(async () => {
    space = await newSpace('Handbook space');
    guides = (await merged(space.id, [{ operation: 'insert_page', title: 'Guides', document: { markdown: 'All the guides.' } }]))[0]!;
    install = (
      await merged(space.id, [
        {
          operation: 'insert_page',
          title: 'Installation',
          description: 'Setting the handbook up',
          document: { markdown: INSTALL_MD },
          into: guides,
        },
      ])
    )[0]!;
    linux = (
      await merged(space.id, [
        {
          operation: 'insert_page',
          title: 'Linux',
          document: { markdown: '# Packages\n\nUse the marsupial package manager.' },
          into: install,
        },
      ])
    )[0]!;
  });

  it('finds a page by its title, with its path, ancestors and urls (no section when only the title matches)', async () => {
    const res = await search(space.id, 'installation');
    expect(res.count).toBe(1);
    expect(res.items).toEqual([
      {
        id: install,
        title: 'Installation',
        description: 'Setting the handbook up',
        path: 'guides/installation',
        score: expect.any(Number),
        rank: 1,
        sections: [],
        ancestors: [{ title: 'Guides' }],
        urls: { app: `${BASE}/app/s/${space.id}/guides/installation` },
      },
    ]);
    expect(res.next).toBeUndefined();
    // A title match adds 1 to the best section's full-text rank.
    expect(res.items[0].score).toBeGreaterThanOrEqual(1);
  });

  it('finds a heading: the section is split at headings and carries its anchor', async () => {
    const res = await search(space.id, 'Requirements');
    expect(res.items.map((p) => p.id)).toEqual([install]);
    expect(res.items[0].sections).toEqual([
      {
        id: 'requirements',
        title: 'Requirements',
        path: 'guides/installation#requirements',
        score: expect.any(Number),
        body: 'You need a quokka runtime and a terminal.',
        urls: { app: `${BASE}/app/s/${space.id}/guides/installation#requirements` },
      },
    ]);
    // The section's own full-text rank; the page's score is its best section's (the title does not match).
    expect(res.items[0].sections[0].score).toBeGreaterThan(0);
    expect(res.items[0].score).toBeCloseTo(res.items[0].sections[0].score, 5);
  });

  it('finds body words: every matching section, and only those', async () => {
    const res = await search(space.id, 'quokka');
    expect(res.items).toHaveLength(1);
    const sections = res.items[0].sections;
    expect(sections.map((s: { id: string }) => s.id).sort()).toEqual(['requirements', 'upgrading']);
    expect(sections.find((s: { id: string }) => s.id === 'upgrading').body).toContain('quokka upgrade command');
    // A sub-heading is a section of its own: its text is not part of the section above.
    expect(sections.find((s: { id: string }) => s.id === 'upgrading').body).not.toContain('Nothing to see');
    expect((await search(space.id, 'nothing')).items[0].sections.map((s: { id: string }) => s.id)).toEqual(['rollback']);
  });

  it('the text before the first heading is the page itself', async () => {
    const res = await search(space.id, 'zephyrine');
    expect(res.items[0].sections).toEqual([
      {
        id: install,
        title: 'Installation',
        path: 'guides/installation',
        score: expect.any(Number),
        body: 'Before anything else, read about zephyrine winds.',
        urls: { app: `${BASE}/app/s/${space.id}/guides/installation` },
      },
    ]);
  });

  it('a deep page lists all its ancestors from the top', async () => {
    const res = await search(space.id, 'marsupial');
    expect(res.items).toEqual([
      expect.objectContaining({
        id: linux,
        path: 'guides/installation/linux',
        ancestors: [{ title: 'Guides' }, { title: 'Installation' }],
      }),
    ]);
    expect(res.items[0].sections.map((s: { id: string }) => s.id)).toEqual(['packages']);
  });

  it('understands web search syntax: all words, phrases, or, -word', async () => {
    expect((await search(space.id, 'quokka terminal')).items[0].sections.map((s: { id: string }) => s.id)).toEqual(['requirements']);
    expect((await search(space.id, 'quokka nonexistentword')).count).toBe(0);
    expect((await search(space.id, '"upgrade command"')).items[0].sections.map((s: { id: string }) => s.id)).toEqual(['upgrading']);
    expect((await search(space.id, '"command upgrade"')).count).toBe(0);
    expect((await search(space.id, 'marsupial or zephyrine')).items.map((p) => p.id).sort()).toEqual([install, linux].sort());
    expect((await search(space.id, 'guides -marsupial')).items.map((p) => p.id).sort()).toEqual([guides]);
    // Case does not matter; punctuation alone matches nothing (and is no error).
    expect((await search(space.id, 'QUOKKA')).count).toBe(1);
    expect((await search(space.id, '!!! ???')).count).toBe(0);
  });

  it('snippets of long sections are cut around the match', async () => {
    const s = await newSpace('Long');
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
    await merged(s.id, [
      { operation: 'insert_page', title: 'Long page', document: { markdown: `## Part\n\n${filler(300)} platypus ${filler(300)}` } },
    ]);
    const [section] = (await search(s.id, 'platypus')).items[0].sections;
    expect(section.body).toContain('platypus');
    expect(section.body).not.toMatch(/<\/?b>/);
    expect(section.body.length).toBeLessThan(600);
  });

  it('indexes absurdly long headings without failing the merge', async () => {
    const s = await newSpace('Odd');
    // Random letters: an anchor PostgreSQL cannot compress under its index-entry limit.
    const heading = `Tapir ${randomBytes(4000).toString('hex')}`;
    await merged(s.id, [
      {
        operation: 'insert_page',
        title: 'Odd page',
        document: { markdown: `## ${heading}\n\nThe tapir text.\n\n## ${heading}\n\nAnother tapir.` },
      },
    ]);
    const res = await search(s.id, 'tapir');
    expect(res.count).toBe(1);
    const ids = res.items[0].sections.map((x: { id: string }) => x.id);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    expect(ids.every((id: string) => id.length <= 200 && id.startsWith(`tapir-${heading.slice(6, 40)}`))).toBe(true);
  });

  it('ranks a page named after the query before pages that only mention it', async () => {
    const s = await newSpace('Ranking');
    const [, named] = await merged(s.id, [
      { operation: 'insert_page', title: 'Mentions', document: { markdown: 'The wombat, the wombat and the wombat again: wombat.' } },
      { operation: 'insert_page', title: 'Wombat', document: { markdown: 'An animal.' } },
      { operation: 'insert_page', title: 'Unrelated', document: { markdown: 'Nothing here.' } },
    ]);
    const res = await search(s.id, 'wombat');
    expect(res.count).toBe(2);
    expect(res.items[0].id).toBe(named);
    expect(res.items[1].title).toBe('Mentions');
  });
});

describe('freshness: the index follows main', () => {
  it('change-request content is not searchable until merged', async () => {
    const space = await newSpace();
    const cr = await h.call('POST', `/v1/spaces/${space.id}/change-requests`, { token: owner.token, body: { subject: 'draft' } });
    const written = await writeCr(h, owner.token, space.id, cr.body.id, [
      { operation: 'insert_page', title: 'Draft page', document: { markdown: 'A xylophonic secret.' } },
    ]);
    expect((await search(space.id, 'xylophonic')).count).toBe(0);
    expect((await orgSearch(owner.orgId, 'xylophonic')).count).toBe(0);
    expect((await h.call('POST', `/v1/spaces/${space.id}/change-requests/${cr.body.id}/merge`, { token: owner.token })).status).toBe(200);
    const res = await search(space.id, 'xylophonic');
    expect(res.items.map((p) => p.id)).toEqual(written.pages);
  });

  it('follows body edits, renames, moves and deletes (merged and live), touching only what changed', async () => {
    const space = await newSpace();
    const [top, other] = await merged(space.id, [
      { operation: 'insert_page', title: 'Alpha', document: { markdown: 'Top text.' } },
      { operation: 'insert_page', title: 'Beta', document: { markdown: 'Other text.' } },
    ]);
    const [mid] = await merged(space.id, [
      { operation: 'insert_page', title: 'Middle', document: { markdown: '## Setup\n\nThe gnarled oak.' }, into: top },
    ]);
    const [leaf] = await merged(space.id, [
      { operation: 'insert_page', title: 'Leaf', document: { markdown: 'Deep kestrel text.' }, into: mid },
    ]);
    await expectIndexMatchesRebuild(space.id);

    // A body edit: the old words are gone, the new ones found; only that page's rows were rewritten.
    const before = await indexRows(space.id);
    await merged(space.id, [
      { operation: 'update_page', page: mid, document: { markdown: '## Setup\n\nThe silver birch.\n\n## Usage\n\nMore birch.' } },
    ]);
    expect((await search(space.id, 'oak')).count).toBe(0);
    const birch = await search(space.id, 'birch');
    expect(birch.items.map((p) => p.id)).toEqual([mid]);
    expect(birch.items[0].sections.map((s: { id: string }) => s.id).sort()).toEqual(['setup', 'usage']);
    const after = await indexRows(space.id);
    const head = (await h.db.prisma.space.findUnique({ where: { id: space.id } }))!.revisionId;
    expect(after.filter((r) => r.pageId === mid).every((r) => r.revisionId === head)).toBe(true);
    expect(after.filter((r) => r.pageId !== mid)).toEqual(before.filter((r) => r.pageId !== mid));
    await expectIndexMatchesRebuild(space.id);

    // A rename high in the tree: descendants get their new path and ancestors; unrelated pages are untouched.
    // (A renamed page keeps its slug unless one is given: the new slug is given, so the paths change too.)
    const beforeRename = await indexRows(space.id);
    await live(space.id, [{ operation: 'update_page', page: top, title: 'Gamma', slug: 'gamma' }]);
    expect((await search(space.id, 'alpha')).count).toBe(0);
    expect((await search(space.id, 'gamma')).items.map((p) => p.id)).toEqual([top]);
    expect((await search(space.id, 'kestrel')).items).toEqual([
      expect.objectContaining({ id: leaf, path: 'gamma/middle/leaf', ancestors: [{ title: 'Gamma' }, { title: 'Middle' }] }),
    ]);
    expect((await search(space.id, 'birch')).items[0]).toMatchObject({ path: 'gamma/middle', ancestors: [{ title: 'Gamma' }] });
    expect((await indexRows(space.id)).filter((r) => r.pageId === other)).toEqual(beforeRename.filter((r) => r.pageId === other));
    await expectIndexMatchesRebuild(space.id);

    // A move: the subtree follows.
    await merged(space.id, [{ operation: 'update_page', page: mid, into: other }]);
    expect((await search(space.id, 'kestrel')).items[0]).toMatchObject({
      path: 'beta/middle/leaf',
      ancestors: [{ title: 'Beta' }, { title: 'Middle' }],
    });
    await expectIndexMatchesRebuild(space.id);

    // Two levels renamed in one change: both apply.
    await live(space.id, [
      { operation: 'update_page', page: other, title: 'Delta', slug: 'delta' },
      { operation: 'update_page', page: mid, title: 'Center', slug: 'center' },
    ]);
    expect((await search(space.id, 'kestrel')).items[0]).toMatchObject({
      path: 'delta/center/leaf',
      ancestors: [{ title: 'Delta' }, { title: 'Center' }],
    });
    await expectIndexMatchesRebuild(space.id);

    // A delete removes the page and its subtree.
    await merged(space.id, [{ operation: 'delete_page', page: mid }]);
    expect((await search(space.id, 'kestrel')).count).toBe(0);
    expect((await search(space.id, 'birch')).count).toBe(0);
    expect((await indexRows(space.id)).map((r) => r.pageId).sort()).toEqual([top, other].sort());
    await expectIndexMatchesRebuild(space.id);
  });

  it('indexes group pages by title and leaves link pages out', async () => {
    const space = await newSpace();
    await live(space.id, [
      { operation: 'insert_page', type: 'group', title: 'Chinchilla group' },
      { operation: 'insert_page', type: 'link', title: 'Chinchilla link', href: 'https://example.com/' },
    ]);
    const res = await search(space.id, 'chinchilla');
    expect(res.items).toEqual([expect.objectContaining({ title: 'Chinchilla group', path: 'chinchilla-group', sections: [] })]);
    await expectIndexMatchesRebuild(space.id);
  });

  it('a duplicated space is searchable at once', async () => {
    const space = await newSpace('Original');
    await merged(space.id, [{ operation: 'insert_page', title: 'Copied', document: { markdown: 'The ocelot page.' } }]);
    const copy = await h.call('POST', `/v1/spaces/${space.id}/duplicate`, { token: owner.token });
    expect(copy.status).toBe(201);
    const res = await search(copy.body.id, 'ocelot');
    expect(res.items).toEqual([expect.objectContaining({ title: 'Copied', urls: { app: `${BASE}/app/s/${copy.body.id}/copied` } })]);
    await expectIndexMatchesRebuild(copy.body.id);
    // Edits of the copy do not leak into the original.
    await live(copy.body.id, [{ operation: 'update_page', page: res.items[0].id, document: { markdown: 'Now a lynx page.' } }]);
    expect((await search(copy.body.id, 'ocelot')).count).toBe(0);
    expect((await search(space.id, 'ocelot')).count).toBe(1);
  });
});

describe('organization search', () => {
  let org: TestUser & { orgId: string };
  let member: TestUser;
  let open1: { id: string; title: string };
  let open2: { id: string; title: string };
  let secret: { id: string; title: string };

  beforeAll(async () => {
    org = await h.owner('Grouped');
    member = await h.user('Reader');
    await h.addMember(org.orgId, member.id, 'read');
    open1 = await newSpace('First', org.token, org.orgId);
    open2 = await newSpace('Second', org.token, org.orgId);
    secret = await newSpace('Secret', org.token, org.orgId);
    // Only admins see the secret space.
    expect((await h.call('PATCH', `/v1/spaces/${secret.id}`, { token: org.token, body: { defaultLevel: null } })).status).toBe(200);
    await merged(
      open1.id,
      [{ operation: 'insert_page', title: 'Axolotl care', document: { markdown: '## Food\n\nAxolotl food.' } }],
      org.token,
    );
    await merged(
      open2.id,
      [
        { operation: 'insert_page', title: 'Tanks', document: { markdown: 'An axolotl needs a tank.' } },
        { operation: 'insert_page', title: 'Plants', document: { markdown: 'Nothing relevant.' } },
      ],
      org.token,
    );
    await merged(secret.id, [{ operation: 'insert_page', title: 'Secret axolotl', document: { markdown: 'Hidden.' } }], org.token);
  });

  it('groups page results by space, best space first', async () => {
    const res = await orgSearch(org.orgId, 'axolotl', { token: org.token });
    expect(res.count).toBe(3);
    expect(res.items.map((s) => s.id).sort()).toEqual([open1.id, open2.id, secret.id].sort());
    const first = res.items.find((s) => s.id === open1.id);
    expect(first).toEqual({
      type: 'space',
      id: open1.id,
      title: 'First',
      score: first.pages[0].score,
      pages: [
        {
          id: expect.any(String),
          title: 'Axolotl care',
          description: '',
          path: 'axolotl-care',
          score: expect.any(Number),
          rank: expect.any(Number),
          ancestors: [],
          urls: { app: `${BASE}/app/s/${open1.id}/axolotl-care` },
          sections: [
            {
              id: 'food',
              title: 'Food',
              path: 'axolotl-care#food',
              score: expect.any(Number),
              body: 'Axolotl food.',
              urls: { app: `${BASE}/app/s/${open1.id}/axolotl-care#food` },
            },
          ],
        },
      ],
    });
    expect(res.items.find((s) => s.id === open2.id).pages.map((p: { title: string }) => p.title)).toEqual(['Tanks']);
    // The space with a title match ranks before the one that only mentions the word.
    expect(res.items.findIndex((s) => s.id === open2.id)).toBe(2);
    // Ranks number every matching page in score order, across spaces.
    const pages = res.items.flatMap((s) => s.pages);
    expect(pages.map((p: { rank: number }) => p.rank)).toEqual([1, 2, 3]);
    expect(pages.map((p: { score: number }) => p.score)).toEqual([...pages.map((p: { score: number }) => p.score)].sort((a, b) => b - a));
  });

  it('hides spaces the caller cannot see, and deleted spaces', async () => {
    const res = await orgSearch(org.orgId, 'axolotl', { token: member.token });
    expect(res.items.map((s) => s.id).sort()).toEqual([open1.id, open2.id].sort());
    expect(res.count).toBe(2);
    // The member cannot search the secret space directly either.
    expect((await h.call('GET', `/v1/spaces/${secret.id}/search?query=axolotl`, { token: member.token })).status).toBe(404);

    const gone = await newSpace('Gone', org.token, org.orgId);
    await merged(gone.id, [{ operation: 'insert_page', title: 'Axolotl archive', document: { markdown: 'Old.' } }], org.token);
    expect((await orgSearch(org.orgId, 'axolotl', { token: org.token })).count).toBe(4);
    expect((await h.call('DELETE', `/v1/spaces/${gone.id}`, { token: org.token })).status).toBe(205);
    const after = await orgSearch(org.orgId, 'axolotl', { token: org.token });
    expect(after.items.map((s) => s.id)).not.toContain(gone.id);
    expect(after.count).toBe(3);
    expect((await h.call('GET', `/v1/spaces/${gone.id}/search?query=axolotl`, { token: org.token })).status).toBe(404);
  });

  it('a space purged for good takes its index with it', async () => {
    const doomed = await newSpace('Doomed', org.token, org.orgId);
    await merged(doomed.id, [{ operation: 'insert_page', title: 'Doomed axolotl', document: { markdown: 'Soon gone.' } }], org.token);
    expect((await h.call('DELETE', `/v1/spaces/${doomed.id}`, { token: org.token })).status).toBe(205);
    expect(await h.db.prisma.searchSection.count({ where: { spaceId: doomed.id } })).toBe(1);
    const kept = await indexRows(open1.id);
    expect(kept.length).toBeGreaterThan(0);
    // Retention 0: every deleted space of this test database is past it.
    expect(await purgeDeletedSpaces(h.db.prisma, 0)).toBeGreaterThanOrEqual(1);
    expect(await h.db.prisma.space.findUnique({ where: { id: doomed.id } })).toBeNull();
    expect(await h.db.prisma.searchSection.count({ where: { spaceId: doomed.id } })).toBe(0);
    // Only deleted spaces' rows went.
    expect(await indexRows(open1.id)).toEqual(kept);
    const live = await h.db.prisma.space.findMany({ select: { id: true } });
    expect(await h.db.prisma.searchSection.count({ where: { spaceId: { notIn: live.map((x) => x.id) } } })).toBe(0);
    expect((await orgSearch(org.orgId, 'axolotl', { token: org.token })).count).toBe(3);
  });

  it('paginates over spaces', async () => {
    const first = await orgSearch(org.orgId, 'axolotl', { token: org.token, extra: '&limit=2' });
    expect(first.items).toHaveLength(2);
    expect(first.count).toBe(3);
    expect(first.next?.page).toEqual(expect.any(String));
    const second = await orgSearch(org.orgId, 'axolotl', {
      token: org.token,
      extra: `&limit=2&page=${encodeURIComponent(first.next!.page)}`,
    });
    expect(second.items).toHaveLength(1);
    expect(second.next).toBeUndefined();
    // A page's rank is its place among all results, kept on the second page of spaces.
    expect(second.items[0].pages[0].rank).toBe(3);
    expect(new Set([...first.items, ...second.items].map((s) => s.id)).size).toBe(3);
  });

  it('answers nothing (not an error) when no visible space matches', async () => {
    const res = await orgSearch(org.orgId, 'nonexistentword', { token: member.token });
    expect(res).toEqual({ items: [], count: 0 });
  });

  it('is refused to non-members (404) and without a token (401)', async () => {
    const stranger = await h.user('Stranger');
    const res = await h.call('GET', `/v1/orgs/${org.orgId}/search?query=axolotl`, { token: stranger.token });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe(404);
    expect((await h.call('GET', `/v1/orgs/${org.orgId}/search?query=axolotl`, { token: null })).status).toBe(401);
  });

  it('accepts the largest page a client may ask for', async () => {
    const res = await orgSearch(org.orgId, 'axolotl', { token: org.token, extra: '&limit=1000' });
    expect(res.count).toBe(3);
  });
});

describe('space search: rights, input and pagination', () => {
  let space: { id: string };
  let pages: string[];

  beforeAll(async () => {
    space = await newSpace('Paged');
    pages = await merged(
      space.id,
      Array.from({ length: 7 }, (_, i) => ({
        operation: 'insert_page',
        title: `Page ${i}`,
        document: { markdown: `Common pangolin text number ${i}.` },
      })),
    );
  });

  it('paginates with stable order and a count', async () => {
    const seen: string[] = [];
    let next: string | undefined;
    const sizes: number[] = [];
    do {
      const res = await search(space.id, 'pangolin', { extra: `&limit=3${next ? `&page=${encodeURIComponent(next)}` : ''}` });
      expect(res.count).toBe(7);
      sizes.push(res.items.length);
      seen.push(...res.items.map((p) => p.id));
      next = res.next?.page;
    } while (next);
    expect(sizes).toEqual([3, 3, 1]);
    expect([...seen].sort()).toEqual([...pages].sort());
    const all = await search(space.id, 'pangolin');
    expect(all.items.map((p) => p.id)).toEqual(seen);
    // Ranks continue across pages of results.
    expect(all.items.map((p) => p.rank)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const last = await search(space.id, 'pangolin', { extra: '&limit=3' });
    expect(
      (await search(space.id, 'pangolin', { extra: `&limit=3&page=${encodeURIComponent(last.next!.page)}` })).items.map((p) => p.rank),
    ).toEqual([4, 5, 6]);
  });

  it('requires `query` (400 naming it) and limits it to 512 characters', async () => {
    for (const path of [`/v1/spaces/${space.id}/search`, `/v1/orgs/${owner.orgId}/search`]) {
      for (const qs of ['', '?query=', '?query=%20%20', `?query=${'a'.repeat(513)}`]) {
        const res = await h.call('GET', `${path}${qs}`, { token: owner.token });
        expect(res.status, `${path}${qs}`).toBe(400);
        expect(res.body.error.message).toMatch(/^query: /);
      }
      expect((await h.call('GET', `${path}?query=${'a'.repeat(512)}`, { token: owner.token })).status).toBe(200);
      // 512 characters, not bytes.
      expect((await h.call('GET', `${path}?query=${encodeURIComponent('é'.repeat(512))}`, { token: owner.token })).status).toBe(200);
      const badLimit = await h.call('GET', `${path}?query=x&limit=0`, { token: owner.token });
      expect(badLimit.status).toBe(400);
      expect(badLimit.body.error.message).toMatch(/^limit: /);
      const badPage = await h.call('GET', `${path}?query=x&page=nonsense`, { token: owner.token });
      expect(badPage.status).toBe(400);
      expect(badPage.body.error.message).toMatch(/^page: /);
    }
  });

  it('is refused to callers without rights: 401 without a token, 404 when the space is not visible', async () => {
    expect((await h.call('GET', `/v1/spaces/${space.id}/search?query=pangolin`, { token: null })).status).toBe(401);
    const stranger = await h.user('Outsider');
    const res = await h.call('GET', `/v1/spaces/${space.id}/search?query=pangolin`, { token: stranger.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 404, message: 'Space not found' } });
    expect((await h.call('GET', `/v1/spaces/nope/search?query=pangolin`, { token: owner.token })).status).toBe(404);
  });

  it('a public space can be searched by any signed-in caller', async () => {
    const stranger = await h.user('Visitor');
    // (No REST route changes a space's visibility yet: set it in the database.)
    await h.db.prisma.space.update({ where: { id: space.id }, data: { visibility: 'public' } });
    expect((await search(space.id, 'pangolin', { token: stranger.token })).count).toBe(7);
    await h.db.prisma.space.update({ where: { id: space.id }, data: { visibility: 'private' } });
    expect((await h.call('GET', `/v1/spaces/${space.id}/search?query=pangolin`, { token: stranger.token })).status).toBe(404);
  });
});

describe('GraphQL', () => {
  it('Space.search and Organization.search answer typed results', async () => {
    const org = await h.owner('GraphQL search');
    const space = await newSpace('GQL', org.token, org.orgId);
    const [page] = await merged(
      space.id,
      [{ operation: 'insert_page', title: 'Capybara', document: { markdown: '## Habitat\n\nCapybara swim.' } }],
      org.token,
    );
    const res = await h.graphql(
      org.token,
      `query($space: ID!, $org: ID!, $q: String!) {
        space(id: $space) { search(query: $q, limit: 5) { count next { page } items { id title path ancestors { title } urls { app } sections { id title path body urls { app } } } } }
        organization(id: $org) { search(query: $q) { count items { id title pages { id title } } } }
      }`,
      { space: space.id, org: org.orgId, q: 'capybara' },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.space.search).toEqual({
      count: 1,
      next: null,
      items: [
        {
          id: page,
          title: 'Capybara',
          path: 'capybara',
          ancestors: [],
          urls: { app: `${BASE}/app/s/${space.id}/capybara` },
          sections: [
            {
              id: 'habitat',
              title: 'Habitat',
              path: 'capybara#habitat',
              body: 'Capybara swim.',
              urls: { app: `${BASE}/app/s/${space.id}/capybara#habitat` },
            },
          ],
        },
      ],
    });
    expect(res.body.data.organization.search).toEqual({
      count: 1,
      items: [{ id: space.id, title: 'GQL', pages: [{ id: page, title: 'Capybara' }] }],
    });
    const bad = await h.graphql(org.token, `query($space: ID!) { space(id: $space) { search(query: "") { count } } }`, { space: space.id });
    expect(bad.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(bad.body.errors[0].message).toMatch(/^query: /);
  });
});
