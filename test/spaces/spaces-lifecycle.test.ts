/** Spaces: delete, duplicate, restore (and the purge), move within and transfer between organizations. */
import { beforeAll, describe, expect, it } from 'vitest';
import { purgeDeletedSpaces } from '../../src/modules/spaces/service.js';
import { newId } from '../../src/ids.js';
import {
  type Owner,
  h,
  owner,
  reader,
  creator,
  editor,
  outsider,
  DAY,
  SPACE_OPERATIONS,
  setupSpaces,
  newSpace,
  newCollection,
  freshOrg,
  getSpace,
  orgSpaceIds,
  collectionSpaceIds,
  refused,
  spaceRow,
  deletedAgo,
} from './fixtures.js';

beforeAll(setupSpaces);

describe('DELETE /spaces/:spaceId', () => {
  it('deletes (205) then answers 204; the space leaves the lists and keeps its row with deletedAt', async () => {
    const collection = await newCollection();
    const space = await newSpace({ title: 'Doomed', parent: collection.id });
    expect(await orgSpaceIds(owner)).toContain(space.id);
    const deleted = await h.rest('deleteSpaceById', 'DELETE', `/v1/spaces/${space.id}`, { token: owner.token });
    expect(deleted.status).toBe(205);
    expect(deleted.body).toBeUndefined();
    const again = await h.rest('deleteSpaceById', 'DELETE', `/v1/spaces/${space.id}`, { token: owner.token });
    expect(again.status).toBe(204);
    expect(again.body).toBeUndefined();
    expect((await spaceRow(space.id))!.deletedAt!.getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(await orgSpaceIds(owner)).not.toContain(space.id);
    expect(await collectionSpaceIds(collection.id)).toEqual([]);
    // The deleted space no longer takes part in the ordering of its siblings.
    const pointer = await h.call('POST', `/v1/spaces/${(await newSpace({ parent: collection.id })).id}/move`, {
      token: owner.token,
      body: { position: { before: { type: 'space', space: space.id } } },
    });
    expect(pointer.status).toBe(400);
  });

  it('answers 404 for an unknown space, changing nothing', async () => {
    await refused(404, () => h.call('DELETE', `/v1/spaces/${newId()}`, { token: owner.token }), /^Space not found$/);
  });

  it('refuses without a token (401), members below admin (403); an outsider gets the 404 of a missing id; changing nothing', async () => {
    const space = await newSpace({ title: 'Kept' });
    const del =
      (user: { token: string } | null, id = space.id) =>
      () =>
        h.call('DELETE', `/v1/spaces/${id}`, { token: user?.token ?? null });
    await refused(401, del(null));
    // The same answer as for an id that never existed: the outsider learns nothing.
    const unseen = await refused(404, del(outsider));
    expect(unseen.body).toEqual((await del(outsider, newId())()).body);
    for (const member of [reader, editor, creator]) await refused(403, del(member));
    // Deleted already: its admin still sees it (restorable): 204; to an outsider it is as missing as before.
    await h.call('DELETE', `/v1/spaces/${space.id}`, { token: owner.token });
    expect((await del(outsider)()).body).toEqual(unseen.body);
    await refused(403, del(reader));
    await h.call('POST', `/v1/spaces/${space.id}/restore`, { token: owner.token });
    await h.db.prisma.space.update({ where: { id: space.id }, data: { visibility: 'public' } });
    await refused(403, del(outsider));
    expect((await spaceRow(space.id))!.deletedAt).toBeNull();
  });
});

describe('POST /spaces/:spaceId/duplicate', () => {
  it('creates a copy (201) beside the source with a new id, "(copy)" title, same parent and settings', async () => {
    const collection = await newCollection();
    const source = await newSpace({ title: 'Original', emoji: '📘', parent: collection.id, language: 'pt-br', editMode: 'locked' });
    await h.rest('updateSpaceById', 'PATCH', `/v1/spaces/${source.id}`, {
      token: owner.token,
      body: { defaultLevel: 'review', mergeRules: { type: 'rules', rules: [{ rule: 'require_at_least_one_review' }] } },
    });
    await h.db.prisma.space.update({
      where: { id: source.id },
      data: { gitSync: { repoName: 'acme/docs', installationProvider: 'github', installationId: 'inst-1', installationStatus: 'active' } },
    });
    const res = await h.rest('duplicateSpace', 'POST', `/v1/spaces/${source.id}/duplicate`, { token: owner.token });
    expect(res.status).toBe(201);
    const copy = res.body;
    expect(copy.id).not.toBe(source.id);
    expect(copy.revision).not.toBe(source.revision);
    expect(copy).toMatchObject({
      title: 'Original (copy)',
      emoji: '📘',
      parent: collection.id,
      organization: owner.orgId,
      language: 'pt-br',
      editMode: 'locked',
      defaultLevel: 'review',
      mergeRules: { type: 'rules', rules: [{ rule: 'require_at_least_one_review' }] },
    });
    expect(copy).not.toHaveProperty('gitSync');
    expect(await h.db.prisma.revision.findUnique({ where: { id: copy.revision } })).toMatchObject({
      spaceId: copy.id,
      parents: [source.revision],
    });
    expect(await collectionSpaceIds(collection.id)).toEqual([source.id, copy.id]);
    // The source is unchanged.
    expect((await getSpace(source.id)).body).toMatchObject({ title: 'Original', gitSync: { repoName: 'acme/docs' } });
  });

  it('keeps "(copy)" visible and the title within 50 characters', async () => {
    const source = await newSpace({ title: 'T'.repeat(50) });
    const copy = (await h.rest('duplicateSpace', 'POST', `/v1/spaces/${source.id}/duplicate`, { token: owner.token })).body;
    expect([...copy.title]).toHaveLength(50);
    expect(copy.title).toBe(`${'T'.repeat(43)} (copy)`);
  });

  it('answers 404 for an unknown or deleted space, changing nothing', async () => {
    await refused(404, () => h.call('POST', `/v1/spaces/${newId()}/duplicate`, { token: owner.token }), /Space not found/);
    const space = await newSpace();
    await h.call('DELETE', `/v1/spaces/${space.id}`, { token: owner.token });
    await refused(404, () => h.call('POST', `/v1/spaces/${space.id}/duplicate`, { token: owner.token }), /Space not found/);
  });

  it('refuses without a token (401), an outsider (404), a read or edit member (403)', async () => {
    const space = await newSpace({ title: 'Precious' });
    const dup = (user: { token: string } | null) => () =>
      h.call('POST', `/v1/spaces/${space.id}/duplicate`, { token: user?.token ?? null });
    await refused(401, dup(null));
    await refused(404, dup(outsider));
    await refused(403, dup(reader), /create/);
    await refused(403, dup(editor), /create/);
    // Readable through being public is not enough to copy it into an organization one is not part of.
    await h.db.prisma.space.update({ where: { id: space.id }, data: { visibility: 'public' } });
    await refused(404, dup(outsider));
  });

  it('lets a create member duplicate, but not into a collection where they may only read (403)', async () => {
    const space = await newSpace({ title: 'Top level' });
    const res = await h.rest('duplicateSpace', 'POST', `/v1/spaces/${space.id}/duplicate`, { token: creator.token });
    expect(res.status).toBe(201);
    const readOnly = await newCollection({ title: 'Read only' });
    const inside = await newSpace({ title: 'Inside', parent: readOnly.id });
    await h.db.prisma.collection.update({ where: { id: readOnly.id }, data: { defaultLevel: 'read' } });
    expect((await getSpace(inside.id, creator)).status).toBe(200);
    await refused(403, () => h.call('POST', `/v1/spaces/${inside.id}/duplicate`, { token: creator.token }));
  });
});

describe('POST /spaces/:spaceId/restore', () => {
  it('restores a space deleted less than 7 days ago; it is back in the lists', async () => {
    const collection = await newCollection();
    const space = await newSpace({ title: 'Back', parent: collection.id });
    await h.call('DELETE', `/v1/spaces/${space.id}`, { token: owner.token });
    await deletedAgo(space.id, 6 * DAY);
    const res = await h.rest('restoreSpace', 'POST', `/v1/spaces/${space.id}/restore`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: space.id, title: 'Back', parent: collection.id });
    expect(res.body).not.toHaveProperty('deletedAt');
    expect((await spaceRow(space.id))!.deletedAt).toBeNull();
    expect(await orgSpaceIds(owner)).toContain(space.id);
    expect(await collectionSpaceIds(collection.id)).toEqual([space.id]);
    expect((await getSpace(space.id, reader)).status).toBe(200);
  });

  it('answers 404 for a space deleted 8 days ago, which purgeDeletedSpaces then removes for good', async () => {
    const expired = await newSpace({ title: 'Expired' });
    const recent = await newSpace({ title: 'Recent' });
    const live = await newSpace({ title: 'Live' });
    await h.db.prisma.changeRequest.create({ data: { id: newId(), spaceId: expired.id, number: 1 } });
    await h.call('DELETE', `/v1/spaces/${expired.id}`, { token: owner.token });
    await h.call('DELETE', `/v1/spaces/${recent.id}`, { token: owner.token });
    await deletedAgo(expired.id, 8 * DAY);
    await deletedAgo(recent.id, 6 * DAY);
    await refused(404, () => h.call('POST', `/v1/spaces/${expired.id}/restore`, { token: owner.token }), /Space not found/);

    expect(await purgeDeletedSpaces(h.db.prisma, h.config.spaceRetentionMs)).toBeGreaterThanOrEqual(1);
    expect(await spaceRow(expired.id)).toBeNull();
    expect(await h.db.prisma.revision.findMany({ where: { spaceId: expired.id } })).toEqual([]);
    expect(await h.db.prisma.changeRequest.findMany({ where: { spaceId: expired.id } })).toEqual([]);
    expect(await spaceRow(recent.id)).not.toBeNull();
    expect(await spaceRow(live.id)).toMatchObject({ deletedAt: null });
    await refused(404, () => h.call('POST', `/v1/spaces/${expired.id}/restore`, { token: owner.token }));
    await refused(404, () => getSpace(expired.id));
    // Purged: gone for good, so a 404 like any id that names nothing.
    expect((await h.call('DELETE', `/v1/spaces/${expired.id}`, { token: owner.token })).status).toBe(404);
    // Nothing else is past its retention now.
    expect(await purgeDeletedSpaces(h.db.prisma, h.config.spaceRetentionMs)).toBe(0);
    expect((await h.rest('restoreSpace', 'POST', `/v1/spaces/${recent.id}/restore`, { token: owner.token })).status).toBe(200);
  });

  it('answers 404 for a live or unknown space, changing nothing', async () => {
    const space = await newSpace();
    await refused(404, () => h.call('POST', `/v1/spaces/${space.id}/restore`, { token: owner.token }));
    await refused(404, () => h.call('POST', `/v1/spaces/${newId()}/restore`, { token: owner.token }));
  });

  it('refuses without a token (401), an outsider (404), a member below admin (403)', async () => {
    const space = await newSpace({ title: 'Deleted' });
    await h.call('DELETE', `/v1/spaces/${space.id}`, { token: owner.token });
    const restore = (user: { token: string } | null) => () =>
      h.call('POST', `/v1/spaces/${space.id}/restore`, { token: user?.token ?? null });
    await refused(401, restore(null));
    await refused(404, restore(outsider));
    for (const member of [reader, creator]) await refused(403, restore(member));
    expect((await spaceRow(space.id))!.deletedAt).not.toBeNull();
  });
});

