/**
 * getRevisionSemanticChanges, getChangeRequestChanges (from the two manifests: the cost follows the
 * change, not the space) and getSpacePDF. Each route: it works (official schemas), bad input is a
 * 400 naming the parameter (or 404), a caller without rights is refused.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { BASE, setupHarness, type Harness, type World } from '../support/harness.js';
import { requestRefusalChecker } from '../support/refused.js';
import { base64, insertPage, updatePage, writeCr, writeLive, type Change } from '../support/content-writes.js';

let h: Harness;
let w: World;
let refused: ReturnType<typeof requestRefusalChecker>;

beforeAll(async () => {
  h = await setupHarness();
  w = await h.world();
  refused = requestRefusalChecker(h, () => h.snapshot());
});

async function newSpace(title = 'Docs') {
  const res = await h.call('POST', `/v1/orgs/${w.orgId}/spaces`, { token: w.owner.token, body: { title } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
const live = (spaceId: string, changes: Change[]) => writeLive(h, w.owner.token, spaceId, changes);
async function newCr(spaceId: string, subject = 'Edits') {
  const res = await h.call('POST', `/v1/spaces/${spaceId}/change-requests`, { token: w.owner.token, body: { subject } });
  expect(res.status).toBe(201);
  return res.body as { id: string; number: number };
}
const mainRevision = async (spaceId: string) => (await h.db.prisma.space.findUniqueOrThrow({ where: { id: spaceId } })).revisionId;
const crChanges = (spaceId: string, cr: string, query = '', token = w.reader.token) =>
  h.rest('getChangeRequestChanges', 'GET', `/v1/spaces/${spaceId}/change-requests/${cr}/changes${query}`, { token });
const revisionChanges = (spaceId: string, revision: string, query = '', token = w.reader.token) =>
  h.rest('getRevisionSemanticChanges', 'GET', `/v1/spaces/${spaceId}/revisions/${revision}/changes${query}`, { token });

/** A space with Guide (and Setup below it), FAQ and Old on main, and a change request editing them. */
async function spaceWithChangeRequest() {
  const spaceId = await newSpace();
  const [guide, faq, old] = (
    await live(spaceId, [insertPage('Guide', 'Read me.'), insertPage('FAQ', 'Questions.'), insertPage('Old', 'Gone soon.')])
  ).pages as [string, string, string];
  const [setup] = (await live(spaceId, [insertPage('Setup', 'npm ci', { into: guide })])).pages as [string];
  const cr = await newCr(spaceId);
  const written = await writeCr(h, w.owner.token, spaceId, cr.id, [
    insertPage('News', 'Fresh.'),
    updatePage(faq, { title: 'Questions', document: { markdown: 'Answers.' } }),
    { operation: 'delete_page', page: old },
    updatePage(setup, { into: null, at: 0 }),
    { operation: 'insert_files', files: [{ name: 'logo.txt', contentType: 'text/plain', base64: base64('logo') }] },
  ]);
  return { spaceId, cr, guide, faq, old, setup, news: written.pages[0]!, file: written.files[0]! };
}

