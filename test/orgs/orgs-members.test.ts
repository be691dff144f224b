/** Organizations: joining by invite link, link invites, members (list, read, role, removal), the GraphQL face (setup in ./fixtures.ts). */
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { hashSecret } from '../../src/secrets.js';
import { h, setupOrgs, refused } from './fixtures.js';

beforeAll(setupOrgs);

describe('POST /orgs/:organizationId/join', () => {
  const join = (orgId: string, token?: string) => h.call('POST', `/v1/orgs/${orgId}/join`, { token });

  async function openOrg(emailDomains: string[], defaultRole: string | null = 'read') {
    const w = await h.world();
    await h.rest('updateOrganizationById', 'PATCH', `/v1/orgs/${w.orgId}`, { token: w.owner.token, body: { emailDomains, defaultRole } });
    return w;
  }

  it('joins with the organization’s default role when the verified email domain is allowed (204)', async () => {
    const w = await openOrg(['corp.example', 'other.example'], 'comment');
    const joiner = await h.user('Joiner', `Joiner.${newId(4)}@CORP.example`);
    const res = await h.rest('joinOrganization', 'POST', `/v1/orgs/${w.orgId}/join`, { token: joiner.token });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    const member = await h.db.prisma.member.findUniqueOrThrow({
      where: { organizationId_userId: { organizationId: w.orgId, userId: joiner.id } },
    });
    expect(member).toMatchObject({ role: 'comment', disabled: false });
    const got = await h.rest('getOrganizationById', 'GET', `/v1/orgs/${w.orgId}`, { token: joiner.token });
    expect(got.body.permissions).toMatchObject({ view: true, listMembers: true, admin: false });
  });

  it('joins as a guest when the default role is null', async () => {
    const w = await openOrg(['guests.example'], null);
    const joiner = await h.user('Guest joiner', `g${newId(4).toLowerCase()}@guests.example`);
    expect((await join(w.orgId, joiner.token)).status).toBe(204);
    const member = await h.db.prisma.member.findUniqueOrThrow({
      where: { organizationId_userId: { organizationId: w.orgId, userId: joiner.id } },
    });
    expect(member.role).toBeNull();
  });

  it('is idempotent: an existing member (even a disabled one) gets 204 and nothing changes', async () => {
    const w = await openOrg(['idem.example']);
    const joiner = await h.user('Idem', `i${newId(4).toLowerCase()}@idem.example`);
    expect((await join(w.orgId, joiner.token)).status).toBe(204);
    let before = await h.snapshot();
    expect((await join(w.orgId, joiner.token)).status).toBe(204);
    // The owner's domain is not allowed, but they are already a member.
    expect((await join(w.orgId, w.owner.token)).status).toBe(204);
    expect(await h.snapshot()).toBe(before);

    await h.db.prisma.member.update({
      where: { organizationId_userId: { organizationId: w.orgId, userId: joiner.id } },
      data: { disabled: true },
    });
    before = await h.snapshot();
    expect((await join(w.orgId, joiner.token)).status).toBe(204);
    expect(await h.snapshot()).toBe(before);
  });

  it('joins once when the same caller joins twice at once', async () => {
    const w = await openOrg(['twice.example']);
    const joiner = await h.user('Twice', `t${newId(4).toLowerCase()}@twice.example`);
    const results = await Promise.all([join(w.orgId, joiner.token), join(w.orgId, joiner.token)]);
    expect(results.map((r) => r.status)).toEqual([204, 204]);
    expect(await h.db.prisma.member.count({ where: { organizationId: w.orgId, userId: joiner.id } })).toBe(1);
  });

  it('refuses (404, as for a missing organization: no existence oracle) a domain that is not allowed, a sub-domain, an unverified email, and an organization without domains', async () => {
    const w = await openOrg(['allowed.example']);
    const stranger = await h.user('Stranger', `s${newId(4).toLowerCase()}@elsewhere.example`);
    await refused(404, 'POST', `/v1/orgs/${w.orgId}/join`, { token: stranger.token, operationId: 'joinOrganization' });
    const sub = await h.user('Sub', `s${newId(4).toLowerCase()}@eu.allowed.example`);
    await refused(404, 'POST', `/v1/orgs/${w.orgId}/join`, { token: sub.token });
    const unverified = await h.user('Unverified', `u${newId(4).toLowerCase()}@allowed.example`);
    await h.db.prisma.user.update({ where: { id: unverified.id }, data: { emailVerified: false } });
    await refused(404, 'POST', `/v1/orgs/${w.orgId}/join`, { token: unverified.token });

    const closed = await h.world();
    const matching = await h.user('Matching', `m${newId(4).toLowerCase()}@allowed.example`);
    await refused(404, 'POST', `/v1/orgs/${closed.orgId}/join`, { token: matching.token });
  });

  it('answers 404 for an unknown organization and 401 for anonymous', async () => {
    const joiner = await h.user('Lost', `l${newId(4).toLowerCase()}@allowed.example`);
    await refused(404, 'POST', `/v1/orgs/${newId()}/join`, { token: joiner.token, operationId: 'joinOrganization' });
    const w = await openOrg(['allowed.example']);
    await refused(401, 'POST', `/v1/orgs/${w.orgId}/join`);
  });
});

