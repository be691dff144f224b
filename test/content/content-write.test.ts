/** Content writes: live edits to main, edits to a change request, templates; 401 on every content route (setup in ./fixtures.ts). */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { GitBookAPI, type GitBookAPIError, type ChangeRequestContentChange, type ChangeRequestContentUpdate } from 'gitbook-api-0202';
import { BASE } from '../support/harness.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { startServer } from '../../src/server.js';
import { contentRoutes } from '../../src/modules/content/routes.js';
import { MAX_FILE_BYTES } from '../../src/modules/content/changes.js';
import { newId } from '../../src/ids.js';
import {
  h,
  owner,
  reader,
  commenter,
  editor,
  outsider,
  setupContent,
  newSpace,
  spaceRevision,
  postLive,
  postCr,
  live,
  crWrite,
  openCr,
  patchSpace,
  refused,
  paths,
  listPages,
  crPages,
  getPage,
  b64,
  download,
  WRITE_OPERATIONS,
} from './fixtures.js';

beforeAll(setupContent);

describe('POST /spaces/:spaceId/content (live edits)', () => {
  it('inserts pages into a parent at an index, with front matter, and moves main to a new revision', async () => {
    const space = await newSpace();
    const initial = await spaceRevision(space.id);
    const one = await live(space.id, [
      { operation: 'insert_page', title: 'Alpha', document: { markdown: '' } },
      { operation: 'insert_page', title: 'Charlie', document: { markdown: '' } },
    ]);
    const [alpha, charlie] = one.pages as [string, string];
    const two = await live(space.id, [
      { operation: 'insert_page', title: 'Bravo', at: 1 },
      { operation: 'insert_page', title: 'Zulu', at: 1 },
      { operation: 'insert_page', title: 'Child two', into: alpha },
      { operation: 'insert_page', title: 'Child one', into: alpha },
      { operation: 'insert_page', title: 'Child zero', into: alpha, at: 2 },
    ]);
    expect(two.pages).toHaveLength(5);
    expect(paths(await listPages(space.id))).toEqual([
      'alpha',
      'alpha/child-two',
      'alpha/child-one',
      'alpha/child-zero',
      'zulu',
      'bravo',
      'charlie',
    ]);
    const three = await live(space.id, [{ operation: 'insert_page', title: 'First child', into: alpha, at: 0 }]);
    expect(paths(await listPages(space.id)).slice(0, 3)).toEqual(['alpha', 'alpha/first-child', 'alpha/child-two']);
    // The ids a write answers are the pages it inserted, in order: Charlie stayed last.
    expect((await listPages(space.id)).at(-1)).toMatchObject({ id: charlie, path: 'charlie' });

    // Each write is a new immutable revision on main's line.
    expect(await spaceRevision(space.id)).toBe(three.revision);
    const revisions = await h.db.prisma.revision.findMany({ where: { id: { in: [one.revision, two.revision, three.revision] } } });
    const byId = new Map(revisions.map((r) => [r.id, r]));
    expect(byId.get(one.revision)).toMatchObject({
      spaceId: space.id,
      parents: [initial],
      type: 'edits',
      changeRequestId: null,
      createdById: owner.id,
    });
    expect(byId.get(two.revision)!.parents).toEqual([one.revision]);
    expect(byId.get(three.revision)!.parents).toEqual([two.revision]);
    expect((await h.rest('getSpaceById', 'GET', `/v1/spaces/${space.id}`, { token: owner.token })).body.revision).toBe(three.revision);
  });

  it('answers { revision, changes, insertedFiles } as the official compat=false answer does', async () => {
    const space = await newSpace();
    const [keep, gone] = (
      await live(space.id, [
        { operation: 'insert_page', title: 'Keep' },
        { operation: 'insert_page', title: 'Gone' },
      ])
    ).pages as [string, string];
    const res = await postLive(space.id, {
      changes: [
        { operation: 'insert_page', title: 'New', ref: 'new', document: { markdown: 'x' } },
        { operation: 'update_page', page: keep, title: 'Kept' },
        { operation: 'update_page', page: 'new', description: 'Touched twice: still one created_page' },
        { operation: 'delete_page', page: gone },
        { operation: 'insert_files', files: [{ name: 'a.txt', contentType: 'text/plain', base64: b64('a') }] },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const created = res.body.changes[0].page.id;
    expect(res.body).toEqual({
      revision: await spaceRevision(space.id),
      changes: [
        {
          object: 'created_page',
          ref: 'new',
          page: { object: 'page', id: created, urls: { location: `${BASE}/v1/spaces/${space.id}/content/page/${created}` } },
        },
        {
          object: 'updated_page',
          page: { object: 'page', id: keep, urls: { location: `${BASE}/v1/spaces/${space.id}/content/page/${keep}` } },
        },
        { object: 'deleted_page', page: gone },
      ],
      insertedFiles: [
        { id: expect.any(String), name: 'a.txt', contentType: 'text/plain', size: 1, downloadURL: expect.stringContaining('/files/') },
      ],
    });
    // The location reads the page.
    expect((await h.call('GET', new URL(res.body.changes[0].page.urls.location).pathname, { token: owner.token })).body).toMatchObject({
      id: created,
      description: 'Touched twice: still one created_page',
    });
  });

  it('serialises concurrent writes: none is lost, each revision builds on the one before', async () => {
    const space = await newSpace();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => live(space.id, [{ operation: 'insert_page', title: `Page ${i}` }])),
    );
    expect((await listPages(space.id)).map((p) => p.title).sort()).toEqual(['Page 0', 'Page 1', 'Page 2', 'Page 3', 'Page 4', 'Page 5']);
    const revisions = await h.db.prisma.revision.findMany({ where: { id: { in: results.map((r) => r.revision) } } });
    const parents = new Set(revisions.map((r) => r.parents[0]));
    expect(parents.size).toBe(6);
    expect(revisions.filter((r) => !parents.has(r.id)).map((r) => r.id)).toEqual([await spaceRevision(space.id)]);
  });

  it('takes the title from the field, else the front matter, else the leading heading, else "Untitled"; explicit fields win', async () => {
    const space = await newSpace();
    const { pages } = await live(space.id, [
      {
        operation: 'insert_page',
        document: { markdown: '---\ntitle: From front matter\ndescription: Described\nemoji: 🚀\nhidden: true\n---\n# Body\n' },
      },
      {
        operation: 'insert_page',
        title: 'Explicit',
        description: 'Given',
        document: { markdown: '---\ntitle: Ignored\ndescription: Also ignored\n---\nText\n' },
      },
      { operation: 'insert_page', document: { markdown: '# The *Heading* [title](https://x.test)\n\nText\n' } },
      { operation: 'insert_page', document: { markdown: 'No heading here\n' } },
      { operation: 'insert_page', document: {} },
    ]);
    const [fm, explicit, heading, none, empty] = pages as [string, string, string, string, string];
    expect(await getPage(space.id, fm)).toMatchObject({
      title: 'From front matter',
      slug: 'from-front-matter',
      description: 'Described',
      emoji: '🚀',
      hidden: true,
      markdown: '# Body\n',
    });
    expect(await getPage(space.id, explicit)).toMatchObject({
      title: 'Explicit',
      slug: 'explicit',
      description: 'Given',
      markdown: 'Text\n',
    });
    // The heading stays in the body as sent (Lectern keeps bodies as written).
    expect(await getPage(space.id, heading)).toMatchObject({
      title: 'The Heading title',
      slug: 'the-heading-title',
      markdown: '# The *Heading* [title](https://x.test)\n\nText\n',
    });
    expect(await getPage(space.id, none)).toMatchObject({ title: 'Untitled', slug: 'untitled' });
    expect(await getPage(space.id, empty)).toMatchObject({ title: 'Untitled', slug: 'untitled-1', markdown: '' });
  });

  it('stores and answers the page fields of the official schema: icon, noIndex, noRobotsIndex, condition (an empty string removes)', async () => {
    const space = await newSpace();
    const [page] = (
      await live(space.id, [
        {
          operation: 'insert_page',
          title: 'Fields',
          icon: 'gear',
          emoji: '🎉',
          noIndex: true,
          noRobotsIndex: true,
          condition: 'visitor.claims.plan == "pro"',
          slug: 'custom-slug',
        },
      ])
    ).pages as [string];
    expect(await getPage(space.id, page)).toMatchObject({
      slug: 'custom-slug',
      icon: 'gear',
      emoji: '🎉',
      noIndex: true,
      noRobotsIndex: true,
      condition: 'visitor.claims.plan == "pro"',
    });
    await live(space.id, [{ operation: 'update_page', page, icon: '', emoji: '', condition: '', noIndex: false }]);
    const after = await getPage(space.id, page);
    for (const field of ['icon', 'emoji', 'condition', 'noIndex']) expect(after).not.toHaveProperty(field);
    expect(after).toMatchObject({ noRobotsIndex: true, slug: 'custom-slug' });
  });

  it('leaves a noIndex page out of search, and puts it back when noIndex is turned off', async () => {
    const space = await newSpace();
    const [hiddenPage, shown] = (
      await live(space.id, [
        { operation: 'insert_page', title: 'Quokka secrets', noIndex: true, document: { markdown: 'The quokka lives here.' } },
        { operation: 'insert_page', title: 'Public', document: { markdown: 'Another quokka.' } },
      ])
    ).pages as [string, string];
    const search = async () =>
      (await h.rest('searchSpaceContent', 'GET', `/v1/spaces/${space.id}/search?query=quokka`, { token: owner.token })).body.items.map(
        (p: any) => p.id,
      );
    expect(await search()).toEqual([shown]);
    await live(space.id, [{ operation: 'update_page', page: hiddenPage, noIndex: false }]);
    expect((await search()).sort()).toEqual([hiddenPage, shown].sort());
  });

  it('updates a page: title (its slug only when given), body, fields, and moves it with into/at', async () => {
    const space = await newSpace();
    const { pages } = await live(space.id, [
      { operation: 'insert_page', title: 'Intro', document: { markdown: 'old body\n' }, emoji: '📘', description: 'Old' },
      { operation: 'insert_page', title: 'Folder' },
      { operation: 'insert_page', title: 'Last' },
    ]);
    const [intro, folder] = pages as [string, string, string];
    const before = await getPage(space.id, intro);
    // Renaming keeps the URL: the slug changes only when given.
    await live(space.id, [{ operation: 'update_page', page: intro, title: 'Renamed' }]);
    expect(await getPage(space.id, intro)).toMatchObject({ title: 'Renamed', slug: 'intro' });
    await live(space.id, [
      {
        operation: 'update_page',
        page: intro,
        title: 'Getting Started',
        slug: 'getting-started',
        document: { markdown: 'new body\n' },
        emoji: '',
        description: 'New',
        hidden: true,
      },
    ]);
    const after = await getPage(space.id, intro);
    expect(after).toMatchObject({
      title: 'Getting Started',
      slug: 'getting-started',
      path: 'getting-started',
      markdown: 'new body\n',
      description: 'New',
      hidden: true,
      createdAt: before.createdAt,
    });
    expect(after).not.toHaveProperty('emoji');
    expect(after.updatedAt >= before.updatedAt).toBe(true);

    // A title from the body's front matter renames it too (the slug stays).
    await live(space.id, [
      { operation: 'update_page', page: intro, document: { markdown: '---\ntitle: Start Here\nhidden: false\n---\nbody\n' } },
    ]);
    expect(await getPage(space.id, intro)).toMatchObject({ title: 'Start Here', slug: 'getting-started', markdown: 'body\n' });
    expect(await getPage(space.id, intro)).not.toHaveProperty('hidden');

    // Moves: below another page, back to the top level at index 0, then to the end of its siblings.
    await live(space.id, [{ operation: 'update_page', page: intro, into: folder }]);
    expect(paths(await listPages(space.id))).toEqual(['folder', 'folder/getting-started', 'last']);
    await live(space.id, [{ operation: 'update_page', page: intro, into: null, at: 0 }]);
    expect(paths(await listPages(space.id))).toEqual(['getting-started', 'folder', 'last']);
    await live(space.id, [{ operation: 'update_page', page: intro, at: 2 }]);
    expect(paths(await listPages(space.id))).toEqual(['folder', 'last', 'getting-started']);
    // `into` its own parent without `at` leaves it where it is.
    await live(space.id, [{ operation: 'update_page', page: intro, into: null }]);
    expect(paths(await listPages(space.id))).toEqual(['folder', 'last', 'getting-started']);
  });

  it('deletes a page with its whole subtree', async () => {
    const space = await newSpace();
    const { pages } = await live(space.id, [
      { operation: 'insert_page', title: 'Parent' },
      { operation: 'insert_page', title: 'Keep' },
    ]);
    const [parent] = pages as [string];
    const child = (await live(space.id, [{ operation: 'insert_page', title: 'Child', into: parent }])).pages[0]!;
    const grandchild = (await live(space.id, [{ operation: 'insert_page', title: 'Grandchild', into: child }])).pages[0]!;
    expect(paths(await listPages(space.id))).toEqual(['parent', 'parent/child', 'parent/child/grandchild', 'keep']);
    const deleted = await live(space.id, [{ operation: 'delete_page', page: parent }]);
    expect(deleted.body.changes.map((c: any) => c.page).sort()).toEqual([parent, child, grandchild].sort());
    expect(paths(await listPages(space.id))).toEqual(['keep']);
    for (const id of [parent, child, grandchild])
      await refused(404, () => h.call('GET', `/v1/spaces/${space.id}/content/page/${id}`, { token: owner.token }), /Page/);
  });

  it('keeps slugs unique among siblings: derived ones get a suffix, an explicit one that is taken is refused', async () => {
    const space = await newSpace();
    const { pages } = await live(space.id, [
      { operation: 'insert_page', title: 'Intro' },
      { operation: 'insert_page', title: 'Intro' },
      { operation: 'insert_page', title: 'Folder' },
      { operation: 'insert_page', title: '!!!' },
    ]);
    const [intro, , folder] = pages as [string, string, string];
    const nested = (await live(space.id, [{ operation: 'insert_page', title: 'Intro', into: folder }])).pages[0]!;
    expect(paths(await listPages(space.id))).toEqual(['intro', 'intro-1', 'folder', 'folder/intro', 'untitled']);
    // A move under a parent whose child has the slug gets a suffix.
    await live(space.id, [{ operation: 'update_page', page: intro, into: folder }]);
    expect(paths(await listPages(space.id))).toEqual(['intro-1', 'folder', 'folder/intro', 'folder/intro-1', 'untitled']);
    await refused(
      400,
      () => postLive(space.id, { changes: [{ operation: 'update_page', page: nested, slug: 'intro-1' }] }),
      /^changes\[0\]\.slug: "intro-1" is already the slug of a sibling/,
    );
    await refused(
      400,
      () => postLive(space.id, { changes: [{ operation: 'insert_page', title: 'X', slug: 'folder' }] }),
      /^changes\[0\]\.slug\b/,
    );
    await refused(
      400,
      () => postLive(space.id, { changes: [{ operation: 'insert_page', title: 'X', slug: 'a/b' }] }),
      /^changes\[0\]\.slug\b/,
    );
    // A slug freed by a change can be taken again.
    await live(space.id, [
      { operation: 'update_page', page: nested, slug: 'nested' },
      { operation: 'insert_page', title: 'Intro', into: folder },
    ]);
    expect(paths(await listPages(space.id))).toEqual(['intro-1', 'folder', 'folder/nested', 'folder/intro-1', 'folder/intro', 'untitled']);
  });

  it('uploads files (base64 with contentType), up to 1 MB each', async () => {
    const space = await newSpace();
    const big = Buffer.alloc(MAX_FILE_BYTES, 7);
    const { files } = await live(space.id, [
      {
        operation: 'insert_files',
        files: [
          { name: 'big.bin', contentType: 'application/octet-stream', base64: big.toString('base64') },
          { name: 'tiny.txt', contentType: 'text/markdown; charset=utf-8', base64: b64('# hi') },
        ],
      },
    ]);
    expect(files).toHaveLength(2);
    const list = await h.rest('listFiles', 'GET', `/v1/spaces/${space.id}/content/files`, { token: owner.token });
    expect(list.body.items).toEqual([
      expect.objectContaining({ id: files[0], name: 'big.bin', contentType: 'application/octet-stream', size: MAX_FILE_BYTES }),
      expect.objectContaining({ id: files[1], name: 'tiny.txt', contentType: 'text/markdown', size: 4 }),
    ]);
    const bytes = await download(list.body.items[0].downloadURL);
    expect(bytes.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await bytes.arrayBuffer()).equals(big)).toBe(true);
    // Unpadded base64 is accepted too.
    const unpadded = await live(space.id, [
      { operation: 'insert_files', files: [{ name: 'a.txt', contentType: 'text/plain', base64: 'aGk' }] },
    ]);
    expect(
      (await h.rest('getFileById', 'GET', `/v1/spaces/${space.id}/content/files/${unpadded.files[0]}`, { token: owner.token })).body.size,
    ).toBe(2);
  });

  it.each([
    [
      'a file over 1 MB',
      [
        {
          operation: 'insert_files',
          files: [{ name: 'big.bin', contentType: 'text/plain', base64: Buffer.alloc(MAX_FILE_BYTES + 1).toString('base64') }],
        },
      ],
      /^changes\[0\]\.files\[0\]\.base64: .*1048576/,
    ],
    [
      'bad base64',
      [{ operation: 'insert_files', files: [{ name: 'x.txt', contentType: 'text/plain', base64: 'not base64!' }] }],
      /^changes\[0\]\.files\[0\]\.base64: must be base64/,
    ],
    [
      'truncated base64',
      [
        {
          operation: 'insert_files',
          files: [
            { name: 'x.txt', contentType: 'text/plain', base64: 'aGVsbG8' + 'x' },
            { name: 'y', contentType: 'text/plain', base64: 'abcde' },
          ],
        },
      ],
      /^changes\[0\]\.files\[1\]\.base64: must be base64/,
    ],
    [
      'base64 that is not a string',
      [{ operation: 'insert_files', files: [{ name: 'x.txt', contentType: 'text/plain', base64: 42 }] }],
      /^changes\[0\]\.files\[0\]\.base64/,
    ],
    [
      'base64 without a contentType',
      [{ operation: 'insert_files', files: [{ name: 'x.txt', base64: b64('x') }] }],
      /^changes\[0\]\.files\[0\]\.contentType: is required with base64/,
    ],
    [
      'a file with both base64 and url',
      [
        {
          operation: 'insert_files',
          files: [{ name: 'x.txt', contentType: 'text/plain', base64: b64('x'), url: 'https://example.com/x' }],
        },
      ],
      /^changes\[0\]\.files\[0\]: give exactly one/,
    ],
    [
      'a file with neither base64 nor url',
      [{ operation: 'insert_files', files: [{ name: 'x.txt' }] }],
      /^changes\[0\]\.files\[0\]: give exactly one/,
    ],
    [
      'a file without a name',
      [{ operation: 'insert_files', files: [{ contentType: 'text/plain', base64: b64('x') }] }],
      /^changes\[0\]\.files\[0\]\.name/,
    ],
    [
      'a file given in the earlier format (data)',
      [{ operation: 'insert_files', files: [{ name: 'x', contentType: 'text/plain', data: b64('x') }] }],
      /^changes\[0\]\.files\[0\]\.data: is not a known field/,
    ],
    [
      'a content type that is not a media type',
      [{ operation: 'insert_files', files: [{ name: 'x', contentType: 'text/html\r\nx-evil: 1', base64: b64('x') }] }],
      /^changes\[0\]\.files\[0\]\.contentType/,
    ],
    ['no files', [{ operation: 'insert_files', files: [] }], /^changes\[0\]\.files\b/],
    [
      '21 files',
      [
        {
          operation: 'insert_files',
          files: Array.from({ length: 21 }, (_, i) => ({ name: `f${i}`, contentType: 'text/plain', base64: b64('x') })),
        },
      ],
      /^changes\[0\]\.files: at most 20/,
    ],
    ['an unknown operation', [{ operation: 'rename_space', title: 'x' }], /^changes\[0\]\.operation\b/],
    ['a change in the earlier format (type, markdown)', [{ type: 'insert_page', title: 'x' }], /^changes\[0\]: .*operation/],
    [
      'markdown outside document',
      [{ operation: 'insert_page', title: 'x', markdown: 'y' }],
      /^changes\[0\]\.markdown: is not a known field/,
    ],
    [
      'a field of another operation',
      [{ operation: 'delete_page', page: 'x', title: 'y' }],
      /^changes\[0\]\.title: is not a field of delete_page/,
    ],
    [
      'an unknown field in the document',
      [{ operation: 'insert_page', title: 'x', document: { markdown: 'y', html: '<p>' } }],
      /^changes\[0\]\.document\.html: is not a field/,
    ],
    [
      'a document that is neither markdown nor JSON',
      [{ operation: 'insert_page', title: 'x', document: 'text' }],
      /^changes\[0\]\.document: must be/,
    ],
    [
      'a JSON document Markdown cannot hold',
      [
        {
          operation: 'insert_page',
          document: { document: { object: 'document', data: {}, nodes: [{ object: 'block', type: 'no-such-block', nodes: [] }] } },
        },
      ],
      /^changes\[0\]\.document\.document/,
    ],
    ['an unknown field of the body', [{ operation: 'insert_page', title: 'x' }], /^extra: is not a known field/, { extra: 1 }],
    ['a change that is null', [null], /^changes\[0\]: /],
    ['a change that is not an object', [7], /^changes\[0\]/],
    ['no changes', [], /^changes\b/],
    ['51 changes', Array.from({ length: 51 }, (_, i) => ({ operation: 'insert_page', title: `P${i}` })), /^changes: at most 50/],
    ['an empty title', [{ operation: 'insert_page', title: ' ' }], /^changes\[0\]\.title\b/],
    ['an unknown page type', [{ operation: 'insert_page', title: 'x', type: 'sheet' }], /^changes\[0\]\.type\b/],
    ['a link page without href', [{ operation: 'insert_page', title: 'x', type: 'link' }], /^changes\[0\]\.href\b/],
    ['an unknown parent', [{ operation: 'insert_page', title: 'x', into: 'nope' }], /^changes\[0\]\.into\b/],
    ['an index past the end', [{ operation: 'insert_page', title: 'x', at: 2 }], /^changes\[0\]\.at: must be at most 1/],
    ['a negative index', [{ operation: 'insert_page', title: 'x', at: -1 }], /^changes\[0\]\.at\b/],
    ['an index that is not an integer', [{ operation: 'insert_page', title: 'x', at: 'first' }], /^changes\[0\]\.at\b/],
    [
      'bad front matter',
      [{ operation: 'insert_page', title: 'x', document: { markdown: '---\ntitle: [unclosed\n---\nx' } }],
      /^changes\[0\]\.document\b/,
    ],
    ['a title that is not a string', [{ operation: 'insert_page', title: 5 }], /^changes\[0\]\.title\b/],
    ['update without a page', [{ operation: 'update_page', title: 'x' }], /^changes\[0\]\.page\b/],
    ['delete without a page', [{ operation: 'delete_page' }], /^changes\[0\]\.page\b/],
    ['revert without a page', [{ operation: 'revert_page', page: 7 }], /^changes\[0\]\.page\b/],
    ['variables that are not an object', [{ operation: 'update_variables', variables: ['a'] }], /^changes\[0\]\.variables\b/],
    ['a variable value that is not a string', [{ operation: 'update_variables', variables: { a: 1 } }], /^changes\[0\]\.variables\.a\b/],
    ['a bad variable name', [{ operation: 'update_variables', variables: { 'a b': 'x' } }], /^changes\[0\]\.variables\.a b/],
  ] as [string, unknown[], RegExp, Record<string, unknown>?][])(
    'refuses %s with 400 naming the field, changing nothing',
    async (_what, changes, message, extra = {}) => {
      const space = await newSpace();
      await live(space.id, [{ operation: 'insert_page', title: 'Existing' }]);
      await refused(400, () => postLive(space.id, { changes, ...extra }), message);
    },
  );

  it('refuses invalid updates with 400 naming the field, unknown pages with 404, and applies a batch all or nothing', async () => {
    const space = await newSpace();
    const { pages } = await live(space.id, [
      { operation: 'insert_page', title: 'Doc' },
      { operation: 'insert_page', type: 'group', title: 'Group' },
      { operation: 'insert_page', type: 'link', title: 'Link', href: 'https://example.com' },
    ]);
    const [doc, group, link] = pages as [string, string, string];
    const child = (await live(space.id, [{ operation: 'insert_page', title: 'Child', into: doc }])).pages[0]!;
    const cases: [unknown, RegExp][] = [
      [{ operation: 'insert_page', title: 'Nested group', type: 'group', into: doc }, /^changes\[0\]\.into: group pages/],
      [{ operation: 'insert_page', title: 'Under a link', into: link }, /^changes\[0\]\.into: a link page/],
      [{ operation: 'update_page', page: group, document: { markdown: 'x' } }, /^changes\[0\]\.document\b/],
      [{ operation: 'update_page', page: doc, href: 'https://x.test' }, /^changes\[0\]\.href\b/],
      [{ operation: 'update_page', page: doc, title: '  ' }, /^changes\[0\]\.title\b/],
      [{ operation: 'update_page', page: doc, into: child }, /^changes\[0\]\.into: cannot move a page below itself/],
      [{ operation: 'update_page', page: doc, into: doc }, /^changes\[0\]\.into: cannot move a page below itself/],
      [{ operation: 'update_page', page: group, into: doc }, /^changes\[0\]\.into: group pages/],
      [{ operation: 'update_page', page: doc, at: 3 }, /^changes\[0\]\.at: must be at most 2/],
    ];
    for (const [change, message] of cases) await refused(400, () => postLive(space.id, { changes: [change] }), message);
    for (const operation of ['update_page', 'delete_page', 'revert_page']) {
      await refused(404, () => postLive(space.id, { changes: [{ operation, page: newId() }] }), /^Page \w+ not found/);
    }
    // The first change is valid, the second is not: nothing of the batch is applied.
    await refused(
      404,
      () =>
        postLive(space.id, {
          changes: [
            { operation: 'insert_page', title: 'Would be new' },
            { operation: 'delete_page', page: 'missing' },
          ],
        }),
      /Page missing/,
    );
    await refused(
      400,
      () =>
        postLive(space.id, {
          changes: [
            { operation: 'delete_page', page: doc },
            { operation: 'insert_files', files: [{ name: 'f', contentType: 'text/plain', base64: b64('new blob') }] },
            { operation: 'insert_page', title: 'Late', slug: 'doc' },
            { operation: 'insert_page', title: 'x', slug: 'group' },
          ],
        }),
      /changes\[3\]\.slug/,
    );
    expect(paths(await listPages(space.id))).toEqual(['doc', 'doc/child', 'group', 'link:Link']);
  });

  it('refuses malformed bodies with 400', async () => {
    const space = await newSpace();
    await refused(400, () => h.call('POST', `/v1/spaces/${space.id}/content`, { token: owner.token, rawBody: '{"changes": [' }), /^body\b/);
    await refused(400, () => postLive(space.id, {}), /changes/);
    await refused(400, () => postLive(space.id, { changes: null }), /changes/);
    await refused(400, () => postLive(space.id, { changes: 'insert_page' }), /changes/);
  });

  it('refuses edits to a locked space (403) and to an unknown space (404)', async () => {
    const space = await newSpace({ title: 'Locked', editMode: 'locked' });
    await refused(403, () => postLive(space.id, { changes: [{ operation: 'insert_page', title: 'x' }] }), /locked/);
    await refused(404, () => postLive(newId(), { changes: [{ operation: 'insert_page', title: 'x' }] }), /Space/);
    await patchSpace(space.id, { editMode: 'live' });
    await live(space.id, [{ operation: 'insert_page', title: 'Now allowed' }]);
  });

  it('needs the edit role: 401 without a token, 404 for an outsider, 403 for read and comment members', async () => {
    const space = await newSpace();
    const body = { changes: [{ operation: 'insert_page', title: 'x' }] };
    await refused(401, () => postLive(space.id, body, null));
    await refused(404, () => postLive(space.id, body, outsider), /Space/);
    await refused(403, () => postLive(space.id, body, reader), /edit/);
    await refused(403, () => postLive(space.id, body, commenter), /edit/);
    const written = await live(space.id, body.changes, editor);
    expect((await h.db.prisma.revision.findUnique({ where: { id: written.revision } }))!.createdById).toBe(editor.id);
  });
});

