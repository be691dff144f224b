/** Collections: create, list, read, update, delete, and the spaces of a collection (setup in ./fixtures.ts). */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  h,
  setupCollections,
  createCollection,
  createSpace,
  getCollection,
  listIds,
  expectUnseenDelete,
  expectRefused,
} from './fixtures.js';
import type { World } from '../support/harness.js';

beforeAll(setupCollections);

// ---------------------------------------------------------------------------------------------

describe('POST /orgs/:organizationId/collections', () => {
  let t: World;
  beforeAll(async () => {
    t = await h.world();
  });

  it('creates a top-level collection (201) matching the official schema', async () => {
    const res = await h.rest('createCollection', 'POST', `/v1/orgs/${t.owner.orgId}/collections`, {
      token: t.owner.token,
      body: { title: 'Handbook' },
    });
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
    await expectRefused(
      'createCollection',
      'POST',
      `/v1/orgs/${t.owner.orgId}/collections`,
      { token: t.owner.token, body: { title: 'x'.repeat(51) } },
      400,
      /title/,
    );
  });

  it('refuses a title that is not a string, and an unknown field, with 400', async () => {
    await expectRefused(
      'createCollection',
      'POST',
      `/v1/orgs/${t.owner.orgId}/collections`,
      { token: t.owner.token, body: { title: 42 } },
      400,
      /title/,
    );
    await expectRefused(
      'createCollection',
      'POST',
      `/v1/orgs/${t.owner.orgId}/collections`,
      { token: t.owner.token, body: { title: 'A', colour: 'red' } },
      400,
      /colour/,
    );
  });

  it('refuses malformed JSON and a non-object body with 400', async () => {
    await expectRefused(
      'createCollection',
      'POST',
      `/v1/orgs/${t.owner.orgId}/collections`,
      { token: t.owner.token, rawBody: '{"title": ' },
      400,
      /body/,
    );
    await expectRefused(
      'createCollection',
      'POST',
      `/v1/orgs/${t.owner.orgId}/collections`,
      { token: t.owner.token, rawBody: '["x"]' },
      400,
      /body/,
    );
  });

  it('refuses an unknown parent with 404 and an empty parent id with 400', async () => {
    await expectRefused(
      'createCollection',
      'POST',
      `/v1/orgs/${t.owner.orgId}/collections`,
      { token: t.owner.token, body: { title: 'A', parent: 'nope' } },
      404,
    );
    await expectRefused(
      'createCollection',
      'POST',
      `/v1/orgs/${t.owner.orgId}/collections`,
      { token: t.owner.token, body: { title: 'A', parent: '' } },
      400,
      /parent/,
    );
  });

  it('refuses a parent from another organization with 400 naming parent', async () => {
    const other = await h.user();
    // The owner administers both organizations, so the parent is visible but in the wrong place.
    const otherOrg = await h.owner('Other Org');
    await h.addMember(otherOrg.orgId, t.owner.id, 'admin');
    const foreign = await createCollection(otherOrg, otherOrg.orgId, { title: 'Foreign' });
    await expectRefused(
      'createCollection',
      'POST',
      `/v1/orgs/${t.owner.orgId}/collections`,
      { token: t.owner.token, body: { parent: foreign.id } },
      400,
      /parent/,
    );
    // A parent the caller cannot see at all is simply not found.
    await h.addMember(t.owner.orgId, other.id, 'admin');
    await expectRefused(
      'createCollection',
      'POST',
      `/v1/orgs/${t.owner.orgId}/collections`,
      { token: other.token, body: { parent: foreign.id } },
      404,
    );
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
    await expectRefused(
      'createCollection',
      'POST',
      `/v1/orgs/${t.owner.orgId}/collections`,
      { token: t.creator.token, body: { parent: parent.id } },
      403,
    );
  });
});

