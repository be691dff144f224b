/** The signed-in user, organizations: list, read, settings (PATCH) (setup in ./fixtures.ts). */
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { h, setupOrgs, refused, PERMISSION_KEYS } from './fixtures.js';

beforeAll(setupOrgs);

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
    await h.db.prisma.member.update({
      where: { organizationId_userId: { organizationId: third.orgId, userId: a.id } },
      data: { disabled: true },
    });

    const res = await h.rest('listOrganizationsForAuthenticatedUser', 'GET', '/v1/orgs', { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(2);
    expect(res.body.next).toBeUndefined();
    expect(res.body.items.map((o: any) => o.id)).toEqual([a.orgId, other.orgId]);
    const [mine, theirs] = res.body.items;
    expect(mine).toMatchObject({ object: 'organization', title: 'First Org', permissions: { admin: true, view: true } });
    expect(theirs).toMatchObject({
      object: 'organization',
      title: 'Second Org',
      permissions: { admin: false, view: true, listMembers: true },
    });
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
    const second = await h.rest(
      'listOrganizationsForAuthenticatedUser',
      'GET',
      `/v1/orgs?limit=2&page=${encodeURIComponent(first.body.next.page)}`,
      { token: u.token },
    );
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
    expect(asGuest).toMatchObject({ view: true, access: true, admin: false, createContent: false, listMembers: false, listTeams: false });
  });

  it('answers 404 for an unknown organization (official error schema)', async () => {
    const { owner } = await h.world();
    await refused(404, 'GET', `/v1/orgs/${newId()}`, { token: owner.token, operationId: 'getOrganizationById' });
  });

  it('hides the organization from an outsider and a disabled member (404), and refuses anonymous (401)', async () => {
    const { orgId, outsider, reader } = await h.world();
    await refused(404, 'GET', `/v1/orgs/${orgId}`, { token: outsider.token, operationId: 'getOrganizationById' });
    await h.db.prisma.member.update({
      where: { organizationId_userId: { organizationId: orgId, userId: reader.id } },
      data: { disabled: true },
    });
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
    expect(row).toMatchObject({
      title: 'Renamed Org',
      hostname: 'acme-docs',
      logo,
      defaultRole: 'edit',
      sso: true,
      ai: true,
      inviteLinks: false,
    });
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
      const res = await refused(409, 'PATCH', `/v1/orgs/${second.orgId}`, {
        token: second.owner.token,
        body: { hostname: name.toUpperCase() },
      });
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
      expect((await patch(owner, { emailDomains: ['b.example.com', 'a.example.com', 'B.example.com'] })).body.emailDomains).toEqual([
        'b.example.com',
        'a.example.com',
      ]);
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
      await bad(
        owner,
        { mergeRules: { type: 'rules', rules: [{ rule: 'require_at_least_one_review' }, { rule: 'require_specific_reviewers' }] } },
        'mergeRules.rules[1].users',
      );
      await bad(owner, { mergeRules: { type: 'rules', rules: [{ rule: 'custom' }] } }, 'mergeRules.rules[0].expression');
      await bad(
        owner,
        { mergeRules: { type: 'rules', rules: [{ rule: 'custom', expression: 'x'.repeat(1025) }] } },
        'mergeRules.rules[0].expression',
      );
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
