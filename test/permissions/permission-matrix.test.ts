import { beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness, type TestUser } from '../support/harness.js';

/**
 * THE RULE (src/auth/permissions.ts) as a table: every source of a role × space and collection ×
 * the five rights, asked through REST and GraphQL; then the grant routes (official schemas, 400
 * naming the field, refusals), removal taking effect at once, invite links to one space, and the
 * statement counts that must not grow with teams, grants, depth or items.
 */
let h: Harness;
let orgId: string;
let owner: TestUser;
let reader: TestUser;
let guest: TestUser;
let outsider: TestUser;
let userGranted: TestUser; // guest with an edit grant on sGrant
let teamGranted: TestUser; // guest in a team with review on cTop (→ sDeep through cMid)
let inherited: TestUser; // guest with comment on cTop, read via inheritance on sDeep
let loweredMember: TestUser; // read member, admin grant on sPrivate
let ids: Record<string, string> = {};
let teamId: string;
let siteId: string;

const ROLES = ['read', 'comment', 'edit', 'review', 'create', 'admin'];
const atLeast = (role: string | null, min: string) => role != null && ROLES.indexOf(role) >= ROLES.indexOf(min);

async function post(path: string, body: unknown, token = owner.token) {
  const r = await h.call('POST', `/v1${path}`, { token, body });
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
  return r.body;
}

beforeAll(async () => {
  h = await setupHarness();
  const w = await h.world('Grants');
  ({ owner, reader, guest, outsider, orgId } = w);
  [userGranted, teamGranted, inherited, loweredMember] = [await h.user('UG'), await h.user('TG'), await h.user('IN'), await h.user('LM')];
  for (const u of [userGranted, teamGranted, inherited]) await h.addMember(orgId, u.id, null);
  await h.addMember(orgId, loweredMember.id, 'read');
  const cTop = await post(`/orgs/${orgId}/collections`, { title: 'Top' });
  const cMid = await post(`/orgs/${orgId}/collections`, { title: 'Mid', parent: cTop.id });
  const sDeep = await post(`/orgs/${orgId}/spaces`, { title: 'Deep', parent: cMid.id });
  const sGrant = await post(`/orgs/${orgId}/spaces`, { title: 'Granted' });
  const sPrivate = await post(`/orgs/${orgId}/spaces`, { title: 'Private' });
  const sPublic = await post(`/orgs/${orgId}/spaces`, { title: 'Public' });
  ids = { cTop: cTop.id, cMid: cMid.id, sDeep: sDeep.id, sGrant: sGrant.id, sPrivate: sPrivate.id, sPublic: sPublic.id };
  const p = h.db.prisma;
  await p.collection.update({ where: { id: cMid.id }, data: { defaultLevel: null } }); // members see nothing below by default
  await p.space.update({ where: { id: sPrivate.id }, data: { defaultLevel: null } });
  await p.space.update({ where: { id: sPublic.id }, data: { visibility: 'public', defaultLevel: null } });
  const team = await h.rest('createOrganizationTeam', 'PUT', `/v1/orgs/${orgId}/teams`, {
    token: owner.token,
    body: { title: 'Reviewers' },
  });
  expect(team.status, JSON.stringify(team.body)).toBe(201);
  teamId = team.body.id;
  await p.teamMember.create({ data: { teamId, organizationId: orgId, userId: teamGranted.id } });
  // Grants through the official routes themselves.
  expect(
    (
      await h.rest('updateUserPermissionInSpace', 'PATCH', `/v1/spaces/${sGrant.id}/permissions/users/${userGranted.id}`, {
        token: owner.token,
        body: { role: 'edit' },
      })
    ).status,
  ).toBe(204);
  expect(
    (
      await h.rest('updateTeamPermissionInCollection', 'PATCH', `/v1/collections/${cTop.id}/permissions/teams/${teamId}`, {
        token: owner.token,
        body: { role: 'review' },
      })
    ).status,
  ).toBe(204);
  expect(
    (
      await h.rest('updateUserPermissionInCollection', 'PATCH', `/v1/collections/${cTop.id}/permissions/users/${inherited.id}`, {
        token: owner.token,
        body: { role: 'comment' },
      })
    ).status,
  ).toBe(204);
  expect(
    (
      await h.rest('updateUserPermissionInSpace', 'PATCH', `/v1/spaces/${sPrivate.id}/permissions/users/${loweredMember.id}`, {
        token: owner.token,
        body: { role: 'admin' },
      })
    ).status,
  ).toBe(204);
  const site = await post(`/orgs/${orgId}/sites`, { title: 'Site' });
  siteId = site.id;
});

