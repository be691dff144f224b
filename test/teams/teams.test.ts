import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { requestRefusalChecker } from '../support/refused.js';
import { setupHarness, type Harness } from '../support/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await setupHarness();
});

/** Everything, teams included, to prove a refused request changed nothing. */
async function state() {
  const [base, teams, members, grants] = await Promise.all([
    h.snapshot(),
    h.db.prisma.team.findMany({ orderBy: { id: 'asc' } }),
    h.db.prisma.teamMember.findMany({ orderBy: [{ teamId: 'asc' }, { userId: 'asc' }] }),
    h.db.prisma.teamSpacePermission.findMany({ orderBy: [{ teamId: 'asc' }, { spaceId: 'asc' }] }),
  ]);
  return JSON.stringify({ base, teams, members, grants });
}

const refused = requestRefusalChecker({ call: (...a) => h.call(...a), rest: (...a) => h.rest(...a) }, state);

const createTeam = async (orgId: string, token: string, body: unknown) => {
  const res = await h.rest('createOrganizationTeam', 'PUT', `/v1/orgs/${orgId}/teams`, { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};

const sorted = <T extends { userId: string }>(rows: T[]) =>
  [...rows].sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));

const teamRows = async (teamId: string) =>
  sorted(await h.db.prisma.teamMember.findMany({ where: { teamId }, select: { userId: true, role: true } }));

// ---------------------------------------------------------------------------------------------
describe('PUT /orgs/:organizationId/teams (create)', () => {
  it('creates a team with members (201, official schema) and stores it', async () => {
    const { owner, orgId, reader, guest } = await h.world('Team Org');
    const team = await createTeam(orgId, owner.token, { title: '  Writers  ', members: [reader.id, guest.id, reader.id] });
    expect(team).toEqual({
      object: 'team',
      id: expect.any(String),
      title: 'Writers',
      members: 2,
      spaces: 0,
      createdAt: expect.any(String),
      permissions: { admin: true, view: true },
    });
    const row = await h.db.prisma.team.findUniqueOrThrow({ where: { id: team.id } });
    expect(row).toMatchObject({ organizationId: orgId, title: 'Writers' });
    expect(await teamRows(team.id)).toEqual(
      sorted([
        { userId: reader.id, role: 'member' },
        { userId: guest.id, role: 'member' },
      ]),
    );
  });

  it('creates an empty team; titles of 1 and 64 characters pass', async () => {
    const { owner, orgId } = await h.world('Team Org');
    expect((await createTeam(orgId, owner.token, { title: 'A' })).members).toBe(0);
    expect((await createTeam(orgId, owner.token, { title: 'é'.repeat(64) })).title).toBe('é'.repeat(64));
  });

  it('refuses bad input with 400 naming the field, creating nothing', async () => {
    const { owner, orgId, outsider, reader } = await h.world('Team Org');
    const path = `/v1/orgs/${orgId}/teams`;
    await refused(400, 'PUT', path, { token: owner.token, body: {}, field: 'title' });
    await refused(400, 'PUT', path, { token: owner.token, body: { title: '' }, field: 'title' });
    await refused(400, 'PUT', path, { token: owner.token, body: { title: '   ' }, field: 'title' });
    await refused(400, 'PUT', path, { token: owner.token, body: { title: 'x'.repeat(65) }, field: 'title' });
    await refused(400, 'PUT', path, { token: owner.token, body: { title: 42 }, field: 'title' });
    await refused(400, 'PUT', path, { token: owner.token, body: { title: 'T', members: [reader.id, outsider.id] }, field: 'members[1]' });
    await refused(400, 'PUT', path, { token: owner.token, body: { title: 'T', members: 'nope' }, field: 'members' });
    await refused(400, 'PUT', path, { token: owner.token, body: { title: 'T', colour: 'red' } });
  });

  it('refuses callers without rights: 401 without a token, 404 for outsiders, 403 for non-admins', async () => {
    const { orgId, outsider, reader, creator, guest } = await h.world('Team Org');
    const path = `/v1/orgs/${orgId}/teams`;
    const body = { title: 'Nope' };
    await refused(401, 'PUT', path, { body });
    await refused(404, 'PUT', path, { token: outsider.token, body });
    await refused(404, 'PUT', `/v1/orgs/${newId()}/teams`, { token: outsider.token, body });
    for (const who of [reader, creator, guest]) await refused(403, 'PUT', path, { token: who.token, body });
  });
});

