/** Change requests: create, read, list (space and organization), update; 401 on every route (setup in ./fixtures.ts). */
import { beforeAll, describe, expect, it } from 'vitest';
import { BASE } from '../support/harness.js';
import { changeRequestRoutes } from '../../src/modules/change-requests/routes.js';
import { documentFromMarkdown } from '../../src/document/index.js';
import { newId } from '../../src/ids.js';
import {
  type Cr,
  h,
  owner,
  reader,
  commenter,
  editor,
  reviewer,
  outsider,
  CHANGE_REQUEST_OPERATIONS,
  setupChangeRequests,
  newSpace,
  crPath,
  spaceRevision,
  crRow,
  createCr,
  getCr,
  patchCr,
  write,
  merge,
  freshOrg,
  refused,
  spaceList,
  orgList,
} from './fixtures.js';

beforeAll(setupChangeRequests);

// ---------------------------------------------------------------------------------------------

describe('POST /spaces/:spaceId/change-requests', () => {
  it('creates an open change request (201) on the current main revision, numbered per space', async () => {
    const space = await newSpace();
    await write(space.id, null, [{ operation: 'insert_page', title: 'Main', document: { markdown: '' } }]);
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
    for (const ref of [newId(), '2', '0', '99999999999', 'not-an-id'])
      await refused(404, () => h.call('GET', crPath(space.id, ref), { token: owner.token }), /Change request not found/);
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
    await write(space.id, a.id, [{ operation: 'insert_page', title: 'By the editor', document: { markdown: '' } }], editor);
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
    const page2 = await h.rest('listChangeRequestsForSpace', 'GET', `${crPath(space.id)}?limit=1&page=${page1.body.next.page}`, {
      token: owner.token,
    });
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
    const limited = await h.rest('listChangeRequestsForOrganization', 'GET', `/v1/orgs/${admin.orgId}/change-requests?limit=2`, {
      token: admin.token,
    });
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
    for (const status of ['draft', 'open', 'archived', 'open'])
      expect((await patchCr(space.id, cr.number, { status })).status).toBe(status);
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
      [
        {
          description: {
            object: 'document',
            data: {},
            nodes: [
              { object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Why' }] }] },
            ],
          },
        },
        /^description\.nodes\[0\]\.nodes\[0\]/,
      ],
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
  // The write routes are covered in depth by test/content/content-write.test.ts (the live one, lectern:writeSpaceContent, has no official operation).
  it('assigns every official change request route to one test file', () => {
    const official = changeRequestRoutes.map((r) => r.operationId).filter((id) => !id.startsWith('lectern:'));
    expect(official).toHaveLength(9);
    expect(Object.values(CHANGE_REQUEST_OPERATIONS).flat().sort()).toEqual(official.sort());
  });

  // Runs last (tests run in file order): each change request route of this file answered a success
  // through h.rest, so it was validated against the official schema of its operation.
  it('exercised every create, read, list and update route successfully', () => {
    expect(CHANGE_REQUEST_OPERATIONS.crud.filter((id) => !h.coveredOperations.has(id))).toEqual([]);
  });
});