describe('GET /orgs/:organizationId/collections', () => {
  let t: World;
  let top1: any, top2: any, child: any, grandchild: any;
  beforeAll(async () => {
    t = await h.world();
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
    const res = await h.rest('listCollectionsInOrganizationById', 'GET', `/v1/orgs/${t.owner.orgId}/collections?nested=false`, {
      token: t.owner.token,
    });
    expect(res.body.items.map((c: any) => c.id)).toEqual([top1.id, top2.id]);
    expect(res.body.count).toBe(2);
  });

  it('pages with limit and next.page until the end', async () => {
    const seen: string[] = [];
    let page: string | undefined;
    for (let i = 0; i < 4; i++) {
      const res = await h.rest(
        'listCollectionsInOrganizationById',
        'GET',
        `/v1/orgs/${t.owner.orgId}/collections?limit=1${page ? `&page=${page}` : ''}`,
        { token: t.owner.token },
      );
      expect(res.body.count).toBe(4);
      expect(res.body.items).toHaveLength(1);
      seen.push(res.body.items[0].id);
      page = res.body.next?.page;
      if (i < 3) expect(page).toEqual(expect.any(String));
    }
    expect(page).toBeUndefined();
    expect(seen).toEqual(await listIds(t.owner.token, t.owner.orgId));
    const two = await h.rest('listCollectionsInOrganizationById', 'GET', `/v1/orgs/${t.owner.orgId}/collections?limit=2&nested=false`, {
      token: t.owner.token,
    });
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
  let t: World;
  let collection: any;
  beforeAll(async () => {
    t = await h.world();
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
    await h.db.prisma.member.update({
      where: { organizationId_userId: { organizationId: t.owner.orgId, userId: disabled.id } },
      data: { disabled: true },
    });
    await expectRefused('getCollectionById', 'GET', `/v1/collections/${collection.id}`, { token: disabled.token }, 404);
    await expectUnseenDelete(`/v1/collections/${collection.id}`, disabled.token);
    await expectRefused('getCollectionById', 'GET', `/v1/collections/${collection.id}`, {}, 401);
    await expectRefused('getCollectionById', 'GET', `/v1/collections/${collection.id}`, { token: t.outsider.token }, 404);
    await expectRefused('getCollectionById', 'GET', `/v1/collections/${collection.id}`, { token: t.guest.token }, 404);
  });
});

describe('PATCH /collections/:collectionId', () => {
  let t: World;
  let collection: any;
  beforeAll(async () => {
    t = await h.world();
    collection = await createCollection(t.owner, t.owner.orgId, { title: 'Before' });
  });
  const patch = (body: unknown, token = t.owner.token) =>
    h.rest('updateCollectionById', 'PATCH', `/v1/collections/${collection.id}`, { token, body });

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
    const list = await h.rest('listCollectionsInOrganizationById', 'GET', `/v1/orgs/${t.owner.orgId}/collections`, {
      token: t.owner.token,
    });
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
  let t: World;
  beforeAll(async () => {
    t = await h.world();
  });

  it('answers 205 when it deleted, then 404 (as for an unknown id)', async () => {
    const collection = await createCollection(t.owner, t.owner.orgId, { title: 'Doomed' });
    const deleted = await h.rest('deleteCollectionById', 'DELETE', `/v1/collections/${collection.id}`, { token: t.owner.token });
    expect(deleted.status).toBe(205);
    expect(deleted.body).toBeUndefined();
    expect((await getCollection(t.owner.token, collection.id)).status).toBe(404);
    expect(await listIds(t.owner.token, t.owner.orgId)).not.toContain(collection.id);
    const before = await h.snapshot();
    const again = await h.call('DELETE', `/v1/collections/${collection.id}`, { token: t.owner.token });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: { code: 404, message: 'Collection not found' } });
    expect((await h.call('DELETE', `/v1/collections/nope`, { token: t.owner.token })).body).toEqual(again.body);
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
    const spaces = await h.rest('listSpacesInOrganizationById', 'GET', `/v1/orgs/${t.owner.orgId}/spaces?limit=100`, {
      token: t.owner.token,
    });
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

  it('refuses no token (401), a reader and a creator (403); an outsider gets the 404 of a missing id; deleting nothing', async () => {
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
  let t: World;
  let collection: any, sub: any, s1: any, s2: any, s3: any, hidden: any, deleted: any, inSub: any;
  beforeAll(async () => {
    t = await h.world();
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
    const first = await h.rest('listSpacesInCollectionById', 'GET', `/v1/collections/${collection.id}/spaces?limit=3`, {
      token: t.owner.token,
    });
    expect(first.body.items.map((s: any) => s.id)).toEqual([s1.id, s2.id, s3.id]);
    expect(first.body.count).toBe(4);
    const second = await h.rest(
      'listSpacesInCollectionById',
      'GET',
      `/v1/collections/${collection.id}/spaces?limit=3&page=${first.body.next.page}`,
      { token: t.owner.token },
    );
    expect(second.body.items.map((s: any) => s.id)).toEqual([hidden.id]);
    expect(second.body.next).toBeUndefined();
  });

  it('refuses limit=0, a bad page (400) and an unknown collection (404)', async () => {
    await expectRefused(
      'listSpacesInCollectionById',
      'GET',
      `/v1/collections/${collection.id}/spaces?limit=0`,
      { token: t.owner.token },
      400,
      /limit/,
    );
    await expectRefused(
      'listSpacesInCollectionById',
      'GET',
      `/v1/collections/${collection.id}/spaces?page=%%%`,
      { token: t.owner.token },
      400,
      /page/,
    );
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