// ---------------------------------------------------------------------------------------------
describe('GET /orgs/:organizationId/teams', () => {
  const list = (orgId: string, token: string, query = '') =>
    h.rest('listTeamsInOrganizationById', 'GET', `/v1/orgs/${orgId}/teams${query}`, { token });

  it('lists the teams in creation order with real counts (official schema)', async () => {
    const { owner, orgId, reader, creator } = await h.world('Team Org');
    const a = await createTeam(orgId, owner.token, { title: 'Alpha', members: [reader.id, creator.id] });
    const b = await createTeam(orgId, owner.token, { title: 'Beta', members: [reader.id] });
    const res = await list(orgId, reader.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ count: 2 });
    expect(res.body.next).toBeUndefined();
    expect(res.body.items.map((t: any) => [t.id, t.members, t.permissions])).toEqual([
      [a.id, 2, { admin: false, view: true }],
      [b.id, 1, { admin: false, view: true }],
    ]);
    // Another organization's teams never show.
    const other = await h.owner('Elsewhere');
    await createTeam(other.orgId, other.token, { title: 'Alpha elsewhere' });
    expect((await list(orgId, owner.token)).body.count).toBe(2);
  });

  it('filters by title, case-insensitively, as a substring', async () => {
    const { owner, orgId } = await h.world('Team Org');
    await createTeam(orgId, owner.token, { title: 'Docs Writers' });
    await createTeam(orgId, owner.token, { title: 'Reviewers' });
    await createTeam(orgId, owner.token, { title: 'Support' });
    const res = await list(orgId, owner.token, '?title=WRITER');
    expect(res.body.items.map((t: any) => t.title)).toEqual(['Docs Writers']);
    expect((await list(orgId, owner.token, '?title=ers')).body.items.map((t: any) => t.title)).toEqual(['Docs Writers', 'Reviewers']);
    expect((await list(orgId, owner.token, '?title=nothing')).body).toEqual({ items: [], count: 0 });
    // LIKE wildcards are plain characters here.
    expect((await list(orgId, owner.token, '?title=%25')).body).toEqual({ items: [], count: 0 });
    expect((await list(orgId, owner.token, '?title=_')).body).toEqual({ items: [], count: 0 });
    await createTeam(orgId, owner.token, { title: '100%_Done' });
    expect((await list(orgId, owner.token, '?title=%25_d')).body.items.map((t: any) => t.title)).toEqual(['100%_Done']);
  });

  it('filters by owner: the teams that member can manage', async () => {
    const { owner, orgId, reader, creator, outsider } = await h.world('Team Org');
    const a = await createTeam(orgId, owner.token, { title: 'A' });
    const b = await createTeam(orgId, owner.token, { title: 'B' });
    await h.rest('addMemberToOrganizationTeamById', 'PUT', `/v1/orgs/${orgId}/teams/${a.id}/members/${reader.id}`, {
      token: owner.token,
      body: { role: 'owner' },
    });
    await h.rest('addMemberToOrganizationTeamById', 'PUT', `/v1/orgs/${orgId}/teams/${b.id}/members/${reader.id}`, {
      token: owner.token,
      body: { role: 'member' },
    });
    expect((await list(orgId, creator.token, `?owner=${reader.id}`)).body.items.map((t: any) => t.id)).toEqual([a.id]);
    // An admin can manage every team.
    expect((await list(orgId, reader.token, `?owner=${owner.id}`)).body.items.map((t: any) => t.id)).toEqual([a.id, b.id]);
    expect((await list(orgId, owner.token, `?owner=${creator.id}`)).body).toEqual({ items: [], count: 0 });
    expect((await list(orgId, owner.token, `?owner=${outsider.id}`)).body).toEqual({ items: [], count: 0 });
    // Combined with title.
    expect((await list(orgId, owner.token, `?owner=${owner.id}&title=b`)).body.items.map((t: any) => t.id)).toEqual([b.id]);
    // The owner sees admin permissions on the team they own.
    const asReader = await list(orgId, reader.token);
    expect(asReader.body.items.map((t: any) => t.permissions.admin)).toEqual([true, false]);
  });

  it('pages with limit and next.page', async () => {
    const { owner, orgId } = await h.world('Team Org');
    const ids: string[] = [];
    for (const title of ['1', '2', '3']) ids.push((await createTeam(orgId, owner.token, { title })).id);
    const first = await list(orgId, owner.token, '?limit=2');
    expect(first.body).toMatchObject({ count: 3, next: { page: expect.any(String) } });
    const second = await list(orgId, owner.token, `?limit=2&page=${encodeURIComponent(first.body.next.page)}`);
    expect([...first.body.items, ...second.body.items].map((t: any) => t.id)).toEqual(ids);
    expect(second.body.next).toBeUndefined();
  });

  it('a guest sees only the teams they are in', async () => {
    const { owner, orgId, guest } = await h.world('Team Org');
    await createTeam(orgId, owner.token, { title: 'Not mine' });
    const mine = await createTeam(orgId, owner.token, { title: 'Mine', members: [guest.id] });
    const res = await list(orgId, guest.token);
    expect(res.body.items.map((t: any) => [t.id, t.permissions])).toEqual([[mine.id, { admin: false, view: true }]]);
    expect(res.body.count).toBe(1);
  });

  it('refuses a bad limit (400), no token (401) and outsiders (404)', async () => {
    const { owner, orgId, outsider } = await h.world('Team Org');
    await refused(400, 'GET', `/v1/orgs/${orgId}/teams?limit=0`, { token: owner.token, field: 'limit' });
    await refused(400, 'GET', `/v1/orgs/${orgId}/teams?page=bogus`, { token: owner.token, field: 'page' });
    await refused(401, 'GET', `/v1/orgs/${orgId}/teams`);
    await refused(404, 'GET', `/v1/orgs/${orgId}/teams`, { token: outsider.token });
  });
});