describe('POST /spaces/:spaceId/change-requests/:changeRequestId/content (updateChangeRequestContent)', () => {
  it("writes to the change request's own line, leaving main alone, and records contributors", async () => {
    const space = await newSpace();
    const { pages } = await live(space.id, [{ operation: 'insert_page', title: 'Main page', document: { markdown: 'main\n' } }]);
    const mainRevision = await spaceRevision(space.id);
    const cr = await openCr(space.id, 'Edits', editor);
    const first = await crWrite(
      space.id,
      cr.id,
      [
        { operation: 'update_page', page: pages[0], document: { markdown: 'changed\n' } },
        { operation: 'insert_page', title: 'New' },
      ],
      editor,
    );
    const second = await crWrite(space.id, cr.number, [{ operation: 'insert_page', title: 'Newer' }]);
    expect(await spaceRevision(space.id)).toBe(mainRevision);
    expect((await getPage(space.id, pages[0]!)).markdown).toBe('main\n');
    expect(paths(await crPages(space.id, cr.id))).toEqual(['main-page', 'new', 'newer']);

    const row = await h.db.prisma.changeRequest.findUniqueOrThrow({ where: { id: cr.id } });
    expect(row).toMatchObject({ revisionId: second.revision, revisionMergedAncestor: mainRevision, contributors: [editor.id, owner.id] });
    const revisions = await h.db.prisma.revision.findMany({ where: { id: { in: [first.revision, second.revision] } } });
    for (const r of revisions) expect(r).toMatchObject({ spaceId: space.id, changeRequestId: cr.id, type: 'edits' });
    expect(revisions.find((r) => r.id === second.revision)!.parents).toEqual([first.revision]);
    expect(revisions.find((r) => r.id === first.revision)!.parents).toEqual([mainRevision]);
    const api = await h.rest('getChangeRequestById', 'GET', `/v1/spaces/${space.id}/change-requests/${cr.id}`, { token: owner.token });
    expect(api.body.revision).toBe(second.revision);
  });

  it('answers the change request (compat=true, the default) exactly as getChangeRequestById, or ChangeRequestContentUpdate (compat=false)', async () => {
    const space = await newSpace();
    const cr = await openCr(space.id);
    const byDefault = await h.rest('updateChangeRequestContent', 'POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/content`, {
      token: owner.token,
      body: { changes: [{ operation: 'insert_page', title: 'New page', document: { markdown: '# New page\n\nThis is a new page.\n' } }] },
    });
    expect(byDefault.status, JSON.stringify(byDefault.body)).toBe(200);
    const read = await h.rest('getChangeRequestById', 'GET', `/v1/spaces/${space.id}/change-requests/${cr.id}`, { token: owner.token });
    expect(byDefault.body).toEqual(read.body);
    expect(byDefault.body).not.toHaveProperty('changes');
    const compatTrue = await crWrite(space.id, cr.id, [{ operation: 'insert_page', title: 'Another' }], owner, { compat: true });
    expect(compatTrue.body).toMatchObject({ object: 'change-request', id: cr.id, revision: compatTrue.revision });

    const page = (await crPages(space.id, cr.id))[0].id;
    const update = await crWrite(space.id, cr.number, [
      { operation: 'update_page', page, title: 'Renamed' },
      { operation: 'insert_files', files: [{ name: 'a.png', contentType: 'image/png', base64: b64('png') }] },
    ]);
    const location = `${BASE}/v1/spaces/${space.id}/change-requests/${cr.id}/content/page/${page}`;
    expect(update.body).toEqual({
      changeRequest: (
        await h.rest('getChangeRequestById', 'GET', `/v1/spaces/${space.id}/change-requests/${cr.id}`, { token: owner.token })
      ).body,
      changes: [{ object: 'updated_page', page: { object: 'page', id: page, urls: { location } } }],
      insertedFiles: [{ id: update.files[0], name: 'a.png', contentType: 'image/png', size: 3, downloadURL: expect.any(String) }],
    });
    expect((await h.rest('getPageInChangeRequestById', 'GET', new URL(location).pathname, { token: owner.token })).body).toMatchObject({
      id: page,
      title: 'Renamed',
    });
    await refused(
      400,
      () =>
        h.call('POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/content?compat=maybe`, {
          token: owner.token,
          body: { changes: [{ operation: 'insert_page' }] },
        }),
      /^compat\b/,
    );
  });

  it('takes page bodies as Markdown or as a JSON document (converted to Markdown)', async () => {
    const space = await newSpace();
    const cr = await openCr(space.id);
    const doc = {
      object: 'document',
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'heading-1',
          data: {},
          nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Hello', marks: [] }] }],
        },
        {
          object: 'block',
          type: 'paragraph',
          data: {},
          nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'World', marks: [{ object: 'mark', type: 'bold' }] }] }],
        },
      ],
    };
    const { pages } = await crWrite(space.id, cr.id, [
      { operation: 'insert_page', document: { document: doc } },
      { operation: 'insert_page', title: 'Markdown', document: { markdown: 'Plain **text**\n' } },
    ]);
    const base = `/v1/spaces/${space.id}/change-requests/${cr.id}/content/page`;
    const fromJson = await h.rest('getPageInChangeRequestById', 'GET', `${base}/${pages[0]}?format=markdown`, { token: owner.token });
    expect(fromJson.body).toMatchObject({ title: 'Hello', markdown: '# Hello\n\n**World**\n' });
    const asDocument = await h.rest('getPageInChangeRequestById', 'GET', `${base}/${pages[0]}?format=document`, { token: owner.token });
    expect(asDocument.body.document.nodes.map((n: any) => n.type)).toEqual(['heading-1', 'paragraph']);
    expect(
      (await h.rest('getPageInChangeRequestById', 'GET', `${base}/${pages[1]}?format=markdown`, { token: owner.token })).body.markdown,
    ).toBe('Plain **text**\n');
  });

  it('resolves refs: later changes use them for into/page, Markdown links to ./<ref>.md, ./<ref> and /pages/<ref> become ids', async () => {
    const space = await newSpace();
    const cr = await openCr(space.id);
    const written = await crWrite(space.id, cr.id, [
      // Links to a page and a file inserted later in the batch.
      {
        operation: 'insert_page',
        ref: 'intro',
        title: 'Intro',
        document: { markdown: 'See [setup](./setup.md#install), [again](/pages/setup) and ![logo](./logo-file).\n\n[def]: ./setup\n' },
      },
      {
        operation: 'insert_page',
        ref: 'setup',
        title: 'Setup',
        into: 'intro',
        document: { markdown: 'Back to [intro](../intro.md) and [the intro](./intro).\n' },
      },
      { operation: 'update_page', page: 'setup', description: 'Updated by ref' },
      { operation: 'insert_files', files: [{ ref: 'logo-file', name: 'logo.png', contentType: 'image/png', base64: b64('logo') }] },
    ]);
    const [intro, setup] = written.pages as [string, string];
    const [logo] = written.files as [string];
    expect(written.body.changes).toMatchObject([
      { object: 'created_page', ref: 'intro', page: { id: intro } },
      { object: 'created_page', ref: 'setup', page: { id: setup } },
    ]);
    const base = `/v1/spaces/${space.id}/change-requests/${cr.id}/content/page`;
    const md = (await h.rest('getPageInChangeRequestById', 'GET', `${base}/${intro}?format=markdown`, { token: owner.token })).body
      .markdown;
    expect(md).toBe(
      `See [setup](/pages/${setup}#install), [again](/pages/${setup}) and ![logo](/files/${logo}).\n\n[def]: /pages/${setup}\n`,
    );
    const child = (await h.rest('getPageInChangeRequestById', 'GET', `${base}/${setup}?format=markdown`, { token: owner.token })).body;
    expect(child).toMatchObject({
      path: 'intro/setup',
      description: 'Updated by ref',
      markdown: `Back to [intro](../intro.md) and [the intro](/pages/${intro}).\n`,
    });
    // Read as a document, the id links are references to the page and the file.
    const doc = (await h.rest('getPageInChangeRequestById', 'GET', `${base}/${intro}?format=document`, { token: owner.token })).body
      .document;
    const refs = JSON.stringify(doc);
    expect(refs).toContain(JSON.stringify({ kind: 'anchor', anchor: 'install', page: setup }));
    expect(refs).toContain(JSON.stringify({ kind: 'page', page: setup }));
    expect(refs).toContain(JSON.stringify({ kind: 'file', file: logo }));
    // GitBook's path forms of a page link: /pages/<slug path> and /pages/<slug path>.md.
    const [paths2] = (
      await crWrite(space.id, cr.id, [
        {
          operation: 'insert_page',
          title: 'Paths',
          document: { markdown: '[a](/pages/intro/setup) [b](/pages/intro.md) [c](/pages/nowhere)\n' },
        },
      ])
    ).pages as [string];
    const linked = JSON.stringify(
      (await h.rest('getPageInChangeRequestById', 'GET', `${base}/${paths2}?format=document`, { token: owner.token })).body.document,
    );
    expect(linked).toContain(JSON.stringify({ kind: 'page', page: setup }));
    expect(linked).toContain(JSON.stringify({ kind: 'page', page: intro }));
    expect(linked).toContain(JSON.stringify({ kind: 'url', url: '/pages/nowhere' }));

    await refused(
      400,
      () =>
        postCr(space.id, cr.id, {
          changes: [
            { operation: 'insert_page', ref: 'a' },
            { operation: 'insert_files', files: [{ ref: 'a', name: 'x', contentType: 'text/plain', base64: b64('x') }] },
          ],
        }),
      /^changes\[1\]\.files\[0\]\.ref: "a" is used twice/,
    );
    await refused(
      400,
      () => postCr(space.id, cr.id, { changes: [{ operation: 'insert_page', ref: 'intro' }] }),
      /^changes\[0\]\.ref: "intro" is the path of an existing page/,
    );
  });

  it('reverts pages to their state on main, or to a given revision of the space; single blocks are refused', async () => {
    const space = await newSpace();
    const { pages } = await live(space.id, [
      { operation: 'insert_page', title: 'Intro', document: { markdown: 'v1\n' } },
      { operation: 'insert_page', title: 'Other' },
    ]);
    const [intro, other] = pages as [string, string];
    const cr = await openCr(space.id);
    const v2 = await crWrite(space.id, cr.id, [
      { operation: 'update_page', page: intro, title: 'Start', document: { markdown: 'v2\n' } },
      { operation: 'delete_page', page: other },
      { operation: 'insert_page', title: 'Added' },
    ]);
    const added = v2.pages[0]!;
    expect(paths(await crPages(space.id, cr.id))).toEqual(['intro', 'added']);
    await crWrite(space.id, cr.id, [{ operation: 'update_page', page: intro, document: { markdown: 'v3\n' } }]);
    // To a revision of the change request's own line: v2's body comes back.
    await crWrite(space.id, cr.id, [{ operation: 'revert_page', page: intro, revision: v2.revision }]);
    expect((await crPages(space.id, cr.id))[0]).toMatchObject({ title: 'Start', markdown: 'v2\n' });
    const reverts = await crWrite(space.id, cr.id, [
      { operation: 'revert_page', page: intro },
      { operation: 'revert_page', page: other },
      { operation: 'revert_page', page: added },
    ]);
    expect(reverts.body.changes.map((c: any) => c.object)).toEqual(['updated_page', 'created_page', 'deleted_page']);
    const reverted = await crPages(space.id, cr.id);
    expect(paths(reverted)).toEqual(['intro', 'other']);
    expect(reverted[0].markdown).toBe('v1\n');
    expect(reverted).toEqual(await listPages(space.id));

    const elsewhere = await newSpace();
    await refused(
      404,
      () => postCr(space.id, cr.id, { changes: [{ operation: 'revert_page', page: intro, revision: newId() }] }),
      /Revision/,
    );
    await refused(
      404,
      () => postCr(space.id, cr.id, { changes: [{ operation: 'revert_page', page: intro, revision: elsewhere.revision }] }),
      /Revision/,
    );
    await refused(
      400,
      () => postCr(space.id, cr.id, { changes: [{ operation: 'revert_page', page: intro, block: ['abc'] }] }),
      /^changes\[0\]\.block: reverting single blocks is not supported/,
    );
  });

  it('keeps slugs unique when a reverted page gets its old slug back but a sibling took it', async () => {
    const space = await newSpace();
    const [intro] = (await live(space.id, [{ operation: 'insert_page', title: 'Intro' }])).pages as [string];
    const cr = await openCr(space.id);
    await crWrite(space.id, cr.id, [
      { operation: 'update_page', page: intro, title: 'Start', slug: 'start' },
      { operation: 'insert_page', title: 'Intro' },
    ]);
    await crWrite(space.id, cr.id, [{ operation: 'revert_page', page: intro }]);
    const pages = await crPages(space.id, cr.id);
    expect(pages.map((p) => p.title)).toEqual(['Intro', 'Intro']);
    expect(new Set(pages.map((p) => p.path)).size).toBe(2);
  });

  it('refuses an unknown field with 400 naming it, and changes nothing', async () => {
    const space = await newSpace();
    const cr = await openCr(space.id);
    await refused(
      400,
      () =>
        postCr(space.id, cr.id, {
          changes: [
            { operation: 'insert_page', title: 'x', document: { markdown: 'y' } },
            { operation: 'insert_page', title: 'x', markdown: 'y' },
          ],
        }),
      /^changes\[1\]\.markdown: is not a known field/,
    );
    await refused(
      400,
      () => postCr(space.id, cr.id, { changes: [{ operation: 'insert_page', title: 'x', parent: null, position: { before: null } }] }),
      /^changes\[0\]\.(parent|position): is not a known field/,
    );
    expect(await crPages(space.id, cr.id)).toEqual([]);
  });

  it('refuses writes to merged and archived change requests (409) and to unknown ones (404)', async () => {
    const space = await newSpace();
    const body = { changes: [{ operation: 'insert_page', title: 'x' }] };
    const merged = await openCr(space.id);
    await crWrite(space.id, merged.id, body.changes);
    expect((await h.call('POST', `/v1/spaces/${space.id}/change-requests/${merged.id}/merge`, { token: owner.token })).status).toBe(200);
    await refused(409, () => postCr(space.id, merged.id, body), /merged/);
    const archived = await openCr(space.id);
    expect(
      (await h.call('PATCH', `/v1/spaces/${space.id}/change-requests/${archived.id}`, { token: owner.token, body: { status: 'archived' } }))
        .status,
    ).toBe(200);
    await refused(409, () => postCr(space.id, archived.number, body), /archived/);
    await refused(404, () => postCr(space.id, newId(), body), /Change request/);
    await refused(404, () => postCr(space.id, 4242, body), /Change request/);
    const open = await openCr(space.id);
    await refused(400, () => postCr(space.id, open.id, { changes: [{ operation: 'bogus' }] }), /^changes\[0\]\.operation/);
    await refused(404, () => postCr(space.id, open.id, { changes: [{ operation: 'update_page', page: 'nope', title: 'x' }] }), /Page nope/);
  });

  it('refuses writes in a locked space (403) and callers without the edit role', async () => {
    const space = await newSpace();
    const cr = await openCr(space.id);
    const body = { changes: [{ operation: 'insert_page', title: 'x' }] };
    await refused(401, () => postCr(space.id, cr.id, body, null));
    await refused(404, () => postCr(space.id, cr.id, body, outsider), /Space/);
    await refused(403, () => postCr(space.id, cr.id, body, reader), /edit/);
    await refused(403, () => postCr(space.id, cr.id, body, commenter), /edit/);
    await patchSpace(space.id, { editMode: 'locked' });
    await refused(403, () => postCr(space.id, cr.id, body), /locked/);
  });
});