describe('POST /spaces/:spaceId/move', () => {
  const move = (id: string, body: unknown, user: { token: string } | null = owner) =>
    h.call('POST', `/v1/spaces/${id}/move`, { token: user?.token ?? null, body });
  const moveOk = async (id: string, body: unknown, user: { token: string } = owner) => {
    const res = await h.rest('moveSpace', 'POST', `/v1/spaces/${id}/move`, { token: user.token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };

  it('moves a space into a collection and back to the top level', async () => {
    const { admin } = await freshOrg();
    const collection = await newCollection({ title: 'Box' }, admin);
    const space = await newSpace({ title: 'Mover' }, admin);
    const moved = await moveOk(space.id, { parent: collection.id }, admin);
    expect(moved).toMatchObject({ id: space.id, parent: collection.id });
    expect((await spaceRow(space.id))!.parentId).toBe(collection.id);
    expect(await collectionSpaceIds(collection.id, admin)).toEqual([space.id]);
    const back = await moveOk(space.id, { parent: null }, admin);
    expect(back).not.toHaveProperty('parent');
    expect((await spaceRow(space.id))!.parentId).toBeNull();
    expect(await collectionSpaceIds(collection.id, admin)).toEqual([]);
  });

  it('reorders with before/after pointers, as the lists show', async () => {
    const { admin } = await freshOrg();
    const [a, b, c, d] = [
      await newSpace({ title: 'A' }, admin),
      await newSpace({ title: 'B' }, admin),
      await newSpace({ title: 'C' }, admin),
      await newSpace({ title: 'D' }, admin),
    ];
    const order = async () => (await orgSpaceIds(admin)).map((id) => ({ [a.id]: 'A', [b.id]: 'B', [c.id]: 'C', [d.id]: 'D' })[id]).join('');
    expect(await order()).toBe('ABCD');
    await moveOk(d.id, { position: { before: { type: 'space', space: a.id } } }, admin);
    expect(await order()).toBe('DABC');
    await moveOk(d.id, { position: { after: { type: 'space', space: b.id } } }, admin);
    expect(await order()).toBe('ABDC');
    await moveOk(a.id, { position: { after: { type: 'space', space: c.id } } }, admin);
    expect(await order()).toBe('BDCA');
    await moveOk(c.id, { position: { before: { type: 'space', space: d.id } } }, admin);
    expect(await order()).toBe('BCDA');
    // A position without a pointer moves to the end.
    await moveOk(b.id, { position: {} }, admin);
    expect(await order()).toBe('CDAB');

    // Collections share the ordering: before a collection that sits between spaces.
    const collection = await newCollection({ title: 'Between' }, admin);
    const e = await newSpace({ title: 'E' }, admin);
    await moveOk(e.id, { position: { before: { type: 'collection', collection: collection.id } } }, admin);
    expect((await orgSpaceIds(admin)).at(-1)).toBe(e.id);
    await moveOk(c.id, { position: { after: { type: 'collection', collection: collection.id } } }, admin);
    expect((await orgSpaceIds(admin)).at(-1)).toBe(c.id);

    // Into a collection at a given place among its spaces.
    const x = await newSpace({ title: 'X', parent: collection.id }, admin);
    const y = await newSpace({ title: 'Y', parent: collection.id }, admin);
    await moveOk(a.id, { parent: collection.id, position: { after: { type: 'space', space: x.id } } }, admin);
    expect(await collectionSpaceIds(collection.id, admin)).toEqual([x.id, a.id, y.id]);
    await moveOk(y.id, { position: { before: { type: 'space', space: x.id } } }, admin);
    expect(await collectionSpaceIds(collection.id, admin)).toEqual([y.id, x.id, a.id]);
  });

  it('answers 409 for a move that would change nothing, changing nothing', async () => {
    const { admin } = await freshOrg();
    const collection = await newCollection({ title: 'Box' }, admin);
    const a = await newSpace({ title: 'A', parent: collection.id }, admin);
    const b = await newSpace({ title: 'B', parent: collection.id }, admin);
    const c = await newSpace({ title: 'C', parent: collection.id }, admin);
    const conflict = (id: string, body: unknown) =>
      refused(409, () => h.rest('moveSpace', 'POST', `/v1/spaces/${id}/move`, { token: admin.token, body }));
    await conflict(b.id, { position: { after: { type: 'space', space: a.id } } });
    await conflict(b.id, { position: { before: { type: 'space', space: c.id } } });
    await conflict(a.id, { position: { before: { type: 'space', space: b.id } } });
    await conflict(c.id, { parent: collection.id });
    await conflict(c.id, { position: {} });
    await conflict(c.id, { parent: collection.id, position: { after: { type: 'space', space: b.id } } });
    const top = await newSpace({ title: 'Top' }, admin);
    await conflict(top.id, { parent: null });
  });

  it.each([
    [
      'a pointer to a space of another parent',
      (s: Ctx) => ({ position: { before: { type: 'space', space: s.elsewhere } } }),
      'position.before',
    ],
    [
      'a pointer to a collection that is not a sibling',
      (s: Ctx) => ({ position: { after: { type: 'collection', collection: s.subCollection } } }),
      'position.after',
    ],
    ['a pointer to the space itself', (s: Ctx) => ({ position: { before: { type: 'space', space: s.space } } }), 'position.before'],
    ['a pointer to an unknown space', () => ({ position: { after: { type: 'space', space: newId() } } }), 'position.after'],
    ['a pointer without its id', () => ({ position: { before: { type: 'space' } } }), 'position.before'],
    ['a pointer of an unknown type', (s: Ctx) => ({ position: { before: { type: 'page', space: s.sibling } } }), 'position.before'],
    ['a pointer without a type', (s: Ctx) => ({ position: { before: { space: s.sibling } } }), 'position.before'],
    [
      'a pointer into the new parent that stays in the old one',
      (s: Ctx) => ({ parent: s.collection, position: { before: { type: 'space', space: s.sibling } } }),
      'position.before',
    ],
    ['an empty body', () => ({}), 'body'],
    ['a parent of another organization', (s: Ctx) => ({ parent: s.foreign }), 'parent'],
    ['a parent that is not a string', () => ({ parent: { id: 'x' } }), 'parent'],
  ])('answers 400 for %s, naming the field, changing nothing', async (_name, body, field) => {
    const s = await moveFixture();
    const escaped = field.replace(/[.[\]]/g, '\\$&');
    await refused(
      400,
      () => h.rest('moveSpace', 'POST', `/v1/spaces/${s.space}/move`, { token: s.admin.token, body: body(s) }),
      new RegExp(`^${escaped}\\b`),
    );
  });

  it('answers 404 for an unknown parent collection, an unknown or deleted space', async () => {
    const s = await moveFixture();
    await refused(
      404,
      () => h.rest('moveSpace', 'POST', `/v1/spaces/${s.space}/move`, { token: s.admin.token, body: { parent: newId() } }),
      /collection/i,
    );
    await refused(
      404,
      () => h.rest('moveSpace', 'POST', `/v1/spaces/${s.space}/move`, { token: s.admin.token, body: { parent: '' } }),
      /collection/i,
    );
    await refused(
      404,
      () => h.rest('moveSpace', 'POST', `/v1/spaces/${newId()}/move`, { token: s.admin.token, body: { parent: null } }),
      /Space not found/,
    );
    await h.call('DELETE', `/v1/spaces/${s.sibling}`, { token: s.admin.token });
    await refused(
      404,
      () => h.rest('moveSpace', 'POST', `/v1/spaces/${s.sibling}/move`, { token: s.admin.token, body: { parent: s.collection } }),
      /Space not found/,
    );
  });

  it('refuses without a token (401), an outsider (404), members below admin (403)', async () => {
    const space = await newSpace({ title: 'Still' });
    const collection = await newCollection();
    const body = { parent: collection.id };
    await refused(401, () => move(space.id, body, null));
    await refused(404, () => move(space.id, body, outsider));
    for (const member of [reader, editor, creator]) await refused(403, () => move(space.id, body, member));
  });

  it('needs the create role on the target collection (403 when only readable, 404 when hidden)', async () => {
    const space = await newSpace({ title: 'Reader owns it' });
    await h.db.prisma.space.update({ where: { id: space.id }, data: { defaultLevel: 'admin' } });
    const readable = await newCollection({ title: 'Readable' });
    const hidden = await newCollection({ title: 'Hidden' });
    await h.db.prisma.collection.update({ where: { id: hidden.id }, data: { defaultLevel: null } });
    await refused(403, () => move(space.id, { parent: readable.id }, reader));
    await refused(404, () => move(space.id, { parent: hidden.id }, reader), /collection/i);
    // It is theirs to reorder among its top-level siblings.
    const sibling = await newSpace({ title: 'Sibling' });
    await moveOk(space.id, { position: { after: { type: 'space', space: sibling.id } } }, reader);
  });
});

interface Ctx {
  admin: Owner;
  space: string;
  sibling: string;
  collection: string;
  subCollection: string;
  elsewhere: string;
  foreign: string;
}

/** An organization with two top-level spaces and a collection holding a space and a sub-collection; a collection of another organization the admin also administers. */
async function moveFixture(): Promise<Ctx> {
  const { admin } = await freshOrg('Move fixture');
  const space = await newSpace({ title: 'Space' }, admin);
  const sibling = await newSpace({ title: 'Sibling' }, admin);
  const collection = await newCollection({ title: 'Nested' }, admin);
  const elsewhere = await newSpace({ title: 'Elsewhere', parent: collection.id }, admin);
  const subCollection = await newCollection({ title: 'Sub', parent: collection.id }, admin);
  const other = await h.owner('Foreign');
  await h.addMember(other.orgId, admin.id, 'admin');
  const foreign = await newCollection({ title: 'Foreign' }, other);
  return {
    admin,
    space: space.id,
    sibling: sibling.id,
    collection: collection.id,
    subCollection: subCollection.id,
    elsewhere: elsewhere.id,
    foreign: foreign.id,
  };
}

describe('POST /spaces/:spaceId/transfer', () => {
  /** The main owner also administers a second organization. */
  async function target() {
    const other = await h.owner('Target Org');
    await h.addMember(other.orgId, owner.id, 'admin');
    return other;
  }
  const transfer = (id: string, body: unknown, user: { token: string } | null = owner) =>
    h.call('POST', `/v1/spaces/${id}/transfer`, { token: user?.token ?? null, body });

  it('moves a space to the top level of another organization the caller administers', async () => {
    const other = await target();
    const existing = await newSpace({ title: 'Already there' }, other);
    const collection = await newCollection();
    const space = await newSpace({ title: 'Traveller', parent: collection.id });
    const res = await h.rest('transferSpace', 'POST', `/v1/spaces/${space.id}/transfer`, {
      token: owner.token,
      body: { organization: other.orgId },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: space.id, organization: other.orgId, title: 'Traveller' });
    expect(res.body).not.toHaveProperty('parent');
    expect(await spaceRow(space.id)).toMatchObject({ organizationId: other.orgId, parentId: null });
    expect(await orgSpaceIds(owner)).not.toContain(space.id);
    expect(await collectionSpaceIds(collection.id)).not.toContain(space.id);
    expect(await orgSpaceIds(other)).toEqual([existing.id, space.id]);
    // Its former organization's members lose it with the move; the target's gain it.
    await refused(404, () => getSpace(space.id, reader));
    expect((await getSpace(space.id, other)).body.permissions.admin).toBe(true);
  });

  it('answers 409 for a transfer to its own organization', async () => {
    const space = await newSpace();
    await refused(409, () =>
      h.rest('transferSpace', 'POST', `/v1/spaces/${space.id}/transfer`, { token: owner.token, body: { organization: owner.orgId } }),
    );
  });

  it('answers 412 for a space synchronised with Git', async () => {
    const other = await target();
    const space = await newSpace({ title: 'Synced' });
    await h.db.prisma.space.update({
      where: { id: space.id },
      data: { gitSync: { repoName: 'acme/docs', installationProvider: 'github', installationId: 'inst-1', installationStatus: 'active' } },
    });
    await refused(
      412,
      () => h.rest('transferSpace', 'POST', `/v1/spaces/${space.id}/transfer`, { token: owner.token, body: { organization: other.orgId } }),
      /Git/,
    );
  });

  it('answers 404 for an unknown space or organization, 400 without an organization', async () => {
    const space = await newSpace();
    const other = await target();
    await refused(
      404,
      () => h.rest('transferSpace', 'POST', `/v1/spaces/${newId()}/transfer`, { token: owner.token, body: { organization: other.orgId } }),
      /Space/,
    );
    await refused(
      404,
      () => h.rest('transferSpace', 'POST', `/v1/spaces/${space.id}/transfer`, { token: owner.token, body: { organization: newId() } }),
      /Organization/,
    );
    await refused(400, () => transfer(space.id, {}), /organization/);
    await refused(400, () => transfer(space.id, { organization: null }), /organization/);
    await refused(400, () => transfer(space.id, { organization: ['x'] }), /organization/);
  });

  it('refuses without a token (401), an outsider (404), a member below admin on the space (403)', async () => {
    const other = await target();
    const space = await newSpace({ title: 'Rooted' });
    const body = { organization: other.orgId };
    await refused(401, () => transfer(space.id, body, null));
    await refused(404, () => transfer(space.id, body, outsider));
    for (const member of [reader, creator]) {
      await h.addMember(other.orgId, member.id, 'admin');
      await refused(403, () => transfer(space.id, body, member));
    }
  });

  it('needs the admin role in the target organization: 403 for a read member, 404 for a non-member', async () => {
    const readOnly = await h.owner('Read only target');
    await h.addMember(readOnly.orgId, owner.id, 'read');
    const stranger = await h.owner('Stranger target');
    const space = await newSpace({ title: 'Stays' });
    await refused(403, () => transfer(space.id, { organization: readOnly.orgId }), /admin/);
    await refused(404, () => transfer(space.id, { organization: stranger.orgId }), /Organization/);
  });
});

describe('coverage of the official operations', () => {
  // Runs last (tests run in file order): each route of this file answered a success through h.rest,
  // so each was validated against the official schema of its operation.
  it('exercised every space route of this file successfully', () => {
    expect(SPACE_OPERATIONS.lifecycle.filter((id) => !h.coveredOperations.has(id))).toEqual([]);
  });
});
