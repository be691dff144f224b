import { beforeAll, describe, expect, it } from 'vitest';
import { BASE, setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { refusalChecker, type Res } from '../support/refused.js';
import { contentRoutes } from '../../src/modules/content/routes.js';
import { MAX_FILE_BYTES } from '../../src/modules/content/changes.js';
import { newId } from '../../src/ids.js';

/**
 * Space and change-request content: the reads (space main and change request head), the write
 * path (live edits to main and edits to a change request) and templates. Each route is tested
 * three ways: it works (bodies checked against the official schema), bad input is refused with the
 * right status and changes nothing, and callers without the rights are refused.
 */
type Owner = TestUser & { orgId: string };

let h: Harness;
let owner: Owner;
let reader: TestUser;
let commenter: TestUser;
let editor: TestUser;
let outsider: TestUser;

/** The content reads this file covers: each exists on a space's main content and on a change request. */
const READ_OPERATIONS = [
  'getCurrentRevision',
  'getRevisionOfChangeRequestById',
  'listPages',
  'listPagesInChangeRequest',
  'listFiles',
  'listFilesInChangeRequestById',
  'getFileById',
  'getFileInChangeRequestById',
  'getPageById',
  'getPageInChangeRequestById',
];

beforeAll(async () => {
  h = await setupHarness();
  owner = await h.owner();
  [reader, commenter, editor, outsider] = await Promise.all([h.user(), h.user(), h.user(), h.user()]);
  await h.addMember(owner.orgId, reader.id, 'read');
  await h.addMember(owner.orgId, commenter.id, 'comment');
  await h.addMember(owner.orgId, editor.id, 'edit');
});

// ---------------------------------------------------------------------------------------------
// Helpers

async function newSpace(body: Record<string, unknown> = { title: 'Docs' }) {
  const res = await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body });
  expect(res.status).toBe(201);
  return res.body as { id: string; revision: string };
}

const spaceRevision = async (spaceId: string) => (await h.db.prisma.space.findUniqueOrThrow({ where: { id: spaceId } })).revisionId;

const postLive = (spaceId: string, body: unknown, user: { token: string } | null = owner) =>
  h.call('POST', `/v1/spaces/${spaceId}/content`, { token: user?.token ?? null, body });
const postCr = (spaceId: string, crId: string | number, body: unknown, user: { token: string } | null = owner) =>
  h.call('POST', `/v1/spaces/${spaceId}/change-requests/${crId}/content`, { token: user?.token ?? null, body });

type Written = { revision: string; pages: string[]; files: string[] };
function expectWritten(res: Res): Written {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toEqual({ revision: expect.any(String), pages: expect.any(Array), files: expect.any(Array) });
  return res.body;
}
const live = async (spaceId: string, changes: unknown[], user: { token: string } = owner) => expectWritten(await postLive(spaceId, { changes }, user));
const crWrite = async (spaceId: string, crId: string | number, changes: unknown[], user: { token: string } = owner) =>
  expectWritten(await postCr(spaceId, crId, { changes }, user));

