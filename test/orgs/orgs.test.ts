import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { hashSecret } from '../../src/secrets.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { setupHarness, type Harness, type TestUser } from '../support/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await setupHarness();
});

type Owner = TestUser & { orgId: string };


const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Sends a request that must be refused with `status` (a 400 must name `field` first in its
 * message) and must leave every table unchanged.
 */
async function refused(
  status: number,
  method: string,
  path: string,
  opts: { token?: string | null; body?: unknown; rawBody?: string; field?: string; operationId?: string } = {},
) {
  const before = await h.snapshot();
  const res = await h.call(method, path, { token: opts.token, body: opts.body, rawBody: opts.rawBody });
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({ error: { code: status, message: expect.any(String) } });
  if (opts.field !== undefined) expect(res.body.error.message).toMatch(new RegExp(`^${escape(opts.field)}(:|\\[| )`));
  if (opts.operationId) assertMatchesSpec(opts.operationId, status, res.body);
  expect(await h.snapshot()).toBe(before);
  return res;
}

const PERMISSION_KEYS = [
  'view', 'admin', 'ownTeam', 'createContent', 'createOpenAPISpec', 'ingestConversations',
  'viewBilling', 'listMembers', 'listTeams', 'listIntegrations', 'listInstallations', 'installIntegration',
];

// ---------------------------------------------------------------------------------------------
describe('GET /user', () => {
  it('answers the caller (official User schema)', async () => {
    const ada = await h.user('Ada Lovelace', 'ada@analytical.example');
    const res = await h.rest('getAuthenticatedUser', 'GET', '/v1/user', { token: ada.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'user',
      id: ada.id,
      displayName: 'Ada Lovelace',
      email: 'ada@analytical.example',
      urls: { location: expect.stringContaining(ada.id) },
    });
  });

  it('refuses a missing, unknown or malformed token with 401', async () => {
    await refused(401, 'GET', '/v1/user');
    await refused(401, 'GET', '/v1/user', { token: 'lct_not-a-real-token' });
    const res = await h.app.fetch(new Request('http://lectern.test/v1/user', { headers: { authorization: 'Basic abc' } }));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });
});

