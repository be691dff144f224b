/** Content reads: a space's main content and a change request's head, and who may read them (setup in ./fixtures.ts). */
import { beforeAll, describe, expect, it } from 'vitest';
import { BASE } from '../support/harness.js';
import { contentRoutes as contentTableRoutes } from '../../src/modules/content/routes.js';
import { revisionRoutes } from '../../src/modules/change-requests/revision-routes.js';
import { newId } from '../../src/ids.js';
import {
  h,
  owner,
  reader,
  outsider,
  READ_OPERATIONS,
  setupContent,
  newSpace,
  spaceRevision,
  live,
  crWrite,
  openCr,
  patchSpace,
  refused,
  paths,
  listPages,
  getPage,
  b64,
  download,
  fixture,
  WRITE_OPERATIONS,
} from './fixtures.js';

/** The content reads: content's table, plus the revision itself, which change-requests serves (a merge names its change request). */
const contentRoutes = [...contentTableRoutes, ...revisionRoutes];

beforeAll(setupContent);

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
    expect(guide).toMatchObject({
      id: f.guide,
      kind: 'sheet',
      type: 'document',
      title: 'Guide',
      slug: 'guide',
      path: 'guide',
      description: 'How to',
      emoji: '📘',
    });
    expect(guide.urls.app).toBe(`${BASE}/app/s/${f.space.id}/guide`);
    // Listings carry each document page's body as markdown.
    expect(guide.markdown).toBe('# Guide\n\nUse {{ variables.product }} and {{ variables.missing }}.\n');
    expect(pages[1]).toMatchObject({ id: f.reference, kind: 'group', type: 'group', title: 'Reference' });
    expect(pages[2]).toMatchObject({ id: f.website, kind: 'link', type: 'link', href: 'https://example.com' });

    for (const query of ['metadata=false', 'computed=true&metadata=1']) {
      expect((await h.rest('getCurrentRevision', 'GET', `/v1/spaces/${f.space.id}/content?${query}`, { token: owner.token })).body.id).toBe(
        f.second.revision,
      );
      expect(
        (await h.rest('listPages', 'GET', `/v1/spaces/${f.space.id}/content/pages?${query}`, { token: owner.token })).body.pages,
      ).toEqual(pages);
    }
  });

  it('lists files page by page, reads one, and serves its bytes with its content type (no token needed)', async () => {
    const f = await fixture();
    const one = await h.rest('listFiles', 'GET', `/v1/spaces/${f.space.id}/content/files?limit=1`, { token: owner.token });
    expect(one.body).toMatchObject({ count: 2, items: [{ id: f.logo, name: 'logo.png' }], next: { page: expect.any(String) } });
    const two = await h.rest('listFiles', 'GET', `/v1/spaces/${f.space.id}/content/files?limit=1&page=${one.body.next.page}`, {
      token: owner.token,
    });
    expect(two.body.items.map((x: { id: string }) => x.id)).toEqual([f.notes]);
    expect(two.body.next).toBeUndefined();

    const file = await h.rest('getFileById', 'GET', `/v1/spaces/${f.space.id}/content/files/${f.logo}`, { token: owner.token });
    // Signed and expiring, per space and file (test/security/files-and-secrets.test.ts covers revocation).
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
    const text = await h.rest('getFileById', 'GET', `/v1/spaces/${f.space.id}/content/files/${f.notes}?metadata=false`, {
      token: owner.token,
    });
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
    expect(md).toMatchObject({
      id: f.guide,
      title: 'Guide',
      path: 'guide',
      markdown: '# Guide\n\nUse {{ variables.product }} and {{ variables.missing }}.\n',
    });
    expect(md).not.toHaveProperty('document');
    expect(md.pages.map((p: { id: string }) => p.id)).toEqual([f.setup]);
    expect(md.pages[0].markdown).toBe('Install it.\n');

    for (const query of ['', 'format=document']) {
      const doc = await getPage(f.space.id, f.guide, query);
      expect(doc).not.toHaveProperty('markdown');
      expect(doc.document).toMatchObject({
        object: 'document',
        nodes: [
          { object: 'block', type: 'heading-1' },
          { object: 'block', type: 'paragraph' },
        ],
      });
      expect(doc.pages[0].document.object).toBe('document');
    }
    const group = await getPage(f.space.id, f.reference);
    expect(group).toMatchObject({ kind: 'group', pages: [{ id: f.api, path: 'reference/api', markdown: '## Endpoints\n' }] });
    expect(await getPage(f.space.id, f.website)).toMatchObject({ kind: 'link', href: 'https://example.com' });
  });

  it('evaluates `{{ variables.x }}` only when asked (evaluated=true or deterministic-only)', async () => {
    const f = await fixture();
    for (const evaluated of ['true', 'deterministic-only']) {
      expect((await getPage(f.space.id, f.guide, `format=markdown&evaluated=${evaluated}`)).markdown).toBe(
        '# Guide\n\nUse Lectern and {{ variables.missing }}.\n',
      );
    }
    expect((await getPage(f.space.id, f.guide, 'format=markdown&evaluated=false')).markdown).toContain('{{ variables.product }}');
    const doc = await getPage(f.space.id, f.guide, 'evaluated=true&dereferenced=true');
    expect(JSON.stringify(doc.document)).toContain('Use Lectern and');
    // A variable changed in a later revision is what the next read substitutes.
    await live(f.space.id, [{ operation: 'update_variables', variables: { product: 'Lectern 2', missing: 'found' } }]);
    expect((await getPage(f.space.id, f.guide, 'format=markdown&evaluated=true')).markdown).toBe('# Guide\n\nUse Lectern 2 and found.\n');
    await live(f.space.id, [{ operation: 'update_variables', variables: { product: null } }]);
    expect((await getPage(f.space.id, f.guide, 'format=markdown&evaluated=true')).markdown).toBe(
      '# Guide\n\nUse {{ variables.product }} and found.\n',
    );
    expect((await h.rest('getCurrentRevision', 'GET', `/v1/spaces/${f.space.id}/content`, { token: owner.token })).body.variables).toEqual({
      missing: 'found',
    });
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
      { operation: 'insert_page', title: 'Draft', document: { markdown: 'Not yet on main: {{ variables.product }}\n' } },
      { operation: 'insert_files', files: [{ name: 'draft.txt', contentType: 'text/plain', base64: b64('draft') }] },
    ]);
    const [draft] = written.pages as [string];
    const [draftFile] = written.files as [string];

    for (const ref of [cr.id, String(cr.number)]) {
      const base = `/v1/spaces/${f.space.id}/change-requests/${ref}/content`;
      const rev = await h.rest('getRevisionOfChangeRequestById', 'GET', base, { token: owner.token });
      expect(rev.body).toMatchObject({
        object: 'revision',
        id: written.revision,
        parents: [f.second.revision],
        variables: { product: 'Lectern' },
      });
      expect(paths(rev.body.pages)).toEqual(['guide', 'guide/setup', 'reference', 'reference/api', 'link:Website', 'draft']);
      const pages = await h.rest('listPagesInChangeRequest', 'GET', `${base}/pages?metadata=false`, { token: owner.token });
      expect(pages.body.pages).toEqual(rev.body.pages);
      const files = await h.rest('listFilesInChangeRequestById', 'GET', `${base}/files?limit=2`, { token: owner.token });
      expect(files.body).toMatchObject({ count: 3, next: { page: expect.any(String) } });
      expect(files.body.items.map((x: { name: string }) => x.name)).toEqual(['logo.png', 'notes.txt']);
      const file = await h.rest('getFileInChangeRequestById', 'GET', `${base}/files/${draftFile}`, { token: owner.token });
      expect(file.body).toMatchObject({ id: draftFile, name: 'draft.txt', size: 5 });
      const page = await h.rest('getPageInChangeRequestById', 'GET', `${base}/page/${draft}?format=markdown&evaluated=true`, {
        token: owner.token,
      });
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
    await refused(
      404,
      () => h.call('GET', `/v1/spaces/${f.space.id}/change-requests/${newId()}/content`, { token: owner.token }),
      /Change request/,
    );
    await refused(
      404,
      () => h.call('GET', `/v1/spaces/${f.space.id}/change-requests/999/content/pages`, { token: owner.token }),
      /Change request/,
    );
    await refused(
      404,
      () => h.call('GET', `/v1/spaces/${other.id}/change-requests/${cr.id}/content`, { token: owner.token }),
      /Change request/,
    );
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

describe('coverage of the official operations', () => {
  // Runs last: every content read answered a success through h.rest (validated against its schema).
  it('exercised every content read successfully', () => {
    const operations = [...READ_OPERATIONS, ...WRITE_OPERATIONS];
    expect(operations.filter((id) => !contentRoutes.some((r) => r.operationId === id))).toEqual([]);
    expect(READ_OPERATIONS.filter((id) => !h.coveredOperations.has(id))).toEqual([]);
  });
});