describe('insert_files by url (through the outbound guard)', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/big')
        return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(MAX_FILE_BYTES + 1));
      res.writeHead(200, { 'content-type': 'image/svg+xml; charset=utf-8' }).end('<svg/>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return () => new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('refuses a private address (400 naming the url, nothing changed); with private addresses allowed by the operator it fetches the file', async () => {
    const space = await newSpace();
    const cr = await openCr(space.id);
    const body = (u: string, more = {}) => ({ changes: [{ operation: 'insert_files', files: [{ name: 'logo.svg', url: u, ...more }] }] });
    await refused(
      400,
      () => postCr(space.id, cr.id, body(`${url}/logo.svg`)),
      /^changes\[0\]\.files\[0\]\.url: could not be fetched: .*private network address/,
    );
    await refused(400, () => postCr(space.id, cr.id, body(`http://localhost:1/logo.svg`)), /^changes\[0\]\.files\[0\]\.url\b/);
    await refused(400, () => postCr(space.id, cr.id, body('file:///etc/passwd')), /^changes\[0\]\.files\[0\]\.url\b/);
    process.env.LECTERN_OPENAPI_ALLOW_PRIVATE = '1';
    try {
      const written = await crWrite(space.id, cr.id, body(`${url}/logo.svg`).changes);
      expect(written.body.insertedFiles).toEqual([expect.objectContaining({ name: 'logo.svg', contentType: 'image/svg+xml', size: 6 })]);
      const typed = await crWrite(space.id, cr.id, body(`${url}/logo.svg`, { contentType: 'text/plain' }).changes);
      expect(typed.body.insertedFiles[0].contentType).toBe('text/plain');
      await refused(
        400,
        () => postCr(space.id, cr.id, body(`${url}/big`)),
        /^changes\[0\]\.files\[0\]\.url: could not be fetched: .*larger than 1048576/,
      );
    } finally {
      delete process.env.LECTERN_OPENAPI_ALLOW_PRIVATE;
    }
  });
});