// ---------------------------------------------------------------------------------------------
describe('GET /orgs/:organizationId/teams/:teamId', () => {
  it('answers the team with the caller’s permissions', async () => {
    const { owner, orgId, reader, creator } = await h.world('Team Org');
    const team = await createTeam(orgId, owner.token, { title: 'Core', members: [reader.id, creator.id] });
    await h.db.prisma.teamMember.update({ where: { teamId_userId: { teamId: team.id, userId: creator.id } }, data: { role: 'owner' } });
    const get = (token: string) => h.rest('getTeamInOrganizationById', 'GET', `/v1/orgs/${orgId}/teams/${team.id}`, { token });
    expect((await get(owner.token)).body).toEqual(team);
    expect((await get(reader.token)).body.permissions).toEqual({ admin: false, view: true });
    expect((await get(creator.token)).body.permissions).toEqual({ admin: true, view: true });
  });

  it('answers 404 for an unknown team or one of another organization; 401, outsiders and guests outside the team 404', async () => {
    const { owner, orgId, outsider, guest } = await h.world('Team Org');
    const team = await createTeam(orgId, owner.token, { title: 'Core' });
    const other = await h.owner();
    const foreign = await createTeam(other.orgId, other.token, { title: 'Foreign' });
    await refused(404, 'GET', `/v1/orgs/${orgId}/teams/${newId()}`, { token: owner.token });
    await refused(404, 'GET', `/v1/orgs/${orgId}/teams/${foreign.id}`, { token: owner.token });
    await refused(401, 'GET', `/v1/orgs/${orgId}/teams/${team.id}`);
    await refused(404, 'GET', `/v1/orgs/${orgId}/teams/${team.id}`, { token: outsider.token });
    await refused(404, 'GET', `/v1/orgs/${orgId}/teams/${team.id}`, { token: guest.token });
  });
});

