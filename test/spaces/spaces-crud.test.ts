/** Spaces: create, list, read, counts, update; the GraphQL face; 401 on every route. */
import { beforeAll, describe, expect, it } from 'vitest';
import { BASE } from '../support/harness.js';
import { spaceRoutes } from '../../src/modules/spaces/routes.js';
import { newId } from '../../src/ids.js';
import {
  h,
  owner,
  reader,
  creator,
  editor,
  guest,
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

describe('POST /orgs/:organizationId/spaces', () => {
  it('creates a space (201) matching the official schema', async () => {
    const res = await h.rest('createSpace', 'POST', `/v1/orgs/${owner.orgId}/spaces`, {
      token: owner.token,
      body: { title: 'Guide', emoji: '📘' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'space',
      title: 'Guide',
      emoji: '📘',
      organization: owner.orgId,
      visibility: 'private',
      comments: 0,
      changeRequests: 0,
    });
    expect(res.body.permissions.admin).toBe(true);
  });

  it('fills in the defaults, creates the first revision, and GET answers the same space', async () => {
    const space = await newSpace({ title: 'Defaults' });
    expect(space).toMatchObject({
      editMode: 'live',
      defaultLevel: 'inherit',
      mergeRules: { type: 'inherit' },
      emoji: '',
      changeRequestsOpen: 0,
      changeRequestsDraft: 0,
      urls: { location: `${BASE}/v1/spaces/${space.id}`, app: `${BASE}/app/s/${space.id}` },
    });
    for (const absent of ['parent', 'language', 'deletedAt', 'gitSync', 'visitorAuth']) expect(space).not.toHaveProperty(absent);
    expect(space.urls).not.toHaveProperty('published');
    expect(space.permissions).toEqual({
      view: true,
      access: true,
      admin: true,
      viewInviteLinks: true,
      edit: true,
      triggerGitSync: true,
      comment: true,
      merge: true,
      review: true,
      installIntegration: true,
    });
    const revision = await h.db.prisma.revision.findUnique({ where: { id: space.revision } });
    expect(revision).toMatchObject({ spaceId: space.id, parents: [] });
    const got = await h.rest('getSpaceById', 'GET', `/v1/spaces/${space.id}`, { token: owner.token });
    expect(got.body).toEqual(space);
  });

  it('creates a space with an empty body (untitled)', async () => {
    const res = await h.rest('createSpace', 'POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token });
    expect(res.status).toBe(201);
    expect(res.body.title).toBe('');
  });

  it('round-trips the language and edit mode enums (pt-br stays pt-br)', async () => {
    const space = await newSpace({ title: 'Português', language: 'pt-br', editMode: 'locked' });
    expect(space).toMatchObject({ language: 'pt-br', editMode: 'locked' });
    expect(await spaceRow(space.id)).toMatchObject({ language: 'pt-br', editMode: 'locked' });
    expect((await getSpace(space.id)).body).toMatchObject({ language: 'pt-br', editMode: 'locked' });
  });

  it('accepts a title and an emoji of exactly 50 characters (counted as characters, not UTF-16 units)', async () => {
    const space = await newSpace({ title: '📘'.repeat(50), emoji: 'e'.repeat(50) });
    expect([...space.title]).toHaveLength(50);
    expect(space.emoji).toBe('e'.repeat(50));
  });

  it('creates a space inside a collection, listed there', async () => {
    const collection = await newCollection();
    const space = await newSpace({ title: 'Inside', parent: collection.id });
    expect(space.parent).toBe(collection.id);
    expect(await collectionSpaceIds(collection.id)).toEqual([space.id]);
  });

  it('rejects a title over 50 characters with 400 naming the field, changing nothing', async () => {
    const before = await h.snapshot();
    const res = await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'x'.repeat(51) } });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 400, message: expect.stringContaining('title') });
    expect(await h.snapshot()).toBe(before);
  });

  it.each([
    [{ emoji: 'e'.repeat(51) }, 'emoji'],
    [{ title: '📘'.repeat(51) }, 'title'],
    [{ title: 42 }, 'title'],
    [{ editMode: 'frozen' }, 'editMode'],
    [{ language: 'klingon' }, 'language'],
  ])('rejects %j with 400 naming %s, changing nothing', async (body, field) => {
    await refused(400, () => h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body }), new RegExp(`^${field}\\b`));
  });

  it('rejects a malformed or non-object body with 400', async () => {
    const path = `/v1/orgs/${owner.orgId}/spaces`;
    await refused(400, () => h.call('POST', path, { token: owner.token, rawBody: '{"title": ' }), /body/);
    await refused(400, () => h.call('POST', path, { token: owner.token, body: ['title'] }), /body/);
  });

  it('refuses an unknown organization or parent collection (404) and a parent of another organization (400)', async () => {
    await refused(404, () => h.call('POST', `/v1/orgs/${newId()}/spaces`, { token: owner.token, body: { title: 'x' } }), /Organization/);
    await refused(
      404,
      () => h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { parent: newId() } }),
      /collection/i,
    );
    await refused(404, () => h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { parent: '' } }), /collection/i);
    const other = await h.owner('Elsewhere');
    await h.addMember(other.orgId, owner.id, 'admin');
    const foreign = await newCollection({ title: 'Foreign' }, other);
    await refused(
      400,
      () => h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { parent: foreign.id } }),
      /^parent\b/,
    );
  });

  it('refuses an outsider (404) and a reader (403)', async () => {
    const outsider = await h.user();
    expect((await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: outsider.token, body: {} })).status).toBe(404);
    const reader = await h.user();
    await h.addMember(owner.orgId, reader.id, 'read');
    expect((await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: reader.token, body: {} })).status).toBe(403);
    expect((await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { body: {} })).status).toBe(401);
  });

  it('refuses without a token (401), an outsider (404), a reader, an editor and a guest (403), all changing nothing', async () => {
    const path = `/v1/orgs/${owner.orgId}/spaces`;
    const body = { title: 'Nope' };
    await refused(401, () => h.call('POST', path, { body }));
    await refused(401, () => h.call('POST', path, { token: 'not-a-token', body }));
    await refused(404, () => h.call('POST', path, { token: outsider.token, body }));
    for (const member of [reader, editor, guest]) await refused(403, () => h.call('POST', path, { token: member.token, body }));
  });

  it('lets a create member create, but not in a collection where they can only read (403)', async () => {
    const res = await h.rest('createSpace', 'POST', `/v1/orgs/${owner.orgId}/spaces`, {
      token: creator.token,
      body: { title: 'By creator' },
    });
    expect(res.status).toBe(201);
    expect(res.body.permissions.admin).toBe(false);
    const readOnly = await newCollection({ title: 'Read only' });
    await h.db.prisma.collection.update({ where: { id: readOnly.id }, data: { defaultLevel: 'read' } });
    await refused(403, () => h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: creator.token, body: { parent: readOnly.id } }));
  });
});