// who × resource → effective role (null: no access, answered 404).
const MATRIX: [string, string, string | null][] = [
  // organization role
  ['owner', 'sDeep', 'admin'],
  ['owner', 'sPrivate', 'admin'],
  ['reader', 'sGrant', 'read'], // default level inherit → organization role
  ['reader', 'cTop', 'read'],
  // default levels: cMid's null hides it and what inherits below it
  ['reader', 'cMid', null],
  ['reader', 'sDeep', null],
  ['reader', 'sPrivate', null],
  // guest: nothing by default
  ['guest', 'sGrant', null],
  ['guest', 'cTop', null],
  ['guest', 'sPublic', 'read'], // public spaces: read for every signed-in caller
  ['outsider', 'sPublic', 'read'],
  ['outsider', 'sGrant', null],
  // user grant
  ['userGranted', 'sGrant', 'edit'],
  ['userGranted', 'sDeep', null],
  // team grant, inherited from a collection two levels up through a null default level
  ['teamGranted', 'cTop', 'review'],
  ['teamGranted', 'cMid', 'review'],
  ['teamGranted', 'sDeep', 'review'],
  ['teamGranted', 'sGrant', null],
  // user grant inherited from a collection
  ['inherited', 'sDeep', 'comment'],
  ['inherited', 'cMid', 'comment'],
  // a grant above the organization role and the default level
  ['loweredMember', 'sPrivate', 'admin'],
  ['loweredMember', 'sGrant', 'read'],
];

const tokenOf = (who: string) => ({ owner, reader, guest, outsider, userGranted, teamGranted, inherited, loweredMember })[who]!.token;

describe('the effective role', () => {
  it.each(MATRIX)('%s on %s is %s (REST and GraphQL agree)', async (who, res, role) => {
    const space = res.startsWith('s');
    const path = space ? `/v1/spaces/${ids[res]}` : `/v1/collections/${ids[res]}`;
    const rest =
      role === null
        ? await h.call('GET', path, { token: tokenOf(who) })
        : await h.rest(space ? 'getSpaceById' : 'getCollectionById', 'GET', path, { token: tokenOf(who) });
    const gql = await h.graphql(
      tokenOf(who),
      space
        ? `query($id: ID!) { space(id: $id) { permissions { view comment edit merge admin } } }`
        : `query($id: ID!) { collection(id: $id) { permissions { view admin create } } }`,
      { id: ids[res] },
    );
    const field = space ? 'space' : 'collection';
    const what = space ? 'Space' : 'Collection';
    if (role === null) {
      // Hidden: the 404 of a missing id, through both interfaces, and nothing else.
      expect(rest.status).toBe(404);
      expect(rest.body).toEqual({ error: { code: 404, message: `${what} not found` } });
      expect(gql.body).toEqual({
        data: null,
        errors: [
          expect.objectContaining({
            message: `${what} not found`,
            path: [field],
            extensions: expect.objectContaining({ code: 'NOT_FOUND' }),
          }),
        ],
      });
      return;
    }
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ object: field, id: ids[res] });
    const expected = space
      ? {
          view: true,
          comment: atLeast(role, 'comment'),
          edit: atLeast(role, 'edit'),
          merge: atLeast(role, 'review'),
          admin: atLeast(role, 'admin'),
        }
      : { view: true, admin: atLeast(role, 'admin'), create: atLeast(role, 'create') };
    expect(rest.body.permissions).toMatchObject(expected);
    expect(gql.body).toEqual({ data: { [field]: { permissions: expected } } });
  });

  it('an admin right from a grant is exercised, and removing a grant takes effect on the next request', async () => {
    const patch = (token: string) => h.call('PATCH', `/v1/spaces/${ids.sPrivate}`, { token, body: { title: 'Renamed by a grant' } });
    expect((await patch(loweredMember.token)).status).toBe(200);
    expect((await patch(reader.token)).status).toBe(404);
    expect((await h.call('PATCH', `/v1/spaces/${ids.sGrant}`, { token: userGranted.token, body: { title: 'x' } })).status).toBe(403);
    const removed = await h.rest('removeUserFromSpace', 'DELETE', `/v1/spaces/${ids.sGrant}/permissions/users/${userGranted.id}`, {
      token: owner.token,
    });
    expect(removed.status).toBe(205);
    expect((await h.call('GET', `/v1/spaces/${ids.sGrant}`, { token: userGranted.token })).status).toBe(404);
    expect(
      (
        await h.rest('removeUserFromSpace', 'DELETE', `/v1/spaces/${ids.sGrant}/permissions/users/${userGranted.id}`, {
          token: owner.token,
        })
      ).status,
    ).toBe(204);
    await h.call('PATCH', `/v1/spaces/${ids.sGrant}/permissions/users/${userGranted.id}`, { token: owner.token, body: { role: 'edit' } });
  });

  it('lists show what grants give: a guest lists only the spaces granted to them (directly or through a collection)', async () => {
    const list = await h.rest('listSpacesInOrganizationById', 'GET', `/v1/orgs/${orgId}/spaces`, { token: teamGranted.token });
    expect(list.body.items.map((s: any) => s.id).sort()).toEqual([ids.sDeep, ids.sPublic].sort());
    const mine = await h.call('GET', `/v1/orgs/${orgId}/spaces`, { token: userGranted.token });
    expect(mine.body.items.map((s: any) => s.id).sort()).toEqual([ids.sGrant, ids.sPublic].sort());
  });
});