describe('GET /spaces/:spaceId/change-requests/:changeRequestId/changes', () => {
  it('lists pages created, edited, deleted and moved, and files, against the revision the change request started from', async () => {
    const s = await spaceWithChangeRequest();
    const res = await crChanges(s.spaceId, s.cr.id, '?limit=20');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const byType = Object.fromEntries(res.body.changes.map((c: any) => [c.type, c]));
    expect(res.body.changes).toHaveLength(5);
    expect(res.body.more).toBeUndefined();
    expect(byType.page_created).toEqual({ type: 'page_created', page: { id: s.news, type: 'document', title: 'News', path: 'news' } });
    expect(byType.page_edited).toMatchObject({
      page: { id: s.faq, title: 'Questions', path: 'faq' },
      attributes: { title: { before: 'FAQ', after: 'Questions' }, document: { before: expect.any(String), after: expect.any(String) } },
    });
    expect(byType.page_edited.attributes.document.before).not.toBe(byType.page_edited.attributes.document.after);
    expect(Object.keys(byType.page_edited.attributes).sort()).toEqual(['document', 'title']);
    expect(byType.page_deleted).toEqual({ type: 'page_deleted', page: { id: s.old, type: 'document', title: 'Old', path: 'old' } });
    // Moved from under Guide to the top level: the parent before is Guide, there is none after.
    expect(byType.page_moved).toEqual({
      type: 'page_moved',
      page: { id: s.setup, type: 'document', title: 'Setup', path: 'setup' },
      parent: { before: { id: s.guide, type: 'document', title: 'Guide', path: 'guide' } },
    });
    expect(byType.file_created).toEqual({
      type: 'file_created',
      file: { id: s.file, name: 'logo.txt', contentType: 'text/plain', downloadURL: expect.stringContaining(BASE) },
    });
    // Pages in path order, then files.
    expect(res.body.changes.map((c: any) => c.type)).toEqual(['page_edited', 'page_created', 'page_deleted', 'page_moved', 'file_created']);
  });

  it('answers at most `limit` changes (10 by default) and says how many it left out', async () => {
    const spaceId = await newSpace();
    const cr = await newCr(spaceId);
    await writeCr(
      h,
      w.owner.token,
      spaceId,
      cr.id,
      Array.from({ length: 12 }, (_, i) => insertPage(`Page ${i}`)),
    );
    expect((await crChanges(spaceId, cr.id)).body).toMatchObject({ changes: expect.any(Array), more: 2 });
    expect((await crChanges(spaceId, cr.id)).body.changes).toHaveLength(10);
    const two = await crChanges(spaceId, String(cr.number), '?limit=2');
    expect(two.body.changes.map((c: any) => c.page.title)).toEqual(['Page 0', 'Page 1']);
    expect(two.body.more).toBe(10);
    // No edits yet: nothing changed.
    const empty = await newCr(spaceId, 'Nothing');
    expect((await crChanges(spaceId, empty.id)).body).toEqual({ changes: [] });
  });

  it('reads only what changed: the statements do not grow with unchanged pages', async () => {
    async function measure(unchanged: number) {
      const spaceId = await newSpace();
      const [parent] = (await live(spaceId, [insertPage('Parent')])).pages as [string];
      const [child] = (await live(spaceId, [insertPage('Child', 'v1', { into: parent })])).pages as [string];
      await live(
        spaceId,
        Array.from({ length: unchanged }, (_, i) => insertPage(`Filler ${i}`, `Body ${i}`)),
      );
      const cr = await newCr(spaceId);
      await writeCr(h, w.owner.token, spaceId, cr.id, [updatePage(child, { document: { markdown: 'v2' } })]);
      const before = h.db.statements.count;
      const res = await crChanges(spaceId, cr.id);
      const statements = h.db.statements.count - before;
      expect(res.body.changes).toEqual([
        {
          type: 'page_edited',
          page: { id: child, type: 'document', title: 'Child', path: 'parent/child' },
          attributes: { document: expect.any(Object) },
        },
      ]);
      return statements;
    }
    // Each size three times, the fewest counted: loads issued on different ticks (the page shards,
    // then their ancestors') are sometimes batched into one statement and sometimes not, so a single
    // count can be one higher (seen on both sizes). Growth with the unchanged pages would show in
    // every count of the larger size, so its fewest would exceed the smaller's.
    const fewest = async (unchanged: number) => {
      const counts: number[] = [];
      for (let i = 0; i < 3; i++) counts.push(await measure(unchanged));
      return Math.min(...counts);
    };
    expect(await fewest(40)).toBeLessThanOrEqual(await fewest(2));
  });

  it('refuses bad parameters (400 naming them), unknown change requests (404) and callers without rights', async () => {
    const s = await spaceWithChangeRequest();
    const path = `/v1/spaces/${s.spaceId}/change-requests/${s.cr.id}/changes`;
    for (const q of ['?limit=0', '?limit=abc', '?limit=1.5', '?limit=1001'])
      await refused(400, 'GET', `${path}${q}`, { token: w.reader.token, field: 'limit' });
    await refused(404, 'GET', `/v1/spaces/${s.spaceId}/change-requests/nope/changes`, {
      token: w.reader.token,
      operationId: 'getChangeRequestChanges',
    });
    await refused(404, 'GET', path, { token: w.outsider.token });
    await refused(401, 'GET', path, { token: null });
  });
});

