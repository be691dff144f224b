/** Collections: move, transfer, visibility with no default level, the GraphQL face (setup in ./fixtures.ts). */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  h,
  type Owner,
  setupCollections,
  createCollection,
  createSpace,
  getCollection,
  listIds,
  expectUnseenDelete,
  expectRefused,
  positionOf,
} from './fixtures.js';
import type { World } from '../support/harness.js';

beforeAll(setupCollections);

describe('POST /collections/:collectionId/move', () => {
  let t: World;
  beforeAll(async () => {
    t = await h.world();
  });
  const move = (id: string, body: unknown, token = t.owner.token) =>
    h.rest('moveCollection', 'POST', `/v1/collections/${id}/move`, { token, body });

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
    const [c1, c2, c3] = [
      await createCollection(org, org.orgId, { title: '1' }),
      await createCollection(org, org.orgId, { title: '2' }),
      await createCollection(org, org.orgId, { title: '3' }),
    ];
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
    await expectRefused(
      'moveCollection',
      'POST',
      path,
      opts({ position: { before: { type: 'collection', collection: elsewhere.id } } }),
      400,
      /position\.before/,
    );
    await expectRefused(
      'moveCollection',
      'POST',
      path,
      opts({ position: { after: { type: 'space', space: nestedSpace.id } } }),
      400,
      /position\.after/,
    );
    await expectRefused(
      'moveCollection',
      'POST',
      path,
      opts({ position: { after: { type: 'space', space: 'nope' } } }),
      400,
      /position\.after/,
    );
    await expectRefused(
      'moveCollection',
      'POST',
      path,
      opts({ position: { after: { type: 'collection', collection: c.id } } }),
      400,
      /position\.after/,
    );
    await expectRefused(
      'moveCollection',
      'POST',
      path,
      opts({ position: { before: { type: 'collection', space: parent.id } } }),
      400,
      /position\.before/,
    );
    await expectRefused(
      'moveCollection',
      'POST',
      path,
      opts({ position: { before: { type: 'page', page: 'x' } } }),
      400,
      /position\.before/,
    );
    await expectRefused('moveCollection', 'POST', path, opts({ position: { before: { collection: parent.id } } }), 400, /position\.before/);
  });

  it('refuses a pointer whose type does not match the sibling it names with 400', async () => {
    const org = await h.owner('Pointer kinds');
    const s = await createSpace(org, org.orgId);
    const other = await createCollection(org, org.orgId, { title: 'Other' });
    const c = await createCollection(org, org.orgId, { title: 'C' });
    const path = `/v1/collections/${c.id}/move`;
    await expectRefused(
      'moveCollection',
      'POST',
      path,
      { token: org.token, body: { position: { before: { type: 'space', space: other.id } } } },
      400,
      /position\.before/,
    );
    await expectRefused(
      'moveCollection',
      'POST',
      path,
      { token: org.token, body: { position: { before: { type: 'collection', collection: s.id } } } },
      400,
      /position\.before/,
    );
  });

  it('refuses a move that changes nothing with 409', async () => {
    const org = await h.owner('No-op');
    const c1 = await createCollection(org, org.orgId, { title: '1' });
    const c2 = await createCollection(org, org.orgId, { title: '2' });
    const c3 = await createCollection(org, org.orgId, { title: '3' });
    const opts = (body: unknown) => ({ token: org.token, body });
    await expectRefused(
      'moveCollection',
      'POST',
      `/v1/collections/${c2.id}/move`,
      opts({ position: { after: { type: 'collection', collection: c1.id } } }),
      409,
    );
    await expectRefused(
      'moveCollection',
      'POST',
      `/v1/collections/${c2.id}/move`,
      opts({ position: { before: { type: 'collection', collection: c3.id } } }),
      409,
    );
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
    await expectRefused(
      'moveCollection',
      'POST',
      `/v1/collections/${c.id}/move`,
      { token: t.creator.token, body: { parent: target.id } },
      403,
    );
  });
});

