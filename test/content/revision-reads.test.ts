/**
 * Reads by revision id, by page path, of a page's document, of a page's meta links and of a
 * document by id (src/modules/content/revision-reads.ts). Each route: it works (bodies checked
 * against the official schemas by h.rest), bad input is refused (400 naming the parameter,
 * nothing changed), callers without the rights are refused, and list reads cost the same number of
 * SQL statements whatever the number of pages.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { markdownParseCount } from '../../src/document/index.js';
import { setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { insertPage, updatePage, writeCr, writeLive, base64 } from '../support/content-writes.js';
import { requestRefusalChecker } from '../support/refused.js';

let h: Harness;
let owner: TestUser & { orgId: string };
let reader: TestUser;
let guest: TestUser;
let outsider: TestUser;
let refused: ReturnType<typeof requestRefusalChecker>;

beforeAll(async () => {
  h = await setupHarness();
  ({ owner, reader, guest, outsider } = await h.world());
  refused = requestRefusalChecker(h, () => h.snapshot());
});

async function newSpace(title = 'Docs') {
  const res = await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

const GUIDE_V1 = '# Guide\n\nUse {{ variables.product }}.\n';
const GUIDE_V2 = '# Guide\n\nUse {{ variables.product }}. See [setup](./guide/setup.md) and [the logo](https://lectern.invalid/logo).\n';

/** A space written in two live edits: rev1 (guide, a group, a link page, a file, a variable), rev2 (two child pages, the guide's body changed). */
async function fixture() {
  const spaceId = await newSpace();
  const rev1 = await writeLive(h, owner.token, spaceId, [
    insertPage('Guide', GUIDE_V1, { ref: 'guide' }),
    { operation: 'insert_page', type: 'group', title: 'Reference' },
    { operation: 'insert_page', type: 'link', title: 'Website', href: 'https://example.com' },
    {
      operation: 'insert_files',
      files: [{ name: 'logo.png', contentType: 'image/png', base64: base64(Buffer.from([0x89, 0x50, 0x4e, 0x47])) }],
    },
    { operation: 'update_variables', variables: { product: 'Lectern' } },
  ]);
  const [guide, reference, website] = rev1.pages as [string, string, string];
  const [logo] = rev1.files as [string];
  const rev2 = await writeLive(h, owner.token, spaceId, [
    insertPage('Setup', 'Install it.\n', { into: guide }),
    insertPage('API', '## Endpoints\n', { into: reference }),
    updatePage(guide, { document: { markdown: GUIDE_V2 } }),
  ]);
  const [setup, api] = rev2.pages as [string, string];
  return { spaceId, rev1: rev1.revision, rev2: rev2.revision, guide, reference, website, logo, setup, api };
}

const get = (operationId: string, path: string, user: { token: string } = owner) =>
  h.rest(operationId, 'GET', `/v1${path}`, { token: user.token });