// ---------------------------------------------------------------------------------------------
describe('DELETE /orgs/:organizationId/link-invites/:inviteId', () => {
  // Rows hold the code's hash (src/modules/invites/service.ts): `id` here is the code, `hash` the row's id.
  const invite = async (organizationId: string, role: string | null = 'read') => {
    const code = newId(32);
    await h.db.prisma.inviteLink.create({ data: { id: hashSecret(code), organizationId, role: role as never } });
    return { id: code, hash: hashSecret(code) };
  };

  it('deletes an invite link (205), then answers 404', async () => {
    const { owner, orgId } = await h.world();
    const link = await invite(orgId);
    const keep = await invite(orgId, null);
    const first = await h.rest('deleteOrganizationInviteById', 'DELETE', `/v1/orgs/${orgId}/link-invites/${link.id}`, {
      token: owner.token,
    });
    expect(first.status).toBe(205);
    expect(first.body).toBeUndefined();
    expect(await h.db.prisma.inviteLink.findUnique({ where: { id: link.hash } })).toBeNull();
    expect(await h.db.prisma.inviteLink.findUnique({ where: { id: keep.hash } })).not.toBeNull();
    await refused(404, 'DELETE', `/v1/orgs/${orgId}/link-invites/${link.id}`, { token: owner.token });
  });

  it('answers the same 404 and deletes nothing for an unknown invite or another organization’s invite', async () => {
    const a = await h.world();
    const b = await h.world();
    const theirs = await invite(b.orgId);
    const unknown = await refused(404, 'DELETE', `/v1/orgs/${a.orgId}/link-invites/${newId()}`, { token: a.owner.token });
    const foreign = await refused(404, 'DELETE', `/v1/orgs/${a.orgId}/link-invites/${theirs.id}`, { token: a.owner.token });
    expect(foreign.body).toEqual(unknown.body);
  });

  it('refuses anonymous (401), outsiders and unknown organizations (404), non-admins (403)', async () => {
    const { orgId, outsider, reader, creator, guest, owner } = await h.world();
    const link = await invite(orgId);
    const path = `/v1/orgs/${orgId}/link-invites/${link.id}`;
    await refused(401, 'DELETE', path);
    await refused(404, 'DELETE', path, { token: outsider.token });
    await refused(404, 'DELETE', `/v1/orgs/${newId()}/link-invites/${link.id}`, { token: owner.token });
    for (const member of [reader, creator, guest]) await refused(403, 'DELETE', path, { token: member.token });
    expect(await h.db.prisma.inviteLink.findUnique({ where: { id: link.hash } })).not.toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------
describe('GET /orgs/:organizationId/members', () => {
  const list = (orgId: string, token: string, query = '') =>
    h.rest('listMembersInOrganizationById', 'GET', `/v1/orgs/${orgId}/members${query}`, { token });

  it('lists the members (official schema), guests with a null role', async () => {
    const { owner, orgId, reader, creator, guest } = await h.world();
    await h.rest('createSpace', 'POST', `/v1/orgs/${orgId}/spaces`, { token: owner.token, body: { title: 'Counted' } });
    const gone = await h.rest('createSpace', 'POST', `/v1/orgs/${orgId}/spaces`, {
      token: owner.token,
      body: { title: 'Deleted, not counted' },
    });
    expect((await h.call('DELETE', `/v1/spaces/${gone.body.id}`, { token: owner.token })).status).toBe(205);
    expect(
      (await h.rest('createSite', 'POST', `/v1/orgs/${orgId}/sites`, { token: owner.token, body: { title: 'Counted site' } })).status,
    ).toBe(201);
    const res = await list(orgId, reader.token);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(4);
    expect(res.body.next).toBeUndefined();
    // Newest first (the official default order), by joinedAt then id: the owner joined first, so is
    // last; the others may share a millisecond.
    expect(res.body.items.at(-1).id).toBe(owner.id);
    expect(res.body.items.map((m: any) => m.id).sort()).toEqual([owner.id, reader.id, creator.id, guest.id].sort());
    const byId = Object.fromEntries(res.body.items.map((m: any) => [m.id, m]));
    expect(byId[owner.id]).toMatchObject({
      object: 'member',
      role: 'admin',
      disabled: false,
      sso: false,
      spaces: 1,
      teams: 0,
      sites: 1,
      joinedAt: expect.any(String),
      user: { object: 'user', id: owner.id, email: owner.email },
    });
    expect(byId[reader.id]).toMatchObject({ role: 'read', spaces: 1 });
    expect(byId[guest.id]).toHaveProperty('role', null);
    expect(byId[guest.id].spaces).toBe(0);
    // Every member, guests included, reads every site of the organization.
    expect(byId[guest.id].sites).toBe(1);
  });

  it('filters by role, including guests', async () => {
    const { orgId, owner, reader, guest } = await h.world();
    const readers = await list(orgId, owner.token, '?role=read');
    expect(readers.body).toMatchObject({ count: 1 });
    expect(readers.body.items.map((m: any) => m.id)).toEqual([reader.id]);
    expect((await list(orgId, owner.token, '?role=admin')).body.items.map((m: any) => m.id)).toEqual([owner.id]);
    expect((await list(orgId, owner.token, '?role=review')).body).toEqual({ items: [], count: 0 });
    const guests = await list(orgId, owner.token, '?role=guest');
    expect(guests.body.items.map((m: any) => m.id)).toEqual([guest.id]);
    expect(guests.body.count).toBe(1);
  });

  it('pages with limit and next.page until the end', async () => {
    const { orgId, owner } = await h.world();
    for (let i = 0; i < 3; i++) await h.addMember(orgId, (await h.user()).id, 'comment');
    const total = 7;
    const seen: string[] = [];
    let query = '?limit=2';
    for (let pageNo = 0; pageNo < 10; pageNo++) {
      const res = await list(orgId, owner.token, query);
      expect(res.body.count).toBe(total);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.items.map((m: any) => m.id));
      if (!res.body.next) break;
      query = `?limit=2&page=${encodeURIComponent(res.body.next.page)}`;
    }
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    const whole = await list(orgId, owner.token, '?limit=1000');
    expect(whole.body.items.map((m: any) => m.id)).toEqual(seen);
    expect(whole.body.next).toBeUndefined();
    const commenters = await list(orgId, owner.token, '?role=comment&limit=2');
    expect(commenters.body).toMatchObject({ count: 3, next: { page: expect.any(String) } });
    expect(commenters.body.items).toHaveLength(2);
  });

  it('refuses limit=0, limit=1001, a bad page and an unknown role with 400 naming the parameter', async () => {
    const { orgId, owner } = await h.world();
    const path = `/v1/orgs/${orgId}/members`;
    await refused(400, 'GET', `${path}?limit=0`, { token: owner.token, field: 'limit' });
    await refused(400, 'GET', `${path}?limit=1001`, { token: owner.token, field: 'limit' });
    await refused(400, 'GET', `${path}?limit=ten`, { token: owner.token, field: 'limit' });
    await refused(400, 'GET', `${path}?page=%%%`, { token: owner.token, field: 'page' });
    await refused(400, 'GET', `${path}?role=owner`, { token: owner.token, field: 'role' });
  });

  it('refuses anonymous (401), outsiders and disabled members (404), guests (403)', async () => {
    const { orgId, outsider, guest, reader } = await h.world();
    const path = `/v1/orgs/${orgId}/members`;
    await refused(401, 'GET', path);
    await refused(404, 'GET', path, { token: outsider.token });
    await refused(403, 'GET', path, { token: guest.token });
    await h.db.prisma.member.update({
      where: { organizationId_userId: { organizationId: orgId, userId: reader.id } },
      data: { disabled: true },
    });
    await refused(404, 'GET', path, { token: reader.token });
  });
});

// ---------------------------------------------------------------------------------------------
describe('GET /orgs/:organizationId/members/:userId', () => {
  it('answers one member (official schema)', async () => {
    const { orgId, owner, reader, guest } = await h.world();
    const res = await h.rest('getMemberInOrganizationById', 'GET', `/v1/orgs/${orgId}/members/${reader.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'member', id: reader.id, role: 'read', user: { id: reader.id, displayName: 'Reader' } });
    const g = await h.rest('getMemberInOrganizationById', 'GET', `/v1/orgs/${orgId}/members/${guest.id}`, { token: reader.token });
    expect(g.body).toHaveProperty('role', null);
  });

  it('answers 404 for an unknown user and for a user who is not a member', async () => {
    const { orgId, owner, outsider } = await h.world();
    await refused(404, 'GET', `/v1/orgs/${orgId}/members/${newId()}`, { token: owner.token });
    await refused(404, 'GET', `/v1/orgs/${orgId}/members/${outsider.id}`, { token: owner.token });
  });

  it('refuses anonymous (401), outsiders (404), guests (403)', async () => {
    const { orgId, outsider, guest, owner } = await h.world();
    const path = `/v1/orgs/${orgId}/members/${owner.id}`;
    await refused(401, 'GET', path);
    await refused(404, 'GET', path, { token: outsider.token });
    await refused(403, 'GET', path, { token: guest.token });
    await refused(403, 'GET', `/v1/orgs/${orgId}/members/${guest.id}`, { token: guest.token });
  });
});

// ---------------------------------------------------------------------------------------------
describe('PATCH /orgs/:organizationId/members/:userId', () => {
  const update = (orgId: string, token: string, userId: string, body: unknown) =>
    h.rest('updateMemberInOrganizationById', 'PATCH', `/v1/orgs/${orgId}/members/${userId}`, { token, body });
  const role = async (orgId: string, userId: string) =>
    (await h.db.prisma.member.findUniqueOrThrow({ where: { organizationId_userId: { organizationId: orgId, userId } } })).role;

  it('changes a role, to guest with null (official schema)', async () => {
    const { orgId, owner, reader } = await h.world();
    const res = await update(orgId, owner.token, reader.id, { role: 'review' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'member', id: reader.id, role: 'review', user: { id: reader.id } });
    expect(await role(orgId, reader.id)).toBe('review');
    const guest = await update(orgId, owner.token, reader.id, { role: null });
    expect(guest.body).toHaveProperty('role', null);
    expect(await role(orgId, reader.id)).toBeNull();
    const promoted = await update(orgId, owner.token, reader.id, { role: 'admin' });
    expect(promoted.body.role).toBe('admin');
  });

  // `{}` is accepted and changes nothing (official body: no field is required): test/orgs/orgs-users.test.ts.
  it('refuses an unknown role with 400 naming role; a non-member with 404', async () => {
    const { orgId, owner, reader, outsider } = await h.world();
    const path = `/v1/orgs/${orgId}/members/${reader.id}`;
    await refused(400, 'PATCH', path, { token: owner.token, body: { role: 'owner' }, field: 'role' });
    await refused(400, 'PATCH', path, { token: owner.token, body: { role: 3 }, field: 'role' });
    await refused(400, 'PATCH', path, { token: owner.token, rawBody: 'role=read', field: 'body' });
    await refused(404, 'PATCH', `/v1/orgs/${orgId}/members/${outsider.id}`, { token: owner.token, body: { role: 'read' } });
    await refused(404, 'PATCH', `/v1/orgs/${orgId}/members/${newId()}`, { token: owner.token, body: { role: 'read' } });
  });

  it('never demotes the last admin (409); with two admins one may be demoted', async () => {
    const { orgId, owner, reader } = await h.world();
    await refused(409, 'PATCH', `/v1/orgs/${orgId}/members/${owner.id}`, { token: owner.token, body: { role: 'create' } });
    await refused(409, 'PATCH', `/v1/orgs/${orgId}/members/${owner.id}`, { token: owner.token, body: { role: null } });
    // Keeping the role is fine.
    expect((await update(orgId, owner.token, owner.id, { role: 'admin' })).status).toBe(200);
    await update(orgId, owner.token, reader.id, { role: 'admin' });
    expect((await update(orgId, reader.token, owner.id, { role: 'read' })).body.role).toBe('read');
    await refused(409, 'PATCH', `/v1/orgs/${orgId}/members/${reader.id}`, { token: reader.token, body: { role: 'read' } });
  });

  it('a disabled admin does not count as an admin, and may be demoted', async () => {
    const { orgId, owner } = await h.world();
    const dormant = await h.user('Dormant admin');
    await h.addMember(orgId, dormant.id, 'admin');
    await h.db.prisma.member.update({
      where: { organizationId_userId: { organizationId: orgId, userId: dormant.id } },
      data: { disabled: true },
    });
    await refused(409, 'PATCH', `/v1/orgs/${orgId}/members/${owner.id}`, { token: owner.token, body: { role: 'read' } });
    expect((await update(orgId, owner.token, dormant.id, { role: 'read' })).body.role).toBe('read');
  });

  it('keeps an admin when two admins demote each other at once', async () => {
    const { orgId, owner, creator } = await h.world();
    await update(orgId, owner.token, creator.id, { role: 'admin' });
    const results = await Promise.all([
      h.call('PATCH', `/v1/orgs/${orgId}/members/${creator.id}`, { token: owner.token, body: { role: 'read' } }),
      h.call('PATCH', `/v1/orgs/${orgId}/members/${owner.id}`, { token: creator.token, body: { role: 'read' } }),
    ]);
    // The loser is refused as the last admin (409) or, if it ran after its caller was demoted, as a non-admin (403).
    const statuses = results.map((r) => r.status).sort();
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    expect(await h.db.prisma.member.count({ where: { organizationId: orgId, role: 'admin' } })).toBe(1);
  });

  it('refuses anonymous (401), outsiders (404), non-admins (403)', async () => {
    const { orgId, outsider, reader, creator, guest } = await h.world();
    const path = `/v1/orgs/${orgId}/members/${reader.id}`;
    const body = { role: 'admin' };
    await refused(401, 'PATCH', path, { body });
    await refused(404, 'PATCH', path, { token: outsider.token, body });
    await refused(403, 'PATCH', path, { token: reader.token, body });
    await refused(403, 'PATCH', path, { token: creator.token, body });
    await refused(403, 'PATCH', `/v1/orgs/${orgId}/members/${guest.id}`, { token: guest.token, body });
  });
});

// ---------------------------------------------------------------------------------------------
describe('DELETE /orgs/:organizationId/members/:userId', () => {
  const remove = (orgId: string, token: string, userId: string) =>
    h.rest('removeMemberFromOrganizationById', 'DELETE', `/v1/orgs/${orgId}/members/${userId}`, { token });

  it('an admin removes a member (205), then it is not a member (404)', async () => {
    const { orgId, owner, reader, outsider } = await h.world();
    const first = await remove(orgId, owner.token, reader.id);
    expect(first.status).toBe(205);
    expect(first.body).toBeUndefined();
    expect(
      await h.db.prisma.member.findUnique({ where: { organizationId_userId: { organizationId: orgId, userId: reader.id } } }),
    ).toBeNull();
    const gone = await refused(404, 'DELETE', `/v1/orgs/${orgId}/members/${reader.id}`, { token: owner.token });
    // Someone who never was a member, or no one at all: the same answer.
    expect((await refused(404, 'DELETE', `/v1/orgs/${orgId}/members/${outsider.id}`, { token: owner.token })).body).toEqual(gone.body);
    expect((await refused(404, 'DELETE', `/v1/orgs/${orgId}/members/${newId()}`, { token: owner.token })).body).toEqual(gone.body);
    await refused(404, 'GET', `/v1/orgs/${orgId}`, { token: reader.token });
  });

  it('a member (guests too) may remove themself', async () => {
    const { orgId, reader, guest } = await h.world();
    expect((await remove(orgId, reader.token, reader.id)).status).toBe(205);
    expect((await remove(orgId, guest.token, guest.id)).status).toBe(205);
    expect(await h.db.prisma.member.count({ where: { organizationId: orgId } })).toBe(2);
  });

  it('never removes the last admin (409); with two admins one may leave', async () => {
    const { orgId, owner, creator } = await h.world();
    await refused(409, 'DELETE', `/v1/orgs/${orgId}/members/${owner.id}`, { token: owner.token });
    await h.rest('updateMemberInOrganizationById', 'PATCH', `/v1/orgs/${orgId}/members/${creator.id}`, {
      token: owner.token,
      body: { role: 'admin' },
    });
    expect((await remove(orgId, creator.token, owner.id)).status).toBe(205);
    await refused(409, 'DELETE', `/v1/orgs/${orgId}/members/${creator.id}`, { token: creator.token });
  });

  it('keeps an admin when two admins remove each other at once', async () => {
    const { orgId, owner, creator } = await h.world();
    await h.rest('updateMemberInOrganizationById', 'PATCH', `/v1/orgs/${orgId}/members/${creator.id}`, {
      token: owner.token,
      body: { role: 'admin' },
    });
    const results = await Promise.all([
      h.call('DELETE', `/v1/orgs/${orgId}/members/${creator.id}`, { token: owner.token }),
      h.call('DELETE', `/v1/orgs/${orgId}/members/${owner.id}`, { token: creator.token }),
    ]);
    // The loser is either refused (409) or, if it ran after its own caller was removed, not found (404).
    const statuses = results.map((r) => r.status).sort();
    expect(statuses[0]).toBe(205);
    expect([404, 409]).toContain(statuses[1]);
    expect(await h.db.prisma.member.count({ where: { organizationId: orgId, role: 'admin' } })).toBe(1);
  });

  it('refuses anonymous (401), outsiders (404), a member removing someone else (403)', async () => {
    const { orgId, outsider, reader, creator, guest, owner } = await h.world();
    const path = `/v1/orgs/${orgId}/members/${reader.id}`;
    await refused(401, 'DELETE', path);
    await refused(404, 'DELETE', path, { token: outsider.token });
    await refused(404, 'DELETE', `/v1/orgs/${orgId}/members/${outsider.id}`, { token: outsider.token });
    await refused(404, 'DELETE', `/v1/orgs/${newId()}/members/${owner.id}`, { token: owner.token });
    await refused(403, 'DELETE', path, { token: creator.token });
    await refused(403, 'DELETE', `/v1/orgs/${orgId}/members/${owner.id}`, { token: guest.token });
    await refused(403, 'DELETE', `/v1/orgs/${orgId}/members/${outsider.id}`, { token: reader.token });
  });
});

// ---------------------------------------------------------------------------------------------
describe('GraphQL', () => {
  const ok = (res: { status: number; body: any }) => {
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;

  it('viewer', async () => {
    const u = await h.user('Grace Hopper', `grace.${newId(4).toLowerCase()}@navy.example`);
    const data = ok(await h.graphql(u.token, '{ viewer { object id displayName email photoURL urls { location } } }'));
    expect(data.viewer).toEqual({
      object: 'user',
      id: u.id,
      displayName: 'Grace Hopper',
      email: u.email,
      photoURL: null,
      urls: { location: expect.any(String) },
    });
  });

  it('organizations', async () => {
    const { owner, orgId } = await h.world('GraphQL Org');
    const data = ok(
      await h.graphql(
        owner.token,
        'query($limit: Int) { organizations(limit: $limit) { count next { page } items { id title permissions { admin } } } }',
        { limit: 1 },
      ),
    );
    expect(data.organizations).toEqual({
      count: 1,
      next: null,
      items: [{ id: orgId, title: 'GraphQL Org', permissions: { admin: true } }],
    });
    expect(code(await h.graphql(owner.token, '{ organizations(limit: 0) { count } }'))).toBe('BAD_REQUEST');
  });

  it('organization, members and member', async () => {
    const { owner, orgId, reader, guest, outsider } = await h.world();
    const query = `query($id: ID!, $userId: ID!) {
      organization(id: $id) {
        id defaultRole mergeRules { ... on MergeRulesPlain { type } ... on MergeRulesList { type } }
        members(limit: 10) { count items { id role } }
        readers: members(role: read) { count items { id } }
        guests: members(role: guest) { count items { id } }
        member(userId: $userId) { id role user { id } }
      }
    }`;
    const data = ok(await h.graphql(owner.token, query, { id: orgId, userId: reader.id }));
    expect(data.organization).toMatchObject({
      id: orgId,
      defaultRole: 'read',
      mergeRules: { type: 'none' },
      members: { count: 4 },
      readers: { count: 1, items: [{ id: reader.id }] },
      guests: { count: 1, items: [{ id: guest.id }] },
      member: { id: reader.id, role: 'read', user: { id: reader.id } },
    });
    expect(code(await h.graphql(outsider.token, query, { id: orgId, userId: reader.id }))).toBe('NOT_FOUND');
    expect(code(await h.graphql(guest.token, query, { id: orgId, userId: reader.id }))).toBe('FORBIDDEN');
  });

  it('updateOrganization', async () => {
    const { owner, orgId, reader } = await h.world();
    const mutation =
      'mutation($id: ID!, $input: UpdateOrganizationInput!) { updateOrganization(id: $id, input: $input) { title defaultRole mergeRules { ... on MergeRulesPlain { type } } } }';
    const data = ok(
      await h.graphql(owner.token, mutation, {
        id: orgId,
        input: { title: 'Via GraphQL', defaultRole: null, mergeRules: { type: 'none' } },
      }),
    );
    expect(data.updateOrganization).toEqual({ title: 'Via GraphQL', defaultRole: null, mergeRules: { type: 'none' } });
    const before = await h.snapshot();
    const badTitle = await h.graphql(owner.token, mutation, { id: orgId, input: { title: 'x' } });
    expect(code(badTitle)).toBe('BAD_REQUEST');
    expect(badTitle.body.errors[0].message).toMatch(/^title:/);
    expect(code(await h.graphql(reader.token, mutation, { id: orgId, input: { title: 'Nope' } }))).toBe('FORBIDDEN');
    expect(await h.snapshot()).toBe(before);
  });

  it('joinOrganization', async () => {
    const { owner, orgId } = await h.world();
    await h.db.prisma.organization.update({ where: { id: orgId }, data: { emailDomains: ['gql.example'] } });
    const joiner = await h.user('GQL joiner', `j${newId(4).toLowerCase()}@gql.example`);
    const stranger = await h.user('GQL stranger', `s${newId(4).toLowerCase()}@nope.example`);
    const mutation = 'mutation($id: ID!) { joinOrganization(id: $id) }';
    expect(ok(await h.graphql(joiner.token, mutation, { id: orgId }))).toEqual({ joinOrganization: true });
    expect(ok(await h.graphql(owner.token, mutation, { id: orgId }))).toEqual({ joinOrganization: true });
    expect(code(await h.graphql(stranger.token, mutation, { id: orgId }))).toBe('NOT_FOUND');
    expect(code(await h.graphql(stranger.token, mutation, { id: newId() }))).toBe('NOT_FOUND');
  });

  it('deleteInviteLink', async () => {
    const { owner, orgId, reader } = await h.world();
    const link = { id: newId(32) };
    await h.db.prisma.inviteLink.create({ data: { id: hashSecret(link.id), organizationId: orgId, role: 'read' } });
    const mutation = 'mutation($org: ID!, $invite: ID!) { deleteInviteLink(organizationId: $org, inviteId: $invite) }';
    expect(code(await h.graphql(reader.token, mutation, { org: orgId, invite: link.id }))).toBe('FORBIDDEN');
    expect(ok(await h.graphql(owner.token, mutation, { org: orgId, invite: link.id }))).toEqual({ deleteInviteLink: true });
    expect(code(await h.graphql(owner.token, mutation, { org: orgId, invite: link.id }))).toBe('NOT_FOUND');
  });

  it('updateMember', async () => {
    const { owner, orgId, reader } = await h.world();
    const mutation =
      'mutation($org: ID!, $user: ID!, $role: Role) { updateMember(organizationId: $org, userId: $user, role: $role) { id role } }';
    expect(ok(await h.graphql(owner.token, mutation, { org: orgId, user: reader.id, role: 'edit' }))).toEqual({
      updateMember: { id: reader.id, role: 'edit' },
    });
    expect(ok(await h.graphql(owner.token, mutation, { org: orgId, user: reader.id, role: null }))).toEqual({
      updateMember: { id: reader.id, role: null },
    });
    // No role: nothing changes.
    expect(ok(await h.graphql(owner.token, mutation, { org: orgId, user: reader.id }))).toEqual({
      updateMember: { id: reader.id, role: null },
    });
    expect(code(await h.graphql(owner.token, mutation, { org: orgId, user: owner.id, role: 'read' }))).toBe('CONFLICT');
    expect(code(await h.graphql(reader.token, mutation, { org: orgId, user: reader.id, role: 'admin' }))).toBe('FORBIDDEN');
  });

  it('removeMember', async () => {
    const { owner, orgId, reader, creator } = await h.world();
    const mutation = 'mutation($org: ID!, $user: ID!) { removeMember(organizationId: $org, userId: $user) }';
    expect(code(await h.graphql(creator.token, mutation, { org: orgId, user: reader.id }))).toBe('FORBIDDEN');
    expect(ok(await h.graphql(owner.token, mutation, { org: orgId, user: reader.id }))).toEqual({ removeMember: true });
    expect(code(await h.graphql(owner.token, mutation, { org: orgId, user: reader.id }))).toBe('NOT_FOUND');
    expect(code(await h.graphql(owner.token, mutation, { org: orgId, user: owner.id }))).toBe('CONFLICT');
  });
});