describe('grant routes', () => {
  it('lists grants and the aggregate, by the official schemas', async () => {
    const users = await h.rest('listUserPermissionsInSpace', 'GET', `/v1/spaces/${ids.sGrant}/permissions/users`, { token: owner.token });
    expect(users.body.items).toEqual([
      expect.objectContaining({ permission: 'edit', user: expect.objectContaining({ id: userGranted.id }) }),
    ]);
    const teams = await h.rest('listTeamPermissionsInCollection', 'GET', `/v1/collections/${ids.cTop}/permissions/teams`, {
      token: owner.token,
    });
    expect(teams.body.items).toEqual([expect.objectContaining({ permission: 'review', team: expect.objectContaining({ id: teamId }) })]);
    await h.rest('listUserPermissionsInCollection', 'GET', `/v1/collections/${ids.cTop}/permissions/users`, { token: owner.token });
    await h.rest('listTeamPermissionsInSpace', 'GET', `/v1/spaces/${ids.sGrant}/permissions/teams`, { token: owner.token });
    const agg = await h.rest('listPermissionsAggregateInSpace', 'GET', `/v1/spaces/${ids.sDeep}/permissions/aggregate`, {
      token: owner.token,
    });
    const byUser = Object.fromEntries(agg.body.items.map((i: any) => [i.user.id, i.permission]));
    expect(byUser).toEqual({ [owner.id]: 'admin', [teamGranted.id]: 'review', [inherited.id]: 'comment' });
    const filtered = await h.rest(
      'listPermissionsAggregateInCollection',
      'GET',
      `/v1/collections/${ids.cTop}/permissions/aggregate?role=review`,
      { token: owner.token },
    );
    expect(filtered.body.items.map((i: any) => i.user.id)).toEqual([teamGranted.id]);
  });

  it('site grants: write follows them; lists, aggregate with origins, removal', async () => {
    const base = `/v1/orgs/${orgId}/sites/${siteId}/permissions`;
    const rename = () => h.call('PATCH', `/v1/orgs/${orgId}/sites/${siteId}`, { token: reader.token, body: { title: 'By reader' } });
    expect((await rename()).status).toBe(403);
    expect(
      (await h.rest('updateUserPermissionInSite', 'PATCH', `${base}/users/${reader.id}`, { token: owner.token, body: { role: 'admin' } }))
        .status,
    ).toBe(204);
    expect((await rename()).status).toBe(200);
    expect(
      (await h.rest('updateTeamPermissionInSite', 'PATCH', `${base}/teams/${teamId}`, { token: owner.token, body: { role: 'edit' } }))
        .status,
    ).toBe(204);
    const users = await h.rest('listUserPermissionsInSite', 'GET', `${base}/users`, { token: owner.token });
    expect(users.body.items.map((i: any) => [i.user.id, i.permission])).toEqual([[reader.id, 'admin']]);
    const teams = await h.rest('listTeamPermissionsInSite', 'GET', `${base}/teams`, { token: owner.token });
    expect(teams.body.items.map((i: any) => [i.team.id, i.permission])).toEqual([[teamId, 'edit']]);
    const agg = await h.rest('listPermissionsAggregateInSite', 'GET', `${base}/aggregate?order=asc`, { token: owner.token });
    const r = agg.body.items.find((i: any) => i.user.id === reader.id);
    expect(r).toMatchObject({ permission: 'admin', origin: { type: 'organization', organization: orgId, site: siteId, reason: 'member' } });
    expect(agg.body.items.find((i: any) => i.user.id === teamGranted.id)).toMatchObject({
      permission: 'edit',
      origin: { type: 'organization', site: siteId, reason: 'team', team: teamId },
    });
    expect(agg.body.items.find((i: any) => i.user.id === owner.id)).toMatchObject({
      permission: 'admin',
      origin: { type: 'organization', organization: orgId },
    });
    expect((await h.rest('removeUserFromSite', 'DELETE', `${base}/users/${reader.id}`, { token: owner.token })).status).toBe(205);
    expect((await rename()).status).toBe(403);
    expect((await h.rest('removeTeamFromSite', 'DELETE', `${base}/teams/${teamId}`, { token: owner.token })).status).toBe(205);
  });

  it('invites users and teams to a space, a collection and a site', async () => {
    const fresh = await h.user('Invited');
    await h.addMember(orgId, fresh.id, null);
    expect(
      (
        await h.rest('inviteToSpace', 'POST', `/v1/spaces/${ids.sPrivate}/permissions`, {
          token: owner.token,
          body: { role: 'comment', users: [fresh.id] },
        })
      ).status,
    ).toBe(204);
    expect((await h.call('GET', `/v1/spaces/${ids.sPrivate}`, { token: fresh.token })).body.permissions.comment).toBe(true);
    expect(
      (
        await h.rest('inviteToCollection', 'POST', `/v1/collections/${ids.cMid}/permissions`, {
          token: owner.token,
          body: { role: 'read', teams: [teamId] },
        })
      ).status,
    ).toBe(204);
    expect(
      (
        await h.rest('inviteToSite', 'POST', `/v1/orgs/${orgId}/sites/${siteId}/permissions`, {
          token: owner.token,
          body: { role: 'read', users: [fresh.id] },
        })
      ).status,
    ).toBe(204);
    // GraphQL has the same mutations.
    const g = await h.graphql(owner.token, `mutation($s: ID!, $u: ID!) { removeUserFromSpace(spaceId: $s, userId: $u) }`, {
      s: ids.sPrivate,
      u: fresh.id,
    });
    expect(g.body.data.removeUserFromSpace).toBe(true);
    expect((await h.call('GET', `/v1/spaces/${ids.sPrivate}`, { token: fresh.token })).status).toBe(404);
  });

  it('bad input is a 400 naming the field, and changes nothing', async () => {
    const before = await h.db.prisma.userSpacePermission.findMany({ orderBy: { userId: 'asc' } });
    const cases: [string, string, unknown, string][] = [
      ['PATCH', `/v1/spaces/${ids.sGrant}/permissions/users/${reader.id}`, {}, 'role'],
      ['PATCH', `/v1/spaces/${ids.sGrant}/permissions/users/${reader.id}`, { role: 'owner' }, 'role'],
      ['PATCH', `/v1/orgs/${orgId}/sites/${siteId}/permissions/users/${reader.id}`, { role: null }, 'role'],
      ['PATCH', `/v1/collections/${ids.cTop}/permissions/teams/${teamId}`, { role: 'boss' }, 'role'],
      ['POST', `/v1/spaces/${ids.sGrant}/permissions`, { users: [reader.id] }, 'role'],
      ['POST', `/v1/spaces/${ids.sGrant}/permissions`, { role: 'read' }, 'users'],
      ['POST', `/v1/spaces/${ids.sGrant}/permissions`, { role: 'read', users: [reader.id, outsider.id] }, 'users[1]'],
      ['POST', `/v1/collections/${ids.cTop}/permissions`, { role: 'read', teams: ['nope'] }, 'teams[0]'],
      ['GET', `/v1/spaces/${ids.sGrant}/permissions/aggregate?role=boss`, undefined, 'role'],
      ['GET', `/v1/orgs/${orgId}/sites/${siteId}/permissions/aggregate?sort=height`, undefined, 'sort'],
    ];
    for (const [method, path, body, field] of cases) {
      const r = await h.call(method, path, { token: owner.token, body });
      expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(r.body.error.message).toContain(field);
    }
    expect(await h.db.prisma.userSpacePermission.findMany({ orderBy: { userId: 'asc' } })).toEqual(before);
  });

  it('refuses callers without rights: 404 for who cannot see, 403 for who can read but not manage', async () => {
    const space = `/v1/spaces/${ids.sGrant}/permissions`;
    expect((await h.call('GET', `${space}/users`, { token: outsider.token })).status).toBe(404);
    expect((await h.call('GET', `${space}/users`, { token: guest.token })).status).toBe(404);
    expect((await h.call('PATCH', `${space}/users/${reader.id}`, { token: reader.token, body: { role: 'admin' } })).status).toBe(403);
    expect((await h.call('POST', space, { token: reader.token, body: { role: 'admin', users: [reader.id] } })).status).toBe(403);
    expect((await h.call('DELETE', `/v1/collections/${ids.cTop}/permissions/teams/${teamId}`, { token: teamGranted.token })).status).toBe(
      403,
    );
    expect(
      (
        await h.call('PATCH', `/v1/orgs/${orgId}/sites/${siteId}/permissions/users/${reader.id}`, {
          token: reader.token,
          body: { role: 'admin' },
        })
      ).status,
    ).toBe(403);
    expect((await h.call('GET', `/v1/orgs/${orgId}/sites/${siteId}/permissions/users`, { token: outsider.token })).status).toBe(404);
    // A user or team of another organization is a 404, like none at all.
    expect((await h.call('PATCH', `${space}/users/${outsider.id}`, { token: owner.token, body: { role: 'read' } })).status).toBe(404);
    expect((await h.call('PATCH', `${space}/teams/nope`, { token: owner.token, body: { role: 'read' } })).status).toBe(404);
  });
});

