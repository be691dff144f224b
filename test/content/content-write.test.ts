/** Content writes: live edits to main, edits to a change request, templates; 401 on every content route (setup in ./fixtures.ts). */
import { beforeAll, describe, expect, it } from 'vitest';
import { contentRoutes } from '../../src/modules/content/routes.js';
import { MAX_FILE_BYTES } from '../../src/modules/content/changes.js';
import { newId } from '../../src/ids.js';
import { h, owner, reader, commenter, editor, outsider, setupContent, newSpace, spaceRevision, postLive, postCr, live, crWrite, openCr, patchSpace, refused, paths, listPages, crPages, getPage, b64, download, WRITE_OPERATIONS } from './fixtures.js';

beforeAll(setupContent);

describe('POST /spaces/:spaceId/content (live edits)', () => {
  it('inserts pages at a parent and a position, with front matter, and moves main to a new revision', async () => {
    const space = await newSpace();
    const initial = await spaceRevision(space.id);
    const one = await live(space.id, [
      { type: 'insert_page', title: 'Alpha' },
      { type: 'insert_page', title: 'Charlie' },
    ]);
    const [alpha, charlie] = one.pages as [string, string];
    const two = await live(space.id, [
      { type: 'insert_page', title: 'Bravo', position: { before: charlie } },
      { type: 'insert_page', title: 'Zulu', position: { after: alpha } },
      { type: 'insert_page', title: 'Child two', parent: alpha },
      { type: 'insert_page', title: 'Child one', parent: alpha, position: { before: null, after: null } },
      { type: 'insert_page', title: 'Child zero', parent: alpha, position: { before: null } },
    ]);
    expect(two.pages).toHaveLength(5);
    expect(paths(await listPages(space.id))).toEqual(['alpha', 'alpha/child-two', 'alpha/child-one', 'alpha/child-zero', 'zulu', 'bravo', 'charlie']);
    const three = await live(space.id, [{ type: 'insert_page', title: 'First child', parent: alpha, position: { before: two.pages[2] } }]);
    expect(paths(await listPages(space.id)).slice(0, 3)).toEqual(['alpha', 'alpha/first-child', 'alpha/child-two']);

    // Each write is a new immutable revision on main's line.
    expect(await spaceRevision(space.id)).toBe(three.revision);
    const revisions = await h.db.prisma.revision.findMany({ where: { id: { in: [one.revision, two.revision, three.revision] } } });
    const byId = new Map(revisions.map((r) => [r.id, r]));
    expect(byId.get(one.revision)).toMatchObject({ spaceId: space.id, parents: [initial], type: 'edits', changeRequestId: null, createdById: owner.id });
    expect(byId.get(two.revision)!.parents).toEqual([one.revision]);
    expect(byId.get(three.revision)!.parents).toEqual([two.revision]);
    expect((await h.rest('getSpaceById', 'GET', `/v1/spaces/${space.id}`, { token: owner.token })).body.revision).toBe(three.revision);
  });

  it('serialises concurrent writes: none is lost, each revision builds on the one before', async () => {
    const space = await newSpace();
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => live(space.id, [{ type: 'insert_page', title: `Page ${i}` }])));
    expect((await listPages(space.id)).map((p) => p.title).sort()).toEqual(['Page 0', 'Page 1', 'Page 2', 'Page 3', 'Page 4', 'Page 5']);
    const revisions = await h.db.prisma.revision.findMany({ where: { id: { in: results.map((r) => r.revision) } } });
    const parents = new Set(revisions.map((r) => r.parents[0]));
    expect(parents.size).toBe(6);
    expect(revisions.filter((r) => !parents.has(r.id)).map((r) => r.id)).toEqual([await spaceRevision(space.id)]);
  });

  it('reads title, description, emoji and hidden from front matter; explicit fields win', async () => {
    const space = await newSpace();
    const { pages } = await live(space.id, [
      { type: 'insert_page', markdown: '---\ntitle: From front matter\ndescription: Described\nemoji: 🚀\nhidden: true\n---\n# Body\n' },
      { type: 'insert_page', title: 'Explicit', description: 'Given', markdown: '---\ntitle: Ignored\ndescription: Also ignored\n---\nText\n' },
    ]);
    const [fm, explicit] = pages as [string, string];
    const page = await getPage(space.id, fm);
    expect(page).toMatchObject({ title: 'From front matter', slug: 'from-front-matter', description: 'Described', emoji: '🚀', hidden: true, markdown: '# Body\n' });
    expect(await getPage(space.id, explicit)).toMatchObject({ title: 'Explicit', slug: 'explicit', description: 'Given', markdown: 'Text\n' });
  });

  it('updates a page: title (and so its slug), body, fields, and moves it', async () => {
    const space = await newSpace();
    const { pages } = await live(space.id, [
      { type: 'insert_page', title: 'Intro', markdown: 'old body\n', emoji: '📘', description: 'Old' },
      { type: 'insert_page', title: 'Folder' },
      { type: 'insert_page', title: 'Last' },
    ]);
    const [intro, folder, last] = pages as [string, string, string];
    const before = await getPage(space.id, intro);
    await live(space.id, [{ type: 'update_page', page: intro, title: 'Getting Started', markdown: 'new body\n', emoji: null, description: 'New', hidden: true }]);
    const after = await getPage(space.id, intro);
    expect(after).toMatchObject({ title: 'Getting Started', slug: 'getting-started', path: 'getting-started', markdown: 'new body\n', description: 'New', hidden: true, createdAt: before.createdAt });
    expect(after).not.toHaveProperty('emoji');
    expect(after.updatedAt >= before.updatedAt).toBe(true);

    // A title from the body's front matter renames it too.
    await live(space.id, [{ type: 'update_page', page: intro, markdown: '---\ntitle: Start Here\nhidden: false\n---\nbody\n' }]);
    expect(await getPage(space.id, intro)).toMatchObject({ title: 'Start Here', slug: 'start-here', markdown: 'body\n' });
    expect(await getPage(space.id, intro)).not.toHaveProperty('hidden');

    // Moves: below another page, then back to the top level before another page.
    await live(space.id, [{ type: 'update_page', page: intro, parent: folder }]);
    expect(paths(await listPages(space.id))).toEqual(['folder', 'folder/start-here', 'last']);
    await live(space.id, [{ type: 'update_page', page: intro, parent: null, position: { before: folder } }]);
    expect(paths(await listPages(space.id))).toEqual(['start-here', 'folder', 'last']);
    await live(space.id, [{ type: 'update_page', page: intro, position: { after: last } }]);
    expect(paths(await listPages(space.id))).toEqual(['folder', 'last', 'start-here']);
  });

  it('deletes a page with its whole subtree', async () => {
    const space = await newSpace();
    const { pages } = await live(space.id, [{ type: 'insert_page', title: 'Parent' }, { type: 'insert_page', title: 'Keep' }]);
    const [parent] = pages as [string];
    const child = (await live(space.id, [{ type: 'insert_page', title: 'Child', parent }])).pages[0]!;
    const grandchild = (await live(space.id, [{ type: 'insert_page', title: 'Grandchild', parent: child }])).pages[0]!;
    expect(paths(await listPages(space.id))).toEqual(['parent', 'parent/child', 'parent/child/grandchild', 'keep']);
    await live(space.id, [{ type: 'delete_page', page: parent }]);
    expect(paths(await listPages(space.id))).toEqual(['keep']);
    for (const id of [parent, child, grandchild]) await refused(404, () => h.call('GET', `/v1/spaces/${space.id}/content/page/${id}`, { token: owner.token }), /Page/);
  });

  it('keeps slugs unique among siblings only (inserts, renames, moves)', async () => {
    const space = await newSpace();
    const { pages } = await live(space.id, [
      { type: 'insert_page', title: 'Intro' },
      { type: 'insert_page', title: 'Intro' },
      { type: 'insert_page', title: 'Folder' },
      { type: 'insert_page', title: '!!!' },
    ]);
    const [, intro1, folder] = pages as [string, string, string];
    const nested = (await live(space.id, [{ type: 'insert_page', title: 'Intro', parent: folder }])).pages[0]!;
    expect(paths(await listPages(space.id))).toEqual(['intro', 'intro-1', 'folder', 'folder/intro', 'untitled']);
    // A rename onto a taken slug, and a move under a parent whose child has the slug, both get a suffix.
    const other = (await live(space.id, [{ type: 'insert_page', title: 'Other' }])).pages[0]!;
    await live(space.id, [
      { type: 'update_page', page: other, title: 'Intro' },
      { type: 'update_page', page: intro1, parent: folder },
    ]);
    expect(paths(await listPages(space.id))).toEqual(['intro', 'folder', 'folder/intro', 'folder/intro-1', 'untitled', 'intro-2']);
    // A slug freed by a rename can be taken again.
    await live(space.id, [{ type: 'update_page', page: nested, title: 'Nested' }, { type: 'insert_page', title: 'Intro', parent: folder }]);
    expect(paths(await listPages(space.id))).toEqual(['intro', 'folder', 'folder/nested', 'folder/intro-1', 'folder/intro', 'untitled', 'intro-2']);
  });

  it('uploads files (base64), up to 1 MB each', async () => {
    const space = await newSpace();
    const big = Buffer.alloc(MAX_FILE_BYTES, 7);
    const { files } = await live(space.id, [
      { type: 'insert_files', files: [{ name: 'big.bin', data: big.toString('base64') }, { name: 'tiny.txt', contentType: 'text/markdown', data: b64('# hi') }] },
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
    const unpadded = await live(space.id, [{ type: 'insert_files', files: [{ name: 'a.txt', data: 'aGk' }] }]);
    expect((await h.rest('getFileById', 'GET', `/v1/spaces/${space.id}/content/files/${unpadded.files[0]}`, { token: owner.token })).body.size).toBe(2);
  });

  it.each([
    ['a file over 1 MB', [{ type: 'insert_files', files: [{ name: 'big.bin', data: Buffer.alloc(MAX_FILE_BYTES + 1).toString('base64') }] }], /^changes\[0\]\.files\[0\]\.data: .*1048576/],
    ['bad base64', [{ type: 'insert_files', files: [{ name: 'x.txt', data: 'not base64!' }] }], /^changes\[0\]\.files\[0\]\.data: must be base64/],
    ['truncated base64', [{ type: 'insert_files', files: [{ name: 'x.txt', data: 'aGVsbG8' + 'x' }, { name: 'y', data: 'abcde' }] }], /^changes\[0\]\.files\[1\]\.data: must be base64/],
    ['base64 that is not a string', [{ type: 'insert_files', files: [{ name: 'x.txt', data: 42 }] }], /^changes\[0\]\.files\[0\]\.data/],
    ['a file without a name', [{ type: 'insert_files', files: [{ data: b64('x') }] }], /^changes\[0\]\.files\[0\]\.name/],
    ['a content type that is not a media type', [{ type: 'insert_files', files: [{ name: 'x', contentType: 'text/html\r\nx-evil: 1', data: b64('x') }] }], /^changes\[0\]\.files\[0\]\.contentType/],
    ['no files', [{ type: 'insert_files', files: [] }], /^changes\[0\]\.files\b/],
    ['an unknown change type', [{ type: 'rename_space', title: 'x' }], /^changes\[0\]\.type\b/],
    ['a change that is null', [null], /^changes\[0\]: /],
    ['a change that is not an object', [7], /^changes\[0\]\.type\b/],
    ['no changes', [], /^changes\b/],
    ['51 changes', Array.from({ length: 51 }, (_, i) => ({ type: 'insert_page', title: `P${i}` })), /^changes: at most 50/],
    ['a page without a title', [{ type: 'insert_page', markdown: 'no title here' }], /^changes\[0\]\.title\b/],
    ['an unknown page type', [{ type: 'insert_page', title: 'x', pageType: 'sheet' }], /^changes\[0\]\.pageType\b/],
    ['a link page without href', [{ type: 'insert_page', title: 'x', pageType: 'link' }], /^changes\[0\]\.href\b/],
    ['an unknown parent', [{ type: 'insert_page', title: 'x', parent: 'nope' }], /^changes\[0\]\.parent\b/],
    ['a position next to a page that is not a sibling', [{ type: 'insert_page', title: 'x', position: { before: 'nope' } }], /^changes\[0\]\.position\b/],
    ['bad front matter', [{ type: 'insert_page', title: 'x', markdown: '---\ntitle: [unclosed\n---\nx' }], /^changes\[0\]\.markdown\b/],
    ['update without a page', [{ type: 'update_page', title: 'x' }], /^changes\[0\]\.page\b/],
    ['delete without a page', [{ type: 'delete_page' }], /^changes\[0\]\.page\b/],
    ['revert without a page', [{ type: 'revert_page', page: 7 }], /^changes\[0\]\.page\b/],
    ['variables that are not an object', [{ type: 'update_variables', variables: ['a'] }], /^changes\[0\]\.variables\b/],
    ['a variable value that is not a string', [{ type: 'update_variables', variables: { a: 1 } }], /^changes\[0\]\.variables\.a\b/],
    ['a bad variable name', [{ type: 'update_variables', variables: { 'a b': 'x' } }], /^changes\[0\]\.variables\.a b/],
  ])('refuses %s with 400 naming the field, changing nothing', async (_what, changes, message) => {
    const space = await newSpace();
    await live(space.id, [{ type: 'insert_page', title: 'Existing' }]);
    await refused(400, () => postLive(space.id, { changes }), message);
  });

  it('refuses invalid updates with 400 naming the field, unknown pages with 404, and applies a batch all or nothing', async () => {
    const space = await newSpace();
    const { pages } = await live(space.id, [
      { type: 'insert_page', title: 'Doc' },
      { type: 'insert_page', pageType: 'group', title: 'Group' },
      { type: 'insert_page', pageType: 'link', title: 'Link', href: 'https://example.com' },
    ]);
    const [doc, group, link] = pages as [string, string, string];
    const child = (await live(space.id, [{ type: 'insert_page', title: 'Child', parent: doc }])).pages[0]!;
    const cases: [unknown, RegExp][] = [
      [{ type: 'insert_page', title: 'Nested group', pageType: 'group', parent: doc }, /^changes\[0\]\.parent: group pages/],
      [{ type: 'insert_page', title: 'Under a link', parent: link }, /^changes\[0\]\.parent: a link page/],
      [{ type: 'update_page', page: group, markdown: 'x' }, /^changes\[0\]\.markdown\b/],
      [{ type: 'update_page', page: doc, href: 'https://x.test' }, /^changes\[0\]\.href\b/],
      [{ type: 'update_page', page: doc, title: '  ' }, /^changes\[0\]\.title\b/],
      [{ type: 'update_page', page: doc, parent: child }, /^changes\[0\]\.parent: cannot move a page below itself/],
      [{ type: 'update_page', page: doc, parent: doc }, /^changes\[0\]\.parent: cannot move a page below itself/],
      [{ type: 'update_page', page: group, parent: doc }, /^changes\[0\]\.parent: group pages/],
      [{ type: 'update_page', page: doc, position: { after: child } }, /^changes\[0\]\.position\b/],
    ];
    for (const [change, message] of cases) await refused(400, () => postLive(space.id, { changes: [change] }), message);
    for (const type of ['update_page', 'delete_page', 'revert_page']) {
      await refused(404, () => postLive(space.id, { changes: [{ type, page: newId(), title: 'x' }] }), /^Page \w+ not found/);
    }
    // The first change is valid, the second is not: nothing of the batch is applied.
    await refused(404, () => postLive(space.id, { changes: [{ type: 'insert_page', title: 'Would be new' }, { type: 'delete_page', page: 'missing' }] }), /Page missing/);
    await refused(400, () => postLive(space.id, { changes: [{ type: 'delete_page', page: doc }, { type: 'insert_page', title: 'Late' }, { type: 'bogus' }] }), /changes\[2\]\.type/);
    expect(paths(await listPages(space.id))).toEqual(['doc', 'doc/child', 'group', 'link:Link']);
  });

  it('refuses malformed bodies with 400', async () => {
    const space = await newSpace();
    await refused(400, () => h.call('POST', `/v1/spaces/${space.id}/content`, { token: owner.token, rawBody: '{"changes": [' }), /^body\b/);
    await refused(400, () => postLive(space.id, {}), /changes/);
    await refused(400, () => postLive(space.id, { changes: null }), /changes/);
    await refused(400, () => postLive(space.id, { changes: 'insert_page' }), /changes\[0\]\.type/);
  });

  it('refuses edits to a locked space (403) and to an unknown space (404)', async () => {
    const space = await newSpace({ title: 'Locked', editMode: 'locked' });
    await refused(403, () => postLive(space.id, { changes: [{ type: 'insert_page', title: 'x' }] }), /locked/);
    await refused(404, () => postLive(newId(), { changes: [{ type: 'insert_page', title: 'x' }] }), /Space/);
    await patchSpace(space.id, { editMode: 'live' });
    await live(space.id, [{ type: 'insert_page', title: 'Now allowed' }]);
  });

  it('needs the edit role: 401 without a token, 404 for an outsider, 403 for read and comment members', async () => {
    const space = await newSpace();
    const body = { changes: [{ type: 'insert_page', title: 'x' }] };
    await refused(401, () => postLive(space.id, body, null));
    await refused(404, () => postLive(space.id, body, outsider), /Space/);
    await refused(403, () => postLive(space.id, body, reader), /edit/);
    await refused(403, () => postLive(space.id, body, commenter), /edit/);
    const written = await live(space.id, body.changes, editor);
    expect((await h.db.prisma.revision.findUnique({ where: { id: written.revision } }))!.createdById).toBe(editor.id);
  });
});

