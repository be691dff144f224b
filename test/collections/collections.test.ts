import { beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { documentedStatuses } from '../support/openapi.js';

/**
 * Collections: every /v1 collection route (and GET /collections/:id/spaces), each checked three
 * ways — it works and matches the official schema; bad input is refused with the right status and
 * changes nothing; a caller without rights is refused — plus the GraphQL side of the same resolvers.
 */

let h: Harness;
type Owner = TestUser & { orgId: string };

beforeAll(async () => {
  h = await setupHarness();
});

// ---------------------------------------------------------------------------------------------
// Helpers

type CallOpts = { token?: string | null; body?: unknown; rawBody?: string };

async function createCollection(who: Owner | TestUser, orgId: string, body: Record<string, unknown> = {}) {
  const res = await h.rest('createCollection', 'POST', `/v1/orgs/${orgId}/collections`, { token: who.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function createSpace(who: Owner | TestUser, orgId: string, body: Record<string, unknown> = {}) {
  const res = await h.rest('createSpace', 'POST', `/v1/orgs/${orgId}/spaces`, { token: who.token, body: { title: 'Space', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function getCollection(token: string, id: string) {
  return h.call('GET', `/v1/collections/${id}`, { token });
}

/** The ids of an organization's collections, in list order (all pages). */
async function listIds(token: string, orgId: string, query = '') {
  const res = await h.rest('listCollectionsInOrganizationById', 'GET', `/v1/orgs/${orgId}/collections?limit=1000${query}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.next).toBeUndefined();
  expect(res.body.count).toBe(res.body.items.length);
  return res.body.items.map((c: { id: string }) => c.id) as string[];
}

/**
 * A refused request: the status, the error body (validated against the official schema when the
 * operation documents that status), an optional message check, and nothing changed in the data.
 */
/** A DELETE by someone who cannot see the collection: 204 as for a missing one (no existence oracle), nothing changed. */
async function expectUnseenDelete(path: string, token: string) {
  const before = await h.snapshot();
  const res = await h.rest('deleteCollectionById', 'DELETE', path, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(204);
  expect(await h.snapshot()).toBe(before);
}

async function expectRefused(operationId: string, method: string, path: string, opts: CallOpts, status: number, message?: RegExp) {
  const before = await h.snapshot();
  const documented = opts.rawBody === undefined && documentedStatuses(operationId).includes(String(status));
  const res = documented ? await h.rest(operationId, method, path, opts) : await h.call(method, path, opts);
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({ error: { code: status, message: expect.any(String) } });
  if (message) expect(res.body.error.message).toMatch(message);
  expect(await h.snapshot()).toBe(before);
  return res;
}

/** An owner's organization with a member for every role we need. */
async function orgWithMembers() {
  const owner = await h.owner();
  const reader = await h.user();
  const creator = await h.user();
  const guest = await h.user();
  const outsider = await h.user();
  await h.addMember(owner.orgId, reader.id, 'read');
  await h.addMember(owner.orgId, creator.id, 'create');
  await h.addMember(owner.orgId, guest.id, null);
  return { owner, reader, creator, guest, outsider };
}

const positionOf = async (kind: 'space' | 'collection', id: string) =>
  kind === 'space'
    ? (await h.db.prisma.space.findUniqueOrThrow({ where: { id } })).position
    : (await h.db.prisma.collection.findUniqueOrThrow({ where: { id } })).position;

// ---------------------------------------------------------------------------------------------

describe('POST /orgs/:organizationId/collections', () => {
  let t: Awaited<ReturnType<typeof orgWithMembers>>;
  beforeAll(async () => {
    t = await orgWithMembers();
  });

  it('creates a top-level collection (201) matching the official schema', async () => {
    const res = await h.rest('createCollection', 'POST', `/v1/orgs/${t.owner.orgId}/collections`, { token: t.owner.token, body: { title: 'Handbook' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      object: 'collection',
      id: expect.any(String),
      title: 'Handbook',
      organization: t.owner.orgId,
      defaultLevel: 'inherit',
      urls: { location: `${h.config.publicUrl}/v1/collections/${res.body.id}`, app: expect.stringContaining(res.body.id) },
      permissions: { view: true, admin: true, viewInviteLinks: true, create: true },
    });
    const got = await h.rest('getCollectionById', 'GET', `/v1/collections/${res.body.id}`, { token: t.owner.token });
    expect(got.body).toEqual(res.body);
    expect(await listIds(t.owner.token, t.owner.orgId)).toContain(res.body.id);
  });

  it('creates one with an empty body (the body is optional)', async () => {
    const res = await h.rest('createCollection', 'POST', `/v1/orgs/${t.owner.orgId}/collections`, { token: t.owner.token });
    expect(res.status).toBe(201);
    expect(res.body.title).toEqual(expect.any(String));
    expect(res.body.parent).toBeUndefined();
  });

  it('creates a nested collection under a parent, and accepts a title of exactly 50 characters', async () => {
    const parent = await createCollection(t.owner, t.owner.orgId, { title: 'Parent' });
    const child = await createCollection(t.owner, t.owner.orgId, { title: 'c'.repeat(50), parent: parent.id });
    expect(child).toMatchObject({ parent: parent.id, organization: t.owner.orgId, title: 'c'.repeat(50) });
    const grandchild = await createCollection(t.owner, t.owner.orgId, { title: 'Grandchild', parent: child.id });
    expect(grandchild.parent).toBe(child.id);
    expect((await getCollection(t.owner.token, grandchild.id)).body.parent).toBe(child.id);
  });

  it('lets a member with the create role create (their permissions follow their role)', async () => {
    const created = await createCollection(t.creator, t.owner.orgId, { title: 'By creator' });
    expect(created.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: true });
  });

  it('refuses a title over 50 characters with 400 naming the field, changing nothing', async () => {
    await expectRefused('createCollection', 'POST', `/v1/orgs/${t.owner.orgId}/collections`, { token: t.owner.token, body: { title: 'x'.repeat(51) } }, 400, /title/);
  });

  it('refuses a title that is not a string, and an unknown field, with 400', async () => {
    await expectRefused('createCollection', 'POST', `/v1/orgs/${t.owner.orgId}/collections`, { token: t.owner.token, body: { title: 42 } }, 400, /title/);
    await expectRefused('createCollection', 'POST', `/v1/orgs/${t.owner.orgId}/collections`, { token: t.owner.token, body: { title: 'A', colour: 'red' } }, 400, /colour/);
  });

  it('refuses malformed JSON and a non-object body with 400', async () => {
    await expectRefused('createCollection', 'POST', `/v1/orgs/${t.owner.orgId}/collections`, { token: t.owner.token, rawBody: '{"title": ' }, 400, /body/);
    await expectRefused('createCollection', 'POST', `/v1/orgs/${t.owner.orgId}/collections`, { token: t.owner.token, rawBody: '["x"]' }, 400, /body/);
  });

  it('refuses an unknown parent with 404 and an empty parent id with 400', async () => {
    await expectRefused('createCollection', 'POST', `/v1/orgs/${t.owner.orgId}/collections`, { token: t.owner.token, body: { title: 'A', parent: 'nope' } }, 404);
    await expectRefused('createCollection', 'POST', `/v1/orgs/${t.owner.orgId}/collections`, { token: t.owner.token, body: { title: 'A', parent: '' } }, 400, /parent/);
  });

  it('refuses a parent from another organization with 400 naming parent', async () => {
    const other = await h.user();
    // The owner administers both organizations, so the parent is visible but in the wrong place.
    const otherOrg = await h.owner('Other Org');
    await h.addMember(otherOrg.orgId, t.owner.id, 'admin');
    const foreign = await createCollection(otherOrg, otherOrg.orgId, { title: 'Foreign' });
    await expectRefused('createCollection', 'POST', `/v1/orgs/${t.owner.orgId}/collections`, { token: t.owner.token, body: { parent: foreign.id } }, 400, /parent/);
    // A parent the caller cannot see at all is simply not found.
    await h.addMember(t.owner.orgId, other.id, 'admin');
    await expectRefused('createCollection', 'POST', `/v1/orgs/${t.owner.orgId}/collections`, { token: other.token, body: { parent: foreign.id } }, 404);
  });

  it('refuses an unknown organization with 404', async () => {
    await expectRefused('createCollection', 'POST', `/v1/orgs/nope/collections`, { token: t.owner.token, body: { title: 'A' } }, 404);
  });

  it('refuses no token (401), an outsider (404), a reader and a guest (403)', async () => {
    const path = `/v1/orgs/${t.owner.orgId}/collections`;
    await expectRefused('createCollection', 'POST', path, { body: { title: 'A' } }, 401);
    await expectRefused('createCollection', 'POST', path, { token: 'not-a-token', body: { title: 'A' } }, 401);
    await expectRefused('createCollection', 'POST', path, { token: t.outsider.token, body: { title: 'A' } }, 404);
    await expectRefused('createCollection', 'POST', path, { token: t.reader.token, body: { title: 'A' } }, 403);
    await expectRefused('createCollection', 'POST', path, { token: t.guest.token, body: { title: 'A' } }, 403);
  });

  it('refuses a creator inside a parent where they only have read (403)', async () => {
    const parent = await createCollection(t.owner, t.owner.orgId, { title: 'Read-only for members' });
    await h.rest('updateCollectionById', 'PATCH', `/v1/collections/${parent.id}`, { token: t.owner.token, body: { defaultLevel: 'read' } });
    await expectRefused('createCollection', 'POST', `/v1/orgs/${t.owner.orgId}/collections`, { token: t.creator.token, body: { parent: parent.id } }, 403);
  });
});

describe('GET /orgs/:organizationId/collections', () => {
  let t: Awaited<ReturnType<typeof orgWithMembers>>;
  let top1: any, top2: any, child: any, grandchild: any;
  beforeAll(async () => {
    t = await orgWithMembers();
    top1 = await createCollection(t.owner, t.owner.orgId, { title: 'Top 1' });
    child = await createCollection(t.owner, t.owner.orgId, { title: 'Child', parent: top1.id });
    grandchild = await createCollection(t.owner, t.owner.orgId, { title: 'Grandchild', parent: child.id });
    top2 = await createCollection(t.owner, t.owner.orgId, { title: 'Top 2' });
  });

  it('lists every collection, nested ones included, by default (official schema)', async () => {
    const res = await h.rest('listCollectionsInOrganizationById', 'GET', `/v1/orgs/${t.owner.orgId}/collections`, { token: t.owner.token });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(4);
    expect(res.body.next).toBeUndefined();
    expect(res.body.items.map((c: any) => c.id).sort()).toEqual([top1.id, top2.id, child.id, grandchild.id].sort());
    expect(res.body.items.find((c: any) => c.id === child.id)).toMatchObject({ object: 'collection', parent: top1.id });
    expect(await listIds(t.owner.token, t.owner.orgId, '&nested=true')).toEqual(res.body.items.map((c: any) => c.id));
  });

  it('nested=false lists only top-level collections, in order', async () => {
    const res = await h.rest('listCollectionsInOrganizationById', 'GET', `/v1/orgs/${t.owner.orgId}/collections?nested=false`, { token: t.owner.token });
    expect(res.body.items.map((c: any) => c.id)).toEqual([top1.id, top2.id]);
    expect(res.body.count).toBe(2);
  });

  it('pages with limit and next.page until the end', async () => {
    const seen: string[] = [];
    let page: string | undefined;
    for (let i = 0; i < 4; i++) {
      const res = await h.rest('listCollectionsInOrganizationById', 'GET', `/v1/orgs/${t.owner.orgId}/collections?limit=1${page ? `&page=${page}` : ''}`, { token: t.owner.token });
      expect(res.body.count).toBe(4);
      expect(res.body.items).toHaveLength(1);
      seen.push(res.body.items[0].id);
      page = res.body.next?.page;
      if (i < 3) expect(page).toEqual(expect.any(String));
    }
    expect(page).toBeUndefined();
    expect(seen).toEqual(await listIds(t.owner.token, t.owner.orgId));
    const two = await h.rest('listCollectionsInOrganizationById', 'GET', `/v1/orgs/${t.owner.orgId}/collections?limit=2&nested=false`, { token: t.owner.token });
    expect(two.body.items).toHaveLength(2);
    expect(two.body.next).toBeUndefined();
  });

  it('refuses limit=0, limit over 1000, a non-integer limit, a bad page and a bad nested with 400 naming the parameter', async () => {
    const path = `/v1/orgs/${t.owner.orgId}/collections`;
    await expectRefused('listCollectionsInOrganizationById', 'GET', `${path}?limit=0`, { token: t.owner.token }, 400, /limit/);
    await expectRefused('listCollectionsInOrganizationById', 'GET', `${path}?limit=1001`, { token: t.owner.token }, 400, /limit/);
    await expectRefused('listCollectionsInOrganizationById', 'GET', `${path}?limit=abc`, { token: t.owner.token }, 400, /limit/);
    await expectRefused('listCollectionsInOrganizationById', 'GET', `${path}?limit=1.5`, { token: t.owner.token }, 400, /limit/);
    await expectRefused('listCollectionsInOrganizationById', 'GET', `${path}?limit=-1`, { token: t.owner.token }, 400, /limit/);
    await expectRefused('listCollectionsInOrganizationById', 'GET', `${path}?page=garbage`, { token: t.owner.token }, 400, /page/);
    await expectRefused('listCollectionsInOrganizationById', 'GET', `${path}?nested=maybe`, { token: t.owner.token }, 400, /nested/);
  });

  it('refuses an unknown organization with 404', async () => {
    await expectRefused('listCollectionsInOrganizationById', 'GET', `/v1/orgs/nope/collections`, { token: t.owner.token }, 404);
  });

  it('refuses no token (401) and an outsider (404); a guest sees none; a reader sees them all with read permissions', async () => {
    const path = `/v1/orgs/${t.owner.orgId}/collections`;
    await expectRefused('listCollectionsInOrganizationById', 'GET', path, {}, 401);
    await expectRefused('listCollectionsInOrganizationById', 'GET', path, { token: t.outsider.token }, 404);
    const guest = await h.rest('listCollectionsInOrganizationById', 'GET', path, { token: t.guest.token });
    expect(guest.body).toEqual({ items: [], count: 0 });
    const reader = await h.rest('listCollectionsInOrganizationById', 'GET', path, { token: t.reader.token });
    expect(reader.body.count).toBe(4);
    for (const c of reader.body.items) expect(c.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
  });
});

describe('GET /collections/:collectionId', () => {
  let t: Awaited<ReturnType<typeof orgWithMembers>>;
  let collection: any;
  beforeAll(async () => {
    t = await orgWithMembers();
    collection = await createCollection(t.owner, t.owner.orgId, { title: 'Visible' });
  });

  it('answers the collection (official schema), to the owner and to a reader', async () => {
    const res = await h.rest('getCollectionById', 'GET', `/v1/collections/${collection.id}`, { token: t.owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'collection', id: collection.id, title: 'Visible', defaultLevel: 'inherit' });
    const reader = await h.rest('getCollectionById', 'GET', `/v1/collections/${collection.id}`, { token: t.reader.token });
    expect(reader.body.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
  });

  it('refuses an unknown id with 404', async () => {
    await expectRefused('getCollectionById', 'GET', `/v1/collections/nope`, { token: t.owner.token }, 404);
  });

  it('refuses no token (401), an outsider, a guest and a disabled member (404)', async () => {
    const disabled = await h.user();
    await h.addMember(t.owner.orgId, disabled.id, 'admin');
    await h.db.prisma.member.update({ where: { organizationId_userId: { organizationId: t.owner.orgId, userId: disabled.id } }, data: { disabled: true } });
    await expectRefused('getCollectionById', 'GET', `/v1/collections/${collection.id}`, { token: disabled.token }, 404);
    await expectUnseenDelete(`/v1/collections/${collection.id}`, disabled.token);
    await expectRefused('getCollectionById', 'GET', `/v1/collections/${collection.id}`, {}, 401);
    await expectRefused('getCollectionById', 'GET', `/v1/collections/${collection.id}`, { token: t.outsider.token }, 404);
    await expectRefused('getCollectionById', 'GET', `/v1/collections/${collection.id}`, { token: t.guest.token }, 404);
  });
});

describe('PATCH /collections/:collectionId', () => {
  let t: Awaited<ReturnType<typeof orgWithMembers>>;
  let collection: any;
  beforeAll(async () => {
    t = await orgWithMembers();
    collection = await createCollection(t.owner, t.owner.orgId, { title: 'Before' });
  });
  const patch = (body: unknown, token = t.owner.token) => h.rest('updateCollectionById', 'PATCH', `/v1/collections/${collection.id}`, { token, body });

  it('updates title, description and defaultLevel (official schema), and GET shows the change', async () => {
    const res = await patch({ title: 'T'.repeat(50), description: 'D'.repeat(100), defaultLevel: 'comment' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: collection.id, title: 'T'.repeat(50), description: 'D'.repeat(100), defaultLevel: 'comment' });
    expect((await getCollection(t.owner.token, collection.id)).body).toEqual(res.body);
    // Only what is given changes.
    const titleOnly = await patch({ title: 'After' });
    expect(titleOnly.body).toMatchObject({ title: 'After', description: 'D'.repeat(100), defaultLevel: 'comment' });
  });

  it('round-trips defaultLevel null as null, and back to inherit', async () => {
    const res = await patch({ defaultLevel: null });
    expect(res.status).toBe(200);
    expect(res.body).toHaveProperty('defaultLevel', null);
    const got = await h.rest('getCollectionById', 'GET', `/v1/collections/${collection.id}`, { token: t.owner.token });
    expect(got.body).toHaveProperty('defaultLevel', null);
    const list = await h.rest('listCollectionsInOrganizationById', 'GET', `/v1/orgs/${t.owner.orgId}/collections`, { token: t.owner.token });
    expect(list.body.items.find((c: any) => c.id === collection.id)).toHaveProperty('defaultLevel', null);
    expect((await patch({ defaultLevel: 'inherit' })).body.defaultLevel).toBe('inherit');
  });

  it('clears the description with null', async () => {
    await patch({ description: 'Something' });
    const res = await patch({ description: null });
    expect(res.status).toBe(200);
    expect(res.body.description).toBeUndefined();
  });

  it('refuses a title over 50, a description over 100, a null title and an unknown defaultLevel with 400 naming the field', async () => {
    const path = `/v1/collections/${collection.id}`;
    const opts = (body: unknown) => ({ token: t.owner.token, body });
    await expectRefused('updateCollectionById', 'PATCH', path, opts({ title: 'x'.repeat(51) }), 400, /title/);
    await expectRefused('updateCollectionById', 'PATCH', path, opts({ description: 'x'.repeat(101) }), 400, /description/);
    await expectRefused('updateCollectionById', 'PATCH', path, opts({ title: null }), 400, /title/);
    await expectRefused('updateCollectionById', 'PATCH', path, opts({ defaultLevel: 'owner' }), 400, /defaultLevel/);
    await expectRefused('updateCollectionById', 'PATCH', path, opts({ title: 'ok', description: 'x'.repeat(101) }), 400, /description/);
  });

  it('refuses an unknown id with 404', async () => {
    await expectRefused('updateCollectionById', 'PATCH', `/v1/collections/nope`, { token: t.owner.token, body: { title: 'A' } }, 404);
  });

  it('refuses no token (401), an outsider (404), a reader and a creator (403)', async () => {
    const path = `/v1/collections/${collection.id}`;
    await expectRefused('updateCollectionById', 'PATCH', path, { body: { title: 'Hacked' } }, 401);
    await expectRefused('updateCollectionById', 'PATCH', path, { token: t.outsider.token, body: { title: 'Hacked' } }, 404);
    await expectRefused('updateCollectionById', 'PATCH', path, { token: t.reader.token, body: { title: 'Hacked' } }, 403);
    await expectRefused('updateCollectionById', 'PATCH', path, { token: t.creator.token, body: { title: 'Hacked' } }, 403);
  });
});

describe('DELETE /collections/:collectionId', () => {
  let t: Awaited<ReturnType<typeof orgWithMembers>>;
  beforeAll(async () => {
    t = await orgWithMembers();
  });

  it('answers 205 when it deleted, then 204 (also for an unknown id)', async () => {
    const collection = await createCollection(t.owner, t.owner.orgId, { title: 'Doomed' });
    const deleted = await h.rest('deleteCollectionById', 'DELETE', `/v1/collections/${collection.id}`, { token: t.owner.token });
    expect(deleted.status).toBe(205);
    expect(deleted.body).toBeUndefined();
    expect((await getCollection(t.owner.token, collection.id)).status).toBe(404);
    expect(await listIds(t.owner.token, t.owner.orgId)).not.toContain(collection.id);
    const before = await h.snapshot();
    const again = await h.rest('deleteCollectionById', 'DELETE', `/v1/collections/${collection.id}`, { token: t.owner.token });
    expect(again.status).toBe(204);
    expect(again.body).toBeUndefined();
    expect((await h.rest('deleteCollectionById', 'DELETE', `/v1/collections/nope`, { token: t.owner.token })).status).toBe(204);
    expect(await h.snapshot()).toBe(before);
  });

  it('deletes sub-collections and soft-deletes their spaces, which can be restored (at the top level)', async () => {
    const root = await createCollection(t.owner, t.owner.orgId, { title: 'Root' });
    const child = await createCollection(t.owner, t.owner.orgId, { title: 'Child', parent: root.id });
    const grandchild = await createCollection(t.owner, t.owner.orgId, { title: 'Grandchild', parent: child.id });
    const bystander = await createCollection(t.owner, t.owner.orgId, { title: 'Bystander' });
    const inRoot = await createSpace(t.owner, t.owner.orgId, { parent: root.id });
    const inGrandchild = await createSpace(t.owner, t.owner.orgId, { parent: grandchild.id });
    const inBystander = await createSpace(t.owner, t.owner.orgId, { parent: bystander.id });
    const topLevel = await createSpace(t.owner, t.owner.orgId);

    const res = await h.rest('deleteCollectionById', 'DELETE', `/v1/collections/${root.id}`, { token: t.owner.token });
    expect(res.status).toBe(205);

    for (const id of [root.id, child.id, grandchild.id]) {
      expect((await getCollection(t.owner.token, id)).status).toBe(404);
      expect(await h.db.prisma.collection.findUnique({ where: { id } })).toBeNull();
    }
    expect((await getCollection(t.owner.token, bystander.id)).status).toBe(200);
    for (const space of [inRoot, inGrandchild]) {
      const row = await h.db.prisma.space.findUniqueOrThrow({ where: { id: space.id } });
      expect(row.deletedAt).toBeInstanceOf(Date);
    }
    for (const space of [inBystander, topLevel]) {
      const row = await h.db.prisma.space.findUniqueOrThrow({ where: { id: space.id } });
      expect(row.deletedAt).toBeNull();
    }
    const spaces = await h.rest('listSpacesInOrganizationById', 'GET', `/v1/orgs/${t.owner.orgId}/spaces?limit=100`, { token: t.owner.token });
    const listed = spaces.body.items.map((s: any) => s.id);
    expect(listed).not.toContain(inRoot.id);
    expect(listed).not.toContain(inGrandchild.id);
    expect(listed).toContain(inBystander.id);

    const restored = await h.rest('restoreSpace', 'POST', `/v1/spaces/${inGrandchild.id}/restore`, { token: t.owner.token });
    expect(restored.status).toBe(200);
    expect(restored.body.deletedAt).toBeUndefined();
    expect(restored.body.parent).toBeUndefined();
    expect((await h.call('GET', `/v1/spaces/${inGrandchild.id}`, { token: t.owner.token })).status).toBe(200);
  });

  it('refuses no token (401), a reader and a creator (403); an outsider gets 204 as for a missing id; deleting nothing', async () => {
    const collection = await createCollection(t.owner, t.owner.orgId, { title: 'Kept' });
    await createSpace(t.owner, t.owner.orgId, { parent: collection.id });
    const path = `/v1/collections/${collection.id}`;
    await expectRefused('deleteCollectionById', 'DELETE', path, {}, 401);
    await expectUnseenDelete(path, t.outsider.token);
    await expectRefused('deleteCollectionById', 'DELETE', path, { token: t.reader.token }, 403);
    await expectRefused('deleteCollectionById', 'DELETE', path, { token: t.creator.token }, 403);
    expect((await getCollection(t.owner.token, collection.id)).status).toBe(200);
  });
});

describe('GET /collections/:collectionId/spaces', () => {
  let t: Awaited<ReturnType<typeof orgWithMembers>>;
  let collection: any, sub: any, s1: any, s2: any, s3: any, hidden: any, deleted: any, inSub: any;
  beforeAll(async () => {
    t = await orgWithMembers();
    collection = await createCollection(t.owner, t.owner.orgId, { title: 'With spaces' });
    sub = await createCollection(t.owner, t.owner.orgId, { title: 'Sub', parent: collection.id });
    s1 = await createSpace(t.owner, t.owner.orgId, { title: 'S1', parent: collection.id });
    s2 = await createSpace(t.owner, t.owner.orgId, { title: 'S2', parent: collection.id });
    s3 = await createSpace(t.owner, t.owner.orgId, { title: 'S3', parent: collection.id });
    hidden = await createSpace(t.owner, t.owner.orgId, { title: 'Hidden', parent: collection.id });
    await h.rest('updateSpaceById', 'PATCH', `/v1/spaces/${hidden.id}`, { token: t.owner.token, body: { defaultLevel: null } });
    deleted = await createSpace(t.owner, t.owner.orgId, { title: 'Deleted', parent: collection.id });
    expect((await h.call('DELETE', `/v1/spaces/${deleted.id}`, { token: t.owner.token })).status).toBe(205);
    inSub = await createSpace(t.owner, t.owner.orgId, { title: 'In sub', parent: sub.id });
    await createSpace(t.owner, t.owner.orgId, { title: 'Top level' });
  });

  it('lists the live spaces directly in the collection, in order (official schema)', async () => {
    const res = await h.rest('listSpacesInCollectionById', 'GET', `/v1/collections/${collection.id}/spaces`, { token: t.owner.token });
    expect(res.status).toBe(200);
    expect(res.body.items.map((s: any) => s.id)).toEqual([s1.id, s2.id, s3.id, hidden.id]);
    expect(res.body.count).toBe(4);
    for (const s of res.body.items) expect(s).toMatchObject({ object: 'space', parent: collection.id, organization: t.owner.orgId });
    const subList = await h.rest('listSpacesInCollectionById', 'GET', `/v1/collections/${sub.id}/spaces`, { token: t.owner.token });
    expect(subList.body.items.map((s: any) => s.id)).toEqual([inSub.id]);
  });

  it('pages with limit and next.page', async () => {
    const first = await h.rest('listSpacesInCollectionById', 'GET', `/v1/collections/${collection.id}/spaces?limit=3`, { token: t.owner.token });
    expect(first.body.items.map((s: any) => s.id)).toEqual([s1.id, s2.id, s3.id]);
    expect(first.body.count).toBe(4);
    const second = await h.rest('listSpacesInCollectionById', 'GET', `/v1/collections/${collection.id}/spaces?limit=3&page=${first.body.next.page}`, { token: t.owner.token });
    expect(second.body.items.map((s: any) => s.id)).toEqual([hidden.id]);
    expect(second.body.next).toBeUndefined();
  });

  it('refuses limit=0, a bad page (400) and an unknown collection (404)', async () => {
    await expectRefused('listSpacesInCollectionById', 'GET', `/v1/collections/${collection.id}/spaces?limit=0`, { token: t.owner.token }, 400, /limit/);
    await expectRefused('listSpacesInCollectionById', 'GET', `/v1/collections/${collection.id}/spaces?page=%%%`, { token: t.owner.token }, 400, /page/);
    await expectRefused('listSpacesInCollectionById', 'GET', `/v1/collections/nope/spaces`, { token: t.owner.token }, 404);
  });

  it('refuses no token (401), an outsider and a guest (404); a reader does not see a space with no default level', async () => {
    const path = `/v1/collections/${collection.id}/spaces`;
    await expectRefused('listSpacesInCollectionById', 'GET', path, {}, 401);
    await expectRefused('listSpacesInCollectionById', 'GET', path, { token: t.outsider.token }, 404);
    await expectRefused('listSpacesInCollectionById', 'GET', path, { token: t.guest.token }, 404);
    const reader = await h.rest('listSpacesInCollectionById', 'GET', path, { token: t.reader.token });
    expect(reader.body.items.map((s: any) => s.id)).toEqual([s1.id, s2.id, s3.id]);
    expect(reader.body.count).toBe(3);
  });
});

describe('POST /collections/:collectionId/move', () => {
  let t: Awaited<ReturnType<typeof orgWithMembers>>;
  beforeAll(async () => {
    t = await orgWithMembers();
  });
  const move = (id: string, body: unknown, token = t.owner.token) => h.rest('moveCollection', 'POST', `/v1/collections/${id}/move`, { token, body });

  it('moves into another collection and back to the top level (official schema)', async () => {
    const a = await createCollection(t.owner, t.owner.orgId, { title: 'A' });
    const b = await createCollection(t.owner, t.owner.orgId, { title: 'B' });
    await createSpace(t.owner, t.owner.orgId, { parent: a.id });
    const inside = await move(a.id, { parent: b.id });
    expect(inside.status).toBe(200);
    expect(inside.body).toMatchObject({ object: 'collection', id: a.id, parent: b.id });
    expect(await listIds(t.owner.token, t.owner.orgId, '&nested=false')).not.toContain(a.id);
    expect((await getCollection(t.owner.token, a.id)).body.parent).toBe(b.id);
    // Its spaces come along (they stay in it).
    const spaces = await h.rest('listSpacesInCollectionById', 'GET', `/v1/collections/${a.id}/spaces`, { token: t.owner.token });
    expect(spaces.body.count).toBe(1);

    const back = await move(a.id, { parent: null });
    expect(back.status).toBe(200);
    expect(back.body.parent).toBeUndefined();
    expect(await listIds(t.owner.token, t.owner.orgId, '&nested=false')).toContain(a.id);
  });

  it('places before/after sibling collections, changing the list order', async () => {
    const org = await h.owner('Ordering');
    const [c1, c2, c3] = [await createCollection(org, org.orgId, { title: '1' }), await createCollection(org, org.orgId, { title: '2' }), await createCollection(org, org.orgId, { title: '3' })];
    expect(await listIds(org.token, org.orgId)).toEqual([c1.id, c2.id, c3.id]);
    expect((await move(c3.id, { position: { before: { type: 'collection', collection: c1.id } } }, org.token)).status).toBe(200);
    expect(await listIds(org.token, org.orgId)).toEqual([c3.id, c1.id, c2.id]);
    expect((await move(c3.id, { position: { after: { type: 'collection', collection: c1.id } } }, org.token)).status).toBe(200);
    expect(await listIds(org.token, org.orgId)).toEqual([c1.id, c3.id, c2.id]);
    expect((await move(c1.id, { position: { after: { type: 'collection', collection: c2.id } } }, org.token)).status).toBe(200);
    expect(await listIds(org.token, org.orgId)).toEqual([c3.id, c2.id, c1.id]);
  });

  it('places before/after sibling spaces (one ordering for spaces and collections)', async () => {
    const org = await h.owner('Mixed');
    const s1 = await createSpace(org, org.orgId, { title: 'S1' });
    const s2 = await createSpace(org, org.orgId, { title: 'S2' });
    const c = await createCollection(org, org.orgId, { title: 'C' });
    expect(await positionOf('collection', c.id)).toBeGreaterThan(await positionOf('space', s2.id));
    expect((await move(c.id, { position: { before: { type: 'space', space: s1.id } } }, org.token)).status).toBe(200);
    expect(await positionOf('collection', c.id)).toBeLessThan(await positionOf('space', s1.id));
    expect((await move(c.id, { position: { after: { type: 'space', space: s1.id } } }, org.token)).status).toBe(200);
    const p = await positionOf('collection', c.id);
    expect(p).toBeGreaterThan(await positionOf('space', s1.id));
    expect(p).toBeLessThan(await positionOf('space', s2.id));
  });

  it('moves into a parent at a given position among its items', async () => {
    const parent = await createCollection(t.owner, t.owner.orgId, { title: 'Parent' });
    const first = await createCollection(t.owner, t.owner.orgId, { title: 'First', parent: parent.id });
    const second = await createCollection(t.owner, t.owner.orgId, { title: 'Second', parent: parent.id });
    const mover = await createCollection(t.owner, t.owner.orgId, { title: 'Mover' });
    const res = await move(mover.id, { parent: parent.id, position: { before: { type: 'collection', collection: second.id } } });
    expect(res.status).toBe(200);
    expect(res.body.parent).toBe(parent.id);
    const order = (await listIds(t.owner.token, t.owner.orgId)).filter((id) => [first.id, second.id, mover.id].includes(id));
    expect(order).toEqual([first.id, mover.id, second.id]);
  });

  it('refuses a position pointer that is not a sibling with 400 naming position', async () => {
    const parent = await createCollection(t.owner, t.owner.orgId, { title: 'Elsewhere' });
    const elsewhere = await createCollection(t.owner, t.owner.orgId, { title: 'Nested elsewhere', parent: parent.id });
    const nestedSpace = await createSpace(t.owner, t.owner.orgId, { parent: parent.id });
    const c = await createCollection(t.owner, t.owner.orgId, { title: 'C' });
    const path = `/v1/collections/${c.id}/move`;
    const opts = (body: unknown) => ({ token: t.owner.token, body });
    await expectRefused('moveCollection', 'POST', path, opts({ position: { before: { type: 'collection', collection: elsewhere.id } } }), 400, /position\.before/);
    await expectRefused('moveCollection', 'POST', path, opts({ position: { after: { type: 'space', space: nestedSpace.id } } }), 400, /position\.after/);
    await expectRefused('moveCollection', 'POST', path, opts({ position: { after: { type: 'space', space: 'nope' } } }), 400, /position\.after/);
    await expectRefused('moveCollection', 'POST', path, opts({ position: { after: { type: 'collection', collection: c.id } } }), 400, /position\.after/);
    await expectRefused('moveCollection', 'POST', path, opts({ position: { before: { type: 'collection', space: parent.id } } }), 400, /position\.before/);
    await expectRefused('moveCollection', 'POST', path, opts({ position: { before: { type: 'page', page: 'x' } } }), 400, /position\.before/);
    await expectRefused('moveCollection', 'POST', path, opts({ position: { before: { collection: parent.id } } }), 400, /position\.before/);
  });

  it('refuses a pointer whose type does not match the sibling it names with 400', async () => {
    const org = await h.owner('Pointer kinds');
    const s = await createSpace(org, org.orgId);
    const other = await createCollection(org, org.orgId, { title: 'Other' });
    const c = await createCollection(org, org.orgId, { title: 'C' });
    const path = `/v1/collections/${c.id}/move`;
    await expectRefused('moveCollection', 'POST', path, { token: org.token, body: { position: { before: { type: 'space', space: other.id } } } }, 400, /position\.before/);
    await expectRefused('moveCollection', 'POST', path, { token: org.token, body: { position: { before: { type: 'collection', collection: s.id } } } }, 400, /position\.before/);
  });

  it('refuses a move that changes nothing with 409', async () => {
    const org = await h.owner('No-op');
    const c1 = await createCollection(org, org.orgId, { title: '1' });
    const c2 = await createCollection(org, org.orgId, { title: '2' });
    const c3 = await createCollection(org, org.orgId, { title: '3' });
    const opts = (body: unknown) => ({ token: org.token, body });
    await expectRefused('moveCollection', 'POST', `/v1/collections/${c2.id}/move`, opts({ position: { after: { type: 'collection', collection: c1.id } } }), 409);
    await expectRefused('moveCollection', 'POST', `/v1/collections/${c2.id}/move`, opts({ position: { before: { type: 'collection', collection: c3.id } } }), 409);
    await expectRefused('moveCollection', 'POST', `/v1/collections/${c3.id}/move`, opts({ parent: null }), 409);
    await expectRefused('moveCollection', 'POST', `/v1/collections/${c3.id}/move`, opts({ position: {} }), 409);
    const child = await createCollection(org, org.orgId, { title: 'Child', parent: c1.id });
    await expectRefused('moveCollection', 'POST', `/v1/collections/${child.id}/move`, opts({ parent: c1.id }), 409);
  });

  it('refuses an unknown collection and an unknown parent with 404', async () => {
    const c = await createCollection(t.owner, t.owner.orgId, { title: 'C' });
    await expectRefused('moveCollection', 'POST', `/v1/collections/nope/move`, { token: t.owner.token, body: { parent: null } }, 404);
    await expectRefused('moveCollection', 'POST', `/v1/collections/${c.id}/move`, { token: t.owner.token, body: { parent: 'nope' } }, 404);
  });

  it('refuses moving into itself or a descendant with 400 naming parent', async () => {
    const root = await createCollection(t.owner, t.owner.orgId, { title: 'Root' });
    const child = await createCollection(t.owner, t.owner.orgId, { title: 'Child', parent: root.id });
    const grandchild = await createCollection(t.owner, t.owner.orgId, { title: 'Grandchild', parent: child.id });
    const path = `/v1/collections/${root.id}/move`;
    await expectRefused('moveCollection', 'POST', path, { token: t.owner.token, body: { parent: root.id } }, 400, /parent/);
    await expectRefused('moveCollection', 'POST', path, { token: t.owner.token, body: { parent: child.id } }, 400, /parent/);
    await expectRefused('moveCollection', 'POST', path, { token: t.owner.token, body: { parent: grandchild.id } }, 400, /parent/);
  });

  it('refuses an empty body, an empty parent id, a parent of another organization and unknown fields with 400', async () => {
    const c = await createCollection(t.owner, t.owner.orgId, { title: 'C' });
    const path = `/v1/collections/${c.id}/move`;
    await expectRefused('moveCollection', 'POST', path, { token: t.owner.token, body: {} }, 400, /parent or position/);
    await expectRefused('moveCollection', 'POST', path, { token: t.owner.token }, 400, /parent or position/);
    await expectRefused('moveCollection', 'POST', path, { token: t.owner.token, body: { parent: '' } }, 400, /parent/);
    await expectRefused('moveCollection', 'POST', path, { token: t.owner.token, body: { parent: null, where: 'top' } }, 400, /where/);
    const otherOrg = await h.owner('Other');
    await h.addMember(otherOrg.orgId, t.owner.id, 'admin');
    const foreign = await createCollection(otherOrg, otherOrg.orgId, { title: 'Foreign' });
    await expectRefused('moveCollection', 'POST', path, { token: t.owner.token, body: { parent: foreign.id } }, 400, /parent/);
  });

  it('refuses no token (401), an outsider (404), a reader and a creator (403)', async () => {
    const c = await createCollection(t.owner, t.owner.orgId, { title: 'C' });
    const target = await createCollection(t.owner, t.owner.orgId, { title: 'Target' });
    const path = `/v1/collections/${c.id}/move`;
    const body = { parent: target.id };
    await expectRefused('moveCollection', 'POST', path, { body }, 401);
    await expectRefused('moveCollection', 'POST', path, { token: t.outsider.token, body }, 404);
    await expectRefused('moveCollection', 'POST', path, { token: t.reader.token, body }, 403);
    await expectRefused('moveCollection', 'POST', path, { token: t.creator.token, body }, 403);
  });

  it('refuses moving into a parent where the caller cannot create (403)', async () => {
    // The creator administers this collection through its default level, but only reads the target.
    const c = await createCollection(t.owner, t.owner.orgId, { title: 'Mine' });
    await h.rest('updateCollectionById', 'PATCH', `/v1/collections/${c.id}`, { token: t.owner.token, body: { defaultLevel: 'admin' } });
    const target = await createCollection(t.owner, t.owner.orgId, { title: 'Read only' });
    await h.rest('updateCollectionById', 'PATCH', `/v1/collections/${target.id}`, { token: t.owner.token, body: { defaultLevel: 'read' } });
    await expectRefused('moveCollection', 'POST', `/v1/collections/${c.id}/move`, { token: t.creator.token, body: { parent: target.id } }, 403);
  });
});

describe('POST /collections/:collectionId/transfer', () => {
  let t: Awaited<ReturnType<typeof orgWithMembers>>;
  let target: Owner;
  beforeAll(async () => {
    t = await orgWithMembers();
    target = await h.owner('Target Org');
    await h.addMember(target.orgId, t.owner.id, 'admin');
  });
  const transfer = (id: string, organization: string, token = t.owner.token) =>
    h.rest('transferCollection', 'POST', `/v1/collections/${id}/transfer`, { token, body: { organization } });

  it('moves the collection, its sub-collections and their spaces to the other organization (official schema)', async () => {
    const root = await createCollection(t.owner, t.owner.orgId, { title: 'Root' });
    const child = await createCollection(t.owner, t.owner.orgId, { title: 'Child', parent: root.id });
    const rootSpace = await createSpace(t.owner, t.owner.orgId, { parent: root.id });
    const childSpace = await createSpace(t.owner, t.owner.orgId, { parent: child.id });
    const bystander = await createSpace(t.owner, t.owner.orgId);

    const res = await transfer(root.id, target.orgId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'collection', id: root.id, organization: target.orgId });
    expect(res.body.parent).toBeUndefined();
    expect(res.body.permissions.admin).toBe(true);

    expect((await getCollection(t.owner.token, child.id)).body).toMatchObject({ organization: target.orgId, parent: root.id });
    for (const s of [rootSpace, childSpace]) {
      const space = await h.call('GET', `/v1/spaces/${s.id}`, { token: t.owner.token });
      expect(space.body.organization).toBe(target.orgId);
    }
    expect((await h.call('GET', `/v1/spaces/${bystander.id}`, { token: t.owner.token })).body.organization).toBe(t.owner.orgId);
    expect(await listIds(target.token, target.orgId)).toEqual(expect.arrayContaining([root.id, child.id]));
    const sourceIds = await listIds(t.owner.token, t.owner.orgId);
    expect(sourceIds).not.toContain(root.id);
    expect(sourceIds).not.toContain(child.id);
    // Members of the old organization lose it.
    expect((await getCollection(t.reader.token, root.id)).status).toBe(404);
    const spaces = await h.rest('listSpacesInCollectionById', 'GET', `/v1/collections/${root.id}/spaces`, { token: target.token });
    expect(spaces.body.items.map((s: any) => s.id)).toEqual([rootSpace.id]);
  });

  it('moves a nested collection to the end of the top level of the other organization', async () => {
    const root = await createCollection(t.owner, t.owner.orgId, { title: 'Root' });
    const child = await createCollection(t.owner, t.owner.orgId, { title: 'Child', parent: root.id });
    await createCollection(target, target.orgId, { title: 'Already there' });
    const res = await transfer(child.id, target.orgId);
    expect(res.status).toBe(200);
    expect(res.body.organization).toBe(target.orgId);
    expect(res.body.parent).toBeUndefined();
    expect((await listIds(target.token, target.orgId, '&nested=false')).at(-1)).toBe(child.id);
    expect((await getCollection(t.owner.token, root.id)).body.organization).toBe(t.owner.orgId);
  });

  it('refuses a transfer to the same organization with 409', async () => {
    const c = await createCollection(t.owner, t.owner.orgId, { title: 'C' });
    await expectRefused('transferCollection', 'POST', `/v1/collections/${c.id}/transfer`, { token: t.owner.token, body: { organization: t.owner.orgId } }, 409);
  });

  it('refuses with 412, changing nothing, when a space inside (at any depth) is synchronised with Git', async () => {
    const root = await createCollection(t.owner, t.owner.orgId, { title: 'Synced root' });
    const child = await createCollection(t.owner, t.owner.orgId, { title: 'Synced child', parent: root.id });
    await createSpace(t.owner, t.owner.orgId, { parent: root.id });
    const synced = await createSpace(t.owner, t.owner.orgId, { parent: child.id });
    await h.db.prisma.space.update({ where: { id: synced.id }, data: { gitSync: { repoName: 'acme/docs', installationProvider: 'github' } } });
    await expectRefused('transferCollection', 'POST', `/v1/collections/${root.id}/transfer`, { token: t.owner.token, body: { organization: target.orgId } }, 412);
    await expectRefused('transferCollection', 'POST', `/v1/collections/${child.id}/transfer`, { token: t.owner.token, body: { organization: target.orgId } }, 412);
  });

  it('refuses an unknown collection and an unknown organization with 404', async () => {
    const c = await createCollection(t.owner, t.owner.orgId, { title: 'C' });
    await expectRefused('transferCollection', 'POST', `/v1/collections/nope/transfer`, { token: t.owner.token, body: { organization: target.orgId } }, 404);
    await expectRefused('transferCollection', 'POST', `/v1/collections/${c.id}/transfer`, { token: t.owner.token, body: { organization: 'nope' } }, 404);
  });

  it('refuses a body without organization with 400 naming it', async () => {
    const c = await createCollection(t.owner, t.owner.orgId, { title: 'C' });
    await expectRefused('transferCollection', 'POST', `/v1/collections/${c.id}/transfer`, { token: t.owner.token, body: {} }, 400, /organization/);
    await expectRefused('transferCollection', 'POST', `/v1/collections/${c.id}/transfer`, { token: t.owner.token, body: { organization: null } }, 400, /organization/);
  });

  it('refuses a target organization where the caller is a member but not admin (403) or not a member (404)', async () => {
    const c = await createCollection(t.owner, t.owner.orgId, { title: 'C' });
    const memberOrg = await h.owner('Member Org');
    await h.addMember(memberOrg.orgId, t.owner.id, 'create');
    const strangerOrg = await h.owner('Stranger Org');
    await expectRefused('transferCollection', 'POST', `/v1/collections/${c.id}/transfer`, { token: t.owner.token, body: { organization: memberOrg.orgId } }, 403);
    await expectRefused('transferCollection', 'POST', `/v1/collections/${c.id}/transfer`, { token: t.owner.token, body: { organization: strangerOrg.orgId } }, 404);
  });

  it('refuses no token (401), an outsider (404), a reader and a creator (403)', async () => {
    const c = await createCollection(t.owner, t.owner.orgId, { title: 'C' });
    // Everyone here administers the target, so only their rights on the collection matter.
    for (const u of [t.outsider, t.reader, t.creator]) await h.addMember(target.orgId, u.id, 'admin');
    const path = `/v1/collections/${c.id}/transfer`;
    const body = { organization: target.orgId };
    await expectRefused('transferCollection', 'POST', path, { body }, 401);
    await expectRefused('transferCollection', 'POST', path, { token: t.outsider.token, body }, 404);
    await expectRefused('transferCollection', 'POST', path, { token: t.reader.token, body }, 403);
    await expectRefused('transferCollection', 'POST', path, { token: t.creator.token, body }, 403);
  });
});

describe('visibility of collections with no default level', () => {
  let t: Awaited<ReturnType<typeof orgWithMembers>>;
  let secret: any, secretChild: any, openChild: any, inheriting: any, explicit: any, open: any, openSpace: any;
  beforeAll(async () => {
    t = await orgWithMembers();
    open = await createCollection(t.owner, t.owner.orgId, { title: 'Open' });
    openSpace = await createSpace(t.owner, t.owner.orgId, { parent: open.id });
    secret = await createCollection(t.owner, t.owner.orgId, { title: 'Secret' });
    await h.rest('updateCollectionById', 'PATCH', `/v1/collections/${secret.id}`, { token: t.owner.token, body: { defaultLevel: null } });
    secretChild = await createCollection(t.owner, t.owner.orgId, { title: 'Secret child', parent: secret.id });
    openChild = await createCollection(t.owner, t.owner.orgId, { title: 'Explicitly open child', parent: secret.id });
    await h.rest('updateCollectionById', 'PATCH', `/v1/collections/${openChild.id}`, { token: t.owner.token, body: { defaultLevel: 'read' } });
    inheriting = await createSpace(t.owner, t.owner.orgId, { title: 'Inheriting', parent: secret.id });
    explicit = await createSpace(t.owner, t.owner.orgId, { title: 'Explicit', parent: secret.id });
    await h.rest('updateSpaceById', 'PATCH', `/v1/spaces/${explicit.id}`, { token: t.owner.token, body: { defaultLevel: 'read' } });
  });

  it('a reader gets 404 for it and for sub-collections that inherit from it', async () => {
    await expectRefused('getCollectionById', 'GET', `/v1/collections/${secret.id}`, { token: t.reader.token }, 404);
    await expectRefused('getCollectionById', 'GET', `/v1/collections/${secretChild.id}`, { token: t.reader.token }, 404);
    await expectRefused('listSpacesInCollectionById', 'GET', `/v1/collections/${secret.id}/spaces`, { token: t.reader.token }, 404);
    await expectRefused('updateCollectionById', 'PATCH', `/v1/collections/${secret.id}`, { token: t.reader.token, body: { title: 'x' } }, 404);
    await expectUnseenDelete(`/v1/collections/${secret.id}`, t.reader.token);
    // A child with its own level is visible.
    expect((await h.rest('getCollectionById', 'GET', `/v1/collections/${openChild.id}`, { token: t.reader.token })).body.permissions.view).toBe(true);
  });

  it('a reader does not find it in the list (and counts agree)', async () => {
    const res = await h.rest('listCollectionsInOrganizationById', 'GET', `/v1/orgs/${t.owner.orgId}/collections`, { token: t.reader.token });
    expect(res.body.items.map((c: any) => c.id).sort()).toEqual([open.id, openChild.id].sort());
    expect(res.body.count).toBe(2);
    const top = await h.rest('listCollectionsInOrganizationById', 'GET', `/v1/orgs/${t.owner.orgId}/collections?nested=false`, { token: t.reader.token });
    expect(top.body.items.map((c: any) => c.id)).toEqual([open.id]);
    // The owner sees everything.
    expect(await listIds(t.owner.token, t.owner.orgId)).toHaveLength(4);
  });

  it('a reader cannot see its spaces that inherit, but sees one with its own level', async () => {
    expect((await h.call('GET', `/v1/spaces/${inheriting.id}`, { token: t.reader.token })).status).toBe(404);
    expect((await h.call('GET', `/v1/spaces/${explicit.id}`, { token: t.reader.token })).status).toBe(200);
    const res = await h.rest('listSpacesInOrganizationById', 'GET', `/v1/orgs/${t.owner.orgId}/spaces?limit=100`, { token: t.reader.token });
    const ids = res.body.items.map((s: any) => s.id);
    expect(ids).not.toContain(inheriting.id);
    expect(ids).toContain(explicit.id);
    expect(ids).toContain(openSpace.id);
  });

  it('an admin and a member raised by the collection level see it', async () => {
    expect((await h.rest('getCollectionById', 'GET', `/v1/collections/${secret.id}`, { token: t.owner.token })).body.defaultLevel).toBeNull();
    const raised = await createCollection(t.owner, t.owner.orgId, { title: 'Raised' });
    await h.rest('updateCollectionById', 'PATCH', `/v1/collections/${raised.id}`, { token: t.owner.token, body: { defaultLevel: 'admin' } });
    const asReader = await h.rest('getCollectionById', 'GET', `/v1/collections/${raised.id}`, { token: t.reader.token });
    expect(asReader.body.permissions).toEqual({ view: true, admin: true, viewInviteLinks: true, create: true });
    await h.rest('deleteCollectionById', 'DELETE', `/v1/collections/${raised.id}`, { token: t.owner.token });
  });
});

describe('GraphQL', () => {
  let t: Awaited<ReturnType<typeof orgWithMembers>>;
  beforeAll(async () => {
    t = await orgWithMembers();
  });
  const FIELDS = 'id title description organization parent defaultLevel permissions { view admin create viewInviteLinks } urls { location app }';

  it('creates, reads, lists, updates, moves and deletes collections', async () => {
    const created = await h.graphql(t.owner.token, `mutation($org: ID!, $input: CreateCollectionInput) { createCollection(organizationId: $org, input: $input) { ${FIELDS} } }`, {
      org: t.owner.orgId,
      input: { title: 'GQL' },
    });
    expect(created.body.errors).toBeUndefined();
    const c = created.body.data.createCollection;
    expect(c).toMatchObject({ title: 'GQL', organization: t.owner.orgId, parent: null, defaultLevel: 'inherit', description: null });

    const child = (
      await h.graphql(t.owner.token, `mutation($org: ID!, $input: CreateCollectionInput) { createCollection(organizationId: $org, input: $input) { id parent } }`, {
        org: t.owner.orgId,
        input: { title: 'GQL child', parent: c.id },
      })
    ).body.data.createCollection;
    expect(child.parent).toBe(c.id);
    await createSpace(t.owner, t.owner.orgId, { parent: c.id });

    const read = await h.graphql(t.owner.token, `query($id: ID!) { collection(id: $id) { ${FIELDS} spaces(limit: 10) { count items { id parent } } } }`, { id: c.id });
    expect(read.body.data.collection).toMatchObject({ id: c.id, spaces: { count: 1, items: [{ parent: c.id }] } });

    const list = await h.graphql(t.owner.token, `query($org: ID!) { organization(id: $org) { all: collections { count items { id } } top: collections(nested: false, limit: 1) { count items { id } next { page } } } }`, { org: t.owner.orgId });
    expect(list.body.data.organization.all.count).toBe(2);
    expect(list.body.data.organization.top).toEqual({ count: 1, items: [{ id: c.id }], next: null });

    const updated = await h.graphql(t.owner.token, `mutation($id: ID!, $input: UpdateCollectionInput!) { updateCollection(id: $id, input: $input) { title description defaultLevel } }`, {
      id: c.id,
      input: { title: 'Renamed', description: 'About', defaultLevel: null },
    });
    expect(updated.body.data.updateCollection).toEqual({ title: 'Renamed', description: 'About', defaultLevel: null });

    const moved = await h.graphql(t.owner.token, `mutation($id: ID!, $input: MoveCollectionInput!) { moveCollection(id: $id, input: $input) { id parent } }`, {
      id: child.id,
      input: { parent: null },
    });
    expect(moved.body.data.moveCollection).toEqual({ id: child.id, parent: null });

    const del = `mutation($id: ID!) { deleteCollection(id: $id) }`;
    expect((await h.graphql(t.owner.token, del, { id: c.id })).body.data.deleteCollection).toBe(true);
    expect((await h.graphql(t.owner.token, del, { id: c.id })).body.data.deleteCollection).toBe(false);
  });

  it('transfers a collection to another organization', async () => {
    const other = await h.owner('GQL target');
    await h.addMember(other.orgId, t.owner.id, 'admin');
    const c = await createCollection(t.owner, t.owner.orgId, { title: 'To transfer' });
    const res = await h.graphql(t.owner.token, `mutation($id: ID!, $org: ID!) { transferCollection(id: $id, input: { organization: $org }) { id organization } }`, {
      id: c.id,
      org: other.orgId,
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.transferCollection).toEqual({ id: c.id, organization: other.orgId });
  });

  it('reports errors with their codes and changes nothing', async () => {
    const c = await createCollection(t.owner, t.owner.orgId, { title: 'Guarded' });
    const before = await h.snapshot();
    const codeOf = async (token: string, query: string, variables: Record<string, unknown>) => {
      const res = await h.graphql(token, query, variables);
      expect(res.body.errors?.length, JSON.stringify(res.body)).toBeGreaterThan(0);
      return { code: res.body.errors[0].extensions?.code, message: res.body.errors[0].message as string };
    };
    const update = `mutation($id: ID!, $input: UpdateCollectionInput!) { updateCollection(id: $id, input: $input) { id } }`;
    expect(await codeOf(t.owner.token, update, { id: c.id, input: { title: 'x'.repeat(51) } })).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('title') });
    expect((await codeOf(t.reader.token, update, { id: c.id, input: { title: 'x' } })).code).toBe('FORBIDDEN');
    expect((await codeOf(t.outsider.token, update, { id: c.id, input: { title: 'x' } })).code).toBe('NOT_FOUND');
    expect((await codeOf(t.owner.token, `query($id: ID!) { collection(id: $id) { id } }`, { id: 'nope' })).code).toBe('NOT_FOUND');
    expect((await codeOf(t.owner.token, `query($org: ID!) { organization(id: $org) { collections(limit: 0) { count } } }`, { org: t.owner.orgId })).code).toBe('BAD_REQUEST');
    const move = `mutation($id: ID!, $input: MoveCollectionInput!) { moveCollection(id: $id, input: $input) { id } }`;
    expect((await codeOf(t.owner.token, move, { id: c.id, input: { parent: c.id } })).code).toBe('BAD_REQUEST');
    expect((await codeOf(t.owner.token, move, { id: c.id, input: { parent: null } })).code).toBe('CONFLICT');
    const transfer = `mutation($id: ID!, $org: ID!) { transferCollection(id: $id, input: { organization: $org }) { id } }`;
    expect((await codeOf(t.owner.token, transfer, { id: c.id, org: t.owner.orgId })).code).toBe('CONFLICT');
    expect(await h.snapshot()).toBe(before);
  });

  it('refuses an unauthenticated GraphQL call with 401', async () => {
    const res = await h.call('POST', '/graphql', { body: { query: '{ collection(id: "x") { id } }' } });
    expect(res.status).toBe(401);
  });
});