// ---------------------------------------------------------------------------------------------
describe('PATCH /orgs/:organizationId/teams/:teamId', () => {
  it('renames the team (admins and team owners)', async () => {
    const { owner, orgId, reader } = await h.world('Team Org');
    const team = await createTeam(orgId, owner.token, { title: 'Old' });
    const path = `/v1/orgs/${orgId}/teams/${team.id}`;
    const res = await h.rest('updateTeamInOrganizationById', 'PATCH', path, { token: owner.token, body: { title: 'New' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: team.id, title: 'New', object: 'team' });
    await h.rest('addMemberToOrganizationTeamById', 'PUT', `${path}/members/${reader.id}`, { token: owner.token, body: { role: 'owner' } });
    const byOwner = await h.rest('updateTeamInOrganizationById', 'PATCH', path, { token: reader.token, body: { title: ' Newer ' } });
    expect(byOwner.body).toMatchObject({ title: 'Newer', members: 1, permissions: { admin: true, view: true } });
    expect((await h.db.prisma.team.findUniqueOrThrow({ where: { id: team.id } })).title).toBe('Newer');
  });

  it('refuses bad input (400), callers without rights (401/404/403) and unknown teams (404)', async () => {
    const { owner, orgId, reader, outsider, creator } = await h.world('Team Org');
    const team = await createTeam(orgId, owner.token, { title: 'Stay', members: [reader.id] });
    const path = `/v1/orgs/${orgId}/teams/${team.id}`;
    await refused(400, 'PATCH', path, { token: owner.token, body: {}, field: 'title' });
    await refused(400, 'PATCH', path, { token: owner.token, body: { title: '' }, field: 'title' });
    await refused(400, 'PATCH', path, { token: owner.token, body: { title: 'x'.repeat(65) }, field: 'title' });
    await refused(400, 'PATCH', path, { token: owner.token, body: { title: null }, field: 'title' });
    await refused(401, 'PATCH', path, { body: { title: 'X' } });
    await refused(404, 'PATCH', path, { token: outsider.token, body: { title: 'X' } });
    await refused(403, 'PATCH', path, { token: reader.token, body: { title: 'X' } }); // a plain team member
    await refused(403, 'PATCH', path, { token: creator.token, body: { title: 'X' } }); // not in the team
    await refused(404, 'PATCH', `/v1/orgs/${orgId}/teams/${newId()}`, { token: owner.token, body: { title: 'X' } });
  });
});

// ---------------------------------------------------------------------------------------------
describe('DELETE /orgs/:organizationId/teams/:teamId', () => {
  it('deletes the team and its memberships (205), then answers 404', async () => {
    const { owner, orgId, reader } = await h.world('Team Org');
    const team = await createTeam(orgId, owner.token, { title: 'Gone', members: [reader.id] });
    const keep = await createTeam(orgId, owner.token, { title: 'Kept', members: [reader.id] });
    const path = `/v1/orgs/${orgId}/teams/${team.id}`;
    expect((await h.rest('removeTeamFromOrganizationById', 'DELETE', path, { token: owner.token })).status).toBe(205);
    expect(await h.db.prisma.team.findUnique({ where: { id: team.id } })).toBeNull();
    expect(await teamRows(team.id)).toEqual([]);
    expect(await teamRows(keep.id)).toHaveLength(1);
    const again = await h.call('DELETE', path, { token: owner.token });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: { code: 404, message: 'Team not found' } });
  });

  it('refuses team owners and members (403), outsiders (404), no token (401)', async () => {
    const { owner, orgId, reader, outsider } = await h.world('Team Org');
    const team = await createTeam(orgId, owner.token, { title: 'Stays' });
    await h.db.prisma.teamMember.create({ data: { teamId: team.id, organizationId: orgId, userId: reader.id, role: 'owner' } });
    const path = `/v1/orgs/${orgId}/teams/${team.id}`;
    await refused(403, 'DELETE', path, { token: reader.token });
    await refused(404, 'DELETE', path, { token: outsider.token });
    await refused(401, 'DELETE', path);
  });
});