// ---------------------------------------------------------------------------------------------
describe('GET /orgs', () => {
  it('lists only the organizations the caller is an active member of', async () => {
    const a = await h.owner('First Org');
    const other = await h.owner('Second Org');
    const third = await h.owner('Third Org');
    await h.addMember(other.orgId, a.id, 'read');
    await h.addMember(third.orgId, a.id, 'admin');
    await h.db.prisma.member.update({ where: { organizationId_userId: { organizationId: third.orgId, userId: a.id } }, data: { disabled: true } });

    const res = await h.rest('listOrganizationsForAuthenticatedUser', 'GET', '/v1/orgs', { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(2);
    expect(res.body.next).toBeUndefined();
    expect(res.body.items.map((o: any) => o.id)).toEqual([a.orgId, other.orgId]);
    const [mine, theirs] = res.body.items;
    expect(mine).toMatchObject({ object: 'organization', title: 'First Org', permissions: { admin: true, view: true } });
    expect(theirs).toMatchObject({ object: 'organization', title: 'Second Org', permissions: { admin: false, view: true, listMembers: true } });
  });

  it('pages with limit and next.page', async () => {
    const u = await h.owner('Page 1');
    const ids = [u.orgId];
    for (const title of ['Page 2', 'Page 3']) {
      const o = await h.owner(title);
      await h.addMember(o.orgId, u.id, 'read');
      ids.push(o.orgId);
    }
    const first = await h.rest('listOrganizationsForAuthenticatedUser', 'GET', '/v1/orgs?limit=2', { token: u.token });
    expect(first.body).toMatchObject({ count: 3, next: { page: expect.any(String) } });
    expect(first.body.items).toHaveLength(2);
    const second = await h.rest('listOrganizationsForAuthenticatedUser', 'GET', `/v1/orgs?limit=2&page=${encodeURIComponent(first.body.next.page)}`, { token: u.token });
    expect(second.body.items).toHaveLength(1);
    expect([...first.body.items, ...second.body.items].map((o: any) => o.id).sort()).toEqual([...ids].sort());
    expect(second.body.count).toBe(3);
    expect(second.body.next).toBeUndefined();
  });

  it('refuses a bad limit or page with 400 naming it', async () => {
    const u = await h.owner();
    for (const limit of ['0', '-1', 'abc', '1.5']) await refused(400, 'GET', `/v1/orgs?limit=${limit}`, { token: u.token, field: 'limit' });
    await refused(400, 'GET', '/v1/orgs?page=not-a-cursor', { token: u.token, field: 'page' });
  });

  it('refuses an anonymous caller (401); an outsider sees nothing of others', async () => {
    await refused(401, 'GET', '/v1/orgs');
    const { outsider } = await h.world();
    const res = await h.rest('listOrganizationsForAuthenticatedUser', 'GET', '/v1/orgs', { token: outsider.token });
    expect(res.body).toEqual({ items: [], count: 0 });
  });
});

// ---------------------------------------------------------------------------------------------
describe('GET /orgs/:organizationId', () => {
  it('answers the organization with the caller’s permissions, for every kind of member', async () => {
    const { owner, orgId, reader, creator, guest } = await h.world('Visible Org');
    const asOwner = await h.rest('getOrganizationById', 'GET', `/v1/orgs/${orgId}`, { token: owner.token });
    expect(asOwner.status).toBe(200);
    expect(asOwner.body).toMatchObject({
      object: 'organization',
      id: orgId,
      title: 'Visible Org',
      emailDomains: [],
      type: 'business',
      defaultRole: 'read',
      sso: false,
      ai: false,
      inviteLinks: true,
      plan: 'free',
      mergeRules: { type: 'none' },
      trial: { status: 'notapplicable', count: 0 },
      urls: { location: expect.stringContaining(orgId), app: expect.any(String) },
    });
    expect(asOwner.body.urls.logo).toBeUndefined();
    expect(asOwner.body.hostname).toBeUndefined();
    expect(Object.values(asOwner.body.permissions).every((v) => v === true)).toBe(true);
    expect(Object.keys(asOwner.body.permissions).sort()).toEqual([...PERMISSION_KEYS].sort());

    const asReader = (await h.rest('getOrganizationById', 'GET', `/v1/orgs/${orgId}`, { token: reader.token })).body.permissions;
    expect(asReader).toMatchObject({ view: true, admin: false, createContent: false, listMembers: true, viewBilling: false });
    const asCreator = (await h.rest('getOrganizationById', 'GET', `/v1/orgs/${orgId}`, { token: creator.token })).body.permissions;
    expect(asCreator).toMatchObject({ view: true, admin: false, createContent: true, createOpenAPISpec: true, listMembers: true });
    const asGuest = (await h.rest('getOrganizationById', 'GET', `/v1/orgs/${orgId}`, { token: guest.token })).body.permissions;
    expect(asGuest).toMatchObject({ view: true, admin: false, createContent: false, listMembers: false, listTeams: false });
  });

  it('answers 404 for an unknown organization (official error schema)', async () => {
    const { owner } = await h.world();
    await refused(404, 'GET', `/v1/orgs/${newId()}`, { token: owner.token, operationId: 'getOrganizationById' });
  });

  it('hides the organization from an outsider and a disabled member (404), and refuses anonymous (401)', async () => {
    const { orgId, outsider, reader } = await h.world();
    await refused(404, 'GET', `/v1/orgs/${orgId}`, { token: outsider.token, operationId: 'getOrganizationById' });
    await h.db.prisma.member.update({ where: { organizationId_userId: { organizationId: orgId, userId: reader.id } }, data: { disabled: true } });
    await refused(404, 'GET', `/v1/orgs/${orgId}`, { token: reader.token });
    await refused(401, 'GET', `/v1/orgs/${orgId}`);
  });
});

// ---------------------------------------------------------------------------------------------
describe('PATCH /orgs/:organizationId', () => {
  const patch = (o: { orgId: string; token: string }, body: unknown) =>
    h.rest('updateOrganizationById', 'PATCH', `/v1/orgs/${o.orgId}`, { token: o.token, body });
  const bad = (o: { orgId: string; token: string }, body: unknown, field: string) =>
    refused(400, 'PATCH', `/v1/orgs/${o.orgId}`, { token: o.token, body, field, operationId: 'updateOrganizationById' });

  it('updates every field at once, persists it and answers the official schema', async () => {
    const { owner } = await h.world();
    const logo = 'https://cdn.example.com/logo.png';
    const mergeRules = {
      type: 'rules',
      rules: [{ rule: 'require_specific_reviewers', users: [owner.id] }, { rule: 'require_at_least_one_review' }],
    };
    const res = await patch(owner, {
      title: 'Renamed Org',
      emailDomains: ['Example.COM', 'docs.example.org'],
      hostname: 'Acme-Docs',
      defaultRole: 'edit',
      defaultContent: { type: 'site', site: 'site_123' },
      logo,
      sso: true,
      ai: true,
      inviteLinks: false,
      mergeRules,
    });
    expect(res.status).toBe(200);
    const expected = {
      id: owner.orgId,
      title: 'Renamed Org',
      emailDomains: ['example.com', 'docs.example.org'],
      hostname: 'acme-docs',
      defaultRole: 'edit',
      defaultContent: { type: 'site', site: 'site_123' },
      sso: true,
      ai: true,
      inviteLinks: false,
      mergeRules,
      urls: { logo },
    };
    expect(res.body).toMatchObject(expected);
    const got = await h.rest('getOrganizationById', 'GET', `/v1/orgs/${owner.orgId}`, { token: owner.token });
    expect(got.body).toMatchObject(expected);
    const row = await h.db.prisma.organization.findUniqueOrThrow({ where: { id: owner.orgId } });
    expect(row).toMatchObject({ title: 'Renamed Org', hostname: 'acme-docs', logo, defaultRole: 'edit', sso: true, ai: true, inviteLinks: false });
  });

  it('an empty body changes nothing but answers the organization', async () => {
    const { owner } = await h.world('Unchanged');
    const res = await patch(owner, {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: 'Unchanged', mergeRules: { type: 'none' } });
  });

  it('leaves absent fields unchanged', async () => {
    const { owner } = await h.world();
    await patch(owner, { title: 'One', sso: true });
    const res = await patch(owner, { ai: true });
    expect(res.body).toMatchObject({ title: 'One', sso: true, ai: true });
  });

  describe('title (2..255)', () => {
    it('accepts 2 and 255 characters (counted as characters, not UTF-16 units)', async () => {
      const { owner } = await h.world();
      expect((await patch(owner, { title: 'ab' })).body.title).toBe('ab');
      expect((await patch(owner, { title: 'x'.repeat(255) })).body.title).toBe('x'.repeat(255));
      expect((await patch(owner, { title: '📘'.repeat(255) })).body.title).toBe('📘'.repeat(255));
    });

    it('refuses 1 and 256 characters, blanks, null and a non-string with 400 naming title', async () => {
      const { owner } = await h.world();
      await bad(owner, { title: 'a' }, 'title');
      await bad(owner, { title: 'x'.repeat(256) }, 'title');
      await bad(owner, { title: '    ' }, 'title');
      await bad(owner, { title: null }, 'title');
      await bad(owner, { title: 42 }, 'title');
    });

    it('trims surrounding whitespace, as on creation', async () => {
      const { owner } = await h.world();
      expect((await patch(owner, { title: '  Spaced  ' })).body.title).toBe('Spaced');
    });
  });

  describe('hostname (3..32)', () => {
    it('accepts 3 and 32 characters, lowercases, keeps its own, and clears with null', async () => {
      const { owner } = await h.world();
      const h3 = `h${newId(2).toLowerCase()}`;
      expect((await patch(owner, { hostname: h3 })).body.hostname).toBe(h3);
      const h32 = `z${newId(31).toLowerCase()}`;
      expect((await patch(owner, { hostname: h32.toUpperCase() })).body.hostname).toBe(h32);
      expect((await patch(owner, { hostname: h32 })).body.hostname).toBe(h32);
      const cleared = await patch(owner, { hostname: null });
      expect(cleared.body.hostname).toBeUndefined();
      expect((await h.db.prisma.organization.findUniqueOrThrow({ where: { id: owner.orgId } })).hostname).toBeNull();
    });

    it('refuses 2 and 33 characters and invalid characters with 400 naming hostname', async () => {
      const { owner } = await h.world();
      await bad(owner, { hostname: 'ab' }, 'hostname');
      await bad(owner, { hostname: 'a'.repeat(33) }, 'hostname');
      for (const hostname of ['has space', 'dot.ted', '-lead', 'trail-', 'ünï', 'under_score']) await bad(owner, { hostname }, 'hostname');
      await bad(owner, { hostname: 123 }, 'hostname');
    });

    it('answers 409 when another organization holds the hostname (any case)', async () => {
      const first = await h.world();
      const second = await h.world();
      const name = `taken-${newId(6).toLowerCase()}`;
      await patch(first.owner, { hostname: name });
      const res = await refused(409, 'PATCH', `/v1/orgs/${second.orgId}`, { token: second.owner.token, body: { hostname: name.toUpperCase() } });
      expect(res.body.error.message).toContain('hostname');
    });

    it('answers one 200 and one 409 when two organizations claim the same hostname at once', async () => {
      const first = await h.world();
      const second = await h.world();
      const name = `race-${newId(6).toLowerCase()}`;
      const results = await Promise.all(
        [first, second].map((w) => h.call('PATCH', `/v1/orgs/${w.orgId}`, { token: w.owner.token, body: { hostname: name } })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(await h.db.prisma.organization.count({ where: { hostname: name } })).toBe(1);
    });
  });

  describe('logo (uri, max 2048, or null)', () => {
    it('accepts a 2048-character URL and clears with null', async () => {
      const { owner } = await h.world();
      const base = 'https://cdn.example.com/';
      const long = base + 'a'.repeat(2048 - base.length);
      expect((await patch(owner, { logo: long })).body.urls.logo).toBe(long);
      const cleared = await patch(owner, { logo: null });
      expect(cleared.body.urls.logo).toBeUndefined();
      expect((await h.db.prisma.organization.findUniqueOrThrow({ where: { id: owner.orgId } })).logo).toBeNull();
    });

    it('refuses a 2049-character URL, a non-URL and a non-http URL with 400 naming logo', async () => {
      const { owner } = await h.world();
      const base = 'https://cdn.example.com/';
      await bad(owner, { logo: base + 'a'.repeat(2049 - base.length) }, 'logo');
      await bad(owner, { logo: 'not a url' }, 'logo');
      await bad(owner, { logo: 'javascript:alert(1)' }, 'logo');
      await bad(owner, { logo: 'ftp://example.com/logo.png' }, 'logo');
      await bad(owner, { logo: { href: base } }, 'logo');
    });
  });

  describe('emailDomains', () => {
    it('normalises domains and can be emptied', async () => {
      const { owner } = await h.world();
      expect((await patch(owner, { emailDomains: [' Corp.Example.com '] })).body.emailDomains).toEqual(['corp.example.com']);
      expect((await patch(owner, { emailDomains: ['b.example.com', 'a.example.com', 'B.example.com'] })).body.emailDomains).toEqual(['b.example.com', 'a.example.com']);
      expect((await patch(owner, { emailDomains: [] })).body.emailDomains).toEqual([]);
    });

    it('refuses non-domains, null and non-strings with 400 naming emailDomains', async () => {
      const { owner } = await h.world();
      await bad(owner, { emailDomains: ['example.com', 'not a domain'] }, 'emailDomains[1]');
      await bad(owner, { emailDomains: ['@example.com'] }, 'emailDomains[0]');
      await bad(owner, { emailDomains: ['localhost'] }, 'emailDomains[0]');
      await bad(owner, { emailDomains: null }, 'emailDomains');
      await bad(owner, { emailDomains: [1] }, 'emailDomains');
      await bad(owner, { emailDomains: [{}] }, 'emailDomains');
    });
  });

  describe('defaultRole (role or null)', () => {
    it('accepts every role and null (guests), shown as null', async () => {
      const { owner } = await h.world();
      for (const role of ['admin', 'create', 'review', 'edit', 'comment', 'read']) {
        expect((await patch(owner, { defaultRole: role })).body.defaultRole).toBe(role);
      }
      const guest = await patch(owner, { defaultRole: null });
      expect(guest.body).toHaveProperty('defaultRole', null);
      expect((await h.db.prisma.organization.findUniqueOrThrow({ where: { id: owner.orgId } })).defaultRole).toBeNull();
    });

    it('refuses an unknown role with 400 naming defaultRole', async () => {
      const { owner } = await h.world();
      await bad(owner, { defaultRole: 'owner' }, 'defaultRole');
      await bad(owner, { defaultRole: 'guest' }, 'defaultRole');
      await bad(owner, { defaultRole: 1 }, 'defaultRole');
    });
  });

  describe('defaultContent ({type:"site", site} or null)', () => {
    it('accepts a site pointer and clears with null', async () => {
      const { owner } = await h.world();
      const set = await patch(owner, { defaultContent: { type: 'site', site: 'site_abc' } });
      expect(set.body.defaultContent).toEqual({ type: 'site', site: 'site_abc' });
      const cleared = await patch(owner, { defaultContent: null });
      expect(cleared.body.defaultContent).toBeUndefined();
      expect((await h.db.prisma.organization.findUniqueOrThrow({ where: { id: owner.orgId } })).defaultContent).toBeNull();
    });

    it('refuses other variants with 400 naming defaultContent', async () => {
      const { owner } = await h.world();
      for (const defaultContent of [
        { type: 'space', space: 'abc' },
        { type: 'site' },
        { type: 'site', site: '' },
        { type: 'site', site: 5 },
        { site: 'abc' },
        'site',
        ['site'],
        7,
      ]) {
        await bad(owner, { defaultContent }, 'defaultContent');
      }
    });
  });

  describe('mergeRules', () => {
    it('accepts {type:"none"} and the rules variants of the official schema', async () => {
      const { owner } = await h.world();
      expect((await patch(owner, { mergeRules: { type: 'rules', rules: [] } })).body.mergeRules).toEqual({ type: 'rules', rules: [] });
      const rules = [
        { rule: 'require_specific_reviewers', users: [owner.id] },
        { rule: 'require_one_of_specific_reviewers', users: [] },
        { rule: 'allow_bypass', users: [owner.id] },
        { rule: 'require_all_reviews_approved' },
        { rule: 'require_up_to_date_change_request' },
        { rule: 'custom', expression: 'true' },
      ];
      expect((await patch(owner, { mergeRules: { type: 'rules', rules } })).body.mergeRules).toEqual({ type: 'rules', rules });
      expect((await patch(owner, { mergeRules: { type: 'none' } })).body.mergeRules).toEqual({ type: 'none' });
    });

    it('refuses inherit (organizations have no parent), unknown variants and malformed rules with 400 naming the field', async () => {
      const { owner } = await h.world();
      await bad(owner, { mergeRules: { type: 'inherit' } }, 'mergeRules.type');
      await bad(owner, { mergeRules: { type: 'sometimes' } }, 'mergeRules.type');
      await bad(owner, { mergeRules: {} }, 'mergeRules');
      await bad(owner, { mergeRules: 'none' }, 'mergeRules');
      await bad(owner, { mergeRules: null }, 'mergeRules');
      await bad(owner, { mergeRules: { type: 'rules' } }, 'mergeRules.rules');
      await bad(owner, { mergeRules: { type: 'rules', rules: [{}] } }, 'mergeRules.rules[0].rule');
      await bad(owner, { mergeRules: { type: 'rules', rules: [{ rule: 'allow_bypass', users: 'me' }] } }, 'mergeRules.rules[0].users');
      await bad(owner, { mergeRules: { type: 'rules', rules: [{ rule: 'allow_bypass', users: [1] }] } }, 'mergeRules.rules[0].users');
    });

    it('refuses rules the official schema does not know, or that lack what they need', async () => {
      const { owner } = await h.world();
      await bad(owner, { mergeRules: { type: 'rules', rules: [{ rule: 'require_nothing' }] } }, 'mergeRules.rules[0].rule');
      await bad(owner, { mergeRules: { type: 'rules', rules: [{ rule: 'require_at_least_one_review' }, { rule: 'require_specific_reviewers' }] } }, 'mergeRules.rules[1].users');
      await bad(owner, { mergeRules: { type: 'rules', rules: [{ rule: 'custom' }] } }, 'mergeRules.rules[0].expression');
      await bad(owner, { mergeRules: { type: 'rules', rules: [{ rule: 'custom', expression: 'x'.repeat(1025) }] } }, 'mergeRules.rules[0].expression');
    });
  });

  describe('booleans sso, ai, inviteLinks', () => {
    it('set each both ways', async () => {
      const { owner } = await h.world();
      for (const flag of ['sso', 'ai', 'inviteLinks']) {
        expect((await patch(owner, { [flag]: true })).body[flag]).toBe(true);
        expect((await patch(owner, { [flag]: false })).body[flag]).toBe(false);
      }
    });

    it('refuse null and non-booleans with 400 naming the flag', async () => {
      const { owner } = await h.world();
      for (const flag of ['sso', 'ai', 'inviteLinks']) {
        await bad(owner, { [flag]: null }, flag);
        await bad(owner, { [flag]: 'yes' }, flag);
        await bad(owner, { [flag]: 1 }, flag);
      }
    });
  });

  it('refuses an unknown field, malformed JSON and a non-object body with 400', async () => {
    const { owner } = await h.world();
    const res = await refused(400, 'PATCH', `/v1/orgs/${owner.orgId}`, { token: owner.token, body: { title: 'Fine', plan: 'pro' } });
    expect(res.body.error.message).toContain('plan');
    await refused(400, 'PATCH', `/v1/orgs/${owner.orgId}`, { token: owner.token, rawBody: '{"title": ', field: 'body' });
    await refused(400, 'PATCH', `/v1/orgs/${owner.orgId}`, { token: owner.token, body: ['title'], field: 'body' });
  });

  it('applies nothing when one field of several is invalid', async () => {
    const { owner } = await h.world('Atomic');
    await bad(owner, { title: 'Would change', sso: true, logo: 'nope' }, 'logo');
    await bad(owner, { title: 'Would change', mergeRules: { type: 'inherit' } }, 'mergeRules.type');
  });

  it('refuses anonymous (401), an outsider (404), an unknown organization (404) and non-admins (403)', async () => {
    const { orgId, outsider, reader, creator, guest, owner } = await h.world();
    const body = { title: 'Hijacked' };
    await refused(401, 'PATCH', `/v1/orgs/${orgId}`, { body });
    await refused(404, 'PATCH', `/v1/orgs/${orgId}`, { token: outsider.token, body });
    await refused(404, 'PATCH', `/v1/orgs/${newId()}`, { token: owner.token, body });
    for (const member of [reader, creator, guest]) await refused(403, 'PATCH', `/v1/orgs/${orgId}`, { token: member.token, body });
  });
});

// ---------------------------------------------------------------------------------------------
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
    const member = await h.db.prisma.member.findUniqueOrThrow({ where: { organizationId_userId: { organizationId: w.orgId, userId: joiner.id } } });
    expect(member).toMatchObject({ role: 'comment', disabled: false });
    const got = await h.rest('getOrganizationById', 'GET', `/v1/orgs/${w.orgId}`, { token: joiner.token });
    expect(got.body.permissions).toMatchObject({ view: true, listMembers: true, admin: false });
  });

  it('joins as a guest when the default role is null', async () => {
    const w = await openOrg(['guests.example'], null);
    const joiner = await h.user('Guest joiner', `g${newId(4).toLowerCase()}@guests.example`);
    expect((await join(w.orgId, joiner.token)).status).toBe(204);
    const member = await h.db.prisma.member.findUniqueOrThrow({ where: { organizationId_userId: { organizationId: w.orgId, userId: joiner.id } } });
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

    await h.db.prisma.member.update({ where: { organizationId_userId: { organizationId: w.orgId, userId: joiner.id } }, data: { disabled: true } });
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

  it('deletes an invite link (205), then answers 204', async () => {
    const { owner, orgId } = await h.world();
    const link = await invite(orgId);
    const keep = await invite(orgId, null);
    const first = await h.rest('deleteOrganizationInviteById', 'DELETE', `/v1/orgs/${orgId}/link-invites/${link.id}`, { token: owner.token });
    expect(first.status).toBe(205);
    expect(first.body).toBeUndefined();
    expect(await h.db.prisma.inviteLink.findUnique({ where: { id: link.hash } })).toBeNull();
    expect(await h.db.prisma.inviteLink.findUnique({ where: { id: keep.hash } })).not.toBeNull();
    const again = await h.rest('deleteOrganizationInviteById', 'DELETE', `/v1/orgs/${orgId}/link-invites/${link.id}`, { token: owner.token });
    expect(again.status).toBe(204);
  });

  it('answers 204 and deletes nothing for an unknown invite or another organization’s invite', async () => {
    const a = await h.world();
    const b = await h.world();
    const theirs = await invite(b.orgId);
    const before = await h.snapshot();
    expect((await h.rest('deleteOrganizationInviteById', 'DELETE', `/v1/orgs/${a.orgId}/link-invites/${newId()}`, { token: a.owner.token })).status).toBe(204);
    expect((await h.rest('deleteOrganizationInviteById', 'DELETE', `/v1/orgs/${a.orgId}/link-invites/${theirs.id}`, { token: a.owner.token })).status).toBe(204);
    expect(await h.snapshot()).toBe(before);
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
    const gone = await h.rest('createSpace', 'POST', `/v1/orgs/${orgId}/spaces`, { token: owner.token, body: { title: 'Deleted, not counted' } });
    expect((await h.call('DELETE', `/v1/spaces/${gone.body.id}`, { token: owner.token })).status).toBe(205);
    const res = await list(orgId, reader.token);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(4);
    expect(res.body.next).toBeUndefined();
    // Ordered by joinedAt then id: the owner joined first; the others may share a millisecond.
    expect(res.body.items[0].id).toBe(owner.id);
    expect(res.body.items.map((m: any) => m.id).sort()).toEqual([owner.id, reader.id, creator.id, guest.id].sort());
    const byId = Object.fromEntries(res.body.items.map((m: any) => [m.id, m]));
    expect(byId[owner.id]).toMatchObject({
      object: 'member',
      role: 'admin',
      disabled: false,
      sso: false,
      spaces: 1,
      teams: 0,
      joinedAt: expect.any(String),
      user: { object: 'user', id: owner.id, email: owner.email },
    });
    expect(byId[reader.id]).toMatchObject({ role: 'read', spaces: 1 });
    expect(byId[guest.id]).toHaveProperty('role', null);
    expect(byId[guest.id].spaces).toBe(0);
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
    await h.db.prisma.member.update({ where: { organizationId_userId: { organizationId: orgId, userId: reader.id } }, data: { disabled: true } });
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

  it('refuses a missing or unknown role with 400 naming role; a non-member with 404', async () => {
    const { orgId, owner, reader, outsider } = await h.world();
    const path = `/v1/orgs/${orgId}/members/${reader.id}`;
    await refused(400, 'PATCH', path, { token: owner.token, body: {}, field: 'role' });
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
    await h.db.prisma.member.update({ where: { organizationId_userId: { organizationId: orgId, userId: dormant.id } }, data: { disabled: true } });
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

  it('an admin removes a member (205), then it is not a member (204)', async () => {
    const { orgId, owner, reader, outsider } = await h.world();
    const first = await remove(orgId, owner.token, reader.id);
    expect(first.status).toBe(205);
    expect(first.body).toBeUndefined();
    expect(await h.db.prisma.member.findUnique({ where: { organizationId_userId: { organizationId: orgId, userId: reader.id } } })).toBeNull();
    expect((await remove(orgId, owner.token, reader.id)).status).toBe(204);
    const before = await h.snapshot();
    expect((await remove(orgId, owner.token, outsider.id)).status).toBe(204);
    expect((await remove(orgId, owner.token, newId())).status).toBe(204);
    expect(await h.snapshot()).toBe(before);
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
    await h.rest('updateMemberInOrganizationById', 'PATCH', `/v1/orgs/${orgId}/members/${creator.id}`, { token: owner.token, body: { role: 'admin' } });
    expect((await remove(orgId, creator.token, owner.id)).status).toBe(205);
    await refused(409, 'DELETE', `/v1/orgs/${orgId}/members/${creator.id}`, { token: creator.token });
  });

  it('keeps an admin when two admins remove each other at once', async () => {
    const { orgId, owner, creator } = await h.world();
    await h.rest('updateMemberInOrganizationById', 'PATCH', `/v1/orgs/${orgId}/members/${creator.id}`, { token: owner.token, body: { role: 'admin' } });
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
    expect(data.viewer).toEqual({ object: 'user', id: u.id, displayName: 'Grace Hopper', email: u.email, photoURL: null, urls: { location: expect.any(String) } });
  });

  it('organizations', async () => {
    const { owner, orgId } = await h.world('GraphQL Org');
    const data = ok(await h.graphql(owner.token, 'query($limit: Int) { organizations(limit: $limit) { count next { page } items { id title permissions { admin } } } }', { limit: 1 }));
    expect(data.organizations).toEqual({ count: 1, next: null, items: [{ id: orgId, title: 'GraphQL Org', permissions: { admin: true } }] });
    expect(code(await h.graphql(owner.token, '{ organizations(limit: 0) { count } }'))).toBe('BAD_REQUEST');
  });

  it('organization, members and member', async () => {
    const { owner, orgId, reader, guest, outsider } = await h.world();
    const query = `query($id: ID!, $userId: ID!) {
      organization(id: $id) {
        id defaultRole mergeRules
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
    const mutation = 'mutation($id: ID!, $input: UpdateOrganizationInput!) { updateOrganization(id: $id, input: $input) { title defaultRole mergeRules } }';
    const data = ok(await h.graphql(owner.token, mutation, { id: orgId, input: { title: 'Via GraphQL', defaultRole: null, mergeRules: { type: 'none' } } }));
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
    expect(ok(await h.graphql(owner.token, mutation, { org: orgId, invite: link.id }))).toEqual({ deleteInviteLink: false });
  });

  it('updateMember', async () => {
    const { owner, orgId, reader } = await h.world();
    const mutation = 'mutation($org: ID!, $user: ID!, $role: Role) { updateMember(organizationId: $org, userId: $user, role: $role) { id role } }';
    expect(ok(await h.graphql(owner.token, mutation, { org: orgId, user: reader.id, role: 'edit' }))).toEqual({ updateMember: { id: reader.id, role: 'edit' } });
    expect(ok(await h.graphql(owner.token, mutation, { org: orgId, user: reader.id, role: null }))).toEqual({ updateMember: { id: reader.id, role: null } });
    expect(code(await h.graphql(owner.token, mutation, { org: orgId, user: reader.id }))).toBe('BAD_REQUEST');
    expect(code(await h.graphql(owner.token, mutation, { org: orgId, user: owner.id, role: 'read' }))).toBe('CONFLICT');
    expect(code(await h.graphql(reader.token, mutation, { org: orgId, user: reader.id, role: 'admin' }))).toBe('FORBIDDEN');
  });

  it('removeMember', async () => {
    const { owner, orgId, reader, creator } = await h.world();
    const mutation = 'mutation($org: ID!, $user: ID!) { removeMember(organizationId: $org, userId: $user) }';
    expect(code(await h.graphql(creator.token, mutation, { org: orgId, user: reader.id }))).toBe('FORBIDDEN');
    expect(ok(await h.graphql(owner.token, mutation, { org: orgId, user: reader.id }))).toEqual({ removeMember: true });
    expect(ok(await h.graphql(owner.token, mutation, { org: orgId, user: reader.id }))).toEqual({ removeMember: false });
    expect(code(await h.graphql(owner.token, mutation, { org: orgId, user: owner.id }))).toBe('CONFLICT');
  });
});