describe('POST /spaces/:spaceId/change-requests/:changeRequestId/content', () => {
  it("writes to the change request's own line, leaving main alone, and records contributors", async () => {
    const space = await newSpace();
    const { pages } = await live(space.id, [{ type: 'insert_page', title: 'Main page', markdown: 'main\n' }]);
    const mainRevision = await spaceRevision(space.id);
    const cr = await openCr(space.id, 'Edits', editor);
    const first = await crWrite(space.id, cr.id, [{ type: 'update_page', page: pages[0], markdown: 'changed\n' }, { type: 'insert_page', title: 'New' }], editor);
    const second = await crWrite(space.id, cr.number, [{ type: 'insert_page', title: 'Newer' }]);
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

  it('reverts pages to their state on main (restoring, or removing pages the change request added)', async () => {
    const space = await newSpace();
    const { pages } = await live(space.id, [{ type: 'insert_page', title: 'Intro', markdown: 'v1\n' }, { type: 'insert_page', title: 'Other' }]);
    const [intro, other] = pages as [string, string];
    const cr = await openCr(space.id);
    const added = (await crWrite(space.id, cr.id, [
      { type: 'update_page', page: intro, title: 'Start', markdown: 'v2\n' },
      { type: 'delete_page', page: other },
      { type: 'insert_page', title: 'Added' },
    ])).pages[0]!;
    expect(paths(await crPages(space.id, cr.id))).toEqual(['start', 'added']);
    await crWrite(space.id, cr.id, [{ type: 'revert_page', page: intro }, { type: 'revert_page', page: other }, { type: 'revert_page', page: added }]);
    const reverted = await crPages(space.id, cr.id);
    expect(paths(reverted)).toEqual(['intro', 'other']);
    expect(reverted[0].markdown).toBe('v1\n');
    expect(reverted).toEqual(await listPages(space.id));
  });

  it('keeps slugs unique when a reverted page gets its old slug back but a sibling took it', async () => {
    const space = await newSpace();
    const [intro] = (await live(space.id, [{ type: 'insert_page', title: 'Intro' }])).pages as [string];
    const cr = await openCr(space.id);
    await crWrite(space.id, cr.id, [{ type: 'update_page', page: intro, title: 'Start' }, { type: 'insert_page', title: 'Intro' }]);
    await crWrite(space.id, cr.id, [{ type: 'revert_page', page: intro }]);
    const pages = await crPages(space.id, cr.id);
    expect(pages.map((p) => p.title)).toEqual(['Intro', 'Intro']);
    expect(new Set(pages.map((p) => p.path)).size).toBe(2);
  });

  it('refuses writes to merged and archived change requests (409) and to unknown ones (404)', async () => {
    const space = await newSpace();
    const body = { changes: [{ type: 'insert_page', title: 'x' }] };
    const merged = await openCr(space.id);
    await crWrite(space.id, merged.id, body.changes);
    expect((await h.call('POST', `/v1/spaces/${space.id}/change-requests/${merged.id}/merge`, { token: owner.token })).status).toBe(200);
    await refused(409, () => postCr(space.id, merged.id, body), /merged/);
    const archived = await openCr(space.id);
    expect((await h.call('PATCH', `/v1/spaces/${space.id}/change-requests/${archived.id}`, { token: owner.token, body: { status: 'archived' } })).status).toBe(200);
    await refused(409, () => postCr(space.id, archived.number, body), /archived/);
    await refused(404, () => postCr(space.id, newId(), body), /Change request/);
    await refused(404, () => postCr(space.id, 4242, body), /Change request/);
    const open = await openCr(space.id);
    await refused(400, () => postCr(space.id, open.id, { changes: [{ type: 'bogus' }] }), /^changes\[0\]\.type/);
    await refused(404, () => postCr(space.id, open.id, { changes: [{ type: 'update_page', page: 'nope', title: 'x' }] }), /Page nope/);
  });

  it('refuses writes in a locked space (403) and callers without the edit role', async () => {
    const space = await newSpace();
    const cr = await openCr(space.id);
    const body = { changes: [{ type: 'insert_page', title: 'x' }] };
    await refused(401, () => postCr(space.id, cr.id, body, null));
    await refused(404, () => postCr(space.id, cr.id, body, outsider), /Space/);
    await refused(403, () => postCr(space.id, cr.id, body, reader), /edit/);
    await refused(403, () => postCr(space.id, cr.id, body, commenter), /edit/);
    await patchSpace(space.id, { editMode: 'locked' });
    await refused(403, () => postCr(space.id, cr.id, body), /locked/);
  });
});

describe('POST /spaces/:spaceId/content/template', () => {
  const applyTemplate = (spaceId: string, body: unknown, user: { token: string } | null = owner) =>
    h.call('POST', `/v1/spaces/${spaceId}/content/template`, { token: user?.token ?? null, body });

  it('applies a template live to main (201, no content); applying it again keeps slugs unique', async () => {
    const space = await newSpace();
    await live(space.id, [{ type: 'insert_page', title: 'Existing' }]);
    const before = await spaceRevision(space.id);
    const res = await h.rest('applyTemplateToSpace', 'POST', `/v1/spaces/${space.id}/content/template`, { token: editor.token, body: { id: 'getting-started' } });
    expect(res.status).toBe(201);
    expect(res.body).toBeUndefined();
    expect(await spaceRevision(space.id)).not.toBe(before);
    const pages = await listPages(space.id);
    expect(paths(pages)).toEqual(['existing', 'introduction', 'quickstart', 'faq']);
    expect(pages[1]).toMatchObject({ title: 'Introduction', emoji: '👋', description: 'What this documentation covers' });
    expect(pages[1].markdown).toMatch(/^# Introduction\n/);
    expect((await h.rest('applyTemplateToSpace', 'POST', `/v1/spaces/${space.id}/content/template`, { token: owner.token, body: { id: 'getting-started', params: { contentRefs: {} } } })).status).toBe(201);
    expect(paths(await listPages(space.id))).toEqual(['existing', 'introduction', 'quickstart', 'faq', 'introduction-1', 'quickstart-1', 'faq-1']);
  });

  it('applies a template to a change request (by id or number), leaving main alone', async () => {
    const space = await newSpace();
    const main = await spaceRevision(space.id);
    const cr = await openCr(space.id);
    expect((await h.rest('applyTemplateToSpace', 'POST', `/v1/spaces/${space.id}/content/template`, { token: owner.token, body: { id: 'changelog', changeRequestId: cr.id } })).status).toBe(201);
    expect((await h.rest('applyTemplateToSpace', 'POST', `/v1/spaces/${space.id}/content/template`, { token: owner.token, body: { id: 'api-reference', changeRequestId: String(cr.number) } })).status).toBe(201);
    expect(await spaceRevision(space.id)).toBe(main);
    expect(await listPages(space.id)).toEqual([]);
    expect(paths(await crPages(space.id, cr.id))).toEqual(['changelog', 'api-overview', 'authentication', 'errors']);
  });

  it('refuses unknown templates and bad parameters (400 naming the field), unknown change requests (404), locked spaces (403)', async () => {
    const space = await newSpace();
    await refused(400, () => applyTemplate(space.id, { id: 'no-such-template' }), /^id: unknown template "no-such-template" \(known: getting-started, api-reference, changelog\)/);
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
    const res = await h.graphql(owner.token, `mutation($id: ID!) { applyTemplateToSpace(spaceId: $id, input: { id: "changelog" }) { revision pages } }`, { id: space.id });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.applyTemplateToSpace.pages).toHaveLength(1);
    expect(res.body.data.applyTemplateToSpace.revision).toBe(await spaceRevision(space.id));
    const bad = await h.graphql(owner.token, `mutation($id: ID!) { applyTemplateToSpace(spaceId: $id, input: { id: "nope" }) { revision } }`, { id: space.id });
    expect(bad.body.errors[0]).toMatchObject({ message: expect.stringMatching(/^id: unknown template/), extensions: { code: 'BAD_REQUEST' } });
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
    expect(WRITE_OPERATIONS.filter((id) => !h.coveredOperations.has(id))).toEqual([]);
  });
});
