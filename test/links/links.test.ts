import { beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { restRefusalChecker } from '../support/refused.js';
import { writeCr, type Change } from '../support/content-writes.js';

/**
 * Links: every link of every page of a revision, grouped by target, with its status (ok, broken,
 * in-app); page links; file and page backlinks; relative links as page references in documents.
 * Content is written through the REST write path. Every route is checked three ways: it works and
 * matches the official schema; bad input is refused (400/404); a caller without rights is refused.
 */

let h: Harness;
let owner: TestUser & { orgId: string };
let reader: TestUser;
let outsider: TestUser;

const b64 = (text: string) => Buffer.from(text).toString('base64');

async function newSpace() {
  const res = await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'Docs' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}
async function openCr(spaceId: string, subject = 'Edit') {
  const res = await h.rest('createChangeRequest', 'POST', `/v1/spaces/${spaceId}/change-requests`, {
    token: owner.token,
    body: { subject },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; number: number };
}
const write = (spaceId: string, crId: string, changes: Change[]) => writeCr(h, owner.token, spaceId, crId, changes);
async function merge(spaceId: string, crId: string) {
  const res = await h.call('POST', `/v1/spaces/${spaceId}/change-requests/${crId}/merge`, { token: owner.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** A compact view of a listing item: status, target, and the ids of the pages linking to it. */
function summary(item: any) {
  const t = item.targetReference;
  const target =
    t.kind === 'page'
      ? `page:${t.page.id}${t.internalLocation ? `#${t.internalLocation.anchor}` : ''}`
      : t.kind === 'file'
        ? `file:${t.file.id}`
        : `url:${t.url}`;
  return { status: item.status, target, from: item.locationReferences.map((l: any) => l.page.id) };
}

const refusedRequest = restRefusalChecker(
  () => h,
  () => h.snapshot(),
);
const expectRefused = (operationId: string, path: string, token: string | null, status: number, message?: RegExp) =>
  refusedRequest(operationId, 'GET', path, { token }, status, message);

/**
 * The fixture: Guide, Setup (with Install below it), Old, and two files, merged into main.
 * Reading order: Guide, Setup, Install, Old.
 */
interface Fixture {
  space: string;
  guide: string;
  setup: string;
  install: string;
  old: string;
  diagram: string;
  manual: string;
}
let f: Fixture;

async function fixture(): Promise<Fixture> {
  const space = await newSpace();
  const cr = await openCr(space, 'Seed');
  const first = await write(space, cr.id, [
    {
      operation: 'insert_files',
      files: [
        { name: 'diagram.png', contentType: 'image/png', base64: b64('png bytes') },
        { name: 'manual.pdf', contentType: 'application/pdf', base64: b64('pdf bytes') },
      ],
    },
    {
      operation: 'insert_page',
      title: 'Guide',
      document: {
        markdown: [
          '# Guide',
          '',
          'Read [Setup](./setup.md) first, then [installing](./setup.md#install).',
          '',
          'The [old page](./old.md) and [the example](https://example.com/docs).',
          '',
          `Your [settings](${h.config.publicUrl}/app/o/${owner.orgId}/settings).`,
          '',
          '![Diagram](./diagram.png)',
          '',
          'A [missing page](./nope.md).',
          '',
        ].join('\n'),
      },
    },
    {
      operation: 'insert_page',
      title: 'Setup',
      document: { markdown: '# Setup\n\nBack to the [guide](guide.md). See [the diagram](../diagram.png).\n' },
    },
    { operation: 'insert_page', title: 'Old', document: { markdown: 'Nothing links from here.\n' } },
  ]);
  const [guide, setup, old] = first.pages as [string, string, string];
  const [diagram, manual] = first.files as [string, string];
  const files = await h.rest('listFilesInChangeRequestById', 'GET', `/v1/spaces/${space}/change-requests/${cr.id}/content/files`, {
    token: owner.token,
  });
  const manualUrl = files.body.items.find((x: { id: string }) => x.id === manual).downloadURL as string;
  const second = await write(space, cr.id, [
    {
      operation: 'insert_page',
      title: 'Install',
      into: setup,
      document: {
        markdown: `Up to the [guide](../guide.md), the [setup page](${h.config.publicUrl}/app/s/${space}/setup) and the [manual](${manualUrl}).\n`,
      },
    },
  ]);
  await merge(space, cr.id);
  return { space, guide, setup, install: second.pages[0]!, old, diagram, manual };
}

beforeAll(async () => {
  h = await setupHarness();
  ({ owner, reader, outsider } = await h.world());
  f = await fixture();
});

/** The expected listing of the fixture's main content, in order. */
const mainLinks = () => [
  { status: 'ok', target: `page:${f.setup}`, from: [f.guide, f.install] },
  { status: 'ok', target: `page:${f.setup}#install`, from: [f.guide] },
  { status: 'ok', target: `page:${f.old}`, from: [f.guide] },
  { status: 'ok', target: 'url:https://example.com/docs', from: [f.guide] },
  { status: 'in-app', target: `url:${h.config.publicUrl}/app/o/${owner.orgId}/settings`, from: [f.guide] },
  { status: 'ok', target: `file:${f.diagram}`, from: [f.guide, f.setup] },
  { status: 'broken', target: 'url:./nope.md', from: [f.guide] },
  { status: 'ok', target: `page:${f.guide}`, from: [f.setup, f.install] },
  { status: 'ok', target: `file:${f.manual}`, from: [f.install] },
];

// ---------------------------------------------------------------------------------------------

describe('GET /spaces/:spaceId/links (listSpaceLinks)', () => {
  it('lists every link grouped by target, with statuses and stats, in the official shape', async () => {
    const res = await h.rest('listSpaceLinks', 'GET', `/v1/spaces/${f.space}/links`, { token: owner.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.items.map(summary)).toEqual(mainLinks());
    expect(res.body.count).toBe(9);
    expect(res.body.next).toBeUndefined();
    expect(res.body.stats).toEqual({ total: 9, broken: { total: 1 } });

    // Page and file locations carry the organization, the space and the page or file.
    const [first] = res.body.items;
    expect(first.relation).toBe('reference');
    expect(first.targetReference).toMatchObject({
      kind: 'page',
      organization: { object: 'organization', id: owner.orgId },
      space: { object: 'space', id: f.space },
      page: { id: f.setup, title: 'Setup', path: 'setup', type: 'document', markdown: expect.stringContaining('# Setup'), pages: [] },
    });
    expect(first.locationReferences[0]).toMatchObject({
      kind: 'page',
      organization: { id: owner.orgId },
      space: { id: f.space },
      page: { id: f.guide },
    });
    expect(res.body.items[1].targetReference.internalLocation).toEqual({ type: 'anchor', anchor: 'install' });
    expect(res.body.items[3].targetReference).toEqual({ kind: 'url', url: 'https://example.com/docs' });
    expect(res.body.items[5].targetReference).toMatchObject({
      kind: 'file',
      space: { id: f.space },
      file: { id: f.diagram, name: 'diagram.png', contentType: 'image/png' },
    });
  });

  it('filters by status, keeping the stats of the whole listing', async () => {
    for (const [status, expected] of [
      ['ok', mainLinks().filter((l) => l.status === 'ok')],
      ['broken', [mainLinks()[6]]],
      ['in-app', [mainLinks()[4]]],
    ] as const) {
      const res = await h.rest('listSpaceLinks', 'GET', `/v1/spaces/${f.space}/links?status=${status}`, { token: owner.token });
      expect(res.status).toBe(200);
      expect(res.body.items.map(summary)).toEqual(expected);
      expect(res.body.count).toBe(expected.length);
      expect(res.body.stats).toEqual({ total: 9, broken: { total: 1 } });
    }
  });

  it('paginates', async () => {
    const seen: unknown[] = [];
    let path = `/v1/spaces/${f.space}/links?limit=4`;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(3);
      const res = await h.rest('listSpaceLinks', 'GET', path, { token: owner.token });
      expect(res.body.count).toBe(9);
      seen.push(...res.body.items.map(summary));
      if (!res.body.next) break;
      path = `/v1/spaces/${f.space}/links?limit=4&page=${res.body.next.page}`;
    }
    expect(seen).toEqual(mainLinks());
  });

  it('is readable by a reader of the space', async () => {
    const res = await h.rest('listSpaceLinks', 'GET', `/v1/spaces/${f.space}/links?status=broken`, { token: reader.token });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(1);
  });

  it('refuses a bad status, limit or page with 400 naming it, and an unknown space with 404', async () => {
    await expectRefused('listSpaceLinks', `/v1/spaces/${f.space}/links?status=dead`, owner.token, 400, /status/);
    await expectRefused('listSpaceLinks', `/v1/spaces/${f.space}/links?limit=0`, owner.token, 400, /limit/);
    await expectRefused('listSpaceLinks', `/v1/spaces/${f.space}/links?page=nonsense`, owner.token, 400, /page/);
    await expectRefused('listSpaceLinks', `/v1/spaces/nope/links`, owner.token, 404);
  });

  it('refuses an anonymous caller (401) and hides the space from an outsider (404)', async () => {
    await expectRefused('listSpaceLinks', `/v1/spaces/${f.space}/links`, null, 401);
    await expectRefused('listSpaceLinks', `/v1/spaces/${f.space}/links`, outsider.token, 404);
  });
});

describe('a change request that breaks a link (listChangeRequestLinks)', () => {
  let cr: { id: string; number: number };
  let space: string;
  let old: string;
  beforeAll(async () => {
    // A space of its own, so that merging here leaves the shared fixture alone.
    const other = await fixture();
    space = other.space;
    old = other.old;
    cr = await openCr(space, 'Remove Old');
    await write(space, cr.id, [{ operation: 'delete_page', page: old }]);
  });

  it('lists the change request content: the deleted page is now a broken link, counted as broken by the change request', async () => {
    const res = await h.rest('listChangeRequestLinks', 'GET', `/v1/spaces/${space}/change-requests/${cr.id}/links`, { token: owner.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const items = res.body.items.map(summary);
    expect(items).toContainEqual({ status: 'broken', target: 'url:./old.md', from: [expect.any(String)] });
    expect(items.some((i: { target: string }) => i.target === `page:${old}`)).toBe(false);
    expect(res.body.stats).toEqual({ total: 9, broken: { total: 2, changeRequest: 1 } });
    // By number too.
    const byNumber = await h.rest('listChangeRequestLinks', 'GET', `/v1/spaces/${space}/change-requests/${cr.number}/links`, {
      token: owner.token,
    });
    expect(byNumber.body).toEqual(res.body);
  });

  it('with brokenContext=change-request, lists only the links the change request broke', async () => {
    const all = await h.rest('listChangeRequestLinks', 'GET', `/v1/spaces/${space}/change-requests/${cr.id}/links?status=broken`, {
      token: owner.token,
    });
    expect(all.body.items.map((i: any) => i.targetReference.url)).toEqual(['./old.md', './nope.md']);
    const mine = await h.rest(
      'listChangeRequestLinks',
      'GET',
      `/v1/spaces/${space}/change-requests/${cr.id}/links?status=broken&brokenContext=change-request`,
      {
        token: owner.token,
      },
    );
    expect(mine.body.items.map((i: any) => i.targetReference.url)).toEqual(['./old.md']);
    expect(mine.body.count).toBe(1);
  });

  it('leaves main unchanged until the merge, then main has the broken link', async () => {
    const before = await h.rest('listSpaceLinks', 'GET', `/v1/spaces/${space}/links`, { token: owner.token });
    expect(before.body.stats).toEqual({ total: 9, broken: { total: 1 } });
    expect(before.body.items.map(summary)).toContainEqual({ status: 'ok', target: `page:${old}`, from: [expect.any(String)] });
    await merge(space, cr.id);
    const after = await h.rest('listSpaceLinks', 'GET', `/v1/spaces/${space}/links?status=broken`, { token: owner.token });
    expect(after.body.items.map((i: any) => i.targetReference.url)).toEqual(['./old.md', './nope.md']);
    expect(after.body.stats).toEqual({ total: 9, broken: { total: 2 } });
  });

  it('refuses a bad status or brokenContext (400), an unknown change request (404), no token (401) and an outsider (404)', async () => {
    const path = `/v1/spaces/${f.space}/change-requests`;
    const open = await openCr(f.space, 'Untouched');
    expect((await h.rest('listChangeRequestLinks', 'GET', `${path}/${open.id}/links`, { token: owner.token })).body.stats).toEqual({
      total: 9,
      broken: { total: 1, changeRequest: 0 },
    });
    await expectRefused('listChangeRequestLinks', `${path}/${open.id}/links?status=nope`, owner.token, 400, /status/);
    await expectRefused('listChangeRequestLinks', `${path}/${open.id}/links?brokenContext=nope`, owner.token, 400, /brokenContext/);
    await expectRefused('listChangeRequestLinks', `${path}/9999/links`, owner.token, 404);
    await expectRefused('listChangeRequestLinks', `${path}/${open.id}/links`, null, 401);
    await expectRefused('listChangeRequestLinks', `${path}/${open.id}/links`, outsider.token, 404);
  });
});

describe('page links (listPageLinksInSpace, listPageLinksInChangeRequest)', () => {
  it('lists the links written in one page, with that page as the only location', async () => {
    const res = await h.rest('listPageLinksInSpace', 'GET', `/v1/spaces/${f.space}/content/page/${f.guide}/links`, { token: owner.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const fromGuide = mainLinks()
      .filter((l) => l.from.includes(f.guide))
      .map((l) => ({ ...l, from: [f.guide] }));
    expect(res.body.items.map(summary)).toEqual(fromGuide);
    expect(res.body.stats).toEqual({ total: 7, broken: { total: 1 } });
    const install = await h.rest('listPageLinksInSpace', 'GET', `/v1/spaces/${f.space}/content/page/${f.install}/links`, {
      token: owner.token,
    });
    expect(install.body.items.map(summary)).toEqual([
      { status: 'ok', target: `page:${f.setup}`, from: [f.install] },
      { status: 'ok', target: `page:${f.guide}`, from: [f.install] },
      { status: 'ok', target: `file:${f.manual}`, from: [f.install] },
    ]);
    const none = await h.rest('listPageLinksInSpace', 'GET', `/v1/spaces/${f.space}/content/page/${f.old}/links`, { token: owner.token });
    expect(none.body).toEqual({ items: [], count: 0, stats: { total: 0, broken: { total: 0 } } });
    const inApp = await h.rest('listPageLinksInSpace', 'GET', `/v1/spaces/${f.space}/content/page/${f.guide}/links?status=in-app`, {
      token: owner.token,
    });
    expect(inApp.body.items.map(summary)).toEqual([mainLinks()[4]]);
  });

  it('lists a change request page: its own edits show there, not on main, until merged', async () => {
    const cr = await openCr(f.space, 'More links');
    await write(f.space, cr.id, [
      { operation: 'update_page', page: f.old, document: { markdown: 'Now see the [guide](./guide.md) and [gone](./gone.md).\n' } },
    ]);
    const inCr = await h.rest(
      'listPageLinksInChangeRequest',
      'GET',
      `/v1/spaces/${f.space}/change-requests/${cr.id}/content/page/${f.old}/links`,
      { token: owner.token },
    );
    expect(inCr.status, JSON.stringify(inCr.body)).toBe(200);
    expect(inCr.body.items.map(summary)).toEqual([
      { status: 'ok', target: `page:${f.guide}`, from: [f.old] },
      { status: 'broken', target: 'url:./gone.md', from: [f.old] },
    ]);
    expect(inCr.body.stats).toEqual({ total: 2, broken: { total: 1, changeRequest: 1 } });
    const onMain = await h.rest('listPageLinksInSpace', 'GET', `/v1/spaces/${f.space}/content/page/${f.old}/links`, { token: owner.token });
    expect(onMain.body.count).toBe(0);
  });

  it('refuses an unknown page (404), a bad status or limit (400), no token (401) and an outsider (404)', async () => {
    const base = `/v1/spaces/${f.space}/content/page`;
    await expectRefused('listPageLinksInSpace', `${base}/nope/links`, owner.token, 404, /Page/);
    await expectRefused('listPageLinksInSpace', `${base}/${f.guide}/links?status=fine`, owner.token, 400, /status/);
    await expectRefused('listPageLinksInSpace', `${base}/${f.guide}/links?limit=1001`, owner.token, 400, /limit/);
    await expectRefused('listPageLinksInSpace', `${base}/${f.guide}/links`, null, 401);
    await expectRefused('listPageLinksInSpace', `${base}/${f.guide}/links`, outsider.token, 404);
    const cr = await openCr(f.space);
    const crBase = `/v1/spaces/${f.space}/change-requests/${cr.id}/content/page`;
    expect((await h.rest('listPageLinksInChangeRequest', 'GET', `${crBase}/${f.guide}/links`, { token: reader.token })).body.count).toBe(7);
    await expectRefused('listPageLinksInChangeRequest', `${crBase}/nope/links`, owner.token, 404, /Page/);
    await expectRefused(
      'listPageLinksInChangeRequest',
      `/v1/spaces/${f.space}/change-requests/9999/content/page/${f.guide}/links`,
      owner.token,
      404,
    );
    await expectRefused('listPageLinksInChangeRequest', `${crBase}/${f.guide}/links?limit=x`, owner.token, 400, /limit/);
    await expectRefused('listPageLinksInChangeRequest', `${crBase}/${f.guide}/links`, null, 401);
    await expectRefused('listPageLinksInChangeRequest', `${crBase}/${f.guide}/links`, outsider.token, 404);
  });
});

describe('file backlinks (listSpaceFileBacklinks, listChangeRequestFileBacklinks)', () => {
  it('lists the pages referencing a file, in reading order, as page locations', async () => {
    const res = await h.rest('listSpaceFileBacklinks', 'GET', `/v1/spaces/${f.space}/content/files/${f.diagram}/backlinks`, {
      token: owner.token,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.items.map((l: any) => l.page.id)).toEqual([f.guide, f.setup]);
    expect(res.body.count).toBe(2);
    expect(res.body.items[0]).toMatchObject({
      kind: 'page',
      organization: { id: owner.orgId },
      space: { id: f.space },
      page: { id: f.guide, title: 'Guide' },
    });
    // Linked by its download URL.
    const manual = await h.rest('listSpaceFileBacklinks', 'GET', `/v1/spaces/${f.space}/content/files/${f.manual}/backlinks`, {
      token: owner.token,
    });
    expect(manual.body.items.map((l: any) => l.page.id)).toEqual([f.install]);
    const page1 = await h.rest('listSpaceFileBacklinks', 'GET', `/v1/spaces/${f.space}/content/files/${f.diagram}/backlinks?limit=1`, {
      token: owner.token,
    });
    expect(page1.body.items.map((l: any) => l.page.id)).toEqual([f.guide]);
    const page2 = await h.rest(
      'listSpaceFileBacklinks',
      'GET',
      `/v1/spaces/${f.space}/content/files/${f.diagram}/backlinks?limit=1&page=${page1.body.next.page}`,
      {
        token: owner.token,
      },
    );
    expect(page2.body.items.map((l: any) => l.page.id)).toEqual([f.setup]);
  });

  it('lists the change request side: a new page referencing the file shows there, and on main only once merged', async () => {
    const space = await fixture();
    const cr = await openCr(space.space, 'Gallery');
    const { pages } = await write(space.space, cr.id, [
      { operation: 'insert_page', title: 'Gallery', document: { markdown: '![A diagram](diagram.png)\n' } },
    ]);
    const path = (prefix: string) => `/v1/spaces/${space.space}${prefix}/content/files/${space.diagram}/backlinks`;
    const inCr = await h.rest('listChangeRequestFileBacklinks', 'GET', path(`/change-requests/${cr.id}`), { token: owner.token });
    expect(inCr.status, JSON.stringify(inCr.body)).toBe(200);
    expect(inCr.body.items.map((l: any) => l.page.id)).toEqual([space.guide, space.setup, pages[0]]);
    expect((await h.rest('listSpaceFileBacklinks', 'GET', path(''), { token: owner.token })).body.items.map((l: any) => l.page.id)).toEqual(
      [space.guide, space.setup],
    );
    await merge(space.space, cr.id);
    expect((await h.rest('listSpaceFileBacklinks', 'GET', path(''), { token: owner.token })).body.items.map((l: any) => l.page.id)).toEqual(
      [space.guide, space.setup, pages[0]],
    );
  });

  it('refuses an unknown file (404), a bad limit (400), no token (401) and an outsider (404)', async () => {
    const base = `/v1/spaces/${f.space}/content/files`;
    await expectRefused('listSpaceFileBacklinks', `${base}/nope/backlinks`, owner.token, 404, /File/);
    await expectRefused('listSpaceFileBacklinks', `${base}/${f.diagram}/backlinks?limit=-1`, owner.token, 400, /limit/);
    await expectRefused('listSpaceFileBacklinks', `${base}/${f.diagram}/backlinks`, null, 401);
    await expectRefused('listSpaceFileBacklinks', `${base}/${f.diagram}/backlinks`, outsider.token, 404);
    const cr = await openCr(f.space);
    const crBase = `/v1/spaces/${f.space}/change-requests/${cr.id}/content/files`;
    expect(
      (await h.rest('listChangeRequestFileBacklinks', 'GET', `${crBase}/${f.diagram}/backlinks`, { token: reader.token })).body.count,
    ).toBe(2);
    await expectRefused('listChangeRequestFileBacklinks', `${crBase}/nope/backlinks`, owner.token, 404, /File/);
    await expectRefused(
      'listChangeRequestFileBacklinks',
      `/v1/spaces/${f.space}/change-requests/9999/content/files/${f.diagram}/backlinks`,
      owner.token,
      404,
    );
    await expectRefused('listChangeRequestFileBacklinks', `${crBase}/${f.diagram}/backlinks?page=zzz`, owner.token, 400, /page/);
    await expectRefused('listChangeRequestFileBacklinks', `${crBase}/${f.diagram}/backlinks`, null, 401);
    await expectRefused('listChangeRequestFileBacklinks', `${crBase}/${f.diagram}/backlinks`, outsider.token, 404);
  });
});

describe('page backlinks (listSpacePageBacklinks, listChangeRequestPageBacklinks)', () => {
  it('lists the pages linking to a page, anchors and app URLs included', async () => {
    const guide = await h.rest('listSpacePageBacklinks', 'GET', `/v1/spaces/${f.space}/content/page/${f.guide}/backlinks`, {
      token: owner.token,
    });
    expect(guide.status, JSON.stringify(guide.body)).toBe(200);
    expect(guide.body.items.map((l: any) => l.page.id)).toEqual([f.setup, f.install]);
    const setup = await h.rest('listSpacePageBacklinks', 'GET', `/v1/spaces/${f.space}/content/page/${f.setup}/backlinks`, {
      token: owner.token,
    });
    expect(setup.body.items.map((l: any) => l.page.id)).toEqual([f.guide, f.install]);
    const none = await h.rest('listSpacePageBacklinks', 'GET', `/v1/spaces/${f.space}/content/page/${f.install}/backlinks`, {
      token: owner.token,
    });
    expect(none.body).toEqual({ items: [], count: 0 });
  });

  it('lists the change request side: a page that stops linking is gone there, not on main', async () => {
    const cr = await openCr(f.space, 'Unlink');
    await write(f.space, cr.id, [{ operation: 'update_page', page: f.setup, document: { markdown: '# Setup\n\nNo links any more.\n' } }]);
    const path = (prefix: string) => `/v1/spaces/${f.space}${prefix}/content/page/${f.guide}/backlinks`;
    const inCr = await h.rest('listChangeRequestPageBacklinks', 'GET', path(`/change-requests/${cr.id}`), { token: owner.token });
    expect(inCr.status, JSON.stringify(inCr.body)).toBe(200);
    expect(inCr.body.items.map((l: any) => l.page.id)).toEqual([f.install]);
    expect(inCr.body.items[0]).toMatchObject({ kind: 'page', organization: { id: owner.orgId }, space: { id: f.space } });
    const onMain = await h.rest('listSpacePageBacklinks', 'GET', path(''), { token: owner.token });
    expect(onMain.body.items.map((l: any) => l.page.id)).toEqual([f.setup, f.install]);
  });

  it('refuses an unknown page (404), no token (401) and an outsider (404)', async () => {
    await expectRefused('listSpacePageBacklinks', `/v1/spaces/${f.space}/content/page/nope/backlinks`, owner.token, 404, /Page/);
    await expectRefused(
      'listSpacePageBacklinks',
      `/v1/spaces/${f.space}/content/page/${f.guide}/backlinks?limit=5000`,
      owner.token,
      400,
      /limit/,
    );
    await expectRefused('listSpacePageBacklinks', `/v1/spaces/${f.space}/content/page/${f.guide}/backlinks`, null, 401);
    await expectRefused('listSpacePageBacklinks', `/v1/spaces/${f.space}/content/page/${f.guide}/backlinks`, outsider.token, 404);
    const cr = await openCr(f.space);
    const crBase = `/v1/spaces/${f.space}/change-requests/${cr.id}/content/page`;
    await expectRefused('listChangeRequestPageBacklinks', `${crBase}/nope/backlinks`, owner.token, 404, /Page/);
    await expectRefused('listChangeRequestPageBacklinks', `${crBase}/${f.guide}/backlinks`, null, 401);
    await expectRefused('listChangeRequestPageBacklinks', `${crBase}/${f.guide}/backlinks`, outsider.token, 404);
  });
});

describe('documents: relative links become page and file references', () => {
  /** Every `data.ref` of a document's links and images, in document order. */
  function refs(document: any) {
    const out: { type: string; ref: unknown }[] = [];
    const walk = (node: any) => {
      if (node.data?.ref) out.push({ type: node.type, ref: node.data.ref });
      (node.nodes ?? []).forEach(walk);
      (node.fragments ?? []).forEach(walk);
    };
    document.nodes.forEach(walk);
    return out;
  }

  it('resolves relative links to pages, anchors and files; keeps broken, in-app and external URLs', async () => {
    const res = await h.rest('getPageById', 'GET', `/v1/spaces/${f.space}/content/page/${f.guide}?format=document`, { token: owner.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(refs(res.body.document)).toEqual([
      { type: 'link', ref: { kind: 'page', page: f.setup } },
      { type: 'link', ref: { kind: 'anchor', anchor: 'install', page: f.setup } },
      { type: 'link', ref: { kind: 'page', page: f.old } },
      { type: 'link', ref: { kind: 'url', url: 'https://example.com/docs' } },
      { type: 'link', ref: { kind: 'url', url: `${h.config.publicUrl}/app/o/${owner.orgId}/settings` } },
      { type: expect.stringMatching(/image/), ref: { kind: 'file', file: f.diagram } },
      { type: 'link', ref: { kind: 'url', url: './nope.md' } },
    ]);
    // The default format is the document; child pages' documents are resolved from their own place.
    const setup = await h.rest('getPageById', 'GET', `/v1/spaces/${f.space}/content/page/${f.setup}`, { token: owner.token });
    expect(refs(setup.body.document)).toEqual([
      { type: 'link', ref: { kind: 'page', page: f.guide } },
      { type: 'link', ref: { kind: 'file', file: f.diagram } },
    ]);
    expect(refs(setup.body.pages[0].document)).toEqual([
      { type: 'link', ref: { kind: 'page', page: f.guide } },
      { type: 'link', ref: { kind: 'page', page: f.setup } },
      { type: 'link', ref: { kind: 'file', file: f.manual } },
    ]);
    // Markdown stays as written.
    const md = await h.rest('getPageById', 'GET', `/v1/spaces/${f.space}/content/page/${f.guide}?format=markdown`, { token: owner.token });
    expect(md.body.markdown).toContain('[Setup](./setup.md)');
  });

  it('resolves in the change request content: a link to a page deleted there stays a URL', async () => {
    const cr = await openCr(f.space, 'Delete Old');
    await write(f.space, cr.id, [{ operation: 'delete_page', page: f.old }]);
    const res = await h.rest(
      'getPageInChangeRequestById',
      'GET',
      `/v1/spaces/${f.space}/change-requests/${cr.id}/content/page/${f.guide}`,
      { token: owner.token },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(refs(res.body.document)[2]).toEqual({ type: 'link', ref: { kind: 'url', url: './old.md' } });
  });
});

describe('GraphQL', () => {
  it('serves the same listings, with the organization once on the space', async () => {
    const res = await h.graphql(
      owner.token,
      `query($id: ID!, $file: ID!) { space(id: $id) { owningOrganization { id } content {
        links(status: broken) { count stats { total broken { total changeRequest } } items { status targetReference { kind url } locationReferences { page { id } } } }
        fileBacklinks(id: $file) { count items { kind page { id } } }
      } } }`,
      { id: f.space, file: f.manual },
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const space = res.body.data.space;
    expect(space.owningOrganization.id).toBe(owner.orgId);
    expect(space.content.links).toMatchObject({ count: 1, stats: { total: 9, broken: { total: 1, changeRequest: null } } });
    expect(space.content.links.items[0]).toMatchObject({ status: 'broken', targetReference: { kind: 'url', url: './nope.md' } });
    expect(space.content.links.items[0].locationReferences[0].page.id).toBe(f.guide);
    expect(space.content.fileBacklinks.items.map((l: any) => l.page.id)).toEqual([f.install]);
  });

  it('gives a change request its broken-link stats on ChangeRequest.links', async () => {
    const cr = await openCr(f.space, 'GraphQL');
    await write(f.space, cr.id, [{ operation: 'update_page', page: f.old, document: { markdown: '[Lost](./lost.md)\n' } }]);
    const res = await h.graphql(
      owner.token,
      `query($id: ID!, $cr: String!) { space(id: $id) { changeRequest(id: $cr) {
        links(status: broken, brokenContext: change_request) { count stats { total broken { total changeRequest } } items { targetReference { url } } }
        content { links { stats { broken { total changeRequest } } } }
      } } }`,
      { id: f.space, cr: cr.id },
    );
    expect(res.body.errors).toBeUndefined();
    const { links, content } = res.body.data.space.changeRequest;
    expect(links).toEqual({
      count: 1,
      stats: { total: 10, broken: { total: 2, changeRequest: 1 } },
      items: [{ targetReference: { url: './lost.md' } }],
    });
    // The plain revision listing does not know about the change request.
    expect(content.links.stats.broken).toEqual({ total: 2, changeRequest: null });
  });

  it('lets a page of 1000 links through the complexity limit', async () => {
    const res = await h.graphql(
      owner.token,
      `query($id: ID!) { space(id: $id) { content { links(limit: 1000) { count items { status relation targetReference { kind page { id title path markdown } file { id name } url internalLocation { type anchor } } locationReferences { kind page { id title path markdown } } } } } } }`,
      { id: f.space },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.space.content.links.count).toBe(9);
  });
});

describe('cost', () => {
  it('reads a listing in the same number of SQL statements for 4 and for 24 linking pages', async () => {
    const big = await fixture();
    const cr = await openCr(big.space, 'Many pages');
    await write(
      big.space,
      cr.id,
      Array.from({ length: 20 }, (_, i) => ({
        operation: 'insert_page',
        title: `Extra ${i}`,
        document: { markdown: `[Guide](./guide.md) [Ext](https://example.com/${i}) [Gone](./gone-${i}.md) ![D](diagram.png)\n` },
      })),
    );
    await merge(big.space, cr.id);
    const statements = async (space: string, path: string) => {
      const before = h.db.statements.count;
      const res = await h.rest('listSpaceLinks', 'GET', `/v1/spaces/${space}${path}`, { token: owner.token });
      expect(res.status).toBe(200);
      return { count: h.db.statements.count - before, body: res.body };
    };
    const small = await statements(f.space, '/links?limit=1000');
    const large = await statements(big.space, '/links?limit=1000');
    expect(large.body.count).toBe(9 + 40);
    expect(large.body.stats.broken.total).toBe(21);
    expect(large.count).toBe(small.count);
  });
});