// ---------------------------------------------------------------------------------------------
describe('GET /orgs/:organizationId/teams/:teamId/members', () => {
  it('lists the members: organization member, team role, permissions (official schema)', async () => {
    const { owner, orgId, reader, creator } = await h.world('Team Org');
    const team = await createTeam(orgId, owner.token, { title: 'Listed', members: [reader.id] });
    const second = await createTeam(orgId, owner.token, { title: 'Second', members: [reader.id] });
    await h.rest('addMemberToOrganizationTeamById', 'PUT', `/v1/orgs/${orgId}/teams/${team.id}/members/${creator.id}`, {
      token: owner.token,
      body: { role: 'owner' },
    });
    const res = await h.rest('listTeamMembersInOrganizationById', 'GET', `/v1/orgs/${orgId}/teams/${team.id}/members`, {
      token: reader.token,
    });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(2);
    expect(res.body.items).toEqual([
      {
        organization: expect.objectContaining({
          object: 'member',
          id: reader.id,
          role: 'read',
          teams: 2,
          user: expect.objectContaining({ id: reader.id }),
        }),
        team: { role: 'member' },
        permissions: { view: true },
      },
      {
        organization: expect.objectContaining({ object: 'member', id: creator.id, role: 'create', teams: 1 }),
        team: { role: 'owner' },
        permissions: { view: true },
      },
    ]);
    expect(second.members).toBe(1);
  });

  it('pages; refuses a bad limit (400), no token (401), outsiders and guests outside the team (404)', async () => {
    const { owner, orgId, reader, creator, outsider, guest } = await h.world('Team Org');
    const team = await createTeam(orgId, owner.token, { title: 'Paged', members: [owner.id, reader.id, creator.id] });
    const path = `/v1/orgs/${orgId}/teams/${team.id}/members`;
    const first = await h.rest('listTeamMembersInOrganizationById', 'GET', `${path}?limit=2`, { token: owner.token });
    expect(first.body).toMatchObject({ count: 3, next: { page: expect.any(String) } });
    const second = await h.rest(
      'listTeamMembersInOrganizationById',
      'GET',
      `${path}?limit=2&page=${encodeURIComponent(first.body.next.page)}`,
      { token: owner.token },
    );
    expect([...first.body.items, ...second.body.items].map((m: any) => m.organization.id).sort()).toEqual(
      [owner.id, reader.id, creator.id].sort(),
    );
    await refused(400, 'GET', `${path}?limit=1001`, { token: owner.token, field: 'limit' });
    await refused(401, 'GET', path);
    await refused(404, 'GET', path, { token: outsider.token });
    await refused(404, 'GET', path, { token: guest.token });
  });
});