describe('the official @gitbook/api 0.202.0 client over HTTP', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer({ ...h.config, host: '127.0.0.1', port: 0 }, { db: h.db, worker: false });
    return () => server.close();
  });

  it('updateChangeRequestContent: the official request as the client builds it, both compat answers, and a refusal it can read', async () => {
    const api = new GitBookAPI({ endpoint: server.url, authToken: owner.token });
    const space = await newSpace();
    const cr = await openCr(space.id);
    const changes: ChangeRequestContentChange[] = [
      { operation: 'insert_files', files: [{ ref: 'diagram', name: 'diagram.png', contentType: 'image/png', base64: b64('png bytes') }] },
      {
        operation: 'insert_page',
        ref: 'guide',
        title: 'Guide',
        document: { markdown: '# Guide\n\n![Diagram](./diagram) then [setup](./setup.md).\n' },
      },
      { operation: 'insert_page', ref: 'setup', into: 'guide', document: { markdown: '---\ndescription: Install it\n---\n# Setup\n' } },
    ];
    const detailed = await api.spaces.updateChangeRequestContent(space.id, cr.id, { changes }, { compat: false });
    assertMatchesSpec('updateChangeRequestContent', detailed.status, detailed.data);
    const update = detailed.data as ChangeRequestContentUpdate;
    expect(update.changes.map((c) => c.object)).toEqual(['created_page', 'created_page']);
    const [guide, setup] = update.changes.map((c) => (c.page as { id: string }).id) as [string, string];
    const page = await api.spaces.getPageInChangeRequestById(space.id, cr.id, setup, { format: 'markdown' });
    expect(page.data).toMatchObject({ title: 'Setup', description: 'Install it', path: 'guide/setup' });
    const guideMd = (await api.spaces.getPageInChangeRequestById(space.id, cr.id, guide, { format: 'markdown' })).data as {
      markdown: string;
    };
    expect(guideMd.markdown).toBe(`# Guide\n\n![Diagram](/files/${update.insertedFiles![0]!.id}) then [setup](/pages/${setup}).\n`);

    const plain = await api.spaces.updateChangeRequestContent(space.id, cr.id, {
      changes: [{ operation: 'update_page', page: setup, title: 'Install' }],
    });
    assertMatchesSpec('updateChangeRequestContent', plain.status, plain.data);
    expect(plain.data).toMatchObject({ object: 'change-request', id: cr.id });
    const error = await api.spaces
      .updateChangeRequestContent(space.id, cr.id, { changes: [{ operation: 'delete_page', page: newId() }] })
      .catch((e: GitBookAPIError) => e);
    expect(error).toMatchObject({ code: 404 });
  });
});