describe('POST /collections/:collectionId/transfer', () => {
  let t: World;
  let target: Owner;
  beforeAll(async () => {
    t = await h.world();
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
    await expectRefused(
      'transferCollection',
      'POST',
      `/v1/collections/${c.id}/transfer`,
      { token: t.owner.token, body: { organization: t.owner.orgId } },
      409,
    );
  });

  it('refuses with 412, changing nothing, when a space inside (at any depth) is synchronised with Git', async () => {
    const root = await createCollection(t.owner, t.owner.orgId, { title: 'Synced root' });
    const child = await createCollection(t.owner, t.owner.orgId, { title: 'Synced child', parent: root.id });
    await createSpace(t.owner, t.owner.orgId, { parent: root.id });
    const synced = await createSpace(t.owner, t.owner.orgId, { parent: child.id });
    await h.db.prisma.space.update({
      where: { id: synced.id },
      data: { gitSync: { repoName: 'acme/docs', installationProvider: 'github' } },
    });
    await expectRefused(
      'transferCollection',
      'POST',
      `/v1/collections/${root.id}/transfer`,
      { token: t.owner.token, body: { organization: target.orgId } },
      412,
    );
    await expectRefused(
      'transferCollection',
      'POST',
      `/v1/collections/${child.id}/transfer`,
      { token: t.owner.token, body: { organization: target.orgId } },
      412,
    );
  });

  it('refuses an unknown collection and an unknown organization with 404', async () => {
    const c = await createCollection(t.owner, t.owner.orgId, { title: 'C' });
    await expectRefused(
      'transferCollection',
      'POST',
      `/v1/collections/nope/transfer`,
      { token: t.owner.token, body: { organization: target.orgId } },
      404,
    );
    await expectRefused(
      'transferCollection',
      'POST',
      `/v1/collections/${c.id}/transfer`,
      { token: t.owner.token, body: { organization: 'nope' } },
      404,
    );
  });

  it('refuses a body without organization with 400 naming it', async () => {
    const c = await createCollection(t.owner, t.owner.orgId, { title: 'C' });
    await expectRefused(
      'transferCollection',
      'POST',
      `/v1/collections/${c.id}/transfer`,
      { token: t.owner.token, body: {} },
      400,
      /organization/,
    );
    await expectRefused(
      'transferCollection',
      'POST',
      `/v1/collections/${c.id}/transfer`,
      { token: t.owner.token, body: { organization: null } },
      400,
      /organization/,
    );
  });

  it('refuses a target organization where the caller is a member but not admin (403) or not a member (404)', async () => {
    const c = await createCollection(t.owner, t.owner.orgId, { title: 'C' });
    const memberOrg = await h.owner('Member Org');
    await h.addMember(memberOrg.orgId, t.owner.id, 'create');
    const strangerOrg = await h.owner('Stranger Org');
    await expectRefused(
      'transferCollection',
      'POST',
      `/v1/collections/${c.id}/transfer`,
      { token: t.owner.token, body: { organization: memberOrg.orgId } },
      403,
    );
    await expectRefused(
      'transferCollection',
      'POST',
      `/v1/collections/${c.id}/transfer`,
      { token: t.owner.token, body: { organization: strangerOrg.orgId } },
      404,
    );
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
  let t: World;
  let secret: any, secretChild: any, openChild: any, inheriting: any, explicit: any, open: any, openSpace: any;
  beforeAll(async () => {
    t = await h.world();
    open = await createCollection(t.owner, t.owner.orgId, { title: 'Open' });
    openSpace = await createSpace(t.owner, t.owner.orgId, { parent: open.id });
    secret = await createCollection(t.owner, t.owner.orgId, { title: 'Secret' });
    await h.rest('updateCollectionById', 'PATCH', `/v1/collections/${secret.id}`, { token: t.owner.token, body: { defaultLevel: null } });
    secretChild = await createCollection(t.owner, t.owner.orgId, { title: 'Secret child', parent: secret.id });
    openChild = await createCollection(t.owner, t.owner.orgId, { title: 'Explicitly open child', parent: secret.id });
    await h.rest('updateCollectionById', 'PATCH', `/v1/collections/${openChild.id}`, {
      token: t.owner.token,
      body: { defaultLevel: 'read' },
    });
    inheriting = await createSpace(t.owner, t.owner.orgId, { title: 'Inheriting', parent: secret.id });
    explicit = await createSpace(t.owner, t.owner.orgId, { title: 'Explicit', parent: secret.id });
    await h.rest('updateSpaceById', 'PATCH', `/v1/spaces/${explicit.id}`, { token: t.owner.token, body: { defaultLevel: 'read' } });
  });

  it('a reader gets 404 for it and for sub-collections that inherit from it', async () => {
    await expectRefused('getCollectionById', 'GET', `/v1/collections/${secret.id}`, { token: t.reader.token }, 404);
    await expectRefused('getCollectionById', 'GET', `/v1/collections/${secretChild.id}`, { token: t.reader.token }, 404);
    await expectRefused('listSpacesInCollectionById', 'GET', `/v1/collections/${secret.id}/spaces`, { token: t.reader.token }, 404);
    await expectRefused(
      'updateCollectionById',
      'PATCH',
      `/v1/collections/${secret.id}`,
      { token: t.reader.token, body: { title: 'x' } },
      404,
    );
    await expectUnseenDelete(`/v1/collections/${secret.id}`, t.reader.token);
    // A child with its own level is visible.
    expect(
      (await h.rest('getCollectionById', 'GET', `/v1/collections/${openChild.id}`, { token: t.reader.token })).body.permissions.view,
    ).toBe(true);
  });

  it('a reader does not find it in the list (and counts agree)', async () => {
    const res = await h.rest('listCollectionsInOrganizationById', 'GET', `/v1/orgs/${t.owner.orgId}/collections`, {
      token: t.reader.token,
    });
    expect(res.body.items.map((c: any) => c.id).sort()).toEqual([open.id, openChild.id].sort());
    expect(res.body.count).toBe(2);
    const top = await h.rest('listCollectionsInOrganizationById', 'GET', `/v1/orgs/${t.owner.orgId}/collections?nested=false`, {
      token: t.reader.token,
    });
    expect(top.body.items.map((c: any) => c.id)).toEqual([open.id]);
    // The owner sees everything.
    expect(await listIds(t.owner.token, t.owner.orgId)).toHaveLength(4);
  });

  it('a reader cannot see its spaces that inherit, but sees one with its own level', async () => {
    expect((await h.call('GET', `/v1/spaces/${inheriting.id}`, { token: t.reader.token })).status).toBe(404);
    expect((await h.call('GET', `/v1/spaces/${explicit.id}`, { token: t.reader.token })).status).toBe(200);
    const res = await h.rest('listSpacesInOrganizationById', 'GET', `/v1/orgs/${t.owner.orgId}/spaces?limit=100`, {
      token: t.reader.token,
    });
    const ids = res.body.items.map((s: any) => s.id);
    expect(ids).not.toContain(inheriting.id);
    expect(ids).toContain(explicit.id);
    expect(ids).toContain(openSpace.id);
  });

  it('an admin and a member raised by the collection level see it', async () => {
    expect(
      (await h.rest('getCollectionById', 'GET', `/v1/collections/${secret.id}`, { token: t.owner.token })).body.defaultLevel,
    ).toBeNull();
    const raised = await createCollection(t.owner, t.owner.orgId, { title: 'Raised' });
    await h.rest('updateCollectionById', 'PATCH', `/v1/collections/${raised.id}`, {
      token: t.owner.token,
      body: { defaultLevel: 'admin' },
    });
    const asReader = await h.rest('getCollectionById', 'GET', `/v1/collections/${raised.id}`, { token: t.reader.token });
    expect(asReader.body.permissions).toEqual({ view: true, admin: true, viewInviteLinks: true, create: true });
    await h.rest('deleteCollectionById', 'DELETE', `/v1/collections/${raised.id}`, { token: t.owner.token });
  });
});

describe('GraphQL', () => {
  let t: World;
  beforeAll(async () => {
    t = await h.world();
  });
  const FIELDS =
    'id title description organization parent defaultLevel permissions { view admin create viewInviteLinks } urls { location app }';

  it('creates, reads, lists, updates, moves and deletes collections', async () => {
    const created = await h.graphql(
      t.owner.token,
      `mutation($org: ID!, $input: CreateCollectionInput) { createCollection(organizationId: $org, input: $input) { ${FIELDS} } }`,
      {
        org: t.owner.orgId,
        input: { title: 'GQL' },
      },
    );
    expect(created.body.errors).toBeUndefined();
    const c = created.body.data.createCollection;
    expect(c).toMatchObject({ title: 'GQL', organization: t.owner.orgId, parent: null, defaultLevel: 'inherit', description: null });

    const child = (
      await h.graphql(
        t.owner.token,
        `mutation($org: ID!, $input: CreateCollectionInput) { createCollection(organizationId: $org, input: $input) { id parent } }`,
        {
          org: t.owner.orgId,
          input: { title: 'GQL child', parent: c.id },
        },
      )
    ).body.data.createCollection;
    expect(child.parent).toBe(c.id);
    await createSpace(t.owner, t.owner.orgId, { parent: c.id });

    const read = await h.graphql(
      t.owner.token,
      `query($id: ID!) { collection(id: $id) { ${FIELDS} spaces(limit: 10) { count items { id parent } } } }`,
      { id: c.id },
    );
    expect(read.body.data.collection).toMatchObject({ id: c.id, spaces: { count: 1, items: [{ parent: c.id }] } });

    const list = await h.graphql(
      t.owner.token,
      `query($org: ID!) { organization(id: $org) { all: collections { count items { id } } top: collections(nested: false, limit: 1) { count items { id } next { page } } } }`,
      { org: t.owner.orgId },
    );
    expect(list.body.data.organization.all.count).toBe(2);
    expect(list.body.data.organization.top).toEqual({ count: 1, items: [{ id: c.id }], next: null });

    const updated = await h.graphql(
      t.owner.token,
      `mutation($id: ID!, $input: UpdateCollectionInput!) { updateCollection(id: $id, input: $input) { title description defaultLevel } }`,
      {
        id: c.id,
        input: { title: 'Renamed', description: 'About', defaultLevel: null },
      },
    );
    expect(updated.body.data.updateCollection).toEqual({ title: 'Renamed', description: 'About', defaultLevel: null });

    const moved = await h.graphql(
      t.owner.token,
      `mutation($id: ID!, $input: MoveCollectionInput!) { moveCollection(id: $id, input: $input) { id parent } }`,
      {
        id: child.id,
        input: { parent: null },
      },
    );
    expect(moved.body.data.moveCollection).toEqual({ id: child.id, parent: null });

    const del = `mutation($id: ID!) { deleteCollection(id: $id) }`;
    expect((await h.graphql(t.owner.token, del, { id: c.id })).body.data.deleteCollection).toBe(true);
    expect((await h.graphql(t.owner.token, del, { id: c.id })).body.errors.map((e: any) => e.extensions.code)).toEqual(['NOT_FOUND']);
  });

  it('transfers a collection to another organization', async () => {
    const other = await h.owner('GQL target');
    await h.addMember(other.orgId, t.owner.id, 'admin');
    const c = await createCollection(t.owner, t.owner.orgId, { title: 'To transfer' });
    const res = await h.graphql(
      t.owner.token,
      `mutation($id: ID!, $org: ID!) { transferCollection(id: $id, input: { organization: $org }) { id organization } }`,
      {
        id: c.id,
        org: other.orgId,
      },
    );
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
    expect(await codeOf(t.owner.token, update, { id: c.id, input: { title: 'x'.repeat(51) } })).toEqual({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('title'),
    });
    expect((await codeOf(t.reader.token, update, { id: c.id, input: { title: 'x' } })).code).toBe('FORBIDDEN');
    expect((await codeOf(t.outsider.token, update, { id: c.id, input: { title: 'x' } })).code).toBe('NOT_FOUND');
    expect((await codeOf(t.owner.token, `query($id: ID!) { collection(id: $id) { id } }`, { id: 'nope' })).code).toBe('NOT_FOUND');
    expect(
      (
        await codeOf(t.owner.token, `query($org: ID!) { organization(id: $org) { collections(limit: 0) { count } } }`, {
          org: t.owner.orgId,
        })
      ).code,
    ).toBe('BAD_REQUEST');
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