describe('GET /spaces/:spaceId/revisions/:revisionId/changes', () => {
  it("shows a live edit against the revision before it, and a space's first revision as empty", async () => {
    const spaceId = await newSpace();
    const first = await mainRevision(spaceId);
    expect((await revisionChanges(spaceId, first)).body).toEqual({ changes: [] });
    const [intro] = (await live(spaceId, [insertPage('Intro', 'Hi')])).pages as [string];
    const edit = await live(spaceId, [updatePage(intro, { title: 'Welcome', emoji: '1f600' }), insertPage('Next')]);
    const res = await revisionChanges(spaceId, edit.revision);
    expect(res.body.changes).toEqual([
      {
        type: 'page_edited',
        page: { id: intro, type: 'document', title: 'Welcome', path: 'intro' },
        attributes: { title: { before: 'Intro', after: 'Welcome' }, emoji: { after: '1f600' } },
      },
      { type: 'page_created', page: { id: edit.pages[0], type: 'document', title: 'Next', path: 'next' } },
    ]);
    expect(res.body.mergedFrom).toBeUndefined();
  });

  it('shows variables edited', async () => {
    const spaceId = await newSpace();
    await live(spaceId, [{ operation: 'update_variables', variables: { product: 'Lectern', old: 'x' } }]);
    const edit = await live(spaceId, [{ operation: 'update_variables', variables: { product: 'Lectern 2', old: null, fresh: 'y' } }]);
    expect((await revisionChanges(spaceId, edit.revision)).body.changes).toEqual([
      {
        type: 'variables_edited',
        variables: { fresh: { after: 'y' }, old: { before: 'x' }, product: { before: 'Lectern', after: 'Lectern 2' } },
      },
    ]);
  });

  it('shows what a merge brought to main, with the change request it merged (fast-forward and three-way)', async () => {
    const s = await spaceWithChangeRequest();
    expect((await h.call('POST', `/v1/spaces/${s.spaceId}/change-requests/${s.cr.id}/merge`, { token: w.owner.token })).status).toBe(200);
    const merged = await revisionChanges(s.spaceId, await mainRevision(s.spaceId), '?limit=20');
    expect(merged.body.mergedFrom).toMatchObject({ object: 'change-request', id: s.cr.id, status: 'merged' });
    expect(merged.body.changes).toEqual((await crChanges(s.spaceId, s.cr.id, '?limit=20')).body.changes);

    // Main moves after the change request started: the merge revision is compared with main before it.
    const cr = await newCr(s.spaceId, 'Second');
    await writeCr(h, w.owner.token, s.spaceId, cr.id, [insertPage('From CR')]);
    await live(s.spaceId, [insertPage('On main')]);
    expect((await h.call('POST', `/v1/spaces/${s.spaceId}/change-requests/${cr.id}/merge`, { token: w.owner.token })).status).toBe(200);
    const threeWay = await revisionChanges(s.spaceId, await mainRevision(s.spaceId));
    expect(threeWay.body.mergedFrom).toMatchObject({ id: cr.id });
    expect(threeWay.body.changes).toEqual([{ type: 'page_created', page: expect.objectContaining({ title: 'From CR' }) }]);
  });

  it('refuses bad parameters, revisions of other spaces (404) and callers without rights', async () => {
    const spaceId = await newSpace();
    const other = await newSpace('Other');
    const revision = await mainRevision(spaceId);
    const path = `/v1/spaces/${spaceId}/revisions/${revision}/changes`;
    await refused(400, 'GET', `${path}?limit=-1`, { token: w.reader.token, field: 'limit' });
    await refused(400, 'GET', `${path}?metadata=maybe`, { token: w.reader.token, field: 'metadata' });
    await refused(400, 'GET', `${path}?computed=2`, { token: w.reader.token, field: 'computed' });
    await refused(404, 'GET', `/v1/spaces/${spaceId}/revisions/nope/changes`, { token: w.reader.token });
    await refused(404, 'GET', `/v1/spaces/${other}/revisions/${revision}/changes`, { token: w.reader.token });
    await refused(404, 'GET', path, { token: w.outsider.token });
  });
});