describe('GET /orgs/:organizationId/spaces', () => {
  it('lists the organization spaces in the list envelope', async () => {
    const res = await h.rest('listSpacesInOrganizationById', 'GET', `/v1/orgs/${owner.orgId}/spaces?limit=1`, { token: owner.token });
    expect(res.body.items).toHaveLength(1);
    expect(res.body.next.page).toEqual(expect.any(String));
    const next = await h.rest('listSpacesInOrganizationById', 'GET', `/v1/orgs/${owner.orgId}/spaces?limit=1&page=${res.body.next.page}`, {
      token: owner.token,
    });
    expect(next.body.items[0].id).not.toBe(res.body.items[0].id);
  });

  it('pages through every live space exactly once, in position order, without deleted ones', async () => {
    const { admin } = await freshOrg();
    const spaces = [];
    for (const title of ['One', 'Two', 'Three', 'Four', 'Five']) spaces.push(await newSpace({ title }, admin));
    expect((await h.call('DELETE', `/v1/spaces/${spaces[2].id}`, { token: admin.token })).status).toBe(205);
    const live = spaces.filter((_, i) => i !== 2).map((s) => s.id);

    const seen: string[] = [];
    let page: string | undefined;
    do {
      const res = await h.rest(
        'listSpacesInOrganizationById',
        'GET',
        `/v1/orgs/${admin.orgId}/spaces?limit=2${page ? `&page=${page}` : ''}`,
        { token: admin.token },
      );
      expect(res.body.count).toBe(4);
      seen.push(...res.body.items.map((s: { id: string }) => s.id));
      page = res.body.next?.page;
    } while (page);
    expect(seen).toEqual(live);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=1.5', 'limit'],
    ['page=not-a-page', 'page'],
  ])('rejects ?%s with 400 naming %s', async (query, field) => {
    await refused(400, () => h.call('GET', `/v1/orgs/${owner.orgId}/spaces?${query}`, { token: owner.token }), new RegExp(`^${field}\\b`));
  });

  it('answers 404 for an unknown organization, 401 without a token, 404 to an outsider', async () => {
    await refused(404, () => h.call('GET', `/v1/orgs/${newId()}/spaces`, { token: owner.token }));
    await refused(401, () => h.call('GET', `/v1/orgs/${owner.orgId}/spaces`, {}));
    await refused(404, () => h.call('GET', `/v1/orgs/${owner.orgId}/spaces`, { token: outsider.token }));
  });

  it('shows a member only the spaces they can read, and counts only those', async () => {
    const { admin, member } = await freshOrg();
    const guestMember = await h.user();
    await h.addMember(admin.orgId, guestMember.id, null);
    const inherit = await newSpace({ title: 'Inherit' }, admin);
    const hidden = await newSpace({ title: 'Hidden' }, admin);
    const edit = await newSpace({ title: 'Edit' }, admin);
    const publicHidden = await newSpace({ title: 'Public' }, admin);
    const closed = await newCollection({ title: 'Closed' }, admin);
    const inClosed = await newSpace({ title: 'In closed', parent: closed.id }, admin);
    await h.db.prisma.collection.update({ where: { id: closed.id }, data: { defaultLevel: null } });
    await h.db.prisma.space.update({ where: { id: hidden.id }, data: { defaultLevel: null } });
    await h.db.prisma.space.update({ where: { id: edit.id }, data: { defaultLevel: 'edit' } });
    await h.db.prisma.space.update({ where: { id: publicHidden.id }, data: { defaultLevel: null, visibility: 'public' } });

    // (The organization list holds spaces at every level; positions order siblings, so compare as sets here.)
    expect((await orgSpaceIds(admin)).sort()).toEqual([inherit.id, hidden.id, edit.id, publicHidden.id, inClosed.id].sort());
    expect(await orgSpaceIds(admin, member)).toEqual([inherit.id, edit.id, publicHidden.id]);
    expect(await orgSpaceIds(admin, guestMember)).toEqual([publicHidden.id]);
    // What the list shows is what GET answers.
    for (const id of [hidden.id, inClosed.id]) expect((await getSpace(id, member)).status).toBe(404);
    for (const id of [inherit.id, edit.id, publicHidden.id]) expect((await getSpace(id, member)).status).toBe(200);
  });
});