describe('statements', () => {
  it('do not grow with teams, grants, collection depth or items listed', async () => {
    const p = h.db.prisma;
    const measure = async (token: string, query: string, variables: Record<string, unknown>) => {
      const before = h.db.statements.count;
      const r = await h.graphql(token, query, variables);
      expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
      return h.db.statements.count - before;
    };
    const one = `query($id: ID!) { space(id: $id) { permissions { view edit admin } } }`;
    const list = `query($org: ID!) { organization(id: $org) { spaces(limit: 100) { items { id permissions { view edit admin } } } collections(limit: 100) { items { id permissions { view admin } } } } }`;
    const who = inherited;
    const small = { one: await measure(who.token, one, { id: ids.sDeep }), list: await measure(who.token, list, { org: orgId }) };
    // Grow everything: 6 more teams with grants, 6 more levels of collections, 10 more spaces.
    let parent = ids.cMid;
    for (let i = 0; i < 6; i++) {
      const c = await post(`/orgs/${orgId}/collections`, { title: `Level ${i}`, parent });
      parent = c.id;
      const t = await p.team.create({ data: { id: `t${i}${Date.now()}`, organizationId: orgId, title: `T${i}` } });
      await p.teamMember.create({ data: { teamId: t.id, organizationId: orgId, userId: who.id } });
      await p.teamCollectionPermission.create({ data: { teamId: t.id, collectionId: c.id, role: 'read' } });
    }
    const deep = await post(`/orgs/${orgId}/spaces`, { title: 'Deeper', parent });
    for (let i = 0; i < 10; i++) {
      const s = await post(`/orgs/${orgId}/spaces`, { title: `S${i}`, parent });
      await p.userSpacePermission.create({ data: { spaceId: s.id, organizationId: orgId, userId: who.id, role: 'edit' } });
    }
    const large = { one: await measure(who.token, one, { id: deep.id }), list: await measure(who.token, list, { org: orgId }) };
    console.log(`statements: one space ${small.one} → ${large.one}; org lists ${small.list} → ${large.list}`);
    expect(large).toEqual(small);
    // The deep space's role comes through 8 collections: comment on cTop.
    const r = await h.graphql(who.token, `query($id: ID!) { space(id: $id) { permissions { comment edit } } }`, { id: deep.id });
    expect(r.body.data.space.permissions).toEqual({ comment: true, edit: false });
  });
});