describe('GraphQL writeChangeRequestContent / writeSpaceContent (typed inputs)', () => {
  it('takes the same changes as typed input objects and answers typed outcomes', async () => {
    const space = await newSpace();
    const cr = await openCr(space.id);
    const res = await h.graphql(
      owner.token,
      `mutation($space: ID!, $cr: String!) {
        writeChangeRequestContent(spaceId: $space, changeRequestId: $cr, input: { changes: [
          { operation: insert_page, title: "Typed", ref: "t", document: { markdown: "Hello" }, at: 0 },
          { operation: insert_files, files: [{ name: "a.txt", contentType: "text/plain", base64: "YQ==" }] }
        ] }) { revision changeRequest { id revision } changes { object ref page location } insertedFiles { name size } }
      }`,
      { space: space.id, cr: cr.id },
    );
    expect(res.body.errors).toBeUndefined();
    const out = res.body.data.writeChangeRequestContent;
    expect(out).toMatchObject({
      changeRequest: { id: cr.id, revision: out.revision },
      changes: [{ object: 'created_page', ref: 't' }],
      insertedFiles: [{ name: 'a.txt', size: 1 }],
    });
    const bad = await h.graphql(
      owner.token,
      `mutation($space: ID!) { writeSpaceContent(spaceId: $space, input: { changes: [{ operation: insert_page, markdown: "x" }] }) { revision } }`,
      { space: space.id },
    );
    expect(bad.body.errors[0].message).toMatch(/markdown/);
  });
});