describe('GET /collections/:collectionId/spaces', () => {
  it('lists the live spaces of that collection only, in position order', async () => {
    const { admin } = await freshOrg();
    const collection = await newCollection({ title: 'C' }, admin);
    await newSpace({ title: 'Top' }, admin);
    const a = await newSpace({ title: 'A', parent: collection.id }, admin);
    const b = await newSpace({ title: 'B', parent: collection.id }, admin);
    const c = await newSpace({ title: 'C', parent: collection.id }, admin);
    expect(await collectionSpaceIds(collection.id, admin)).toEqual([a.id, b.id, c.id]);
    expect((await h.call('DELETE', `/v1/spaces/${b.id}`, { token: admin.token })).status).toBe(205);
    const res = await h.rest('listSpacesInCollectionById', 'GET', `/v1/collections/${collection.id}/spaces?limit=1`, {
      token: admin.token,
    });
    expect(res.body).toMatchObject({ count: 2, items: [{ id: a.id, parent: collection.id }], next: { page: expect.any(String) } });
    const next = await h.rest(
      'listSpacesInCollectionById',
      'GET',
      `/v1/collections/${collection.id}/spaces?limit=1&page=${res.body.next.page}`,
      { token: admin.token },
    );
    expect(next.body.items.map((s: { id: string }) => s.id)).toEqual([c.id]);
    expect(next.body.next).toBeUndefined();
  });

  it('answers 404 for an unknown collection and 400 for a bad limit', async () => {
    await refused(404, () => h.call('GET', `/v1/collections/${newId()}/spaces`, { token: owner.token }), /Collection/);
    const collection = await newCollection();
    await refused(400, () => h.call('GET', `/v1/collections/${collection.id}/spaces?limit=-1`, { token: owner.token }), /^limit\b/);
  });

  it('refuses without a token (401), an outsider (404), a member who cannot read the collection (404)', async () => {
    const { admin, member } = await freshOrg();
    const open = await newCollection({ title: 'Open' }, admin);
    const inOpen = await newSpace({ title: 'x', parent: open.id }, admin);
    const closed = await newCollection({ title: 'Closed' }, admin);
    await newSpace({ title: 'y', parent: closed.id }, admin);
    await h.db.prisma.collection.update({ where: { id: closed.id }, data: { defaultLevel: null } });
    await refused(401, () => h.call('GET', `/v1/collections/${open.id}/spaces`, {}));
    await refused(404, () => h.call('GET', `/v1/collections/${open.id}/spaces`, { token: outsider.token }));
    await refused(404, () => h.call('GET', `/v1/collections/${closed.id}/spaces`, { token: member.token }));
    expect(await collectionSpaceIds(open.id, member)).toEqual([inOpen.id]);
  });
});

