/**
 * Users and organizations from the caller's side: users by id, the caller's own user,
 * creating an organization, a member's spaces and teams, organizations by email domain, the API's
 * information, the member list's search/sort/order and PATCH member with `{}`.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.js';
import { newId } from '../../src/ids.js';
import { requestRefusalChecker } from '../support/refused.js';
import { setupHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await setupHarness();
});

/** Everything a refused request here could touch: the harness's tables, users, teams, team members. */
async function state() {
  const [base, users, teams, teamMembers] = await Promise.all([
    h.snapshot(),
    h.db.prisma.user.findMany({ orderBy: { id: 'asc' } }),
    h.db.prisma.team.findMany({ orderBy: { id: 'asc' } }),
    h.db.prisma.teamMember.findMany({ orderBy: [{ teamId: 'asc' }, { userId: 'asc' }] }),
  ]);
  return JSON.stringify({ base, users, teams, teamMembers });
}
const refused = requestRefusalChecker({ call: (...a) => h.call(...a), rest: (...a) => h.rest(...a) }, state);
const ids = (items: { id: string }[]) => items.map((i) => i.id);

// ---------------------------------------------------------------------------------------------
describe('GET / (getApiInformation)', () => {
  it('answers the version of package.json and an ISO build date (official schema)', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    const { owner } = await h.world();
    const res = await h.rest('getApiInformation', 'GET', '/v1/', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.version).toBe(version);
    expect(new Date(res.body.build).toISOString()).toBe(res.body.build);
    await refused(401, 'GET', '/v1/');
  });
});