describe('POST /spaces/:spaceId/content/template', () => {
  const applyTemplate = (spaceId: string, body: unknown, user: { token: string } | null = owner) =>
    h.call('POST', `/v1/spaces/${spaceId}/content/template`, { token: user?.token ?? null, body });

  it('applies a template live to main (201, no content); applying it again keeps slugs unique', async () => {
    const space = await newSpace();
    await live(space.id, [{ operation: 'insert_page', title: 'Existing' }]);
    const before = await spaceRevision(space.id);
    const res = await h.rest('applyTemplateToSpace', 'POST', `/v1/spaces/${space.id}/content/template`, {
      token: editor.token,
      body: { id: 'getting-started' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toBeUndefined();
    expect(await spaceRevision(space.id)).not.toBe(before);
    const pages = await listPages(space.id);
    expect(paths(pages)).toEqual(['existing', 'introduction', 'quickstart', 'faq']);
    expect(pages[1]).toMatchObject({ title: 'Introduction', emoji: '👋', description: 'What this documentation covers' });
    expect(pages[1].markdown).toMatch(/^# Introduction\n/);
    expect(
      (
        await h.rest('applyTemplateToSpace', 'POST', `/v1/spaces/${space.id}/content/template`, {
          token: owner.token,
          body: { id: 'getting-started', params: { contentRefs: {} } },
        })
      ).status,
    ).toBe(201);
    expect(paths(await listPages(space.id))).toEqual([
      'existing',
      'introduction',
      'quickstart',
      'faq',
      'introduction-1',
      'quickstart-1',
      'faq-1',
    ]);
  });

  it('applies a template to a change request (by id or number), leaving main alone', async () => {
    const space = await newSpace();
    const main = await spaceRevision(space.id);
    const cr = await openCr(space.id);
    expect(
      (
        await h.rest('applyTemplateToSpace', 'POST', `/v1/spaces/${space.id}/content/template`, {
          token: owner.token,
          body: { id: 'changelog', changeRequestId: cr.id },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await h.rest('applyTemplateToSpace', 'POST', `/v1/spaces/${space.id}/content/template`, {
          token: owner.token,
          body: { id: 'api-reference', changeRequestId: String(cr.number) },
        })
      ).status,
    ).toBe(201);
    expect(await spaceRevision(space.id)).toBe(main);
    expect(await listPages(space.id)).toEqual([]);
    expect(paths(await crPages(space.id, cr.id))).toEqual(['changelog', 'api-overview', 'authentication', 'errors']);
  });

  it('refuses unknown templates and bad parameters (400 naming the field), unknown change requests (404), locked spaces (403)', async () => {
    const space = await newSpace();
    await refused(
      400,
      () => applyTemplate(space.id, { id: 'no-such-template' }),
      /^id: unknown template "no-such-template" \(known: getting-started, api-reference, changelog\)/,
    );
    await refused(400, () => applyTemplate(space.id, { id: 'toString' }), /^id: unknown template/);
    await refused(400, () => applyTemplate(space.id, {}), /^id\b/);
    await refused(400, () => applyTemplate(space.id, { id: 7 }), /^id\b/);
    await refused(400, () => applyTemplate(space.id, { id: 'changelog', params: 'x' }), /^params\b/);
    await refused(400, () => applyTemplate(space.id, { id: 'changelog', params: { contentRefs: [1] } }), /^params\.contentRefs\b/);
    await refused(404, () => applyTemplate(space.id, { id: 'changelog', changeRequestId: newId() }), /Change request/);
    await refused(404, () => applyTemplate(newId(), { id: 'changelog' }), /Space/);
    const cr = await openCr(space.id);
    await patchSpace(space.id, { editMode: 'locked' });
    await refused(403, () => applyTemplate(space.id, { id: 'changelog' }), /locked/);
    await refused(403, () => applyTemplate(space.id, { id: 'changelog', changeRequestId: cr.id }), /locked/);
  });

  it('needs the edit role: 401, 404 for an outsider, 403 for read and comment members', async () => {
    const space = await newSpace();
    await refused(401, () => applyTemplate(space.id, { id: 'changelog' }, null));
    await refused(404, () => applyTemplate(space.id, { id: 'changelog' }, outsider), /Space/);
    await refused(403, () => applyTemplate(space.id, { id: 'changelog' }, reader), /edit/);
    await refused(403, () => applyTemplate(space.id, { id: 'changelog' }, commenter), /edit/);
  });

  it('is the applyTemplateToSpace mutation in GraphQL', async () => {
    const space = await newSpace();
    const res = await h.graphql(
      owner.token,
      `mutation($id: ID!) { applyTemplateToSpace(spaceId: $id, input: { id: "changelog" }) { revision changes { object page } } }`,
      { id: space.id },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.applyTemplateToSpace.changes).toEqual([{ object: 'created_page', page: expect.any(String) }]);
    expect(res.body.data.applyTemplateToSpace.revision).toBe(await spaceRevision(space.id));
    const bad = await h.graphql(
      owner.token,
      `mutation($id: ID!) { applyTemplateToSpace(spaceId: $id, input: { id: "nope" }) { revision } }`,
      { id: space.id },
    );
    expect(bad.body.errors[0]).toMatchObject({
      message: expect.stringMatching(/^id: unknown template/),
      extensions: { code: 'BAD_REQUEST' },
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('route coverage', () => {
  it('answers 401 without a token on every content route, including the writes', async () => {
    const params: Record<string, string> = { spaceId: newId(), changeRequestId: newId(), pageId: newId(), fileId: newId() };
    const writes = [
      { method: 'POST', path: '/spaces/:spaceId/content' },
      { method: 'POST', path: '/spaces/:spaceId/change-requests/:changeRequestId/content' },
    ];
    for (const route of [...contentRoutes, ...writes]) {
      const path = `/v1${route.path.replace(/:(\w+)/g, (_, name: string) => params[name]!)}`;
      await refused(401, () => h.call(route.method, path, route.method === 'GET' ? {} : { body: {} }));
    }
  });
});

describe('coverage of the official operations', () => {
  // Runs last: every content write with an official operation answered a success through h.rest (validated against its schema).
  it('exercised every content write successfully', () => {
    expect([...WRITE_OPERATIONS, 'updateChangeRequestContent'].filter((id) => !h.coveredOperations.has(id))).toEqual([]);
  });
});