// ---------------------------------------------------------------------------------------------
describe('PUT /orgs/:organizationId/teams/:teamId/members (add, remove, memberships)', () => {
  const update = (orgId: string, teamId: string, token: string, body: unknown) =>
    h.rest('updateMembersInOrganizationTeam', 'PUT', `/v1/orgs/${orgId}/teams/${teamId}/members`, { token, body });

  it('adds by id or email, removes, and sets roles in one call (204)', async () => {
    const { owner, orgId, reader, creator, guest } = await h.world('Team Org');
    const team = await createTeam(orgId, owner.token, { title: 'Batch', members: [guest.id] });
    const res = await update(orgId, team.id, owner.token, {
      add: [reader.id, creator.email.toUpperCase()],
      remove: [guest.email],
      memberships: { [creator.id]: { role: 'owner' } },
    });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(await teamRows(team.id)).toEqual(
      sorted([
        { userId: reader.id, role: 'member' },
        { userId: creator.id, role: 'owner' },
      ]),
    );
    // memberships alone changes a role, and adds a member of the organization not in the team yet.
    await update(orgId, team.id, owner.token, { memberships: { [reader.id]: { role: 'owner' }, [owner.id]: { role: 'member' } } });
    expect(await teamRows(team.id)).toEqual(
      sorted([
        { userId: reader.id, role: 'owner' },
        { userId: creator.id, role: 'owner' },
        { userId: owner.id, role: 'member' },
      ]),
    );
    // Adding someone already in the team keeps their role.
    await update(orgId, team.id, owner.token, { add: [reader.id] });
    expect((await teamRows(team.id)).find((r) => r.userId === reader.id)?.role).toBe('owner');
    // An empty body changes nothing.
    expect((await update(orgId, team.id, owner.token, {})).status).toBe(204);
    expect(await teamRows(team.id)).toHaveLength(3);
  });

  it('a user both added and removed is removed', async () => {
    const { owner, orgId, reader, creator } = await h.world('Team Org');
    const team = await createTeam(orgId, owner.token, { title: 'Both', members: [creator.id] });
    await update(orgId, team.id, owner.token, {
      add: [reader.id, creator.id],
      remove: [reader.email, creator.id],
      memberships: { [reader.id]: { role: 'owner' } },
    });
    expect(await teamRows(team.id)).toEqual([]);
    const read = await h.rest('getTeamInOrganizationById', 'GET', `/v1/orgs/${orgId}/teams/${team.id}`, { token: owner.token });
    expect(read.body.members).toBe(0);
  });

  it('team owners manage members; plain team members and other members cannot', async () => {
    const { owner, orgId, reader, creator, guest } = await h.world('Team Org');
    const team = await createTeam(orgId, owner.token, { title: 'Owned', members: [reader.id, creator.id] });
    await h.db.prisma.teamMember.update({ where: { teamId_userId: { teamId: team.id, userId: reader.id } }, data: { role: 'owner' } });
    expect((await update(orgId, team.id, reader.token, { add: [guest.id] })).status).toBe(204);
    expect(await teamRows(team.id)).toHaveLength(3);
    const path = `/v1/orgs/${orgId}/teams/${team.id}/members`;
    await refused(403, 'PUT', path, { token: creator.token, body: { remove: [reader.id] } });
    const other = await h.user();
    await h.addMember(orgId, other.id, 'admin');
    const foreignAdmin = await h.owner();
    await refused(404, 'PUT', path, { token: foreignAdmin.token, body: { add: [foreignAdmin.id] } });
    await refused(401, 'PUT', path, { body: { add: [guest.id] } });
    // An organization admin outside the team manages it.
    expect((await update(orgId, team.id, other.token, { remove: [guest.id] })).status).toBe(204);
  });

  it('refuses unknown users, non-members and bad roles with 400 naming the entry, changing nothing', async () => {
    const { owner, orgId, reader, outsider } = await h.world('Team Org');
    const team = await createTeam(orgId, owner.token, { title: 'Strict', members: [reader.id] });
    const path = `/v1/orgs/${orgId}/teams/${team.id}/members`;
    await refused(400, 'PUT', path, { token: owner.token, body: { add: [reader.id, outsider.id] }, field: 'add[1]' });
    await refused(400, 'PUT', path, { token: owner.token, body: { add: ['nobody@nowhere.example'] }, field: 'add[0]' });
    await refused(400, 'PUT', path, { token: owner.token, body: { remove: [newId()] }, field: 'remove[0]' });
    await refused(400, 'PUT', path, {
      token: owner.token,
      body: { memberships: { [reader.id]: { role: 'boss' } } },
      field: `memberships.${reader.id}.role`,
    });
    await refused(400, 'PUT', path, {
      token: owner.token,
      body: { memberships: { [reader.id]: 'owner' } },
      field: `memberships.${reader.id}`,
    });
    await refused(400, 'PUT', path, {
      token: owner.token,
      body: { memberships: { [outsider.id]: { role: 'owner' } } },
      field: `memberships.${outsider.id}`,
    });
    await refused(400, 'PUT', path, { token: owner.token, body: { memberships: [] }, field: 'memberships' });
    await refused(400, 'PUT', path, { token: owner.token, body: { add: 'x' }, field: 'add' });
    await refused(400, 'PUT', path, { token: owner.token, body: { kick: [reader.id] } });
    await refused(404, 'PUT', `/v1/orgs/${orgId}/teams/${newId()}/members`, { token: owner.token, body: { add: [reader.id] } });
  });
});