async function openCr(spaceId: string, subject = 'Edits', user: { token: string } = owner) {
  const res = await h.call('POST', `/v1/spaces/${spaceId}/change-requests`, { token: user.token, body: { subject } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; number: number };
}

async function patchSpace(spaceId: string, body: Record<string, unknown>) {
  const res = await h.call('PATCH', `/v1/spaces/${spaceId}`, { token: owner.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Everything a refused request must leave alone: the harness snapshot plus change requests, reviews, exports and blobs. */
async function state() {
  const prisma = h.db.prisma;
  const [snapshot, crs, reviews, exports, blobs] = await Promise.all([
    h.snapshot(),
    prisma.changeRequest.findMany({ orderBy: { id: 'asc' } }),
    prisma.changeRequestReview.findMany({ orderBy: [{ changeRequestId: 'asc' }, { userId: 'asc' }] }),
    prisma.pdfExport.findMany({ orderBy: { id: 'asc' } }),
    prisma.fileBlob.findMany({ select: { hash: true }, orderBy: { hash: 'asc' } }),
  ]);
  return `${snapshot}${JSON.stringify({ crs, reviews, exports, blobs })}`;
}

const refused = refusalChecker(() => state());

/** Pages of a tree, depth first, as `path` (or `link:title` for link pages, which have no path). */
function paths(pages: any[]): string[] {
  return pages.flatMap((p) => [p.type === 'link' ? `link:${p.title}` : p.path, ...paths(p.pages ?? [])]);
}
/** Every page of a tree, flat. */
function flat(pages: any[]): any[] {
  return pages.flatMap((p) => [p, ...flat(p.pages ?? [])]);
}

const listPages = async (spaceId: string) => (await h.rest('listPages', 'GET', `/v1/spaces/${spaceId}/content/pages`, { token: owner.token })).body.pages as any[];
const crPages = async (spaceId: string, crId: string | number) =>
  (await h.rest('listPagesInChangeRequest', 'GET', `/v1/spaces/${spaceId}/change-requests/${crId}/content/pages`, { token: owner.token })).body.pages as any[];
async function getPage(spaceId: string, pageId: string, query = 'format=markdown') {
  const res = await h.rest('getPageById', 'GET', `/v1/spaces/${spaceId}/content/page/${pageId}?${query}`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body;
}
const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');
const download = (url: string, method = 'GET') => h.app.fetch(new Request(url, { method }));

/** A space with a small tree, two files and a variable, all written live. */
async function fixture() {
  const space = await newSpace();
  const first = await live(space.id, [
    { type: 'insert_page', title: 'Guide', markdown: '# Guide\n\nUse {{ variables.product }} and {{ variables.missing }}.\n', description: 'How to', emoji: '📘' },
    { type: 'insert_page', pageType: 'group', title: 'Reference' },
    { type: 'insert_page', pageType: 'link', title: 'Website', href: 'https://example.com' },
    {
      type: 'insert_files',
      files: [
        { name: 'logo.png', contentType: 'image/png', data: b64(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3])) },
        { name: 'notes.txt', contentType: 'text/plain', data: b64('hello') },
      ],
    },
    { type: 'update_variables', variables: { product: 'Lectern' } },
  ]);
  const [guide, reference, website] = first.pages as [string, string, string];
  const second = await live(space.id, [
    { type: 'insert_page', title: 'Setup', parent: guide, markdown: 'Install it.\n' },
    { type: 'insert_page', title: 'API', parent: reference, markdown: '## Endpoints\n' },
  ]);
  const [setup, api] = second.pages as [string, string];
  const [logo, notes] = first.files as [string, string];
  return { space, first, second, guide, reference, website, setup, api, logo, notes };
}

// ---------------------------------------------------------------------------------------------

describe('GET /spaces/:spaceId/content (and /pages, /files, /page)', () => {
  it('reads the main revision, its page tree and its files in the official shapes', async () => {
    const f = await fixture();
    const rev = await h.rest('getCurrentRevision', 'GET', `/v1/spaces/${f.space.id}/content`, { token: owner.token });
    expect(rev.status).toBe(200);
    expect(rev.body).toMatchObject({
      object: 'revision',
      id: f.second.revision,
      parents: [f.first.revision],
      type: 'edits',
      variables: { product: 'Lectern' },
      urls: { app: `${BASE}/app/s/${f.space.id}/~/revisions/${f.second.revision}` },
    });
    expect(rev.body.id).toBe(await spaceRevision(f.space.id));
    expect(paths(rev.body.pages)).toEqual(['guide', 'guide/setup', 'reference', 'reference/api', 'link:Website']);
    expect(rev.body.files.map((x: { name: string }) => x.name)).toEqual(['logo.png', 'notes.txt']);

    const pages = await listPages(f.space.id);
    expect(pages).toEqual(rev.body.pages);
    const guide = pages[0];
    expect(guide).toMatchObject({ id: f.guide, kind: 'sheet', type: 'document', title: 'Guide', slug: 'guide', path: 'guide', description: 'How to', emoji: '📘' });
    expect(guide.urls.app).toBe(`${BASE}/app/s/${f.space.id}/guide`);
    // Listings carry each document page's body as markdown.
    expect(guide.markdown).toBe('# Guide\n\nUse {{ variables.product }} and {{ variables.missing }}.\n');
    expect(pages[1]).toMatchObject({ id: f.reference, kind: 'group', type: 'group', title: 'Reference' });
    expect(pages[2]).toMatchObject({ id: f.website, kind: 'link', type: 'link', href: 'https://example.com' });

    for (const query of ['metadata=false', 'computed=true&metadata=1']) {
      expect((await h.rest('getCurrentRevision', 'GET', `/v1/spaces/${f.space.id}/content?${query}`, { token: owner.token })).body.id).toBe(f.second.revision);
      expect((await h.rest('listPages', 'GET', `/v1/spaces/${f.space.id}/content/pages?${query}`, { token: owner.token })).body.pages).toEqual(pages);
    }
  });

  it('lists files page by page, reads one, and serves its bytes with its content type (no token needed)', async () => {
    const f = await fixture();
    const one = await h.rest('listFiles', 'GET', `/v1/spaces/${f.space.id}/content/files?limit=1`, { token: owner.token });
    expect(one.body).toMatchObject({ count: 2, items: [{ id: f.logo, name: 'logo.png' }], next: { page: expect.any(String) } });
    const two = await h.rest('listFiles', 'GET', `/v1/spaces/${f.space.id}/content/files?limit=1&page=${one.body.next.page}`, { token: owner.token });
    expect(two.body.items.map((x: { id: string }) => x.id)).toEqual([f.notes]);
    expect(two.body.next).toBeUndefined();

    const file = await h.rest('getFileById', 'GET', `/v1/spaces/${f.space.id}/content/files/${f.logo}`, { token: owner.token });
    // Signed and expiring, per space and file (test/files-and-secrets.test.ts covers revocation).
    expect(file.body).toEqual({
      id: f.logo,
      name: 'logo.png',
      contentType: 'image/png',
      size: 8,
      downloadURL: expect.stringMatching(new RegExp(`^${BASE}/files/${f.space.id}/${f.logo}/logo\\.png\\?expires=\\d+&token=`)),
    });
    const bytes = await download(file.body.downloadURL);
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get('content-type')).toBe('image/png');
    expect(bytes.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await bytes.arrayBuffer())).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
    const text = await h.rest('getFileById', 'GET', `/v1/spaces/${f.space.id}/content/files/${f.notes}?metadata=false`, { token: owner.token });
    const textBytes = await download(text.body.downloadURL);
    expect(textBytes.headers.get('content-type')).toBe('text/plain');
    expect(await textBytes.text()).toBe('hello');
    expect((await download(text.body.downloadURL, 'HEAD')).status).toBe(200);

    // Unknown blobs, unsigned and malformed file URLs are 404; only GET and HEAD are served.
    expect((await download(`${BASE}/files/${'0'.repeat(64)}/logo.png`)).status).toBe(404);
    expect((await download(file.body.downloadURL.replace(/\?.*$/, ''))).status).toBe(404);
    expect((await download(`${BASE}/files/not-a-hash/logo.png`)).status).toBe(404);
    expect((await download(file.body.downloadURL, 'POST')).status).toBe(405);
  });

  it('refuses bad list and file parameters (400 naming them) and unknown files (404)', async () => {
    const f = await fixture();
    await refused(400, () => h.call('GET', `/v1/spaces/${f.space.id}/content/files?limit=0`, { token: owner.token }), /^limit\b/);
    await refused(400, () => h.call('GET', `/v1/spaces/${f.space.id}/content/files?limit=two`, { token: owner.token }), /^limit\b/);
    await refused(400, () => h.call('GET', `/v1/spaces/${f.space.id}/content/files?page=garbage`, { token: owner.token }), /^page\b/);
    await refused(400, () => h.call('GET', `/v1/spaces/${f.space.id}/content?metadata=perhaps`, { token: owner.token }), /^metadata\b/);
    await refused(400, () => h.call('GET', `/v1/spaces/${f.space.id}/content/pages?computed=x`, { token: owner.token }), /^computed\b/);
    await refused(404, () => h.call('GET', `/v1/spaces/${f.space.id}/content/files/${newId()}`, { token: owner.token }), /File/);
    await refused(404, () => h.call('GET', `/v1/spaces/${newId()}/content`, { token: owner.token }), /Space/);
  });

  it('reads one page as markdown or as a document, with its children and their bodies', async () => {
    const f = await fixture();
    const md = await getPage(f.space.id, f.guide);
    expect(md).toMatchObject({ id: f.guide, title: 'Guide', path: 'guide', markdown: '# Guide\n\nUse {{ variables.product }} and {{ variables.missing }}.\n' });
    expect(md).not.toHaveProperty('document');
    expect(md.pages.map((p: { id: string }) => p.id)).toEqual([f.setup]);
    expect(md.pages[0].markdown).toBe('Install it.\n');

    for (const query of ['', 'format=document']) {
      const doc = await getPage(f.space.id, f.guide, query);
      expect(doc).not.toHaveProperty('markdown');
      expect(doc.document).toMatchObject({ object: 'document', nodes: [{ object: 'block', type: 'heading-1' }, { object: 'block', type: 'paragraph' }] });
      expect(doc.pages[0].document.object).toBe('document');
    }
    const group = await getPage(f.space.id, f.reference);
    expect(group).toMatchObject({ kind: 'group', pages: [{ id: f.api, path: 'reference/api', markdown: '## Endpoints\n' }] });
    expect(await getPage(f.space.id, f.website)).toMatchObject({ kind: 'link', href: 'https://example.com' });
  });

  it('evaluates `{{ variables.x }}` only when asked (evaluated=true or deterministic-only)', async () => {
    const f = await fixture();
    for (const evaluated of ['true', 'deterministic-only']) {
      expect((await getPage(f.space.id, f.guide, `format=markdown&evaluated=${evaluated}`)).markdown).toBe('# Guide\n\nUse Lectern and {{ variables.missing }}.\n');
    }
    expect((await getPage(f.space.id, f.guide, 'format=markdown&evaluated=false')).markdown).toContain('{{ variables.product }}');
    const doc = await getPage(f.space.id, f.guide, 'evaluated=true&dereferenced=true');
    expect(JSON.stringify(doc.document)).toContain('Use Lectern and');
    // A variable changed in a later revision is what the next read substitutes.
    await live(f.space.id, [{ type: 'update_variables', variables: { product: 'Lectern 2', missing: 'found' } }]);
    expect((await getPage(f.space.id, f.guide, 'format=markdown&evaluated=true')).markdown).toBe('# Guide\n\nUse Lectern 2 and found.\n');
    await live(f.space.id, [{ type: 'update_variables', variables: { product: null } }]);
    expect((await getPage(f.space.id, f.guide, 'format=markdown&evaluated=true')).markdown).toBe('# Guide\n\nUse {{ variables.product }} and found.\n');
    expect((await h.rest('getCurrentRevision', 'GET', `/v1/spaces/${f.space.id}/content`, { token: owner.token })).body.variables).toEqual({ missing: 'found' });
  });

  it('refuses bad page parameters (400 naming them) and unknown pages (404)', async () => {
    const f = await fixture();
    const path = `/v1/spaces/${f.space.id}/content/page/${f.guide}`;
    await refused(400, () => h.call('GET', `${path}?format=html`, { token: owner.token }), /^format\b/);
    await refused(400, () => h.call('GET', `${path}?evaluated=maybe`, { token: owner.token }), /^evaluated\b/);
    await refused(400, () => h.call('GET', `${path}?dereferenced=all`, { token: owner.token }), /^dereferenced\b/);
    await refused(400, () => h.call('GET', `${path}?metadata=nope`, { token: owner.token }), /^metadata\b/);
    await refused(404, () => h.call('GET', `/v1/spaces/${f.space.id}/content/page/${newId()}`, { token: owner.token }), /Page/);
  });
});

describe('GET /spaces/:spaceId/change-requests/:changeRequestId/content (and /pages, /files, /page)', () => {
  it("reads the change request's head, by id and by number, apart from main", async () => {
    const f = await fixture();
    const cr = await openCr(f.space.id);
    const written = await crWrite(f.space.id, cr.id, [
      { type: 'insert_page', title: 'Draft', markdown: 'Not yet on main: {{ variables.product }}\n' },
      { type: 'insert_files', files: [{ name: 'draft.txt', contentType: 'text/plain', data: b64('draft') }] },
    ]);
    const [draft] = written.pages as [string];
    const [draftFile] = written.files as [string];

    for (const ref of [cr.id, String(cr.number)]) {
      const base = `/v1/spaces/${f.space.id}/change-requests/${ref}/content`;
      const rev = await h.rest('getRevisionOfChangeRequestById', 'GET', base, { token: owner.token });
      expect(rev.body).toMatchObject({ object: 'revision', id: written.revision, parents: [f.second.revision], variables: { product: 'Lectern' } });
      expect(paths(rev.body.pages)).toEqual(['guide', 'guide/setup', 'reference', 'reference/api', 'link:Website', 'draft']);
      const pages = await h.rest('listPagesInChangeRequest', 'GET', `${base}/pages?metadata=false`, { token: owner.token });
      expect(pages.body.pages).toEqual(rev.body.pages);
      const files = await h.rest('listFilesInChangeRequestById', 'GET', `${base}/files?limit=2`, { token: owner.token });
      expect(files.body).toMatchObject({ count: 3, next: { page: expect.any(String) } });
      expect(files.body.items.map((x: { name: string }) => x.name)).toEqual(['logo.png', 'notes.txt']);
      const file = await h.rest('getFileInChangeRequestById', 'GET', `${base}/files/${draftFile}`, { token: owner.token });
      expect(file.body).toMatchObject({ id: draftFile, name: 'draft.txt', size: 5 });
      const page = await h.rest('getPageInChangeRequestById', 'GET', `${base}/page/${draft}?format=markdown&evaluated=true`, { token: owner.token });
      expect(page.body).toMatchObject({ id: draft, path: 'draft', markdown: 'Not yet on main: Lectern\n' });
    }
    // Main has none of it.
    expect(paths(await listPages(f.space.id))).not.toContain('draft');
    await refused(404, () => h.call('GET', `/v1/spaces/${f.space.id}/content/page/${draft}`, { token: owner.token }), /Page/);
    await refused(404, () => h.call('GET', `/v1/spaces/${f.space.id}/content/files/${draftFile}`, { token: owner.token }), /File/);
  });

  it('refuses unknown change requests (also of another space), pages and files with 404, bad parameters with 400', async () => {
    const f = await fixture();
    const other = await newSpace({ title: 'Other' });
    const cr = await openCr(f.space.id);
    const base = `/v1/spaces/${f.space.id}/change-requests/${cr.id}/content`;
    await refused(404, () => h.call('GET', `/v1/spaces/${f.space.id}/change-requests/${newId()}/content`, { token: owner.token }), /Change request/);
    await refused(404, () => h.call('GET', `/v1/spaces/${f.space.id}/change-requests/999/content/pages`, { token: owner.token }), /Change request/);
    await refused(404, () => h.call('GET', `/v1/spaces/${other.id}/change-requests/${cr.id}/content`, { token: owner.token }), /Change request/);
    await refused(404, () => h.call('GET', `${base}/page/${newId()}`, { token: owner.token }), /Page/);
    await refused(404, () => h.call('GET', `${base}/files/${newId()}`, { token: owner.token }), /File/);
    await refused(400, () => h.call('GET', `${base}/page/${f.guide}?format=pdf`, { token: owner.token }), /^format\b/);
    await refused(400, () => h.call('GET', `${base}/files?limit=1001`, { token: owner.token }), /^limit\b/);
  });
});

describe('who may read content', () => {
  it('refuses every content read without a token (401), hides private content (404), lets readers read', async () => {
    const f = await fixture();
    const cr = await openCr(f.space.id);
    const params: Record<string, string> = { spaceId: f.space.id, changeRequestId: cr.id, pageId: f.guide, fileId: f.logo };
    const reads = contentRoutes.filter((r) => READ_OPERATIONS.includes(r.operationId));
    expect(reads).toHaveLength(READ_OPERATIONS.length);
    for (const route of reads) {
      const path = `/v1${route.path.replace(/:(\w+)/g, (_, name: string) => params[name]!)}`;
      await refused(401, () => h.call('GET', path, { token: null }));
      await refused(404, () => h.call('GET', path, { token: outsider.token }), /Space/);
      expect((await h.call('GET', path, { token: reader.token })).status).toBe(200);
    }
    // A space closed to members by default: hidden from the reader too, as if it did not exist.
    await patchSpace(f.space.id, { defaultLevel: null });
    await refused(404, () => h.call('GET', `/v1/spaces/${f.space.id}/content/pages`, { token: reader.token }), /Space/);
    await refused(404, () => h.call('GET', `/v1/spaces/${f.space.id}/change-requests/${cr.id}/content`, { token: reader.token }), /Space/);
  });
});

// ---------------------------------------------------------------------------------------------

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
  // Runs last: every content route answered a success through h.rest (validated against its schema).
  it('exercised every content route successfully', () => {
    const operations = [...READ_OPERATIONS, 'applyTemplateToSpace'];
    expect(operations.filter((id) => !contentRoutes.some((r) => r.operationId === id))).toEqual([]);
    expect(operations.filter((id) => !h.coveredOperations.has(id))).toEqual([]);
  });
});
