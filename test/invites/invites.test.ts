import { beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.js';
import { newId } from '../../src/ids.js';
import { hashSecret } from '../../src/secrets.js';
import { requestRefusalChecker } from '../support/refused.js';
import { setupHarness, type Harness } from '../support/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await setupHarness();
});

/** h.snapshot() covers organizations, members and invite links; users are added here. */
async function state() {
  const [base, users] = await Promise.all([h.snapshot(), h.db.prisma.user.findMany({ orderBy: { id: 'asc' } })]);
  return JSON.stringify({ base, users });
}

const refused = requestRefusalChecker({ call: (...a) => h.call(...a), rest: (...a) => h.rest(...a) }, state);

const createInvite = async (orgId: string, token: string, body: unknown) => {
  const res = await h.rest('createOrganizationInvite', 'POST', `/v1/orgs/${orgId}/link-invites`, { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};

const membership = (orgId: string, userId: string) =>
  h.db.prisma.member.findUnique({ where: { organizationId_userId: { organizationId: orgId, userId } } });

// ---------------------------------------------------------------------------------------------
describe('POST /orgs/:organizationId/link-invites', () => {
  it('creates an invite link with a role or for guests (201, official schema); ids are long random secrets', async () => {
    const { owner, orgId } = await h.world('Invite Org', { creator: false });
    const edit = await createInvite(orgId, owner.token, { role: 'edit' });
    expect(edit).toEqual({ object: 'invite', id: expect.any(String), role: 'edit', redundant: true });
    expect(edit.id).toMatch(/^[0-9A-Za-z]{32}$/);
    const guest = await createInvite(orgId, owner.token, { role: null });
    expect(guest).toMatchObject({ role: null });
    expect(guest.id).not.toBe(edit.id);
    // Only the code's hash is stored (with a sealed copy for admins to see it again).
    const row = await h.db.prisma.inviteLink.findUniqueOrThrow({ where: { id: hashSecret(edit.id) } });
    expect(row).toMatchObject({ organizationId: orgId, role: 'edit', createdById: owner.id });
  });

  it('refuses bad input with 400 naming the field (organization, space and collection invites)', async () => {
    const { owner, orgId } = await h.world('Invite Org', { creator: false });
    const path = `/v1/orgs/${orgId}/link-invites`;
    const space = (await h.call('POST', `/v1/orgs/${orgId}/spaces`, { token: owner.token, body: { title: 'S' } })).body.id;
    const collection = (await h.call('POST', `/v1/orgs/${orgId}/collections`, { token: owner.token, body: { title: 'C' } })).body.id;
    await refused(400, 'POST', path, { token: owner.token, body: {}, field: 'role' });
    await refused(400, 'POST', path, { token: owner.token, body: { role: 'boss' }, field: 'role' });
    await refused(400, 'POST', path, { token: owner.token, body: { level: 'read' }, field: 'level' });
    await refused(400, 'POST', path, { token: owner.token, body: { space }, field: 'level' });
    await refused(400, 'POST', path, { token: owner.token, body: { space, level: null }, field: 'level' });
    await refused(400, 'POST', path, { token: owner.token, body: { space, level: 'boss' }, field: 'level' });
    await refused(400, 'POST', path, { token: owner.token, body: { space, role: 'read', level: 'read' }, field: 'role' });
    await refused(400, 'POST', path, { token: owner.token, body: { space, collection, level: 'read' }, field: 'collection' });
    await refused(404, 'POST', path, { token: owner.token, body: { level: 'read', space: 'abc' } });
    await refused(404, 'POST', path, { token: owner.token, body: { level: 'read', collection: 'abc' } });
    await refused(400, 'POST', path, { token: owner.token, body: { role: 'read', extra: true } });
  });

  it('refuses when invite links are turned off (403), non-admins (403), outsiders (404), no token (401)', async () => {
    const { owner, orgId, reader, guest, outsider } = await h.world('Invite Org', { creator: false });
    const path = `/v1/orgs/${orgId}/link-invites`;
    await h.db.prisma.organization.update({ where: { id: orgId }, data: { inviteLinks: false } });
    await refused(403, 'POST', path, { token: owner.token, body: { role: 'read' } });
    await h.db.prisma.organization.update({ where: { id: orgId }, data: { inviteLinks: true } });
    await refused(403, 'POST', path, { token: reader.token, body: { role: 'read' } });
    await refused(403, 'POST', path, { token: guest.token, body: { role: 'read' } });
    await refused(404, 'POST', path, { token: outsider.token, body: { role: 'read' } });
    await refused(401, 'POST', path, { body: { role: 'read' } });
  });
});

// ---------------------------------------------------------------------------------------------
describe('GET /orgs/:organizationId/link-invites', () => {
  it('lists the organization’s invite links in creation order (official schema), paged', async () => {
    const { owner, orgId } = await h.world('Invite Org', { creator: false });
    const a = await createInvite(orgId, owner.token, { role: 'read' });
    const b = await createInvite(orgId, owner.token, { role: null });
    const c = await createInvite(orgId, owner.token, { role: 'admin' });
    const other = await h.owner();
    await createInvite(other.orgId, other.token, { role: 'read' });
    const all = await h.rest('listOrganizationInviteLinks', 'GET', `/v1/orgs/${orgId}/link-invites`, { token: owner.token });
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ items: [a, b, c], count: 3 });
    const first = await h.rest('listOrganizationInviteLinks', 'GET', `/v1/orgs/${orgId}/link-invites?limit=2`, { token: owner.token });
    expect(first.body).toMatchObject({ count: 3, items: [a, b], next: { page: expect.any(String) } });
    const second = await h.rest(
      'listOrganizationInviteLinks',
      'GET',
      `/v1/orgs/${orgId}/link-invites?limit=2&page=${encodeURIComponent(first.body.next.page)}`,
      { token: owner.token },
    );
    expect(second.body).toEqual({ items: [c], count: 3 });
  });

  it('refuses a bad limit (400), non-admins (403), outsiders (404), no token (401)', async () => {
    const { owner, orgId, reader, outsider } = await h.world('Invite Org', { creator: false });
    const path = `/v1/orgs/${orgId}/link-invites`;
    await refused(400, 'GET', `${path}?limit=-1`, { token: owner.token, field: 'limit' });
    await refused(403, 'GET', path, { token: reader.token });
    await refused(404, 'GET', path, { token: outsider.token });
    await refused(401, 'GET', path);
  });
});