describe('GET /spaces/:spaceId', () => {
  it('answers 404 for an unknown space and 401 without a token', async () => {
    await refused(404, () => getSpace(newId()), /Space not found/);
    const space = await newSpace();
    await refused(401, () => getSpace(space.id, null));
  });

  it('lets a read member see an inherit space (read permissions only) but not a space whose defaultLevel is null', async () => {
    const space = await newSpace({ title: 'Readable' });
    const res = await h.rest('getSpaceById', 'GET', `/v1/spaces/${space.id}`, { token: reader.token });
    expect(res.status).toBe(200);
    expect(res.body.permissions).toEqual({
      view: true,
      access: true,
      admin: false,
      viewInviteLinks: false,
      edit: false,
      triggerGitSync: false,
      comment: false,
      merge: false,
      review: false,
      installIntegration: false,
    });
    await h.db.prisma.space.update({ where: { id: space.id }, data: { defaultLevel: null } });
    await refused(404, () => getSpace(space.id, reader), /Space not found/);
    await refused(404, () => getSpace(space.id, guest));
    await refused(404, () => getSpace(space.id, outsider));
    expect((await getSpace(space.id, owner)).body.defaultLevel).toBeNull();
  });

  it('gives members the space defaultLevel as their role, and inherits from the parent collection', async () => {
    const space = await newSpace({ title: 'Editable' });
    await h.db.prisma.space.update({ where: { id: space.id }, data: { defaultLevel: 'edit' } });
    const asReader = await h.rest('getSpaceById', 'GET', `/v1/spaces/${space.id}`, { token: reader.token });
    expect(asReader.body.permissions).toMatchObject({ view: true, edit: true, comment: true, review: false, admin: false });

    const collection = await newCollection({ title: 'Review here' });
    const inside = await newSpace({ title: 'Inside', parent: collection.id });
    await h.db.prisma.collection.update({ where: { id: collection.id }, data: { defaultLevel: 'review' } });
    expect((await getSpace(inside.id, reader)).body.permissions).toMatchObject({ edit: true, review: true, merge: true, admin: false });
    await h.db.prisma.collection.update({ where: { id: collection.id }, data: { defaultLevel: null } });
    await refused(404, () => getSpace(inside.id, reader));
  });

  it("lets any signed-in user read a public space (not an unlisted one's public URL), without admin rights", async () => {
    const space = await newSpace({ title: 'Public' });
    await h.db.prisma.space.update({ where: { id: space.id }, data: { visibility: 'public', defaultLevel: null } });
    const res = await h.rest('getSpaceById', 'GET', `/v1/spaces/${space.id}`, { token: outsider.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ visibility: 'public', urls: { published: expect.any(String), public: expect.any(String) } });
    expect(res.body.permissions).toMatchObject({ view: true, edit: false, admin: false });
    expect((await getSpace(space.id, reader)).body.permissions).toMatchObject({ view: true, edit: false });

    await h.db.prisma.space.update({ where: { id: space.id }, data: { visibility: 'unlisted' } });
    const unlisted = await h.rest('getSpaceById', 'GET', `/v1/spaces/${space.id}`, { token: outsider.token });
    expect(unlisted.body.urls.published).toEqual(expect.any(String));
    expect(unlisted.body.urls).not.toHaveProperty('public');

    await h.db.prisma.space.update({ where: { id: space.id }, data: { visibility: 'private' } });
    await refused(404, () => getSpace(space.id, outsider));
    await refused(401, () => getSpace(space.id, null));
  });

  it('shows a deleted space (with deletedAt) to its admins only', async () => {
    const space = await newSpace({ title: 'Gone' });
    expect((await h.call('DELETE', `/v1/spaces/${space.id}`, { token: owner.token })).status).toBe(205);
    const res = await h.rest('getSpaceById', 'GET', `/v1/spaces/${space.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(Date.parse(res.body.deletedAt)).toBeGreaterThan(Date.now() - 60_000);
    for (const user of [reader, creator, outsider]) await refused(404, () => getSpace(space.id, user), /Space not found/);
  });

  it('answers 404, even to an admin, for a deleted space past its 7 days (not yet purged)', async () => {
    const space = await newSpace({ title: 'Long gone' });
    await deletedAgo(space.id, 8 * DAY);
    await refused(404, () => getSpace(space.id), /Space not found/);
  });
});

describe('space counts', () => {
  it('counts open comments and change requests by status', async () => {
    const space = await newSpace({ title: 'Busy' });
    const quiet = await newSpace({ title: 'Quiet' });
    const statuses = ['open', 'open', 'open', 'draft', 'draft', 'merged', 'archived'];
    await h.db.prisma.changeRequest.createMany({
      data: statuses.map((status, i) => ({ id: newId(), spaceId: space.id, number: i + 1, status })),
    });
    await h.db.prisma.changeRequest.create({ data: { id: newId(), spaceId: quiet.id, number: 1, status: 'draft' } });
    const comment = (spaceId: string, revisionId: string, status: string) => ({
      id: newId(),
      spaceId,
      status,
      postedById: owner.id,
      markdown: 'Note',
      revisionId,
    });
    await h.db.prisma.comment.createMany({
      data: [
        comment(space.id, space.revision, 'open'),
        comment(space.id, space.revision, 'open'),
        comment(space.id, space.revision, 'resolved'),
        comment(quiet.id, quiet.revision, 'resolved'),
      ],
    });
    const expected = { comments: 2, changeRequests: 7, changeRequestsOpen: 3, changeRequestsDraft: 2 };
    const quietExpected = { comments: 0, changeRequests: 1, changeRequestsOpen: 0, changeRequestsDraft: 1 };
    expect((await h.rest('getSpaceById', 'GET', `/v1/spaces/${space.id}`, { token: owner.token })).body).toMatchObject(expected);
    expect((await getSpace(quiet.id)).body).toMatchObject(quietExpected);
    // The list batches the counts of every space of the page: each still gets its own.
    const collection = await newCollection({ title: 'Counted' });
    for (const id of [space.id, quiet.id])
      await h.rest('moveSpace', 'POST', `/v1/spaces/${id}/move`, { token: owner.token, body: { parent: collection.id } });
    const list = await h.rest('listSpacesInCollectionById', 'GET', `/v1/collections/${collection.id}/spaces`, { token: owner.token });
    expect(list.body.items).toMatchObject([
      { id: space.id, ...expected },
      { id: quiet.id, ...quietExpected },
    ]);
    const gql = await h.graphql(
      owner.token,
      `query($id: ID!) { space(id: $id) { comments changeRequests changeRequestsOpen changeRequestsDraft } }`,
      { id: space.id },
    );
    expect(gql.body.data.space).toEqual(expected);
    // A duplicate starts with none.
    const copy = await h.rest('duplicateSpace', 'POST', `/v1/spaces/${space.id}/duplicate`, { token: owner.token });
    expect(copy.body).toMatchObject({ comments: 0, changeRequests: 0, changeRequestsOpen: 0, changeRequestsDraft: 0 });
  });
});

describe('PATCH /spaces/:spaceId', () => {
  it('updates every field, persistently, and moves updatedAt', async () => {
    const space = await newSpace({ title: 'Before', emoji: '📘' });
    await new Promise((r) => setTimeout(r, 5));
    const res = await h.rest('updateSpaceById', 'PATCH', `/v1/spaces/${space.id}`, {
      token: owner.token,
      body: { title: 'After', emoji: '🎉', editMode: 'locked', defaultLevel: 'comment', language: 'fr', mergeRules: { type: 'none' } },
    });
    expect(res.status).toBe(200);
    const expected = {
      id: space.id,
      title: 'After',
      emoji: '🎉',
      editMode: 'locked',
      defaultLevel: 'comment',
      language: 'fr',
      mergeRules: { type: 'none' },
    };
    expect(res.body).toMatchObject(expected);
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThan(Date.parse(space.updatedAt));
    expect(res.body.createdAt).toBe(space.createdAt);
    expect((await getSpace(space.id)).body).toMatchObject(expected);
  });

  it('leaves absent fields alone and accepts an empty patch', async () => {
    const space = await newSpace({ title: 'Keep', emoji: '📘', language: 'de' });
    const res = await h.rest('updateSpaceById', 'PATCH', `/v1/spaces/${space.id}`, { token: owner.token, body: { editMode: 'locked' } });
    expect(res.body).toMatchObject({
      title: 'Keep',
      emoji: '📘',
      language: 'de',
      editMode: 'locked',
      defaultLevel: 'inherit',
      mergeRules: { type: 'inherit' },
    });
    const empty = await h.rest('updateSpaceById', 'PATCH', `/v1/spaces/${space.id}`, { token: owner.token, body: {} });
    expect(empty.body).toMatchObject({ title: 'Keep', editMode: 'locked' });
  });

  it('accepts both edit modes', async () => {
    const space = await newSpace();
    for (const editMode of ['locked', 'live']) {
      const res = await h.rest('updateSpaceById', 'PATCH', `/v1/spaces/${space.id}`, { token: owner.token, body: { editMode } });
      expect(res.body.editMode).toBe(editMode);
      expect((await spaceRow(space.id))!.editMode).toBe(editMode);
    }
  });

  it.each([['read'], ['comment'], ['edit'], ['review'], ['create'], ['admin'], ['inherit'], [null]])(
    'sets defaultLevel %j',
    async (level) => {
      const space = await newSpace();
      const res = await h.rest('updateSpaceById', 'PATCH', `/v1/spaces/${space.id}`, { token: owner.token, body: { defaultLevel: level } });
      expect(res.body).toHaveProperty('defaultLevel', level);
      expect((await spaceRow(space.id))!.defaultLevel).toBe(level);
      expect((await getSpace(space.id)).body).toHaveProperty('defaultLevel', level);
    },
  );

  it('round-trips the language pt-br, and null clears it', async () => {
    const space = await newSpace();
    const res = await h.rest('updateSpaceById', 'PATCH', `/v1/spaces/${space.id}`, { token: owner.token, body: { language: 'pt-br' } });
    expect(res.body.language).toBe('pt-br');
    expect((await spaceRow(space.id))!.language).toBe('pt-br');
    expect((await getSpace(space.id)).body.language).toBe('pt-br');
    const cleared = await h.rest('updateSpaceById', 'PATCH', `/v1/spaces/${space.id}`, { token: owner.token, body: { language: null } });
    expect(cleared.body).not.toHaveProperty('language');
    expect((await spaceRow(space.id))!.language).toBeNull();
  });

  it('removes the emoji with null (the official "remove icon or emoji" variant)', async () => {
    const space = await newSpace({ title: 'Icon', emoji: '📘' });
    const res = await h.rest('updateSpaceById', 'PATCH', `/v1/spaces/${space.id}`, { token: owner.token, body: { emoji: null } });
    expect(res.body.emoji).toBe('');
  });

  it.each([
    [{ type: 'inherit' }],
    [{ type: 'none' }],
    [{ type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: ['u1', 'u2'] }, { rule: 'require_at_least_one_review' }] }],
    [{ type: 'rules', rules: [] }],
  ])('sets mergeRules %j', async (mergeRules) => {
    const space = await newSpace();
    const res = await h.rest('updateSpaceById', 'PATCH', `/v1/spaces/${space.id}`, { token: owner.token, body: { mergeRules } });
    expect(res.body.mergeRules).toEqual(mergeRules);
    expect((await spaceRow(space.id))!.mergeRules).toEqual(mergeRules);
  });

  it.each([
    [{ title: 'x'.repeat(51) }, 'title'],
    [{ title: null }, 'title'],
    [{ title: ['a'] }, 'title'],
    [{ emoji: 'e'.repeat(51) }, 'emoji'],
    [{ editMode: 'frozen' }, 'editMode'],
    [{ editMode: null }, 'editMode'],
    [{ defaultLevel: 'owner' }, 'defaultLevel'],
    [{ defaultLevel: 'Inherit' }, 'defaultLevel'],
    [{ language: 'klingon' }, 'language'],
    [{ mergeRules: { type: 'bogus' } }, 'mergeRules.type'],
    [{ mergeRules: { rules: [] } }, 'mergeRules'],
    [{ mergeRules: 'none' }, 'mergeRules'],
    [{ mergeRules: null }, 'mergeRules'],
    [{ mergeRules: { type: 'rules' } }, 'mergeRules.rules'],
    [{ mergeRules: { type: 'rules', rules: [{}] } }, 'mergeRules.rules[0].rule'],
    [{ mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: 'u1' }] } }, 'mergeRules.rules[0].users'],
    [{ title: 'Fine', mergeRules: { type: 'bogus' } }, 'mergeRules.type'],
  ])('rejects %j with 400 naming %s, changing nothing', async (body, field) => {
    const space = await newSpace({ title: 'Untouched' });
    const escaped = field.replace(/[.[\]]/g, '\\$&');
    await refused(400, () => h.call('PATCH', `/v1/spaces/${space.id}`, { token: owner.token, body }), new RegExp(`^${escaped}\\b`));
  });

  it('rejects a field that does not exist with 400 naming it', async () => {
    const space = await newSpace({ title: 'Untouched' });
    await refused(
      400,
      () => h.call('PATCH', `/v1/spaces/${space.id}`, { token: owner.token, body: { title: 'x', visibility: 'public' } }),
      /^visibility: is not a known field/,
    );
    await refused(400, () => h.call('PATCH', `/v1/spaces/${space.id}`, { token: owner.token, rawBody: 'title=x' }), /^body\b/);
  });

  it('answers 404 for an unknown or deleted space', async () => {
    await refused(404, () => h.call('PATCH', `/v1/spaces/${newId()}`, { token: owner.token, body: { title: 'x' } }), /Space not found/);
    const space = await newSpace();
    await h.call('DELETE', `/v1/spaces/${space.id}`, { token: owner.token });
    await refused(404, () => h.call('PATCH', `/v1/spaces/${space.id}`, { token: owner.token, body: { title: 'x' } }), /Space not found/);
  });

  it('refuses without a token (401), an outsider (404), members below admin on the space (403)', async () => {
    const space = await newSpace({ title: 'Guarded' });
    const patch = (user: { token: string } | null) => () =>
      h.call('PATCH', `/v1/spaces/${space.id}`, { token: user?.token ?? null, body: { title: 'Hacked' } });
    await refused(401, patch(null));
    await refused(404, patch(outsider));
    for (const member of [reader, editor, creator]) await refused(403, patch(member), /admin/);
    // A public space is readable by the outsider, who still may not change it.
    await h.db.prisma.space.update({ where: { id: space.id }, data: { visibility: 'public' } });
    await refused(403, patch(outsider));
  });

  it('lets a read member who is admin of the space through its defaultLevel patch it', async () => {
    const space = await newSpace({ title: 'Shared' });
    await h.db.prisma.space.update({ where: { id: space.id }, data: { defaultLevel: 'admin' } });
    const res = await h.rest('updateSpaceById', 'PATCH', `/v1/spaces/${space.id}`, { token: reader.token, body: { title: 'By reader' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: 'By reader', permissions: { admin: true } });
  });
});

describe('GraphQL', () => {
  const FIELDS =
    'id title emoji editMode language defaultLevel mergeRules { ... on MergeRulesPlain { type } ... on MergeRulesList { type rules { ... on MergeRulePlain { rule } } } } parent organization deletedAt permissions { admin view }';

  it('creates, reads, updates, lists, duplicates, moves, deletes and restores a space', async () => {
    const { admin } = await freshOrg('GraphQL Org');
    const created = await h.graphql(
      admin.token,
      `mutation($org: ID!, $input: CreateSpaceInput) { createSpace(organizationId: $org, input: $input) { ${FIELDS} } }`,
      {
        org: admin.orgId,
        input: { title: 'Via GraphQL', language: 'pt_br', editMode: 'locked' },
      },
    );
    expect(created.body.errors).toBeUndefined();
    const space = created.body.data.createSpace;
    expect(space).toMatchObject({
      title: 'Via GraphQL',
      language: 'pt_br',
      editMode: 'locked',
      defaultLevel: 'inherit',
      mergeRules: { type: 'inherit' },
      parent: null,
      deletedAt: null,
      organization: admin.orgId,
    });
    expect((await spaceRow(space.id))!.language).toBe('pt-br');

    const updated = await h.graphql(
      admin.token,
      `mutation($id: ID!, $input: UpdateSpaceInput!) { updateSpace(id: $id, input: $input) { ${FIELDS} } }`,
      {
        id: space.id,
        input: { title: 'Renamed', defaultLevel: null, mergeRules: { type: 'none' }, editMode: 'live' },
      },
    );
    expect(updated.body.data.updateSpace).toMatchObject({
      title: 'Renamed',
      defaultLevel: null,
      mergeRules: { type: 'none' },
      editMode: 'live',
      language: 'pt_br',
    });

    const got = await h.graphql(admin.token, `query($id: ID!) { space(id: $id) { ${FIELDS} } }`, { id: space.id });
    expect(got.body.data.space).toEqual(updated.body.data.updateSpace);

    const collection = await newCollection({ title: 'GQL box' }, admin);
    const moved = await h.graphql(
      admin.token,
      `mutation($id: ID!, $input: MoveSpaceInput!) { moveSpace(id: $id, input: $input) { parent } }`,
      { id: space.id, input: { parent: collection.id } },
    );
    expect(moved.body.data.moveSpace.parent).toBe(collection.id);
    const listed = await h.graphql(admin.token, `query($id: ID!) { collection(id: $id) { spaces { count items { id } } } }`, {
      id: collection.id,
    });
    expect(listed.body.data.collection.spaces).toEqual({ count: 1, items: [{ id: space.id }] });

    const dup = await h.graphql(admin.token, `mutation($id: ID!) { duplicateSpace(id: $id) { id title parent } }`, { id: space.id });
    expect(dup.body.data.duplicateSpace).toMatchObject({ title: 'Renamed (copy)', parent: collection.id });
    const orgList = await h.graphql(
      admin.token,
      `query($id: ID!) { organization(id: $id) { spaces(limit: 1) { count items { id } next { page } } } }`,
      { id: admin.orgId },
    );
    expect(orgList.body.data.organization.spaces).toMatchObject({
      count: 2,
      items: [{ id: space.id }],
      next: { page: expect.any(String) },
    });

    const del = `mutation($id: ID!) { deleteSpace(id: $id) }`;
    expect((await h.graphql(admin.token, del, { id: space.id })).body.data.deleteSpace).toBe(true);
    expect((await h.graphql(admin.token, del, { id: space.id })).body.data.deleteSpace).toBe(false);
    const deleted = await h.graphql(admin.token, `query($id: ID!) { space(id: $id) { deletedAt } }`, { id: space.id });
    expect(deleted.body.data.space.deletedAt).toEqual(expect.any(String));
    const restored = await h.graphql(admin.token, `mutation($id: ID!) { restoreSpace(id: $id) { id deletedAt } }`, { id: space.id });
    expect(restored.body.data.restoreSpace).toEqual({ id: space.id, deletedAt: null });
  });

  it('transfers a space, and reports the REST errors as codes', async () => {
    const { admin, member } = await freshOrg('GraphQL transfer');
    const other = await h.owner('GraphQL target');
    await h.addMember(other.orgId, admin.id, 'admin');
    const space = (await newSpace({ title: 'Moving' }, admin)).id;
    const TRANSFER = `mutation($id: ID!, $org: ID!) { transferSpace(id: $id, input: { organization: $org }) { organization } }`;

    const same = await h.graphql(admin.token, TRANSFER, { id: space, org: admin.orgId });
    expect(same.body.errors[0].extensions.code).toBe('CONFLICT');
    const forbidden = await h.graphql(member.token, TRANSFER, { id: space, org: other.orgId });
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const ok = await h.graphql(admin.token, TRANSFER, { id: space, org: other.orgId });
    expect(ok.body.data.transferSpace.organization).toBe(other.orgId);

    const hiddenSpace = (await newSpace({ title: 'Hidden' }, admin)).id;
    await h.db.prisma.space.update({ where: { id: hiddenSpace }, data: { defaultLevel: null } });
    const hidden = await h.graphql(member.token, `query($id: ID!) { space(id: $id) { id } }`, { id: hiddenSpace });
    expect(hidden.body).toMatchObject({ data: null, errors: [{ message: 'Space not found', extensions: { code: 'NOT_FOUND' } }] });
    const readerList = await h.graphql(member.token, `query($id: ID!) { organization(id: $id) { spaces { count items { id } } } }`, {
      id: admin.orgId,
    });
    expect(readerList.body.data.organization.spaces).toEqual({ count: 0, items: [] });
    const missing = await h.graphql(admin.token, `query($id: ID!) { space(id: $id) { id } }`, { id: newId() });
    expect(missing.body.errors[0]).toMatchObject({ message: 'Space not found', extensions: { code: 'NOT_FOUND' } });
    const tooLong = await h.graphql(
      other.token,
      `mutation($id: ID!) { updateSpace(id: $id, input: { title: "${'x'.repeat(51)}" }) { id } }`,
      { id: space },
    );
    expect(tooLong.body.errors[0]).toMatchObject({ message: expect.stringMatching(/^title\b/), extensions: { code: 'BAD_REQUEST' } });
    const badMove = await h.graphql(other.token, `mutation($id: ID!) { moveSpace(id: $id, input: {}) { id } }`, { id: space });
    expect(badMove.body.errors[0].extensions.code).toBe('BAD_REQUEST');
  });

  it('refuses a request without a token (401)', async () => {
    const res = await h.call('POST', '/graphql', { body: { query: '{ space(id: "x") { id } }' } });
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});

describe('route coverage', () => {
  it('answers 401 without a token on every space route', async () => {
    const params: Record<string, string> = { organizationId: owner.orgId, collectionId: newId(), spaceId: newId() };
    for (const route of spaceRoutes) {
      const path = `/v1${route.path.replace(/:(\w+)/g, (_, name: string) => params[name]!)}`;
      await refused(401, () => h.call(route.method, path, route.method === 'GET' || route.method === 'DELETE' ? {} : { body: {} }));
    }
  });
});

describe('coverage of the official operations', () => {
  it('assigns every space route to exactly one test file', () => {
    expect(Object.values(SPACE_OPERATIONS).flat().sort()).toEqual(spaceRoutes.map((r) => r.operationId).sort());
  });

  // Runs last (tests run in file order): each route of this file answered a success through h.rest,
  // so each was validated against the official schema of its operation.
  it('exercised every space route of this file successfully', () => {
    expect(SPACE_OPERATIONS.crud.filter((id) => !h.coveredOperations.has(id))).toEqual([]);
  });
});