// ---------------------------------------------------------------------------------------------
describe('GET /users/:userId (getUserById)', () => {
  const get = (token: string, userId: string) => h.rest('getUserById', 'GET', `/v1/users/${userId}`, { token });

  it('answers the caller and the users of organizations whose members the caller may list (official schema)', async () => {
    const { owner, reader, guest, outsider } = await h.world();
    expect((await get(outsider.token, outsider.id)).body).toMatchObject({
      object: 'user',
      id: outsider.id,
      email: outsider.email,
      urls: { location: expect.stringContaining(`/users/${outsider.id}`) },
    });
    expect((await get(reader.token, owner.id)).body).toMatchObject({ id: owner.id, displayName: expect.any(String), email: owner.email });
    // Guests are members too: listed to those who may list members.
    expect((await get(owner.token, guest.id)).status).toBe(200);
    await h.db.prisma.member.update({
      where: {
        organizationId_userId: {
          organizationId: (await h.db.prisma.member.findFirstOrThrow({ where: { userId: guest.id } })).organizationId,
          userId: guest.id,
        },
      },
      data: { disabled: true },
    });
    expect((await get(owner.token, guest.id)).status).toBe(200);
  });

  it('answers 404 (as for an unknown id) for users of other organizations, to guests and disabled members; 401 anonymous', async () => {
    const a = await h.world();
    const b = await h.world('Other');
    await refused(404, 'GET', `/v1/users/${b.owner.id}`, { token: a.owner.token, operationId: 'getUserById' });
    await refused(404, 'GET', `/v1/users/${a.owner.id}`, { token: a.outsider.token });
    await refused(404, 'GET', `/v1/users/${a.owner.id}`, { token: a.guest.token });
    await refused(404, 'GET', `/v1/users/${newId()}`, { token: a.owner.token });
    await h.db.prisma.member.update({
      where: { organizationId_userId: { organizationId: a.orgId, userId: a.reader.id } },
      data: { disabled: true },
    });
    await refused(404, 'GET', `/v1/users/${a.owner.id}`, { token: a.reader.token });
    await refused(401, 'GET', `/v1/users/${a.owner.id}`);
  });

  it('a token from an organization’s single sign-on sees only that organization’s members', async () => {
    const a = await h.world();
    const b = await h.world('Other');
    await h.addMember(b.orgId, a.reader.id, 'read');
    const ssoToken = await issueToken(h.db.prisma, a.reader.id, 'sso', {
      organizationId: a.orgId,
      expiresAt: new Date(Date.now() + 3600_000),
    });
    expect((await get(ssoToken, a.owner.id)).status).toBe(200);
    await refused(404, 'GET', `/v1/users/${b.owner.id}`, { token: ssoToken });
    expect((await get(a.reader.token, b.owner.id)).status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------
describe('PATCH /users/:userId (updateUserById)', () => {
  const patch = (token: string, userId: string, body: unknown) => h.rest('updateUserById', 'PATCH', `/v1/users/${userId}`, { token, body });

  it('the caller updates their own display name and photo (official schema)', async () => {
    const { reader } = await h.world();
    const res = await patch(reader.token, reader.id, { displayName: '  Ada Lovelace ', photoURL: 'https://img.example/ada.png' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'user', id: reader.id, displayName: 'Ada Lovelace', photoURL: 'https://img.example/ada.png' });
    expect(await h.db.prisma.user.findUniqueOrThrow({ where: { id: reader.id } })).toMatchObject({
      displayName: 'Ada Lovelace',
      photoURL: 'https://img.example/ada.png',
    });
    expect((await patch(reader.token, reader.id, { displayName: 'Ada' })).body).toMatchObject({
      displayName: 'Ada',
      photoURL: 'https://img.example/ada.png',
    });
    expect((await h.rest('getAuthenticatedUser', 'GET', '/v1/user', { token: reader.token })).body.displayName).toBe('Ada');
  });

  it('refuses bad input with 400 naming the field, changing nothing', async () => {
    const { reader } = await h.world();
    const path = `/v1/users/${reader.id}`;
    const opts = (body: unknown, field: string) => ({ token: reader.token, body, field });
    await refused(400, 'PATCH', path, opts({}, 'body'));
    await refused(400, 'PATCH', path, opts({ displayName: '' }, 'displayName'));
    await refused(400, 'PATCH', path, opts({ displayName: '   ' }, 'displayName'));
    await refused(400, 'PATCH', path, opts({ displayName: 'x'.repeat(65) }, 'displayName'));
    await refused(400, 'PATCH', path, opts({ displayName: null }, 'displayName'));
    await refused(400, 'PATCH', path, opts({ displayName: 42 }, 'displayName'));
    await refused(400, 'PATCH', path, opts({ photoURL: 'javascript:alert(1)' }, 'photoURL'));
    await refused(400, 'PATCH', path, opts({ photoURL: `https://x.example/${'a'.repeat(2048)}` }, 'photoURL'));
    await refused(400, 'PATCH', path, opts({ photoURL: null }, 'photoURL'));
    const unknown = await refused(400, 'PATCH', path, { token: reader.token, body: { displayName: 'Ok', email: 'new@example.com' } });
    expect(unknown.body.error.message).toMatch(/email/);
  });

  it('refuses another user: 403 when the caller can see them, 404 otherwise; 401 anonymous', async () => {
    const { owner, reader, outsider } = await h.world();
    await refused(403, 'PATCH', `/v1/users/${reader.id}`, { token: owner.token, body: { displayName: 'Hijacked' } });
    await refused(404, 'PATCH', `/v1/users/${reader.id}`, { token: outsider.token, body: { displayName: 'Hijacked' } });
    await refused(404, 'PATCH', `/v1/users/${newId()}`, { token: owner.token, body: { displayName: 'Nobody' } });
    await refused(401, 'PATCH', `/v1/users/${reader.id}`, { body: { displayName: 'Anonymous' } });
  });
});

// ---------------------------------------------------------------------------------------------
describe('POST /orgs (createOrganization)', () => {
  it('creates an organization whose admin is the caller (201, Location, official schema)', async () => {
    const user = await h.user('Founder');
    const res = await h.rest('createOrganization', 'POST', '/v1/orgs', {
      token: user.token,
      body: { title: '  Founders Inc ', emailDomains: ['Founders.example', 'founders.example'] },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'organization',
      title: 'Founders Inc',
      emailDomains: ['founders.example'],
      permissions: { view: true, admin: true },
    });
    const members = await h.db.prisma.member.findMany({ where: { organizationId: res.body.id } });
    expect(members).toMatchObject([{ userId: user.id, role: 'admin', disabled: false }]);
    const listed = await h.rest('listOrganizationsForAuthenticatedUser', 'GET', '/v1/orgs', { token: user.token });
    expect(ids(listed.body.items)).toEqual([res.body.id]);
    // withDefaultSite=false (and the default-site-only fields) change nothing.
    const plain = await h.rest('createOrganization', 'POST', '/v1/orgs?withDefaultSite=false&openapiUrl=https://x.example/o.json', {
      token: user.token,
      body: { title: 'Second', onboardingPreferences: { source: null, audience: null, interests: [] } },
    });
    expect(plain.status).toBe(201);
    expect(await h.db.prisma.site.count({ where: { organizationId: plain.body.id } })).toBe(0);
  });

  it('refuses bad input with 400 naming the field, creating nothing', async () => {
    const user = await h.user();
    const opts = (body: unknown, field: string) => ({ token: user.token, body, field });
    await refused(400, 'POST', '/v1/orgs', opts({}, 'title'));
    await refused(400, 'POST', '/v1/orgs', opts({ title: 'x' }, 'title'));
    await refused(400, 'POST', '/v1/orgs', opts({ title: '   ' }, 'title'));
    await refused(400, 'POST', '/v1/orgs', opts({ title: 'x'.repeat(256) }, 'title'));
    await refused(400, 'POST', '/v1/orgs', opts({ title: 'Ok', emailDomains: ['not a domain'] }, 'emailDomains[0]'));
    await refused(400, 'POST', '/v1/orgs', opts({ title: 'Ok', emailDomains: null }, 'emailDomains'));
    await refused(400, 'POST', '/v1/orgs', opts({ title: 'Ok', onboardingPreferences: 'yes' }, 'onboardingPreferences'));
    await refused(400, 'POST', '/v1/orgs?withDefaultSite=true', opts({ title: 'Ok' }, 'withDefaultSite'));
    await refused(400, 'POST', '/v1/orgs?withDefaultSite=maybe', opts({ title: 'Ok' }, 'withDefaultSite'));
    await refused(401, 'POST', '/v1/orgs', { body: { title: 'Anonymous' } });
  });

  it('refuses a token from an organization’s single sign-on (403)', async () => {
    const { orgId, reader } = await h.world();
    const ssoToken = await issueToken(h.db.prisma, reader.id, 'sso', { organizationId: orgId, expiresAt: new Date(Date.now() + 3600_000) });
    await refused(403, 'POST', '/v1/orgs', { token: ssoToken, body: { title: 'Escape' } });
  });
});

// ---------------------------------------------------------------------------------------------
describe('GET /orgs/:organizationId/members/:userId/spaces (listSpacesForOrganizationMember)', () => {
  const list = (orgId: string, token: string, userId: string, query = '') =>
    h.rest('listSpacesForOrganizationMember', 'GET', `/v1/orgs/${orgId}/members/${userId}/spaces${query}`, { token });
  const space = async (orgId: string, token: string, title: string) =>
    (await h.rest('createSpace', 'POST', `/v1/orgs/${orgId}/spaces`, { token, body: { title } })).body.id as string;

  it('lists the live spaces a member can access with their role, as their own access rules decide (official schema)', async () => {
    const { orgId, owner, reader, guest } = await h.world();
    const open = await space(orgId, owner.token, 'Open');
    const closed = await space(orgId, owner.token, 'Admins only');
    const shown = await space(orgId, owner.token, 'Public');
    const gone = await space(orgId, owner.token, 'Deleted');
    await h.db.prisma.space.update({ where: { id: closed }, data: { defaultLevel: null } });
    await h.db.prisma.space.update({ where: { id: shown }, data: { visibility: 'public', defaultLevel: 'edit' } });
    await h.call('DELETE', `/v1/spaces/${gone}`, { token: owner.token });

    const readers = await list(orgId, owner.token, reader.id, '?order=asc');
    expect(readers.status).toBe(200);
    expect(readers.body.count).toBe(2);
    expect(readers.body.items.map((i: any) => [i.space.id, i.permission])).toEqual([
      [open, 'read'],
      [shown, 'edit'],
    ]);
    // What the reader sees of a space they can read themself.
    for (const item of readers.body.items)
      expect((await h.call('GET', `/v1/spaces/${item.space.id}`, { token: reader.token })).status).toBe(200);
    expect((await h.call('GET', `/v1/spaces/${closed}`, { token: reader.token })).status).toBe(404);

    // Newest first by default; the member asks about themself.
    const own = await list(orgId, reader.token, reader.id);
    expect(own.body.items.map((i: any) => i.space.id)).toEqual([shown, open]);
    const admins = await list(orgId, owner.token, owner.id, '?order=asc&limit=2');
    expect(admins.body).toMatchObject({ count: 3, next: { page: expect.any(String) } });
    expect(admins.body.items.map((i: any) => [i.space.id, i.permission])).toEqual([
      [open, 'admin'],
      [closed, 'admin'],
    ]);
    const rest = await list(orgId, owner.token, owner.id, `?order=asc&limit=2&page=${admins.body.next.page}`);
    expect(rest.body.items.map((i: any) => i.space.id)).toEqual([shown]);
    // A guest reaches only public content; a disabled member nothing.
    expect((await list(orgId, guest.token, guest.id)).body.items.map((i: any) => [i.space.id, i.permission])).toEqual([[shown, 'read']]);
    await h.db.prisma.member.update({
      where: { organizationId_userId: { organizationId: orgId, userId: reader.id } },
      data: { disabled: true },
    });
    expect((await list(orgId, owner.token, reader.id)).body).toEqual({ items: [], count: 0 });
  });

  it('refuses bad parameters (400 naming them), another member’s list to non-admins (403), outsiders and non-members (404)', async () => {
    const { orgId, owner, reader, creator, outsider } = await h.world();
    const path = (userId: string) => `/v1/orgs/${orgId}/members/${userId}/spaces`;
    await refused(400, 'GET', `${path(reader.id)}?order=up`, { token: owner.token, field: 'order' });
    await refused(400, 'GET', `${path(reader.id)}?limit=0`, { token: owner.token, field: 'limit' });
    await refused(403, 'GET', path(reader.id), { token: creator.token });
    await refused(403, 'GET', path(owner.id), { token: reader.token });
    await refused(404, 'GET', path(reader.id), { token: outsider.token });
    await refused(404, 'GET', path(outsider.id), { token: outsider.token });
    await refused(404, 'GET', path(outsider.id), { token: owner.token });
    await refused(401, 'GET', path(reader.id));
  });
});

// ---------------------------------------------------------------------------------------------
describe('GET /orgs/:organizationId/members/:userId/teams (listTeamsForOrganizationMember)', () => {
  const list = (orgId: string, token: string, userId: string, query = '') =>
    h.rest('listTeamsForOrganizationMember', 'GET', `/v1/orgs/${orgId}/members/${userId}/teams${query}`, { token });
  const team = async (orgId: string, token: string, title: string, members: string[]) =>
    (await h.rest('createOrganizationTeam', 'PUT', `/v1/orgs/${orgId}/teams`, { token, body: { title, members } })).body.id as string;

  it('lists the teams a member is in with their role (official schema), filtered by title', async () => {
    const { orgId, owner, reader, guest } = await h.world();
    const writers = await team(orgId, owner.token, 'Writers', [reader.id, guest.id]);
    const reviewers = await team(orgId, owner.token, 'Reviewers 100%', [reader.id]);
    await team(orgId, owner.token, 'Others', [owner.id]);
    await h.call('PUT', `/v1/orgs/${orgId}/teams/${reviewers}/members/${reader.id}`, { token: owner.token, body: { role: 'owner' } });

    const res = await list(orgId, owner.token, reader.id);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(2);
    expect(res.body.items.map((i: any) => [i.team.id, i.member.role])).toEqual([
      [writers, 'member'],
      [reviewers, 'owner'],
    ]);
    expect(res.body.items[0].team).toMatchObject({
      object: 'team',
      title: 'Writers',
      members: 2,
      permissions: { view: true, admin: true },
    });
    expect((await list(orgId, reader.token, reader.id, '?title=REVIEW')).body.items.map((i: any) => i.team.id)).toEqual([reviewers]);
    expect((await list(orgId, reader.token, reader.id, '?title=0%25')).body.items.map((i: any) => i.team.id)).toEqual([reviewers]);
    expect((await list(orgId, reader.token, reader.id, '?title=_')).body.count).toBe(0);
    // Any non-guest member sees anyone's teams; a guest their own.
    expect((await list(orgId, reader.token, owner.id)).body.count).toBe(1);
    expect((await list(orgId, guest.token, guest.id)).body.items.map((i: any) => i.team.id)).toEqual([writers]);
    const paged = await list(orgId, owner.token, reader.id, '?limit=1');
    expect(paged.body).toMatchObject({ count: 2, next: { page: expect.any(String) } });
  });

  it('refuses bad parameters (400), guests asking about others (403), outsiders and non-members (404)', async () => {
    const { orgId, owner, reader, guest, outsider } = await h.world();
    const path = (userId: string) => `/v1/orgs/${orgId}/members/${userId}/teams`;
    await refused(400, 'GET', `${path(reader.id)}?limit=1001`, { token: owner.token, field: 'limit' });
    await refused(400, 'GET', `${path(reader.id)}?page=nope`, { token: owner.token, field: 'page' });
    await refused(403, 'GET', path(reader.id), { token: guest.token });
    await refused(403, 'GET', path(outsider.id), { token: guest.token });
    await refused(404, 'GET', path(reader.id), { token: outsider.token });
    await refused(404, 'GET', path(outsider.id), { token: owner.token });
    await refused(401, 'GET', path(reader.id));
  });
});

// ---------------------------------------------------------------------------------------------
describe('GET /email-domains/:emailDomain/orgs (getOrganizationsForEmailDomain)', () => {
  it('lists the organizations admitting the caller’s own verified email domain (official schema), nothing else', async () => {
    const domain = `corp-${newId(6).toLowerCase()}.example`;
    const a = await h.world('Admits corp');
    const b = await h.world('Other domain');
    const c = await h.world('Admits corp too');
    await h.rest('updateOrganizationById', 'PATCH', `/v1/orgs/${a.orgId}`, { token: a.owner.token, body: { emailDomains: [domain] } });
    await h.rest('updateOrganizationById', 'PATCH', `/v1/orgs/${b.orgId}`, {
      token: b.owner.token,
      body: { emailDomains: ['elsewhere.example'] },
    });
    await h.rest('updateOrganizationById', 'PATCH', `/v1/orgs/${c.orgId}`, {
      token: c.owner.token,
      body: { emailDomains: ['x.example', domain] },
    });
    const user = await h.user('Employee', `Employee@${domain.toUpperCase()}`);
    await h.addMember(c.orgId, user.id, 'read');
    const res = await h.rest('getOrganizationsForEmailDomain', 'GET', `/v1/email-domains/${domain.toUpperCase()}/orgs`, {
      token: user.token,
    });
    expect(res.status).toBe(200);
    expect(ids(res.body.organizations)).toEqual([a.orgId, c.orgId]);
    // Not a member of a: it may join, but sees it with no rights.
    expect(res.body.organizations[0].permissions).toMatchObject({ view: false, admin: false });
    expect(res.body.organizations[1].permissions).toMatchObject({ view: true });
    const none = await h.user('Lonely', `lonely@nobody-${newId(6).toLowerCase()}.example`);
    const empty = await h.rest('getOrganizationsForEmailDomain', 'GET', `/v1/email-domains/${none.email.split('@')[1]}/orgs`, {
      token: none.token,
    });
    expect(empty.body).toEqual({ organizations: [] });
  });

  it('refuses another domain and unverified emails (403), anonymous (401)', async () => {
    const { owner } = await h.world();
    await h.rest('updateOrganizationById', 'PATCH', `/v1/orgs/${owner.orgId}`, {
      token: owner.token,
      body: { emailDomains: ['secret.example'] },
    });
    const user = await h.user('Curious', `curious@${newId(6).toLowerCase()}.example`);
    await refused(403, 'GET', '/v1/email-domains/secret.example/orgs', { token: user.token });
    const unverified = await h.user('Unverified', `u-${newId(4).toLowerCase()}@secret.example`);
    await h.db.prisma.user.update({ where: { id: unverified.id }, data: { emailVerified: false } });
    await refused(403, 'GET', '/v1/email-domains/secret.example/orgs', { token: unverified.token });
    await refused(401, 'GET', '/v1/email-domains/secret.example/orgs');
  });
});

// ---------------------------------------------------------------------------------------------
describe('GET /orgs/:organizationId/members: search, sort, order', () => {
  const list = (orgId: string, token: string, query = '') =>
    h.rest('listMembersInOrganizationById', 'GET', `/v1/orgs/${orgId}/members${query}`, { token });

  it('searches names and emails (case-insensitive, wildcards literal), sorts by joinedAt, lastSeenAt or name, newest first by default', async () => {
    const { orgId, owner } = await h.world();
    const zoe = await h.user('Zoe 100% Zeal', `zoe-${newId(4).toLowerCase()}@zeal.example`);
    const adam = await h.user('Adam Apple', `adam-${newId(4).toLowerCase()}@orchard.example`);
    await h.addMember(orgId, zoe.id, 'read');
    await h.addMember(orgId, adam.id, 'comment');
    const all = await h.db.prisma.member.findMany({ where: { organizationId: orgId } });
    // Distinct join dates in a known order (the world's members joined in the same millisecond or so).
    const order = [
      owner.id,
      ...all.map((m) => m.userId).filter((id) => id !== owner.id && id !== zoe.id && id !== adam.id),
      adam.id,
      zoe.id,
    ];
    for (const [i, userId] of order.entries()) {
      await h.db.prisma.member.update({
        where: { organizationId_userId: { organizationId: orgId, userId } },
        data: { joinedAt: new Date(Date.UTC(2024, 0, 1 + i)) },
      });
    }
    await h.db.prisma.member.update({
      where: { organizationId_userId: { organizationId: orgId, userId: adam.id } },
      data: { lastSeenAt: new Date(Date.UTC(2025, 1, 1)) },
    });
    await h.db.prisma.member.update({
      where: { organizationId_userId: { organizationId: orgId, userId: owner.id } },
      data: { lastSeenAt: new Date(Date.UTC(2025, 0, 1)) },
    });

    expect(ids((await list(orgId, owner.token)).body.items)).toEqual([...order].reverse());
    expect(ids((await list(orgId, owner.token, '?sort=joinedAt&order=asc')).body.items)).toEqual(order);
    const seen = ids((await list(orgId, owner.token, '?sort=lastSeenAt')).body.items);
    expect(seen.slice(0, 2)).toEqual([adam.id, owner.id]);
    expect(ids((await list(orgId, owner.token, '?sort=lastSeenAt&order=asc')).body.items).slice(0, 2)).toEqual([owner.id, adam.id]);
    const byName = (await list(orgId, owner.token, '?sort=name&order=asc')).body.items.map((m: any) => m.user.displayName);
    expect(byName).toEqual([...byName].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(byName[0]).toBe('Adam Apple');

    expect(ids((await list(orgId, owner.token, '?search=zEAL')).body.items)).toEqual([zoe.id]);
    expect(ids((await list(orgId, owner.token, '?search=ORCHARD.example')).body.items)).toEqual([adam.id]);
    expect(ids((await list(orgId, owner.token, '?search=100%25')).body.items)).toEqual([zoe.id]);
    expect((await list(orgId, owner.token, '?search=_%25_')).body).toEqual({ items: [], count: 0 });
    expect((await list(orgId, owner.token, '?search=apple&role=read')).body.count).toBe(0);
    expect((await list(orgId, owner.token, '?search=apple&role=comment')).body.count).toBe(1);
  });

  it('refuses an unknown sort or order with 400 naming the parameter', async () => {
    const { orgId, owner } = await h.world();
    await refused(400, 'GET', `/v1/orgs/${orgId}/members?sort=email`, { token: owner.token, field: 'sort' });
    await refused(400, 'GET', `/v1/orgs/${orgId}/members?order=newest`, { token: owner.token, field: 'order' });
  });
});

// ---------------------------------------------------------------------------------------------
describe('PATCH /orgs/:organizationId/members/:userId with {}', () => {
  it('answers the member unchanged (official schema); still for admins only, members only', async () => {
    const { orgId, owner, reader, outsider } = await h.world();
    const before = await state();
    const res = await h.rest('updateMemberInOrganizationById', 'PATCH', `/v1/orgs/${orgId}/members/${reader.id}`, {
      token: owner.token,
      body: {},
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'member', id: reader.id, role: 'read' });
    expect(await state()).toBe(before);
    await refused(403, 'PATCH', `/v1/orgs/${orgId}/members/${owner.id}`, { token: reader.token, body: {} });
    await refused(404, 'PATCH', `/v1/orgs/${orgId}/members/${outsider.id}`, { token: owner.token, body: {} });
    await refused(404, 'PATCH', `/v1/orgs/${orgId}/members/${reader.id}`, { token: outsider.token, body: {} });
  });
});
