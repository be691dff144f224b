import { beforeAll, describe, expect, it } from 'vitest';
import { BASE, setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { refusalChecker } from '../support/refused.js';
import { changeRequestRoutes } from '../../src/modules/change-requests/routes.js';
import { documentFromMarkdown } from '../../src/document/index.js';
import { newId } from '../../src/ids.js';
import { hashSecret } from '../../src/secrets.js';

/**
 * Change requests: list (space and organization), create, read, update, merge, update from main,
 * reviews and merge rules, and PDF exports. Each route three ways: it works (official schema),
 * bad input is refused with the right status and changes nothing, callers without rights are refused.
 */
type Owner = TestUser & { orgId: string };
type Cr = { id: string; number: number; [key: string]: any };

let h: Harness;
let owner: Owner;
let reader: TestUser;
let commenter: TestUser;
let editor: TestUser;
let reviewer: TestUser;
let reviewer2: TestUser;
let outsider: TestUser;

beforeAll(async () => {
  h = await setupHarness();
  owner = await h.owner();
  [reader, commenter, editor, reviewer, reviewer2, outsider] = await Promise.all([h.user(), h.user(), h.user(), h.user(), h.user(), h.user()]);
  await h.addMember(owner.orgId, reader.id, 'read');
  await h.addMember(owner.orgId, commenter.id, 'comment');
  await h.addMember(owner.orgId, editor.id, 'edit');
  await h.addMember(owner.orgId, reviewer.id, 'review');
  await h.addMember(owner.orgId, reviewer2.id, 'review');
});

// ---------------------------------------------------------------------------------------------
// Helpers

async function newSpace(body: Record<string, unknown> = { title: 'Docs' }, org: Owner = owner) {
  const res = await h.call('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.token, body });
  expect(res.status).toBe(201);
  return res.body as { id: string; revision: string };
}

const crPath = (spaceId: string, cr?: string | number, suffix = '') => `/v1/spaces/${spaceId}/change-requests${cr === undefined ? '' : `/${cr}`}${suffix}`;
const spaceRevision = async (spaceId: string) => (await h.db.prisma.space.findUniqueOrThrow({ where: { id: spaceId } })).revisionId;
const crRow = (id: string) => h.db.prisma.changeRequest.findUniqueOrThrow({ where: { id } });

async function createCr(spaceId: string, body: Record<string, unknown> = { subject: 'Edits' }, user: { token: string } = owner): Promise<Cr> {
  const res = await h.rest('createChangeRequest', 'POST', crPath(spaceId), { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}
async function getCr(spaceId: string, cr: string | number, user: { token: string } = owner): Promise<Cr> {
  const res = await h.rest('getChangeRequestById', 'GET', crPath(spaceId, cr), { token: user.token });
  expect(res.status).toBe(200);
  return res.body;
}
async function patchCr(spaceId: string, cr: string | number, body: Record<string, unknown>, user: { token: string } = owner): Promise<Cr> {
  const res = await h.rest('updateChangeRequestById', 'PATCH', crPath(spaceId, cr), { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}
async function write(spaceId: string, cr: string | number | null, changes: unknown[], user: { token: string } = owner) {
  const path = cr === null ? `/v1/spaces/${spaceId}/content` : crPath(spaceId, cr, '/content');
  const res = await h.call('POST', path, { token: user.token, body: { changes } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { revision: string; pages: string[] };
}
const merge = (spaceId: string, cr: string | number, user: { token: string } | null = owner) => h.call('POST', crPath(spaceId, cr, '/merge'), { token: user?.token ?? null });
const update = (spaceId: string, cr: string | number, user: { token: string } | null = owner) => h.call('POST', crPath(spaceId, cr, '/update'), { token: user?.token ?? null });
const review = (spaceId: string, cr: string | number, body: unknown, user: { token: string } | null) =>
  h.call('POST', crPath(spaceId, cr, '/reviews'), { token: user?.token ?? null, body });
const pdf = (spaceId: string, cr: string | number, query = '', user: { token: string } | null = owner) => h.call('GET', `${crPath(spaceId, cr, '/pdf')}${query}`, { token: user?.token ?? null });
const titles = (pages: any[]): string[] => pages.flatMap((p) => [p.title, ...titles(p.pages ?? [])]);
const mainTitles = async (spaceId: string) => titles((await h.call('GET', `/v1/spaces/${spaceId}/content/pages`, { token: owner.token })).body.pages);

async function patchSpace(spaceId: string, body: Record<string, unknown>) {
  const res = await h.call('PATCH', `/v1/spaces/${spaceId}`, { token: owner.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** A fresh organization with its own admin and a 'read' member. */
async function freshOrg(title = 'Fresh Org') {
  const admin = await h.owner(title);
  const member = await h.user();
  await h.addMember(admin.orgId, member.id, 'read');
  return { admin, member };
}

async function state() {
  const prisma = h.db.prisma;
  const [snapshot, crs, reviews, exports] = await Promise.all([
    h.snapshot(),
    prisma.changeRequest.findMany({ orderBy: { id: 'asc' } }),
    prisma.changeRequestReview.findMany({ orderBy: [{ changeRequestId: 'asc' }, { userId: 'asc' }] }),
    prisma.pdfExport.findMany({ orderBy: { id: 'asc' } }),
  ]);
  return `${snapshot}${JSON.stringify({ crs, reviews, exports })}`;
}

const refused = refusalChecker(() => state());

async function listIds(path: string, operationId: string, user: { token: string } = owner) {
  const res = await h.rest(operationId, 'GET', path, { token: user.token });
  expect(res.status).toBe(200);
  expect(res.body.count).toBe(res.body.items.length);
  return res.body.items.map((c: { id: string }) => c.id) as string[];
}
const spaceList = (spaceId: string, query = '', user: { token: string } = owner) => listIds(`${crPath(spaceId)}${query}`, 'listChangeRequestsForSpace', user);
const orgList = (orgId: string, query = '', user: { token: string } = owner) => listIds(`/v1/orgs/${orgId}/change-requests${query}`, 'listChangeRequestsForOrganization', user);

// ---------------------------------------------------------------------------------------------

describe('POST /spaces/:spaceId/change-requests', () => {
  it('creates an open change request (201) on the current main revision, numbered per space', async () => {
    const space = await newSpace();
    await write(space.id, null, [{ type: 'insert_page', title: 'Main' }]);
    const main = await spaceRevision(space.id);
    const cr = await createCr(space.id, { subject: 'First edits', template: { id: 'ignored' } });
    expect(cr).toEqual({
      object: 'change-request',
      id: expect.any(String),
      number: 1,
      status: 'open',
      subject: 'First edits',
      createdBy: expect.objectContaining({ object: 'user', id: owner.id }),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      space: space.id,
      revision: main,
      revisionInitial: main,
      revisionMergedAncestor: main,
      comments: 0,
      outdated: false,
      urls: { location: `${BASE}${crPath(space.id, cr.id)}`, app: `${BASE}/app/s/${space.id}/~/changes/1` },
    });
    expect((await createCr(space.id, {}, editor)).number).toBe(2);
    const third = await createCr(space.id, { subject: '' });
    expect(third).toMatchObject({ number: 3, subject: '', createdBy: { id: owner.id } });
    expect((await createCr(space.id, { subject: 'x'.repeat(100) })).number).toBe(4);
    // Numbers are per space.
    expect((await createCr((await newSpace()).id)).number).toBe(1);
    expect(await crRow(cr.id)).toMatchObject({ contributors: [owner.id], createdById: owner.id });
  });

  it('gives concurrent creations distinct consecutive numbers', async () => {
    const space = await newSpace();
    const created = await Promise.all(Array.from({ length: 6 }, (_, i) => createCr(space.id, { subject: `Parallel ${i}` })));
    expect(created.map((c) => c.number).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('refuses a bad subject (400), a locked or unknown space (403, 404)', async () => {
    const space = await newSpace();
    await refused(400, () => h.call('POST', crPath(space.id), { token: owner.token, body: { subject: 'x'.repeat(101) } }), /^subject\b/);
    await refused(400, () => h.call('POST', crPath(space.id), { token: owner.token, body: { subject: 42 } }), /^subject\b/);
    await refused(400, () => h.call('POST', crPath(space.id), { token: owner.token, rawBody: '[1]' }), /^body\b/);
    await refused(404, () => h.call('POST', crPath(newId()), { token: owner.token, body: {} }), /Space/);
    const locked = await newSpace({ title: 'Locked', editMode: 'locked' });
    await refused(403, () => h.call('POST', crPath(locked.id), { token: owner.token, body: { subject: 'x' } }), /locked/);
  });

  it('needs the edit role: 401, 404 for an outsider, 403 for read and comment members', async () => {
    const space = await newSpace();
    await refused(401, () => h.call('POST', crPath(space.id), { body: {} }));
    await refused(404, () => h.call('POST', crPath(space.id), { token: outsider.token, body: {} }), /Space/);
    await refused(403, () => h.call('POST', crPath(space.id), { token: reader.token, body: {} }), /edit/);
    await refused(403, () => h.call('POST', crPath(space.id), { token: commenter.token, body: {} }), /edit/);
  });
});

describe('GET /spaces/:spaceId/change-requests/:changeRequestId', () => {
  it('answers the same change request by id and by number', async () => {
    const space = await newSpace();
    await createCr(space.id);
    const cr = await createCr(space.id, { subject: 'Second' });
    const byId = await getCr(space.id, cr.id);
    expect(byId).toEqual(cr);
    expect(await getCr(space.id, 2)).toEqual(cr);
    expect((await getCr(space.id, 1)).subject).toBe('Edits');
    expect(await getCr(space.id, cr.id, reader)).toEqual(cr);
  });

  it('answers 404 for unknown ids and numbers and for a change request of another space; 401 and 404 to strangers', async () => {
    const space = await newSpace();
    const other = await newSpace({ title: 'Other' });
    const cr = await createCr(space.id);
    for (const ref of [newId(), '2', '0', '99999999999', 'not-an-id']) await refused(404, () => h.call('GET', crPath(space.id, ref), { token: owner.token }), /Change request not found/);
    await refused(404, () => h.call('GET', crPath(other.id, cr.id), { token: owner.token }), /Change request/);
    await refused(404, () => h.call('GET', crPath(other.id, 1), { token: owner.token }), /Change request/);
    await refused(401, () => h.call('GET', crPath(space.id, cr.id)));
    await refused(404, () => h.call('GET', crPath(space.id, cr.id), { token: outsider.token }), /Space/);
  });
});

describe('GET /spaces/:spaceId/change-requests', () => {
  it('lists open change requests by default, newest first, and filters by status, creator and contributor', async () => {
    const space = await newSpace();
    const a = await createCr(space.id, { subject: 'A' });
    const b = await createCr(space.id, { subject: 'B' }, editor);
    const c = await createCr(space.id, { subject: 'C' });
    const d = await createCr(space.id, { subject: 'D' });
    await patchCr(space.id, c.id, { status: 'draft' });
    await patchCr(space.id, d.id, { status: 'archived' });
    await write(space.id, a.id, [{ type: 'insert_page', title: 'By the editor' }], editor);
    const merged = await createCr(space.id, { subject: 'M' });
    expect((await merge(space.id, merged.id)).status).toBe(200);

    expect(await spaceList(space.id)).toEqual([b.id, a.id]);
    expect(await spaceList(space.id, '?status=open')).toEqual([b.id, a.id]);
    expect(await spaceList(space.id, '?status=draft')).toEqual([c.id]);
    expect(await spaceList(space.id, '?status=archived')).toEqual([d.id]);
    expect(await spaceList(space.id, '?status=merged')).toEqual([merged.id]);
    expect(await spaceList(space.id, `?creator=${editor.id}`)).toEqual([b.id]);
    expect(await spaceList(space.id, `?creator=${owner.id}`)).toEqual([a.id]);
    // Contributors: the creator, and whoever wrote to it.
    expect(await spaceList(space.id, `?contributor=${editor.id}`)).toEqual([b.id, a.id]);
    expect(await spaceList(space.id, `?contributor=${owner.id}&status=draft`)).toEqual([c.id]);
    expect(await spaceList(space.id, `?requestedReviewer=${reviewer.id}`)).toEqual([]);
    expect(await spaceList(space.id, '?conversationsIssuesCluster=none')).toEqual([]);
    expect(await spaceList(space.id, '', reader)).toEqual([b.id, a.id]);

    const page1 = await h.rest('listChangeRequestsForSpace', 'GET', `${crPath(space.id)}?limit=1`, { token: owner.token });
    expect(page1.body).toMatchObject({ count: 2, items: [{ id: b.id, object: 'change-request' }], next: { page: expect.any(String) } });
    const page2 = await h.rest('listChangeRequestsForSpace', 'GET', `${crPath(space.id)}?limit=1&page=${page1.body.next.page}`, { token: owner.token });
    expect(page2.body.items.map((x: Cr) => x.id)).toEqual([a.id]);
    expect(page2.body.next).toBeUndefined();
  });

  it('refuses bad filters (400 naming them) and strangers (401, 404)', async () => {
    const space = await newSpace();
    await refused(400, () => h.call('GET', `${crPath(space.id)}?status=closed`, { token: owner.token }), /^status\b/);
    await refused(400, () => h.call('GET', `${crPath(space.id)}?limit=5000`, { token: owner.token }), /^limit\b/);
    await refused(400, () => h.call('GET', `${crPath(space.id)}?page=zzz`, { token: owner.token }), /^page\b/);
    await refused(404, () => h.call('GET', crPath(newId()), { token: owner.token }), /Space/);
    await refused(401, () => h.call('GET', crPath(space.id)));
    await refused(404, () => h.call('GET', crPath(space.id), { token: outsider.token }), /Space/);
  });
});

describe('GET /orgs/:organizationId/change-requests', () => {
  it("lists the change requests of the organization's spaces the caller can see, with the same filters", async () => {
    const { admin, member } = await freshOrg('CR org');
    const editorHere = await h.user();
    await h.addMember(admin.orgId, editorHere.id, 'edit');
    const s1 = await newSpace({ title: 'One' }, admin);
    const s2 = await newSpace({ title: 'Two' }, admin);
    const hidden = await newSpace({ title: 'Hidden' }, admin);
    const a = await createCr(s1.id, { subject: 'A' }, admin);
    const b = await createCr(s2.id, { subject: 'B' }, editorHere);
    const c = await createCr(hidden.id, { subject: 'C' }, admin);
    const draft = await createCr(s2.id, { subject: 'D' }, admin);
    await patchCr(s2.id, draft.id, { status: 'draft' }, admin);
    // Another organization's change requests never show.
    await createCr((await newSpace()).id);
    await h.call('PATCH', `/v1/spaces/${hidden.id}`, { token: admin.token, body: { defaultLevel: null } });

    expect(await orgList(admin.orgId, '', admin)).toEqual([c.id, b.id, a.id]);
    expect(await orgList(admin.orgId, '?status=draft', admin)).toEqual([draft.id]);
    expect(await orgList(admin.orgId, `?creator=${editorHere.id}`, admin)).toEqual([b.id]);
    expect(await orgList(admin.orgId, `?contributor=${admin.id}`, admin)).toEqual([c.id, a.id]);
    // The reader does not see the space closed to members, nor its change requests.
    expect(await orgList(admin.orgId, '', member)).toEqual([b.id, a.id]);
    const limited = await h.rest('listChangeRequestsForOrganization', 'GET', `/v1/orgs/${admin.orgId}/change-requests?limit=2`, { token: admin.token });
    expect(limited.body).toMatchObject({ count: 3, next: { page: expect.any(String) } });

    await refused(400, () => h.call('GET', `/v1/orgs/${admin.orgId}/change-requests?status=nope`, { token: admin.token }), /^status\b/);
    await refused(401, () => h.call('GET', `/v1/orgs/${admin.orgId}/change-requests`));
    await refused(404, () => h.call('GET', `/v1/orgs/${admin.orgId}/change-requests`, { token: outsider.token }), /Organization/);
    await refused(404, () => h.call('GET', `/v1/orgs/${newId()}/change-requests`, { token: admin.token }), /Organization/);
  });
});

describe('PATCH /spaces/:spaceId/change-requests/:changeRequestId', () => {
  it('updates the subject, the description and the status (draft, open, archived)', async () => {
    const space = await newSpace();
    const cr = await createCr(space.id);
    const description = documentFromMarkdown('What this **changes**.');
    const patched = await patchCr(space.id, cr.id, { subject: 'Better subject', description });
    expect(patched).toMatchObject({ id: cr.id, subject: 'Better subject', description, status: 'open' });
    expect(patched.updatedAt >= cr.updatedAt).toBe(true);
    expect(await getCr(space.id, cr.number)).toEqual(patched);
    for (const status of ['draft', 'open', 'archived', 'open']) expect((await patchCr(space.id, cr.number, { status })).status).toBe(status);
    const cleared = await patchCr(space.id, cr.id, { subject: null, description: null });
    expect(cleared.subject).toBe('');
    expect(cleared).not.toHaveProperty('description');
    // The author may edit their own change request; so may any editor.
    const mine = await createCr(space.id, { subject: 'Mine' }, editor);
    expect((await patchCr(space.id, mine.id, { subject: 'Still mine' }, editor)).subject).toBe('Still mine');
    expect((await patchCr(space.id, cr.id, { status: 'draft' }, editor)).status).toBe('draft');
  });

  it('refuses bad fields (400 naming them) and a merged change request (409)', async () => {
    const space = await newSpace();
    const cr = await createCr(space.id);
    const path = crPath(space.id, cr.id);
    const cases: [unknown, RegExp][] = [
      [{ status: 'merged' }, /^status\b/],
      [{ status: 'closed' }, /^status\b/],
      [{ subject: 'x'.repeat(101) }, /^subject\b/],
      [{ description: 'plain text' }, /^description\b/],
      [{ description: { object: 'block', nodes: [] } }, /^description\.object\b/],
      [{ description: { object: 'document', data: {}, nodes: 'x' } }, /^description\.nodes\b/],
      [{ description: { object: 'document', nodes: [] } }, /^description\.data\b/],
      [{ description: { object: 'document', data: {}, nodes: [{ object: 'text' }] } }, /^description\.nodes\[0\]/],
      // Deeper than the top level: a text without its leaves' marks would not be an official JSONDocument.
      [{ description: { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Why' }] }] }] } }, /^description\.nodes\[0\]\.nodes\[0\]/],
    ];
    for (const [body, message] of cases) await refused(400, () => h.call('PATCH', path, { token: owner.token, body }), message);
    await refused(404, () => h.call('PATCH', crPath(space.id, 77), { token: owner.token, body: { subject: 'x' } }), /Change request/);
    expect((await merge(space.id, cr.id)).status).toBe(200);
    await refused(409, () => h.call('PATCH', path, { token: owner.token, body: { subject: 'After merge' } }), /merged/);
    await refused(409, () => h.call('PATCH', path, { token: owner.token, body: { status: 'open' } }), /merged/);
  });

  it('lets only the author and editors change it: 401, 404 for an outsider, 403 for read and comment members', async () => {
    const space = await newSpace();
    const cr = await createCr(space.id);
    const path = crPath(space.id, cr.id);
    await refused(401, () => h.call('PATCH', path, { body: { subject: 'x' } }));
    await refused(404, () => h.call('PATCH', path, { token: outsider.token, body: { subject: 'x' } }), /Space/);
    await refused(403, () => h.call('PATCH', path, { token: reader.token, body: { subject: 'x' } }), /author or editors/);
    await refused(403, () => h.call('PATCH', path, { token: commenter.token, body: { status: 'archived' } }), /author or editors/);
  });
});

describe('POST .../merge and .../update', () => {
  it('merges by fast-forward when main has not moved: main becomes the head of the change request', async () => {
    const space = await newSpace();
    const cr = await createCr(space.id);
    const { revision } = await write(space.id, cr.id, [{ type: 'insert_page', title: 'New page' }]);
    const res = await h.rest('mergeChangeRequest', 'POST', crPath(space.id, cr.number, '/merge'), { token: reviewer.token });
    expect(res.body).toEqual({ revision, result: 'merge' });
    expect(await spaceRevision(space.id)).toBe(revision);
    expect(await mainTitles(space.id)).toEqual(['New page']);
    expect(await getCr(space.id, cr.id)).toMatchObject({ status: 'merged', revisionMerged: revision, outdated: false });
    expect((await crRow(cr.id)).mergedAt).toBeInstanceOf(Date);
  });

  it('marks open change requests outdated when main moves; update brings main in; merge then merges three ways', async () => {
    const space = await newSpace();
    const [base] = (await write(space.id, null, [{ type: 'insert_page', title: 'Base', markdown: 'base\n' }])).pages as [string];
    const cr = await createCr(space.id);
    const idle = await createCr(space.id, { subject: 'No edits' });
    const own = await write(space.id, cr.id, [{ type: 'insert_page', title: 'From the change request' }]);
    expect((await getCr(space.id, cr.id)).outdated).toBe(false);
    const other = await createCr(space.id, { subject: 'Other' });
    await write(space.id, other.id, [{ type: 'update_page', page: base, markdown: 'base, edited\n' }]);
    expect((await merge(space.id, other.id)).status).toBe(200);
    const mainAfter = await spaceRevision(space.id);
    expect((await getCr(space.id, cr.id)).outdated).toBe(true);
    expect((await getCr(space.id, idle.id)).outdated).toBe(true);
    // A live edit to main also makes them outdated.
    // (Placed first: pages added at the end on both sides would tie on position.)
    const [live] = (await write(space.id, null, [{ type: 'insert_page', title: 'Live', position: { before: base } }])).pages as [string];
    const main = await spaceRevision(space.id);
    expect(main).not.toBe(mainAfter);

    const updated = await h.rest('updateChangeRequest', 'POST', crPath(space.id, cr.id, '/update'), { token: editor.token });
    expect(updated.body).toEqual({ revision: expect.any(String), result: 'update' });
    expect(updated.body.revision).not.toBe(own.revision);
    expect(await h.db.prisma.revision.findUnique({ where: { id: updated.body.revision } })).toMatchObject({ type: 'update', parents: [own.revision, main], changeRequestId: cr.id });
    expect(await getCr(space.id, cr.id)).toMatchObject({ outdated: false, revision: updated.body.revision, revisionMergedAncestor: main, revisionInitial: cr.revisionInitial });
    const crTitles = titles((await h.call('GET', crPath(space.id, cr.id, '/content/pages'), { token: owner.token })).body.pages);
    expect(crTitles).toEqual(['Live', 'Base', 'From the change request']);
    // Updating again changes nothing.
    expect((await update(space.id, cr.id)).body).toEqual({ revision: updated.body.revision, result: 'update' });

    // A change request without edits just follows main.
    expect((await h.rest('updateChangeRequest', 'POST', crPath(space.id, idle.number, '/update'), { token: owner.token })).body).toEqual({ revision: main, result: 'update' });
    expect(await getCr(space.id, idle.id)).toMatchObject({ outdated: false, revision: main });

    // Main moves once more: the merge is three-way, with both parents.
    await write(space.id, null, [{ type: 'insert_page', title: 'Later', position: { before: live } }]);
    const mainBefore = await spaceRevision(space.id);
    const merged = await h.rest('mergeChangeRequest', 'POST', crPath(space.id, cr.id, '/merge'), { token: owner.token });
    expect(await h.db.prisma.revision.findUnique({ where: { id: merged.body.revision } })).toMatchObject({ type: 'merge', parents: [mainBefore, updated.body.revision] });
    expect(await mainTitles(space.id)).toEqual(['Later', 'Live', 'Base', 'From the change request']);
    expect(await getCr(space.id, cr.id)).toMatchObject({ status: 'merged', outdated: false, revisionMerged: merged.body.revision });
  });

  it('keeps slugs unique among siblings when both sides added a page of the same title', async () => {
    const space = await newSpace();
    const [folder] = (await write(space.id, null, [{ type: 'insert_page', title: 'Folder' }])).pages as [string];
    const a = await createCr(space.id, { subject: 'A' });
    const b = await createCr(space.id, { subject: 'B' });
    const c = await createCr(space.id, { subject: 'C' });
    const [introA] = (await write(space.id, a.id, [{ type: 'insert_page', title: 'Intro' }, { type: 'insert_page', title: 'Setup', parent: folder }])).pages as [string];
    const [introB] = (await write(space.id, b.id, [{ type: 'insert_page', title: 'Intro', position: { before: folder } }, { type: 'insert_page', title: 'Setup', parent: folder }])).pages as [string];
    const [introC] = (await write(space.id, c.id, [{ type: 'insert_page', title: 'Intro', position: { before: folder } }])).pages as [string];
    expect((await merge(space.id, a.id)).status).toBe(200);
    // Merge: the page main already has keeps its slug.
    expect((await merge(space.id, b.id)).status).toBe(200);
    const pathOf = async (pageId: string, cr?: string) =>
      (await h.call('GET', cr ? crPath(space.id, cr, `/content/page/${pageId}`) : `/v1/spaces/${space.id}/content/page/${pageId}`, { token: owner.token })).body.path;
    expect(await pathOf(introA)).toBe('intro');
    expect(await pathOf(introB)).toBe('intro-1');
    const pages = (await h.call('GET', `/v1/spaces/${space.id}/content/pages`, { token: owner.token })).body.pages;
    const folderPage = pages.find((p: { id: string }) => p.id === folder);
    expect(folderPage.pages.map((p: { path: string }) => p.path).sort()).toEqual(['folder/setup', 'folder/setup-1']);
    // Update from main: main's pages keep their slugs, the change request's own page gives way.
    expect((await update(space.id, c.id)).status).toBe(200);
    expect(await pathOf(introA, c.id)).toBe('intro');
    expect(await pathOf(introB, c.id)).toBe('intro-1');
    expect(await pathOf(introC, c.id)).toBe('intro-2');
  });

  it('refuses to merge or update a merged or archived change request (409), an unknown one (404), in a locked space (403)', async () => {
    const space = await newSpace();
    const cr = await createCr(space.id);
    expect((await merge(space.id, cr.id)).status).toBe(200);
    await refused(409, () => merge(space.id, cr.id), /merged/);
    await refused(409, () => update(space.id, cr.id), /merged/);
    const archived = await createCr(space.id);
    await patchCr(space.id, archived.id, { status: 'archived' });
    await refused(409, () => merge(space.id, archived.id), /archived/);
    await refused(409, () => update(space.id, archived.id), /archived/);
    await refused(404, () => merge(space.id, newId()), /Change request/);
    await refused(404, () => update(space.id, 99), /Change request/);
    const open = await createCr(space.id);
    await patchSpace(space.id, { editMode: 'locked' });
    await refused(403, () => merge(space.id, open.id), /locked/);
  });

  it('merging needs the review role, updating the edit role', async () => {
    const space = await newSpace();
    const cr = await createCr(space.id);
    await write(space.id, null, [{ type: 'insert_page', title: 'Main moved' }]);
    await refused(401, () => merge(space.id, cr.id, null));
    await refused(401, () => update(space.id, cr.id, null));
    for (const stranger of [outsider]) {
      await refused(404, () => merge(space.id, cr.id, stranger), /Space/);
      await refused(404, () => update(space.id, cr.id, stranger), /Space/);
    }
    for (const user of [reader, commenter, editor]) await refused(403, () => merge(space.id, cr.id, user), /review/);
    for (const user of [reader, commenter]) await refused(403, () => update(space.id, cr.id, user), /edit/);
    expect((await update(space.id, cr.id, editor)).status).toBe(200);
    expect((await merge(space.id, cr.id, reviewer)).status).toBe(200);
  });
});

describe('reviews and merge rules', () => {
  const rules = (users: string[], rule = 'require_specific_reviewers') => ({ type: 'rules', rules: [{ rule, users }] });

  it('records a review in the official shape', async () => {
    const space = await newSpace();
    const cr = await createCr(space.id);
    const res = await h.rest('submitChangeRequestReview', 'POST', crPath(space.id, cr.id, '/reviews'), { token: reviewer.token, body: { status: 'approved' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      object: 'change-request-review',
      id: expect.any(String),
      revision: cr.revision,
      reviewer: expect.objectContaining({ object: 'user', id: reviewer.id }),
      status: 'approved',
      outdated: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      urls: { location: `${BASE}${crPath(space.id, cr.id)}/reviews/${res.body.id}` },
    });
    // A new review by the same reviewer replaces theirs.
    const again = await h.rest('submitChangeRequestReview', 'POST', crPath(space.id, cr.number, '/reviews'), { token: reviewer.token, body: { status: 'changes-requested' } });
    expect(again.body).toMatchObject({ id: res.body.id, status: 'changes-requested' });
    expect(await h.db.prisma.changeRequestReview.findMany({ where: { changeRequestId: cr.id } })).toEqual([expect.objectContaining({ userId: reviewer.id, status: 'changes-requested' })]);
  });

  it('refuses a bad review status (400), reviews of merged change requests (409), and reviewers without the review role', async () => {
    const space = await newSpace();
    const cr = await createCr(space.id);
    await refused(400, () => review(space.id, cr.id, { status: 'lgtm' }, reviewer), /^status\b/);
    await refused(400, () => review(space.id, cr.id, {}, reviewer), /status/);
    await refused(401, () => review(space.id, cr.id, { status: 'approved' }, null));
    await refused(404, () => review(space.id, cr.id, { status: 'approved' }, outsider), /Space/);
    for (const user of [reader, commenter, editor]) await refused(403, () => review(space.id, cr.id, { status: 'approved' }, user), /review/);
    await refused(404, () => review(space.id, newId(), { status: 'approved' }, reviewer), /Change request/);
    expect((await merge(space.id, cr.id)).status).toBe(200);
    await refused(409, () => review(space.id, cr.id, { status: 'approved' }, reviewer), /merged/);
  });

  it("refuses to merge (412) until the required reviewer approved the change request's current head", async () => {
    const space = await newSpace();
    await patchSpace(space.id, { mergeRules: rules([reviewer.id]) });
    const cr = await createCr(space.id);
    await write(space.id, cr.id, [{ type: 'insert_page', title: 'Reviewed' }]);
    await refused(412, () => merge(space.id, cr.id), new RegExp(`approval still needed from ${reviewer.id}`));
    // Someone else's approval, or the required reviewer asking for changes, is not enough.
    expect((await review(space.id, cr.id, { status: 'approved' }, reviewer2)).status).toBe(201);
    await refused(412, () => merge(space.id, cr.id), /approval still needed/);
    expect((await review(space.id, cr.id, { status: 'changes-requested' }, reviewer)).status).toBe(201);
    await refused(412, () => merge(space.id, cr.id), /approval still needed/);
    expect((await review(space.id, cr.id, { status: 'approved' }, reviewer)).status).toBe(201);
    // An approval covers the head it was given on: a later edit needs a new one.
    await write(space.id, cr.id, [{ type: 'insert_page', title: 'After approval' }]);
    await refused(412, () => merge(space.id, cr.id), /approval still needed/);
    expect((await review(space.id, cr.id, { status: 'approved' }, reviewer)).status).toBe(201);
    const merged = await h.rest('mergeChangeRequest', 'POST', crPath(space.id, cr.id, '/merge'), { token: owner.token });
    expect(merged.body.result).toBe('merge');
    expect(await mainTitles(space.id)).toEqual(['Reviewed', 'After approval']);
  });

  it("applies the organization's merge rules to spaces that inherit them, and other rules", async () => {
    const { admin } = await freshOrg('Rules org');
    const required = await h.user();
    await h.addMember(admin.orgId, required.id, 'review');
    expect((await h.call('PATCH', `/v1/orgs/${admin.orgId}`, { token: admin.token, body: { mergeRules: rules([required.id]) } })).status).toBe(200);
    const space = await newSpace({ title: 'Inherits' }, admin);
    const cr = await createCr(space.id, {}, admin);
    await refused(412, () => merge(space.id, cr.id, admin), /approval still needed/);
    expect((await review(space.id, cr.id, { status: 'approved' }, required)).status).toBe(201);
    expect((await merge(space.id, cr.id, admin)).status).toBe(200);

    // The space's own rules win over the organization's.
    const own = await newSpace({ title: 'Own rules' }, admin);
    await h.call('PATCH', `/v1/spaces/${own.id}`, { token: admin.token, body: { mergeRules: { type: 'rules', rules: [{ rule: 'require_change_request_subject' }] } } });
    const untitled = await createCr(own.id, {}, admin);
    await refused(412, () => merge(own.id, untitled.id, admin), /subject/);
    await patchCr(own.id, untitled.id, { subject: 'Now titled' }, admin);
    expect((await merge(own.id, untitled.id, admin)).status).toBe(200);
  });
  it('enforces every other rule of the official list: all reviews approved, up to date, description; agent and custom rules fail closed; allow_bypass lets listed users through', async () => {
    const space = await newSpace();
    const set = (...list: unknown[]) => patchSpace(space.id, { mergeRules: { type: 'rules', rules: list } });

    await set({ rule: 'require_all_reviews_approved' });
    const a = await createCr(space.id);
    await write(space.id, a.id, [{ type: 'insert_page', title: 'A' }]);
    expect((await review(space.id, a.id, { status: 'approved' }, reviewer)).status).toBe(201);
    expect((await review(space.id, a.id, { status: 'changes-requested' }, reviewer2)).status).toBe(201);
    await refused(412, () => merge(space.id, a.id), new RegExp(`every review must approve.*${reviewer2.id}`));
    expect((await review(space.id, a.id, { status: 'approved' }, reviewer2)).status).toBe(201);
    expect((await merge(space.id, a.id)).status).toBe(200);

    await set({ rule: 'require_up_to_date_change_request' });
    const [b, c] = [await createCr(space.id), await createCr(space.id)];
    await write(space.id, b.id, [{ type: 'insert_page', title: 'B' }]);
    await write(space.id, c.id, [{ type: 'insert_page', title: 'C' }]);
    expect((await merge(space.id, b.id)).status).toBe(200);
    await refused(412, () => merge(space.id, c.id), /up to date/);
    expect((await update(space.id, c.id)).status).toBe(200);
    expect((await merge(space.id, c.id)).status).toBe(200);

    await set({ rule: 'require_change_request_description' });
    const d = await createCr(space.id);
    await refused(412, () => merge(space.id, d.id), /description/);
    await patchCr(space.id, d.id, { description: documentFromMarkdown('') });
    await refused(412, () => merge(space.id, d.id), /description/);
    await patchCr(space.id, d.id, { description: documentFromMarkdown('Why this change') });
    expect((await merge(space.id, d.id)).status).toBe(200);

    for (const rule of [{ rule: 'require_agent_review' }, { rule: 'custom', expression: 'true' }]) {
      await set(rule, { rule: 'allow_bypass', users: [owner.id] });
      const e = await createCr(space.id, { subject: 'E' }, editor);
      await refused(412, () => merge(space.id, e.id, reviewer), rule.rule === 'custom' ? /custom expressions/ : /agent review/);
      // The owner is listed in allow_bypass: every rule is waived for them.
      expect((await merge(space.id, e.id)).status).toBe(200);
    }
  });
});

describe("the space's change request counts", () => {
  it('counts all, open and draft change requests', async () => {
    const space = await newSpace();
    const counts = async () => {
      const res = await h.rest('getSpaceById', 'GET', `/v1/spaces/${space.id}`, { token: owner.token });
      return [res.body.changeRequests, res.body.changeRequestsOpen, res.body.changeRequestsDraft];
    };
    expect(await counts()).toEqual([0, 0, 0]);
    const [a, b, c] = [await createCr(space.id), await createCr(space.id), await createCr(space.id)];
    expect(await counts()).toEqual([3, 3, 0]);
    await patchCr(space.id, a.id, { status: 'draft' });
    expect(await counts()).toEqual([3, 2, 1]);
    await patchCr(space.id, b.id, { status: 'archived' });
    expect((await merge(space.id, c.id)).status).toBe(200);
    expect(await counts()).toEqual([3, 0, 1]);
  });
});

// ---------------------------------------------------------------------------------------------

/** The PDF's bookmarks (one per page, nested like the page tree), read from its outline objects. */
function outline(pdf: Buffer): any[] {
  const raw = pdf.toString('latin1');
  const objects = new Map<string, string>();
  for (const m of raw.matchAll(/(\d+) 0 obj\s*<<([\s\S]*?)>>\s*endobj/g)) objects.set(m[1]!, m[2]!);
  const ref = (dict: string, key: string) => dict.match(new RegExp(`/${key} (\\d+) 0 R`))?.[1];
  const catalog = [...objects.values()].find((d) => /\/Type \/Catalog/.test(d))!;
  const walk = (first: string | undefined): any[] => {
    const items: any[] = [];
    for (let id = first; id; id = ref(objects.get(id)!, 'Next')) {
      const dict = objects.get(id)!;
      const title = dict.match(/\/Title \(([^)]*)\)/)![1];
      const children = walk(ref(dict, 'First'));
      items.push(children.length ? [title, children] : title);
    }
    return items;
  };
  return walk(ref(objects.get(ref(catalog, 'Outlines')!)!, 'First'));
}
/** A string of the PDF's document information dictionary (the trailer's /Info). */
function info(pdf: Buffer, key: string): string | undefined {
  const raw = pdf.toString('latin1');
  const object = (id: string) => raw.match(new RegExp(`(?:^|\\n)${id} 0 obj\\s*([\\s\\S]*?)endobj`))?.[1];
  const dict = object(raw.match(/trailer[\s\S]*?\/Info (\d+) 0 R/)![1]!)!;
  const value = dict.match(new RegExp(`/${key} (?:(\\d+) 0 R|\\(([^)]*)\\))`));
  if (!value) return undefined;
  return value[2] ?? object(value[1]!)!.match(/^\(([^)]*)\)/)?.[1];
}

describe('GET .../pdf and the export it points to', () => {
  async function crWithPages() {
    const space = await newSpace({ title: 'Handbook' });
    const [intro] = (await write(space.id, null, [{ type: 'insert_page', title: 'Intro', markdown: '# Welcome\n\nHello.\n' }])).pages as [string];
    const cr = await createCr(space.id, { subject: 'Handbook draft' });
    const [guide, faq] = (await write(space.id, cr.id, [{ type: 'insert_page', title: 'Guide', markdown: '- one\n- two\n' }, { type: 'insert_page', title: 'FAQ' }])).pages as [string, string];
    const [setup] = (await write(space.id, cr.id, [{ type: 'insert_page', title: 'Setup', parent: guide, markdown: '```sh\nnpm i\n```\n' }])).pages as [string];
    await write(space.id, cr.id, [{ type: 'insert_page', title: 'Advanced', parent: setup }]);
    return { space, cr, intro, guide, faq, setup };
  }
  const fetchPdf = async (url: string) => {
    const res = await h.app.fetch(new Request(url));
    return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
  };

  it("answers a temporary URL that serves the change request's pages as a PDF, depth first, without a token", async () => {
    const { space, cr } = await crWithPages();
    const res = await h.rest('getChangeRequestPDF', 'GET', crPath(space.id, cr.id, '/pdf'), { token: reader.token });
    expect(res.body).toEqual({ url: expect.stringMatching(new RegExp(`^${BASE}/exports/[0-9A-Za-z]{32}\\.pdf$`)) });
    const id = hashSecret(res.body.url.match(/exports\/(\w+)\.pdf$/)[1]); // only the hash is stored
    expect(await h.db.prisma.pdfExport.findUnique({ where: { id } })).toMatchObject({ spaceId: space.id, changeRequestId: cr.id, pageId: null });

    const file = await fetchPdf(res.body.url);
    expect(file.status).toBe(200);
    expect(file.type).toBe('application/pdf');
    expect(file.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(outline(file.bytes)).toEqual(['Intro', ['Guide', [['Setup', ['Advanced']]]], 'FAQ']);
    expect(info(file.bytes, 'Title')).toBe('Handbook draft');
    expect(info(file.bytes, 'Subject')).toBe('Handbook: change request #1');

    // Rendered on request: later edits show in the same export.
    await write(space.id, cr.id, [{ type: 'insert_page', title: 'Appendix' }]);
    expect(outline((await fetchPdf(res.body.url)).bytes)).toEqual(['Intro', ['Guide', [['Setup', ['Advanced']]]], 'FAQ', 'Appendix']);
    // Two exports are two URLs.
    const second = await h.rest('getChangeRequestPDF', 'GET', crPath(space.id, cr.number, '/pdf'), { token: owner.token });
    expect(second.body.url).not.toBe(res.body.url);
  });

  it('exports only one page when asked', async () => {
    const { space, cr, setup, intro } = await crWithPages();
    const res = await h.rest('getChangeRequestPDF', 'GET', crPath(space.id, cr.id, `/pdf?page=${setup}&only=true`), { token: owner.token });
    const id = hashSecret(res.body.url.match(/exports\/(\w+)\.pdf$/)[1]); // only the hash is stored
    expect((await h.db.prisma.pdfExport.findUniqueOrThrow({ where: { id } })).pageId).toBe(setup);
    expect(outline((await fetchPdf(res.body.url)).bytes)).toEqual(['Setup']);
    const mainPage = await h.rest('getChangeRequestPDF', 'GET', crPath(space.id, cr.id, `/pdf?page=${intro}`), { token: owner.token });
    expect(outline((await fetchPdf(mainPage.body.url)).bytes)).toEqual(['Intro']);
    // The page deleted since: the export serves nothing.
    await write(space.id, cr.id, [{ type: 'delete_page', page: setup }]);
    expect((await fetchPdf(res.body.url)).status).toBe(404);
  });

  it('expires exports after an hour; unknown and malformed export ids are 404', async () => {
    const { space, cr } = await crWithPages();
    const res = await h.rest('getChangeRequestPDF', 'GET', crPath(space.id, cr.id, '/pdf'), { token: owner.token });
    const id = hashSecret(res.body.url.match(/exports\/(\w+)\.pdf$/)[1]); // only the hash is stored
    await h.db.prisma.pdfExport.update({ where: { id }, data: { createdAt: new Date(Date.now() - 59 * 60 * 1000) } });
    expect((await fetchPdf(res.body.url)).status).toBe(200);
    await h.db.prisma.pdfExport.update({ where: { id }, data: { createdAt: new Date(Date.now() - 61 * 60 * 1000) } });
    const expired = await h.app.fetch(new Request(res.body.url));
    expect(expired.status).toBe(404);
    expect((await expired.json()).error.message).toMatch(/one hour/);
    // Expired exports are dropped when the next one is made.
    await h.rest('getChangeRequestPDF', 'GET', crPath(space.id, cr.id, '/pdf'), { token: owner.token });
    expect(await h.db.prisma.pdfExport.findUnique({ where: { id } })).toBeNull();
    for (const bad of [newId(32), 'short', `${id}x`, '../../etc/passwd']) expect((await fetchPdf(`${BASE}/exports/${bad}.pdf`)).status).toBe(404);
    expect((await h.app.fetch(new Request(res.body.url, { method: 'DELETE' }))).status).toBe(405);
  });

  it('refuses bad parameters (400), unknown pages and change requests (404), and strangers', async () => {
    const { space, cr } = await crWithPages();
    await refused(400, () => pdf(space.id, cr.id, '?page='), /^page\b/);
    await refused(400, () => pdf(space.id, cr.id, '?only=true'), /^page\b/);
    await refused(400, () => pdf(space.id, cr.id, '?only=sometimes'), /^only\b/);
    await refused(404, () => pdf(space.id, cr.id, `?page=${newId()}`), /Page/);
    await refused(404, () => pdf(space.id, newId()), /Change request/);
    await refused(404, () => pdf(newId(), cr.id), /Space/);
    await refused(401, () => pdf(space.id, cr.id, '', null));
    await refused(404, () => pdf(space.id, cr.id, '', outsider), /Space/);
  });

  it('is the exportChangeRequestPdf mutation in GraphQL', async () => {
    const { space, cr } = await crWithPages();
    const res = await h.graphql(owner.token, `mutation($s: ID!, $c: String!) { exportChangeRequestPdf(spaceId: $s, changeRequestId: $c) { url } }`, { s: space.id, c: String(cr.number) });
    expect(res.body.data.exportChangeRequestPdf.url).toMatch(/\/exports\/\w{32}\.pdf$/);
    expect((await fetchPdf(res.body.data.exportChangeRequestPdf.url)).status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------

describe('route coverage', () => {
  it('answers 401 without a token on every change request route', async () => {
    const params: Record<string, string> = { organizationId: owner.orgId, spaceId: newId(), changeRequestId: newId() };
    for (const route of changeRequestRoutes) {
      const path = `/v1${route.path.replace(/:(\w+)/g, (_, name: string) => params[name]!)}`;
      await refused(401, () => h.call(route.method, path, route.method === 'GET' ? {} : { body: {} }));
    }
  });
});

describe('coverage of the official operations', () => {
  // Runs last: every official change request route answered a success through h.rest. The two
  // Lectern write routes (no official operation) are h.coveredOperations by test/content.test.ts.
  it('exercised every change request route successfully', () => {
    const official = changeRequestRoutes.map((r) => r.operationId).filter((id) => !id.startsWith('lectern:'));
    expect(official).toHaveLength(9);
    expect(official.filter((id) => !h.coveredOperations.has(id))).toEqual([]);
  });
});