// ---------------------------------------------------------------------------------------------
describe('PUT /orgs/:organizationId/teams/:teamId/members/:userId', () => {
  const put = (orgId: string, teamId: string, userId: string, token: string, body: unknown = {}) =>
    h.rest('addMemberToOrganizationTeamById', 'PUT', `/v1/orgs/${orgId}/teams/${teamId}/members/${userId}`, { token, body });

  it('adds a member (member by default), changes the role, keeps it when absent (204)', async () => {
    const { owner, orgId, reader } = await h.world('Team Org');
    const team = await createTeam(orgId, owner.token, { title: 'One by one' });
    const res = await put(orgId, team.id, reader.id, owner.token);
    expect(res.status).toBe(204);
    expect(await teamRows(team.id)).toEqual([{ userId: reader.id, role: 'member' }]);
    await put(orgId, team.id, reader.id, owner.token, { role: 'owner' });
    expect(await teamRows(team.id)).toEqual([{ userId: reader.id, role: 'owner' }]);
    await put(orgId, team.id, reader.id, owner.token);
    expect(await teamRows(team.id)).toEqual([{ userId: reader.id, role: 'owner' }]);
    await put(orgId, team.id, reader.id, owner.token, { role: 'member' });
    expect(await teamRows(team.id)).toEqual([{ userId: reader.id, role: 'member' }]);
  });

  it('refuses a bad role (400), a non-member (404), and callers without rights', async () => {
    const { owner, orgId, reader, creator, outsider } = await h.world('Team Org');
    const team = await createTeam(orgId, owner.token, { title: 'Guarded', members: [reader.id] });
    const path = (userId: string) => `/v1/orgs/${orgId}/teams/${team.id}/members/${userId}`;
    await refused(400, 'PUT', path(creator.id), { token: owner.token, body: { role: 'admin' }, field: 'role' });
    await refused(400, 'PUT', path(creator.id), { token: owner.token, body: { role: 'owner', extra: 1 } });
    await refused(404, 'PUT', path(outsider.id), { token: owner.token, body: {} });
    await refused(403, 'PUT', path(creator.id), { token: reader.token, body: {} }); // plain team member
    await refused(403, 'PUT', path(reader.id), { token: reader.token, body: { role: 'owner' } }); // cannot promote themself
    await refused(404, 'PUT', path(creator.id), { token: outsider.token, body: {} });
    await refused(401, 'PUT', path(creator.id), { body: {} });
  });
});

// ---------------------------------------------------------------------------------------------
describe('DELETE /orgs/:organizationId/teams/:teamId/members/:userId', () => {
  const del = (orgId: string, teamId: string, userId: string, token: string) =>
    h.rest('deleteMemberFromOrganizationTeamById', 'DELETE', `/v1/orgs/${orgId}/teams/${teamId}/members/${userId}`, { token });

  it('removes a member (205), then answers 204; a member may leave on their own', async () => {
    const { owner, orgId, reader, creator } = await h.world('Team Org');
    const team = await createTeam(orgId, owner.token, { title: 'Leaving', members: [reader.id, creator.id] });
    expect((await del(orgId, team.id, reader.id, owner.token)).status).toBe(205);
    expect((await del(orgId, team.id, reader.id, owner.token)).status).toBe(204);
    expect((await del(orgId, team.id, creator.id, creator.token)).status).toBe(205);
    expect(await teamRows(team.id)).toEqual([]);
  });

  it('refuses plain members removing others (403), outsiders (404), no token (401)', async () => {
    const { owner, orgId, reader, creator, outsider } = await h.world('Team Org');
    const team = await createTeam(orgId, owner.token, { title: 'Kept', members: [reader.id, creator.id] });
    const path = `/v1/orgs/${orgId}/teams/${team.id}/members/${creator.id}`;
    await refused(403, 'DELETE', path, { token: reader.token });
    await refused(404, 'DELETE', path, { token: outsider.token });
    await refused(401, 'DELETE', path);
  });
});