// ---------------------------------------------------------------------------------------------
describe('GET and PATCH /orgs/:organizationId/link-invites/:inviteId', () => {
  it('answers one invite link and changes its role', async () => {
    const { owner, orgId } = await h.world('Invite Org', { creator: false });
    const invite = await createInvite(orgId, owner.token, { role: 'read' });
    const path = `/v1/orgs/${orgId}/link-invites/${invite.id}`;
    expect((await h.rest('getOrganizationInviteLink', 'GET', path, { token: owner.token })).body).toEqual(invite);
    const patched = await h.rest('updateOrganizationInviteById', 'PATCH', path, { token: owner.token, body: { role: 'review' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...invite, role: 'review' });
    expect(
      (await h.rest('updateOrganizationInviteById', 'PATCH', path, { token: owner.token, body: { role: null } })).body.role,
    ).toBeNull();
    expect((await h.db.prisma.inviteLink.findUniqueOrThrow({ where: { id: hashSecret(invite.id) } })).role).toBeNull();
  });

  it('answers 404 for unknown invites or another organization’s', async () => {
    const { owner, orgId } = await h.world('Invite Org', { creator: false });
    const other = await h.owner();
    const theirs = await createInvite(other.orgId, other.token, { role: 'read' });
    await refused(404, 'GET', `/v1/orgs/${orgId}/link-invites/${newId(32)}`, { token: owner.token });
    await refused(404, 'GET', `/v1/orgs/${orgId}/link-invites/${theirs.id}`, { token: owner.token });
    await refused(404, 'PATCH', `/v1/orgs/${orgId}/link-invites/${theirs.id}`, { token: owner.token, body: { role: 'admin' } });
  });

  it('refuses bad input (400) and callers without rights', async () => {
    const { owner, orgId, reader, outsider } = await h.world('Invite Org', { creator: false });
    const invite = await createInvite(orgId, owner.token, { role: 'read' });
    const path = `/v1/orgs/${orgId}/link-invites/${invite.id}`;
    await refused(400, 'PATCH', path, { token: owner.token, body: {}, field: 'role' });
    await refused(400, 'PATCH', path, { token: owner.token, body: { role: 'owner' }, field: 'role' });
    await refused(400, 'PATCH', path, { token: owner.token, body: { level: 'read' }, field: 'level' });
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { role: 'admin' }],
    ] as const) {
      await refused(403, method, path, { token: reader.token, body });
      await refused(404, method, path, { token: outsider.token, body });
      await refused(401, method, path, { body });
    }
  });

  it('DELETE removes it (205) and then answers 404', async () => {
    const { owner, orgId, reader } = await h.world('Invite Org', { creator: false });
    const invite = await createInvite(orgId, owner.token, { role: 'read' });
    const path = `/v1/orgs/${orgId}/link-invites/${invite.id}`;
    await refused(403, 'DELETE', path, { token: reader.token });
    expect((await h.rest('deleteOrganizationInviteById', 'DELETE', path, { token: owner.token })).status).toBe(205);
    await refused(404, 'DELETE', path, { token: owner.token });
  });
});