describe('GET /spaces/:spaceId/pdf', () => {
  const fetchPdf = async (url: string) => {
    const res = await h.app.fetch(new Request(url));
    return { status: res.status, type: res.headers.get('content-type'), text: Buffer.from(await res.arrayBuffer()).toString('latin1') };
  };

  it("answers a temporary URL serving the space's main content as a PDF, as main is when fetched", async () => {
    const spaceId = await newSpace('Handbook');
    const [intro] = (await live(spaceId, [insertPage('Intro', 'Welcome.'), insertPage('Guide', '- one')])).pages as [string];
    const cr = await newCr(spaceId);
    await writeCr(h, w.owner.token, spaceId, cr.id, [insertPage('Draft only')]);
    const res = await h.rest('getSpacePDF', 'GET', `/v1/spaces/${spaceId}/pdf`, { token: w.reader.token });
    expect(res.body).toEqual({ url: expect.stringMatching(new RegExp(`^${BASE}/exports/[0-9A-Za-z]{32}\\.pdf$`)) });
    await live(spaceId, [insertPage('Later')]);
    const pdf = await fetchPdf(res.body.url);
    expect(pdf).toMatchObject({ status: 200, type: 'application/pdf' });
    expect(pdf.text.startsWith('%PDF-')).toBe(true);
    for (const title of ['Intro', 'Guide', 'Later']) expect(pdf.text).toContain(`/Title (${title})`);
    expect(pdf.text).not.toContain('/Title (Draft only)');

    const one = await h.rest('getSpacePDF', 'GET', `/v1/spaces/${spaceId}/pdf?only=true&page=${intro}`, { token: w.reader.token });
    const onePdf = await fetchPdf(one.body.url);
    expect(onePdf.text).toContain('/Title (Intro)');
    expect(onePdf.text).not.toContain('/Title (Guide)');

    // The export goes with its space.
    expect((await h.call('DELETE', `/v1/spaces/${spaceId}`, { token: w.owner.token })).status).toBe(205);
    expect((await fetchPdf(res.body.url)).status).toBe(404);
  });

  it('refuses a missing or unknown page, bad flags and callers without rights, recording no export', async () => {
    const spaceId = await newSpace();
    const count = () => h.db.prisma.pdfExport.count();
    const before = await count();
    await refused(400, 'GET', `/v1/spaces/${spaceId}/pdf?only=true`, { token: w.reader.token, field: 'page' });
    await refused(400, 'GET', `/v1/spaces/${spaceId}/pdf?only=perhaps`, { token: w.reader.token, field: 'only' });
    await refused(400, 'GET', `/v1/spaces/${spaceId}/pdf?page=`, { token: w.reader.token, field: 'page' });
    await refused(404, 'GET', `/v1/spaces/${spaceId}/pdf?page=nope`, { token: w.reader.token });
    await refused(404, 'GET', `/v1/spaces/${spaceId}/pdf`, { token: w.outsider.token });
    await refused(401, 'GET', `/v1/spaces/${spaceId}/pdf`, { token: null });
    await refused(404, 'GET', `/v1/spaces/nope/pdf`, { token: w.reader.token });
    expect(await count()).toBe(before);
  });
});