// ---------------------------------------------------------------------------------------------
describe('counts', () => {
  it('an organization member’s `teams` counts their teams; leaving the organization leaves its teams', async () => {
    const { owner, orgId, reader } = await h.world('Team Org');
    const member = () => h.rest('getMemberInOrganizationById', 'GET', `/v1/orgs/${orgId}/members/${reader.id}`, { token: owner.token });
    expect((await member()).body.teams).toBe(0);
    const a = await createTeam(orgId, owner.token, { title: 'A', members: [reader.id] });
    await createTeam(orgId, owner.token, { title: 'B', members: [reader.id] });
    await createTeam(orgId, owner.token, { title: 'C' });
    expect((await member()).body.teams).toBe(2);
    // A team of another organization does not count.
    const other = await h.owner();
    await h.addMember(other.orgId, reader.id, 'read');
    await createTeam(other.orgId, other.token, { title: 'Theirs', members: [reader.id] });
    expect((await member()).body.teams).toBe(2);
    const list = await h.rest('listMembersInOrganizationById', 'GET', `/v1/orgs/${orgId}/members`, { token: owner.token });
    expect(Object.fromEntries(list.body.items.map((m: any) => [m.id, m.teams]))).toMatchObject({ [reader.id]: 2, [owner.id]: 0 });

    expect((await h.call('DELETE', `/v1/orgs/${orgId}/members/${reader.id}`, { token: owner.token })).status).toBe(205);
    expect(await teamRows(a.id)).toEqual([]);
    expect((await h.rest('getTeamInOrganizationById', 'GET', `/v1/orgs/${orgId}/teams/${a.id}`, { token: owner.token })).body.members).toBe(
      0,
    );
  });

  it('a team’s `spaces` counts the live spaces it has access to', async () => {
    const { owner, orgId } = await h.world('Team Org');
    const team = await createTeam(orgId, owner.token, { title: 'With spaces' });
    const spaces = [];
    for (const title of ['One', 'Two', 'Three']) {
      spaces.push((await h.rest('createSpace', 'POST', `/v1/orgs/${orgId}/spaces`, { token: owner.token, body: { title } })).body);
    }
    // Team access to spaces is granted by the space-permission routes (not part of this module):
    // rows are written directly here.
    await h.db.prisma.teamSpacePermission.createMany({ data: spaces.map((s) => ({ teamId: team.id, spaceId: s.id, role: 'edit' })) });
    const get = () => h.rest('getTeamInOrganizationById', 'GET', `/v1/orgs/${orgId}/teams/${team.id}`, { token: owner.token });
    expect((await get()).body.spaces).toBe(3);
    expect((await h.call('DELETE', `/v1/spaces/${spaces[0].id}`, { token: owner.token })).status).toBe(205);
    expect((await get()).body.spaces).toBe(2);
  });
});

// ---------------------------------------------------------------------------------------------
describe('GraphQL', () => {
  it('lists teams with their memberships in one query', async () => {
    const { owner, orgId, reader } = await h.world('Team Org');
    const team = await createTeam(orgId, owner.token, { title: 'GQL', members: [reader.id] });
    const res = await h.graphql(
      owner.token,
      `query($id: ID!) { organization(id: $id) { teams { count items { id title members memberships { items { team { role } organization { id teams } } } } } } }`,
      { id: orgId },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.organization.teams).toEqual({
      count: 1,
      items: [
        {
          id: team.id,
          title: 'GQL',
          members: 1,
          memberships: { items: [{ team: { role: 'member' }, organization: { id: reader.id, teams: 1 } }] },
        },
      ],
    });
  });
});