async function ok(operationId: string, path: string, user: { token: string } = owner) {
  const res = await get(operationId, path, user);
  expect(res.status, `${operationId} ${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}
const paths = (pages: any[]): string[] => pages.flatMap((p) => [p.type === 'link' ? `link:${p.title}` : p.path, ...paths(p.pages ?? [])]);
const flat = (pages: any[]): any[] => pages.flatMap((p) => [p, ...flat(p.pages ?? [])]);

let f: Awaited<ReturnType<typeof fixture>>;
beforeAll(async () => {
  f = await fixture();
});

describe('revisions by id: getRevisionById, listPagesInRevisionById, getPageInRevisionById, listFilesInRevisionById, getFileInRevisionById', () => {
  it('read any revision of the space as it was; main revision reads are the same answers', async () => {
    const s = `/spaces/${f.spaceId}`;
    const old = await ok('getRevisionById', `${s}/revisions/${f.rev1}`);
    expect(old).toMatchObject({ object: 'revision', id: f.rev1, type: 'edits', variables: { product: 'Lectern' } });
    expect(paths(old.pages)).toEqual(['guide', 'reference', 'link:Website']);
    expect(old.pages[0].markdown).toBe(GUIDE_V1);
    const current = await ok('getRevisionById', `${s}/revisions/${f.rev2}?metadata=false&computed=true`);
    expect(current).toEqual(await ok('getCurrentRevision', `${s}/content`));
    expect(current.parents).toEqual([f.rev1]);

    const oldPages = await ok('listPagesInRevisionById', `${s}/revisions/${f.rev1}/pages`);
    expect(oldPages.pages).toEqual(old.pages);
    expect((await ok('listPagesInRevisionById', `${s}/revisions/${f.rev2}/pages`)).pages).toEqual(
      (await ok('listPages', `${s}/content/pages`)).pages,
    );

    const page = await ok('getPageInRevisionById', `${s}/revisions/${f.rev1}/page/${f.guide}?format=markdown`);
    expect(page).toMatchObject({ id: f.guide, path: 'guide', markdown: GUIDE_V1, pages: [] });
    expect(await ok('getPageInRevisionById', `${s}/revisions/${f.rev2}/page/${f.guide}`)).toEqual(
      await ok('getPageById', `${s}/content/page/${f.guide}`),
    );

    const files = await ok('listFilesInRevisionById', `${s}/revisions/${f.rev1}/files?limit=1`);
    expect(files).toMatchObject({ count: 1, items: [{ id: f.logo, name: 'logo.png', contentType: 'image/png', size: 4 }] });
    expect(await ok('getFileInRevisionById', `${s}/revisions/${f.rev1}/files/${f.logo}`)).toEqual(files.items[0]);
  });

  it('a page or file the revision does not have, a revision of another space or none: 404', async () => {
    const s = `/v1/spaces/${f.spaceId}`;
    await refused(404, 'GET', `${s}/revisions/${f.rev1}/page/${f.setup}`, { token: owner.token });
    await refused(404, 'GET', `${s}/revisions/${f.rev1}/files/nofile`, { token: owner.token });
    await refused(404, 'GET', `${s}/revisions/nosuchrevision`, { token: owner.token });
    const other = await newSpace('Other');
    const otherRevision = (await h.db.prisma.space.findUniqueOrThrow({ where: { id: other } })).revisionId;
    for (const [_op, path] of [
      ['getRevisionById', ''],
      ['listPagesInRevisionById', '/pages'],
      ['listFilesInRevisionById', '/files'],
    ]) {
      await refused(404, 'GET', `${s}/revisions/${otherRevision}${path}`, { token: owner.token });
      await refused(404, 'GET', `/v1/spaces/${other}/revisions/${f.rev1}${path}`, { token: owner.token });
    }
  });

  it('refuses bad parameters with 400 naming them', async () => {
    const s = `/v1/spaces/${f.spaceId}/revisions/${f.rev2}`;
    await refused(400, 'GET', `${s}?metadata=maybe`, { token: owner.token, field: 'metadata' });
    await refused(400, 'GET', `${s}/pages?computed=2`, { token: owner.token, field: 'computed' });
    await refused(400, 'GET', `${s}/files?limit=x`, { token: owner.token, field: 'limit' });
    await refused(400, 'GET', `${s}/files/${f.logo}?metadata=x`, { token: owner.token, field: 'metadata' });
    await refused(400, 'GET', `${s}/page/${f.guide}?evaluated=sometimes`, { token: owner.token, field: 'evaluated' });
  });
});

describe('pages by path: getPageByPath, getPageInChangeRequestByPath, getPageInRevisionByPath', () => {
  it('find a page by its path as the official client sends it (slashes as they are), encoded, or with slashes around; a group by its own path', async () => {
    const s = `/spaces/${f.spaceId}`;
    const byId = await ok('getPageById', `${s}/content/page/${f.setup}?format=markdown`);
    for (const path of ['guide/setup', 'guide%2Fsetup', '/guide/setup/', 'Guide/Setup']) {
      expect(await ok('getPageByPath', `${s}/content/path/${path}?format=markdown&cachedMetadata=true&computed=false`)).toEqual(byId);
    }
    const group = await ok('getPageByPath', `${s}/content/path/reference`);
    expect(group).toMatchObject({ id: f.reference, type: 'group', path: 'reference', pages: [{ id: f.api, path: 'reference/api' }] });
    // As a document by default, its links into the revision resolved as on getPageById.
    expect(await ok('getPageByPath', `${s}/content/path/guide?evaluated=true`)).toEqual(
      await ok('getPageById', `${s}/content/page/${f.guide}?evaluated=true`),
    );

    // Past revisions by their own paths.
    await refused(404, 'GET', `/v1${s}/revisions/${f.rev1}/path/guide/setup`, { token: owner.token });
    expect((await ok('getPageInRevisionByPath', `${s}/revisions/${f.rev1}/path/guide?format=markdown`)).markdown).toBe(GUIDE_V1);
    expect(await ok('getPageInRevisionByPath', `${s}/revisions/${f.rev2}/path/guide/setup?format=markdown`)).toEqual(byId);
  });

  it("a change request's paths are its own", async () => {
    const cr = (await h.call('POST', `/v1/spaces/${f.spaceId}/change-requests`, { token: owner.token, body: { subject: 'Moves' } })).body;
    const written = await writeCr(h, owner.token, f.spaceId, cr.number, [
      insertPage('FAQ', 'Ask.\n', { into: f.reference }),
      updatePage(f.setup, { slug: 'install' }),
    ]);
    const [faq] = written.pages as [string];
    const c = `/spaces/${f.spaceId}/change-requests/${cr.id}/content`;
    expect(await ok('getPageInChangeRequestByPath', `${c}/path/reference/faq?format=markdown`)).toMatchObject({
      id: faq,
      markdown: 'Ask.\n',
    });
    expect(
      await ok('getPageInChangeRequestByPath', `/spaces/${f.spaceId}/change-requests/${cr.number}/content/path/guide/install`),
    ).toMatchObject({ id: f.setup });
    await refused(404, 'GET', `/v1${c}/path/guide/setup`, { token: owner.token });
    await refused(404, 'GET', `/v1/spaces/${f.spaceId}/content/path/reference/faq`, { token: owner.token });
  });

  it('unknown paths and link pages are 404; bad options 400', async () => {
    const s = `/v1/spaces/${f.spaceId}/content/path`;
    await refused(404, 'GET', `${s}/nothing/here`, { token: owner.token });
    const link = flat((await ok('listPages', `/spaces/${f.spaceId}/content/pages`)).pages).find((p) => p.id === f.website);
    expect(link.path).toBeUndefined();
    await refused(404, 'GET', `${s}/website`, { token: owner.token });
    await refused(400, 'GET', `${s}/guide?format=html`, { token: owner.token, field: 'format' });
    await refused(400, 'GET', `${s}/guide?dereferenced=all`, { token: owner.token, field: 'dereferenced' });
    await refused(400, 'GET', `${s}/guide?cachedMetadata=often`, { token: owner.token, field: 'cachedMetadata' });
    await refused(400, 'GET', `/v1/spaces/${f.spaceId}/revisions/${f.rev2}/path/guide?metadata=2`, {
      token: owner.token,
      field: 'metadata',
    });
  });
});

describe('documents: getPageDocumentInRevisionById, getDocumentById and Page.documentId', () => {
  it("a page's document is its page read's document; its documentId reads the same body as a document, parsed once", async () => {
    const s = `/spaces/${f.spaceId}`;
    const page = await ok('getPageInRevisionById', `${s}/revisions/${f.rev2}/page/${f.guide}`);
    const document = await ok('getPageDocumentInRevisionById', `${s}/revisions/${f.rev2}/page/${f.guide}/document`);
    expect(document).toEqual(page.document);
    // A relative link into the revision is a page reference, as on the page.
    expect(JSON.stringify(document)).toContain(JSON.stringify({ kind: 'page', page: f.setup }));
    const evaluated = await ok('getPageDocumentInRevisionById', `${s}/revisions/${f.rev2}/page/${f.guide}/document?evaluated=true`);
    expect(JSON.stringify(evaluated)).toContain('Use Lectern.');
    // A document page without a body has an empty document.
    const empty = (await writeLive(h, owner.token, f.spaceId, [insertPage('Blank')])).revision;
    const blank = flat((await ok('listPagesInRevisionById', `${s}/revisions/${empty}/pages`)).pages).find((p) => p.title === 'Blank');
    expect(await ok('getPageDocumentInRevisionById', `${s}/revisions/${empty}/page/${blank.id}/document`)).toMatchObject({
      object: 'document',
      nodes: expect.any(Array),
    });

    // documentId: the same for an unchanged body in every read and revision, another for a changed body.
    const inList = flat((await ok('listPagesInRevisionById', `${s}/revisions/${f.rev2}/pages`)).pages);
    const setupId = inList.find((p) => p.id === f.setup).documentId;
    expect(setupId).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect((await ok('getPageById', `${s}/content/page/${f.setup}?format=markdown`)).documentId).toBe(setupId);
    expect((await ok('getPageByPath', `${s}/content/path/guide/setup`)).documentId).toBe(setupId);
    expect((await ok('getPageInRevisionById', `${s}/revisions/${empty}/page/${f.setup}`)).documentId).toBe(setupId);
    const oldGuide = (await ok('getPageInRevisionById', `${s}/revisions/${f.rev1}/page/${f.guide}`)).documentId;
    expect(oldGuide).not.toBe(page.documentId);
    expect(inList.find((p) => p.type === 'group').documentId).toBeUndefined();

    // The document by id: the stored body (variables not evaluated, links as written), the page's
    // body parsed once: reading it again parses nothing.
    const before = markdownParseCount();
    const byId = await ok('getDocumentById', `${s}/documents/${page.documentId}`);
    expect(await ok('getDocumentById', `${s}/documents/${page.documentId}?schema=next`)).toEqual(byId);
    expect(markdownParseCount()).toBe(before);
    expect(byId).toMatchObject({ object: 'document', nodes: expect.any(Array) });
    expect(JSON.stringify(byId)).toContain('{{ variables.product }}');
    expect(JSON.stringify(byId)).toContain(JSON.stringify({ kind: 'url', url: './guide/setup.md' }));
    expect(await ok('getDocumentById', `${s}/documents/${oldGuide}`)).not.toEqual(byId);
  });

  it('includes of reusable contents read as on the page: a reusable-content block, or its blocks when dereferenced', async () => {
    const spaceId = await newSpace('Includes');
    await writeLive(h, owner.token, spaceId, [
      { operation: 'insert_reusable_content', title: 'Warning', document: { markdown: '> Careful.' } },
    ]);
    const written = await writeLive(h, owner.token, spaceId, [
      insertPage('Uses', 'Before.\n\n{% include "../.gitbook/includes/warning.md" %}\n\nAfter.\n'),
    ]);
    const [page] = written.pages as [string];
    const r = `/spaces/${spaceId}/revisions/${written.revision}/page/${page}`;
    for (const dereferenced of ['false', 'true', 'reusable-contents']) {
      const whole = await ok('getPageInRevisionById', `${r}?dereferenced=${dereferenced}`);
      const document = await ok('getPageDocumentInRevisionById', `${r}/document?dereferenced=${dereferenced}`);
      expect(document).toEqual(whole.document);
      expect(document.nodes.map((n: any) => n.type)).toEqual(
        dereferenced === 'false' ? ['paragraph', 'reusable-content', 'paragraph'] : ['paragraph', 'blockquote', 'paragraph'],
      );
    }
    const documentId = (await ok('getPageInRevisionById', r)).documentId;
    expect((await ok('getDocumentById', `/spaces/${spaceId}/documents/${documentId}`)).nodes.map((n: any) => n.type)).toEqual([
      'paragraph',
      'reusable-content',
      'paragraph',
    ]);
  });

  it('a document id of another space, altered or made up is 404; group and link pages have no document; bad options 400', async () => {
    const s = `/v1/spaces/${f.spaceId}`;
    const documentId = (await ok('getPageById', `/spaces/${f.spaceId}/content/page/${f.setup}`)).documentId as string;
    // The same body in another space has another id there, and this one is not valid there.
    const other = await newSpace('Other');
    const copy = (await writeLive(h, owner.token, other, [insertPage('Setup', 'Install it.\n')])).pages[0]!;
    const otherId = (await ok('getPageById', `/spaces/${other}/content/page/${copy}`)).documentId;
    expect(otherId).not.toBe(documentId);
    expect(await ok('getDocumentById', `/spaces/${other}/documents/${otherId}`)).toEqual(
      await ok('getDocumentById', `/spaces/${f.spaceId}/documents/${documentId}`),
    );
    await refused(404, 'GET', `/v1/spaces/${other}/documents/${documentId}`, { token: owner.token });
    const altered = `${documentId.slice(0, -1)}${documentId.endsWith('A') ? 'B' : 'A'}`;
    await refused(404, 'GET', `${s}/documents/${altered}`, { token: owner.token });
    await refused(404, 'GET', `${s}/documents/nonsense`, { token: owner.token });
    await refused(400, 'GET', `${s}/documents/${documentId}?schema=old`, { token: owner.token, field: 'schema' });

    const r = `${s}/revisions/${f.rev2}/page`;
    await refused(404, 'GET', `${r}/${f.reference}/document`, { token: owner.token });
    await refused(404, 'GET', `${r}/${f.website}/document`, { token: owner.token });
    await refused(404, 'GET', `${r}/nopage/document`, { token: owner.token });
    await refused(400, 'GET', `${r}/${f.guide}/document?evaluated=maybe`, { token: owner.token, field: 'evaluated' });
    await refused(400, 'GET', `${r}/${f.guide}/document?dereferenced=maybe`, { token: owner.token, field: 'dereferenced' });
  });
});

describe('page meta links: listSpacePageMetaLinks, listChangeRequestPageMetaLinks, listRevisionPageMetaLinks', () => {
  it('answer the meta links Lectern keeps (none) for a page the content has; 404 for one it has not', async () => {
    const cr = (await h.call('POST', `/v1/spaces/${f.spaceId}/change-requests`, { token: owner.token, body: { subject: 'Links' } })).body;
    const s = `/spaces/${f.spaceId}`;
    expect(await ok('listSpacePageMetaLinks', `${s}/content/page/${f.guide}/meta-links`)).toEqual({ alternates: [] });
    expect(await ok('listChangeRequestPageMetaLinks', `${s}/change-requests/${cr.id}/content/page/${f.reference}/meta-links`)).toEqual({
      alternates: [],
    });
    expect(await ok('listRevisionPageMetaLinks', `${s}/revisions/${f.rev1}/page/${f.website}/meta-links`)).toEqual({ alternates: [] });
    await refused(404, 'GET', `/v1${s}/revisions/${f.rev1}/page/${f.setup}/meta-links`, { token: owner.token });
    await refused(404, 'GET', `/v1${s}/content/page/nopage/meta-links`, { token: owner.token });
    await refused(404, 'GET', `/v1${s}/change-requests/999/content/page/${f.guide}/meta-links`, { token: owner.token });
  });
});

describe('rights', () => {
  it('a reader reads every route; a guest and an outsider get 404, an anonymous caller 401', async () => {
    const cr = (await h.call('POST', `/v1/spaces/${f.spaceId}/change-requests`, { token: owner.token, body: { subject: 'Rights' } })).body;
    const documentId = (await ok('getPageById', `/spaces/${f.spaceId}/content/page/${f.guide}`)).documentId;
    const s = `/spaces/${f.spaceId}`;
    const r = `${s}/revisions/${f.rev1}`;
    const routes: [string, string][] = [
      ['getRevisionById', r],
      ['listPagesInRevisionById', `${r}/pages`],
      ['getPageInRevisionById', `${r}/page/${f.guide}`],
      ['getPageDocumentInRevisionById', `${r}/page/${f.guide}/document`],
      ['listFilesInRevisionById', `${r}/files`],
      ['getFileInRevisionById', `${r}/files/${f.logo}`],
      ['getPageInRevisionByPath', `${r}/path/guide`],
      ['listRevisionPageMetaLinks', `${r}/page/${f.guide}/meta-links`],
      ['getPageByPath', `${s}/content/path/guide`],
      ['listSpacePageMetaLinks', `${s}/content/page/${f.guide}/meta-links`],
      ['getPageInChangeRequestByPath', `${s}/change-requests/${cr.id}/content/path/guide`],
      ['listChangeRequestPageMetaLinks', `${s}/change-requests/${cr.id}/content/page/${f.guide}/meta-links`],
      ['getDocumentById', `${s}/documents/${documentId}`],
    ];
    for (const [operationId, path] of routes) {
      await ok(operationId, path, reader);
      await refused(404, 'GET', `/v1${path}`, { token: guest.token });
      await refused(404, 'GET', `/v1${path}`, { token: outsider.token });
      await refused(401, 'GET', `/v1${path}`, { token: null });
    }
  });
});

describe('GraphQL and statement counts', () => {
  it('Space.revisionById, Revision.pageByPath / pageDocument / pageMetaLinks and Space.document answer what REST answers', async () => {
    const res = await h.graphql(
      owner.token,
      `query($space: ID!, $rev: ID!, $page: ID!) { space(id: $space) { revisionById(id: $rev) { id pageByPath(path: "guide/setup", format: markdown) { id title path body { ... on PageMarkdownBody { markdown } } } pageDocument(id: $page) pageMetaLinks(id: $page) { alternates { __typename } } } } }`,
      { space: f.spaceId, rev: f.rev2, page: f.guide },
    );
    expect(res.body.errors).toBeUndefined();
    const revision = res.body.data.space.revisionById;
    expect(revision.id).toBe(f.rev2);
    const { id, title, path, markdown } = await ok('getPageByPath', `/spaces/${f.spaceId}/content/path/guide/setup?format=markdown`);
    expect(revision.pageByPath).toEqual({ id, title, path, body: { markdown } });
    expect(revision.pageDocument).toEqual(
      await ok('getPageDocumentInRevisionById', `/spaces/${f.spaceId}/revisions/${f.rev2}/page/${f.guide}/document`),
    );
    expect(revision.pageMetaLinks).toEqual({ alternates: [] });
  });

  it('listing pages of a revision and reading a page by path cost the same statements for 3 pages and for 30', async () => {
    const statements = async (path: string) => {
      await ok(path.includes('/path/') ? 'getPageInRevisionByPath' : 'listPagesInRevisionById', path);
      const before = h.db.statements.count;
      await ok(path.includes('/path/') ? 'getPageInRevisionByPath' : 'listPagesInRevisionById', path);
      return h.db.statements.count - before;
    };
    const counts: number[][] = [];
    for (const size of [3, 30]) {
      const spaceId = await newSpace(`Size ${size}`);
      const { revision } = await writeLive(h, owner.token, spaceId, [
        insertPage('Top', 'Top.\n', { ref: 'top' }),
        ...Array.from({ length: size - 1 }, (_, i) => insertPage(`Page ${i}`, `Body ${i}.\n`, { into: 'top' })),
      ]);
      counts.push([
        await statements(`/spaces/${spaceId}/revisions/${revision}/pages`),
        await statements(`/spaces/${spaceId}/revisions/${revision}/path/top/page-1`),
      ]);
    }
    expect(counts[1]).toEqual(counts[0]);
  });
});