// ---------------------------------------------------------------------------------------------
describe('POST /orgs/:organizationId/invites/:inviteId (join with an invite link)', () => {
  const join = (orgId: string, inviteId: string, token: string) =>
    h.rest('joinOrganizationWithInvite', 'POST', `/v1/orgs/${orgId}/invites/${inviteId}`, { token });

  it('makes the caller a member with the link’s role (200 {}); joining again changes nothing', async () => {
    const { owner, orgId, outsider } = await h.world('Invite Org', { creator: false });
    const invite = await createInvite(orgId, owner.token, { role: 'edit' });
    const res = await join(orgId, invite.id, outsider.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(await membership(orgId, outsider.id)).toMatchObject({ role: 'edit', disabled: false, sso: false });
    // Now a member: the organization is visible.
    expect((await h.call('GET', `/v1/orgs/${orgId}`, { token: outsider.token })).status).toBe(200);
    expect((await join(orgId, invite.id, outsider.token)).status).toBe(200);
    expect(await h.db.prisma.member.count({ where: { organizationId: orgId } })).toBe(4);
    // A guest link makes guests.
    const newcomer = await h.user();
    const guestLink = await createInvite(orgId, owner.token, { role: null });
    await join(orgId, guestLink.id, newcomer.token);
    expect((await membership(orgId, newcomer.id))?.role).toBeNull();
  });

  it('raises a lower role to the link’s, never lowers one', async () => {
    const { owner, orgId, reader, guest } = await h.world('Invite Org', { creator: false });
    const review = await createInvite(orgId, owner.token, { role: 'review' });
    await join(orgId, review.id, reader.token);
    await join(orgId, review.id, guest.token);
    expect((await membership(orgId, reader.id))?.role).toBe('review');
    expect((await membership(orgId, guest.id))?.role).toBe('review');
    const read = await createInvite(orgId, owner.token, { role: 'read' });
    await join(orgId, read.id, reader.token);
    await join(orgId, read.id, owner.token);
    expect((await membership(orgId, reader.id))?.role).toBe('review');
    expect((await membership(orgId, owner.id))?.role).toBe('admin');
  });

  it('refuses unknown links and links of another organization (404), no token (401)', async () => {
    const { owner, orgId, outsider } = await h.world('Invite Org', { creator: false });
    const other = await h.owner();
    const theirs = await createInvite(other.orgId, other.token, { role: 'read' });
    const mine = await createInvite(orgId, owner.token, { role: 'read' });
    await refused(404, 'POST', `/v1/orgs/${orgId}/invites/${newId(32)}`, { token: outsider.token });
    await refused(404, 'POST', `/v1/orgs/${orgId}/invites/${theirs.id}`, { token: outsider.token });
    await refused(404, 'POST', `/v1/orgs/${newId()}/invites/${mine.id}`, { token: outsider.token });
    await refused(401, 'POST', `/v1/orgs/${orgId}/invites/${mine.id}`);
  });

  it('refuses when invite links are off, a disabled member, SSO-enforced organizations and other organizations’ SSO tokens (403)', async () => {
    const { owner, orgId, reader, outsider } = await h.world('Invite Org', { creator: false });
    const invite = await createInvite(orgId, owner.token, { role: 'admin' });
    const path = `/v1/orgs/${orgId}/invites/${invite.id}`;
    await h.db.prisma.organization.update({ where: { id: orgId }, data: { inviteLinks: false } });
    await refused(403, 'POST', path, { token: outsider.token });
    await h.db.prisma.organization.update({ where: { id: orgId }, data: { inviteLinks: true } });

    await h.db.prisma.member.update({
      where: { organizationId_userId: { organizationId: orgId, userId: reader.id } },
      data: { disabled: true },
    });
    await refused(403, 'POST', path, { token: reader.token });

    const other = await h.owner();
    const foreignSso = await issueToken(h.db.prisma, outsider.id, 'sso', {
      organizationId: other.orgId,
      expiresAt: new Date(Date.now() + 60_000),
    });
    await refused(403, 'POST', path, { token: foreignSso });

    await h.db.prisma.organization.update({ where: { id: orgId }, data: { sso: true } });
    await refused(403, 'POST', path, { token: outsider.token });
    // The organization's own SSO token may use it.
    const ownSso = await issueToken(h.db.prisma, outsider.id, 'sso', { organizationId: orgId, expiresAt: new Date(Date.now() + 60_000) });
    expect((await join(orgId, invite.id, ownSso)).status).toBe(200);
  });

  it('joining by email domain follows the same rules', async () => {
    const { owner, orgId } = await h.world('Invite Org', { creator: false });
    await h.db.prisma.organization.update({ where: { id: orgId }, data: { emailDomains: ['corp.example'], sso: true } });
    const employee = await h.user('Employee', `e-${newId(5).toLowerCase()}@corp.example`);
    await refused(403, 'POST', `/v1/orgs/${orgId}/join`, { token: employee.token });
    await h.db.prisma.organization.update({ where: { id: orgId }, data: { sso: false } });
    expect((await h.rest('joinOrganization', 'POST', `/v1/orgs/${orgId}/join`, { token: employee.token })).status).toBe(204);
    expect(owner.orgId).toBe(orgId);
  });
});

// ---------------------------------------------------------------------------------------------
describe('POST /orgs/:organizationId/invites (by email)', () => {
  const invite = (orgId: string, token: string, body: unknown) =>
    h.rest('inviteUsersToOrganization', 'POST', `/v1/orgs/${orgId}/invites`, { token, body });

  it('adds existing users and new emails, skips members (official schema)', async () => {
    const { owner, orgId, reader } = await h.world('Invite Org', { creator: false });
    await h.db.prisma.organization.update({ where: { id: orgId }, data: { defaultRole: 'comment' } });
    const known = await h.user('Known');
    const res = await invite(orgId, owner.token, {
      emails: [
        known.email.toUpperCase(),
        'New.Person@Example.com',
        reader.email,
        { email: 'lead@example.com', role: 'admin' },
        'new.person@example.com',
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.invited).toBe(3);
    expect(res.body.users).toHaveLength(3);
    const created = await h.db.prisma.user.findUniqueOrThrow({ where: { email: 'new.person@example.com' } });
    expect(created).toMatchObject({ displayName: 'new.person', emailVerified: false });
    const lead = await h.db.prisma.user.findUniqueOrThrow({ where: { email: 'lead@example.com' } });
    expect(res.body.users).toEqual([known.id, created.id, lead.id]);
    // An existing account joins only when it accepts, signed in as itself: an admin must not add someone else's account.
    expect(await membership(orgId, known.id)).toBeNull();
    expect((await h.call('POST', `/v1/orgs/${orgId}/invitation/accept`, { token: known.token })).status).toBe(204);
    expect(await membership(orgId, known.id)).toMatchObject({ role: 'comment', sso: false });
    expect(await membership(orgId, created.id)).toMatchObject({ role: 'comment' });
    expect(await membership(orgId, lead.id)).toMatchObject({ role: 'admin' });
    // The existing member keeps their role.
    expect((await membership(orgId, reader.id))?.role).toBe('read');
  });

  it('applies `role` (null: guests) and `sso` to the new members', async () => {
    const { owner, orgId } = await h.world('Invite Org', { creator: false });
    const res = await invite(orgId, owner.token, {
      emails: ['g1@example.org', { email: 'g2@example.org', role: 'edit' }],
      role: null,
      sso: true,
    });
    const [g1, g2] = res.body.users;
    expect(await membership(orgId, g1)).toMatchObject({ role: null, sso: true });
    expect(await membership(orgId, g2)).toMatchObject({ role: 'edit', sso: true });
    // Everyone already a member: nothing added.
    expect((await invite(orgId, owner.token, { emails: ['g1@example.org'] })).body).toEqual({ users: [], invited: 0 });
  });

  it('refuses bad input with 400 naming the entry, adding no one', async () => {
    const { owner, orgId } = await h.world('Invite Org', { creator: false });
    const path = `/v1/orgs/${orgId}/invites`;
    await refused(400, 'POST', path, { token: owner.token, body: {}, field: 'body' });
    await refused(400, 'POST', path, { token: owner.token, body: { emails: [] }, field: 'emails' });
    await refused(400, 'POST', path, { token: owner.token, body: { emails: ['ok@example.com', 'not-an-email'] }, field: 'emails[1]' });
    await refused(400, 'POST', path, { token: owner.token, body: { emails: [{ email: 'x@example.com' }] }, field: 'emails[0].role' });
    await refused(400, 'POST', path, {
      token: owner.token,
      body: { emails: [{ email: 'x@example.com', role: 'chief' }] },
      field: 'emails[0].role',
    });
    await refused(400, 'POST', path, {
      token: owner.token,
      body: { emails: [{ email: 'x@example.com', role: 'read', team: 't' }] },
      field: 'emails[0].team',
    });
    await refused(400, 'POST', path, { token: owner.token, body: { emails: [42] }, field: 'emails[0]' });
    await refused(400, 'POST', path, { token: owner.token, body: { emails: ['x@example.com'], role: 'chief' }, field: 'role' });
    const many = Array.from({ length: 101 }, (_, i) => `p${i}@example.com`);
    await refused(400, 'POST', path, { token: owner.token, body: { emails: many }, field: 'emails' });
  });

  it('refuses non-admins (403), outsiders (404), no token (401)', async () => {
    const { orgId, reader, outsider } = await h.world('Invite Org', { creator: false });
    const path = `/v1/orgs/${orgId}/invites`;
    const body = { emails: ['someone@example.com'] };
    await refused(403, 'POST', path, { token: reader.token, body });
    await refused(404, 'POST', path, { token: outsider.token, body });
    await refused(401, 'POST', path, { body });
  });
});

// ---------------------------------------------------------------------------------------------
describe('invite links to one space or collection (CreateInviteToSpace / CreateInviteToCollection)', () => {
  it('a space admin makes one; whoever joins is a guest with that grant (raised, never lowered); PATCH changes its level', async () => {
    const { owner, orgId, reader, creator, outsider } = await h.world('Scoped Org');
    const space = (await h.call('POST', `/v1/orgs/${orgId}/spaces`, { token: owner.token, body: { title: 'Contract work' } })).body.id;
    const other = (await h.call('POST', `/v1/orgs/${orgId}/spaces`, { token: owner.token, body: { title: 'Private' } })).body.id;
    await h.call('PATCH', `/v1/spaces/${other}`, { token: owner.token, body: { defaultLevel: null } });
    // The creator administers the space through a grant (not an organization admin): may make a link to it.
    expect(
      (await h.call('PATCH', `/v1/spaces/${space}/permissions/users/${creator.id}`, { token: owner.token, body: { role: 'admin' } }))
        .status,
    ).toBe(204);
    const link = await createInvite(orgId, creator.token, { space, level: 'comment' });
    expect(link).toMatchObject({ object: 'invite', level: 'comment', redundant: true, space: { id: space, object: 'space' } });
    expect(link).not.toHaveProperty('role');
    await refused(403, 'POST', `/v1/orgs/${orgId}/link-invites`, { token: reader.token, body: { space, level: 'read' } });
    await refused(404, 'POST', `/v1/orgs/${orgId}/link-invites`, { token: outsider.token, body: { space, level: 'read' } });

    // The organization's list shows it (role null: who joins is a guest), by the official list schema.
    const list = await h.rest('listOrganizationInviteLinks', 'GET', `/v1/orgs/${orgId}/link-invites`, { token: owner.token });
    expect(list.body.items).toContainEqual(expect.objectContaining({ id: link.id, role: null, level: 'comment' }));
    const path = `/v1/orgs/${orgId}/link-invites/${link.id}`;
    expect((await h.rest('getOrganizationInviteLink', 'GET', path, { token: creator.token })).body).toEqual(link);
    const patched = await h.rest('updateOrganizationInviteById', 'PATCH', path, { token: creator.token, body: { level: 'edit' } });
    expect(patched.body).toMatchObject({ level: 'edit', space: { id: space } });
    await refused(400, 'PATCH', path, { token: creator.token, body: { role: 'edit' }, field: 'role' });
    await refused(403, 'PATCH', path, { token: reader.token, body: { level: 'admin' } });

    // An outsider joins: a guest, with edit on that space only.
    expect(
      (await h.rest('joinOrganizationWithInvite', 'POST', `/v1/orgs/${orgId}/invites/${link.id}`, { token: outsider.token })).status,
    ).toBe(200);
    expect((await membership(orgId, outsider.id))?.role).toBeNull();
    const mine = await h.call('GET', `/v1/spaces/${space}`, { token: outsider.token });
    expect(mine.status).toBe(200);
    expect(mine.body.permissions).toMatchObject({ view: true, edit: true, admin: false });
    expect((await h.call('GET', `/v1/spaces/${other}`, { token: outsider.token })).status).toBe(404);
    // A member keeps their organization role and gets the grant; a lower link never lowers a grant.
    expect((await h.call('POST', `/v1/orgs/${orgId}/invites/${link.id}`, { token: reader.token })).status).toBe(200);
    expect((await membership(orgId, reader.id))?.role).toBe('read');
    expect((await h.call('GET', `/v1/spaces/${space}`, { token: reader.token })).body.permissions.edit).toBe(true);
    await h.rest('updateOrganizationInviteById', 'PATCH', path, { token: owner.token, body: { level: 'read' } });
    expect((await h.call('POST', `/v1/orgs/${orgId}/invites/${link.id}`, { token: outsider.token })).status).toBe(200);
    expect((await h.db.prisma.userSpacePermission.findFirstOrThrow({ where: { spaceId: space, userId: outsider.id } })).role).toBe('edit');

    // Deleting the link: its space's admins may, other members may not.
    await refused(403, 'DELETE', path, { token: reader.token });
    expect((await h.rest('deleteOrganizationInviteById', 'DELETE', path, { token: creator.token })).status).toBe(205);
  });

  it('a link to a collection grants everything inside it', async () => {
    const { owner, orgId, outsider } = await h.world('Scoped Org', { creator: false });
    const collection = (await h.call('POST', `/v1/orgs/${orgId}/collections`, { token: owner.token, body: { title: 'Partners' } })).body.id;
    const inside = (await h.call('POST', `/v1/orgs/${orgId}/spaces`, { token: owner.token, body: { title: 'Inside', parent: collection } }))
      .body.id;
    const outside = (await h.call('POST', `/v1/orgs/${orgId}/spaces`, { token: owner.token, body: { title: 'Outside' } })).body.id;
    const link = await createInvite(orgId, owner.token, { collection, level: 'read' });
    expect(link).toMatchObject({ level: 'read', collection: { id: collection, object: 'collection' }, redundant: true });
    expect((await h.call('POST', `/v1/orgs/${orgId}/invites/${link.id}`, { token: outsider.token })).status).toBe(200);
    expect((await h.call('GET', `/v1/spaces/${inside}`, { token: outsider.token })).status).toBe(200);
    expect((await h.call('GET', `/v1/spaces/${outside}`, { token: outsider.token })).status).toBe(404);
    const spaces = await h.call('GET', `/v1/orgs/${orgId}/spaces`, { token: outsider.token });
    expect(spaces.body.items.map((s: any) => s.id)).toEqual([inside]);
  });
});

// ---------------------------------------------------------------------------------------------
describe('inviteToSpace / inviteToCollection / inviteToSite by email (Lectern addition: `emails`)', () => {
  it('a member gets the grant, an account outside an invitation carrying it (applied on accepting), a new email an account that is a guest with it', async () => {
    const { owner, orgId, reader, outsider } = await h.world('Email Invite Org', { creator: false });
    const space = (await h.call('POST', `/v1/orgs/${orgId}/spaces`, { token: owner.token, body: { title: 'Contract work' } })).body.id;
    await h.call('PATCH', `/v1/spaces/${space}`, { token: owner.token, body: { defaultLevel: null } });
    const collection = (await h.call('POST', `/v1/orgs/${orgId}/collections`, { token: owner.token, body: { title: 'Partners' } })).body.id;
    const inside = (await h.call('POST', `/v1/orgs/${orgId}/spaces`, { token: owner.token, body: { title: 'Inside', parent: collection } }))
      .body.id;
    await h.call('PATCH', `/v1/collections/${collection}`, { token: owner.token, body: { defaultLevel: null } });
    await h.call('PATCH', `/v1/spaces/${inside}`, { token: owner.token, body: { defaultLevel: 'inherit' } });

    // users and emails together still match the official body (emails is an extra property).
    const res = await h.rest('inviteToSpace', 'POST', `/v1/spaces/${space}/permissions`, {
      token: owner.token,
      body: { role: 'edit', users: [reader.id], emails: [outsider.email.toUpperCase(), ' New.Contractor@Example.com ', reader.email] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    const grant = (userId: string, spaceId = space) => h.db.prisma.userSpacePermission.findFirst({ where: { spaceId, userId } });
    expect((await grant(reader.id))?.role).toBe('edit');
    // A new email: an unverified account, a guest, with the grant at once.
    const fresh = await h.db.prisma.user.findUniqueOrThrow({ where: { email: 'new.contractor@example.com' } });
    expect(fresh).toMatchObject({ emailVerified: false, displayName: 'new.contractor' });
    expect(await membership(orgId, fresh.id)).toMatchObject({ role: null });
    expect((await grant(fresh.id))?.role).toBe('edit');
    // An existing account outside: nothing yet but an invitation (a guest) carrying the grant.
    expect(await membership(orgId, outsider.id)).toBeNull();
    expect(await grant(outsider.id)).toBeNull();
    expect((await h.call('GET', `/v1/spaces/${space}`, { token: outsider.token })).status).toBe(404);
    const invitation = await h.db.prisma.organizationInvitation.findUniqueOrThrow({
      where: { organizationId_userId: { organizationId: orgId, userId: outsider.id } },
    });
    expect(invitation).toMatchObject({ role: null, invitedById: owner.id, grants: [{ kind: 'space', id: space, role: 'edit' }] });
    // A collection invitation adds to the same invitation; a repeat for the space replaces its entry.
    expect(
      (
        await h.call('POST', `/v1/collections/${collection}/permissions`, {
          token: owner.token,
          body: { role: 'read', emails: [outsider.email] },
        })
      ).status,
    ).toBe(204);
    expect(
      (await h.call('POST', `/v1/spaces/${space}/permissions`, { token: owner.token, body: { role: 'comment', emails: [outsider.email] } }))
        .status,
    ).toBe(204);
    const pending = await h.db.prisma.organizationInvitation.findUniqueOrThrow({ where: { id: invitation.id } });
    expect(pending.grants).toEqual([
      { kind: 'collection', id: collection, role: 'read' },
      { kind: 'space', id: space, role: 'comment' },
    ]);

    // Accepting, signed in as itself: a guest with both grants (the collection's reaching inside it).
    expect((await h.call('POST', `/v1/orgs/${orgId}/invitation/accept`, { token: outsider.token })).status).toBe(204);
    expect(await membership(orgId, outsider.id)).toMatchObject({ role: null, ssoConsentAt: expect.any(Date) });
    const mine = await h.call('GET', `/v1/spaces/${space}`, { token: outsider.token });
    expect(mine.status).toBe(200);
    expect(mine.body.permissions).toMatchObject({ view: true, comment: true, edit: false });
    expect((await h.call('GET', `/v1/spaces/${inside}`, { token: outsider.token })).status).toBe(200);
    const spaces = await h.call('GET', `/v1/orgs/${orgId}/spaces`, { token: outsider.token });
    expect(spaces.body.items.map((s: any) => s.id).sort()).toEqual([space, inside].sort());
    // Now a member: a further invitation by email grants at once.
    expect(
      (await h.call('POST', `/v1/spaces/${space}/permissions`, { token: owner.token, body: { role: 'review', emails: [outsider.email] } }))
        .status,
    ).toBe(204);
    expect((await grant(outsider.id))?.role).toBe('review');
  });

  it('a site invitation by email; a pending organization invitation keeps its role; a deleted space is skipped on accepting', async () => {
    const { owner, orgId } = await h.world('Email Invite Org', { creator: false });
    const known = await h.user('Known');
    const site = (await h.call('POST', `/v1/orgs/${orgId}/sites`, { token: owner.token, body: { title: 'Docs' } })).body.id;
    const doomed = (await h.call('POST', `/v1/orgs/${orgId}/spaces`, { token: owner.token, body: { title: 'Doomed' } })).body.id;
    // An organization invitation (role comment) is pending already.
    expect(
      (await h.call('POST', `/v1/orgs/${orgId}/invites`, { token: owner.token, body: { emails: [known.email], role: 'comment' } })).status,
    ).toBe(200);
    expect(
      (
        await h.call('POST', `/v1/orgs/${orgId}/sites/${site}/permissions`, {
          token: owner.token,
          body: { role: 'edit', emails: [known.email, 'site.guest@example.net'] },
        })
      ).status,
    ).toBe(204);
    expect(
      (await h.call('POST', `/v1/spaces/${doomed}/permissions`, { token: owner.token, body: { role: 'edit', emails: [known.email] } }))
        .status,
    ).toBe(204);
    await h.db.prisma.space.delete({ where: { id: doomed } });
    const siteGuest = await h.db.prisma.user.findUniqueOrThrow({ where: { email: 'site.guest@example.net' } });
    expect((await h.db.prisma.userSitePermission.findFirstOrThrow({ where: { siteId: site, userId: siteGuest.id } })).role).toBe('edit');
    expect((await h.call('POST', `/v1/orgs/${orgId}/invitation/accept`, { token: known.token })).status).toBe(204);
    expect((await membership(orgId, known.id))?.role).toBe('comment');
    expect((await h.db.prisma.userSitePermission.findFirstOrThrow({ where: { siteId: site, userId: known.id } })).role).toBe('edit');
    expect(await h.db.prisma.userSpacePermission.count({ where: { userId: known.id } })).toBe(0);
  });

  it('refuses bad emails (400 naming the entry, nothing changed) and callers without rights (403/404/401)', async () => {
    const { owner, orgId, reader, outsider } = await h.world('Email Invite Org', { creator: false });
    const space = (await h.call('POST', `/v1/orgs/${orgId}/spaces`, { token: owner.token, body: { title: 'S' } })).body.id;
    const path = `/v1/spaces/${space}/permissions`;
    await refused(400, 'POST', path, { token: owner.token, body: { role: 'read', emails: [] }, field: 'emails' });
    await refused(400, 'POST', path, { token: owner.token, body: { role: 'read', emails: ['a@example.com', 'nope'] }, field: 'emails[1]' });
    await refused(400, 'POST', path, {
      token: owner.token,
      body: { role: 'read', emails: Array.from({ length: 101 }, (_, i) => `p${i}@example.com`) },
      field: 'emails',
    });
    await refused(400, 'POST', path, { token: owner.token, body: { role: 'boss', emails: ['a@example.com'] }, field: 'role' });
    const body = { role: 'read', emails: ['someone@example.com'] };
    await refused(403, 'POST', path, { token: reader.token, body });
    await refused(404, 'POST', path, { token: outsider.token, body });
    await refused(401, 'POST', path, { body });
    expect(await h.db.prisma.user.count({ where: { email: { in: ['a@example.com', 'someone@example.com'] } } })).toBe(0);
  });
});
