import { generateKeyPairSync } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.js';
import { newId } from '../../src/ids.js';
import { requestRefusalChecker } from '../support/refused.js';
import { BASE, setupHarness, type Harness } from '../support/harness.js';
import { makeIdp, samlResponse, type AssertionOptions, type Idp } from '../support/saml-idp.js';

let h: Harness;

/** Posts the HTTP-POST binding form to an ACS URL, as a browser would. */
async function postAcs(acsURL: string, samlResponse: string, relayState?: string) {
  const form = new URLSearchParams({ SAMLResponse: samlResponse, ...(relayState !== undefined ? { RelayState: relayState } : {}) });
  const response = await h.app.fetch(
    new Request(acsURL, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() }),
  );
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

let idp: Idp;
let otherIdp: Idp;

beforeAll(async () => {
  h = await setupHarness();
  idp = makeIdp('Acme');
  otherIdp = makeIdp('Rogue');
});

async function state() {
  const [base, providers, identities, teamMembers, users, tokens] = await Promise.all([
    h.snapshot(),
    h.db.prisma.samlProvider.findMany({ orderBy: { id: 'asc' } }),
    h.db.prisma.samlIdentity.findMany({ orderBy: [{ providerId: 'asc' }, { nameID: 'asc' }] }),
    h.db.prisma.teamMember.findMany({ orderBy: [{ teamId: 'asc' }, { userId: 'asc' }] }),
    h.db.prisma.user.findMany({ orderBy: { id: 'asc' } }),
    h.db.prisma.apiToken.count(),
  ]);
  return JSON.stringify({ base, providers, identities, teamMembers, users, tokens });
}

const refused = requestRefusalChecker({ call: (...a) => h.call(...a), rest: (...a) => h.rest(...a) }, state);

/** An ACS post that must be refused with `status` and change nothing but the replay record. */
async function acsRefused(status: number, acsURL: string, response: string, message: RegExp) {
  const before = await state();
  const res = await postAcs(acsURL, response);
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.message).toMatch(message);
  expect(await state()).toBe(before);
}

const providerBody = (extra: Record<string, unknown> = {}, from: Idp = idp) => ({
  label: 'Acme IdP',
  entityID: from.entityID,
  certificate: from.certPem,
  ssoURL: from.ssoURL,
  ...extra,
});

async function createProvider(orgId: string, token: string, body: Record<string, unknown> = providerBody()) {
  const res = await h.rest('createOrganizationSAMLProvider', 'POST', `/v1/orgs/${orgId}/saml`, { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function createTeam(orgId: string, token: string, title = 'Newcomers') {
  return (await h.rest('createOrganizationTeam', 'PUT', `/v1/orgs/${orgId}/teams`, { token, body: { title } })).body;
}

const member = (orgId: string, userId: string) =>
  h.db.prisma.member.findUnique({ where: { organizationId_userId: { organizationId: orgId, userId } } });

// ---------------------------------------------------------------------------------------------
describe('POST /orgs/:organizationId/saml (create)', () => {
  it('creates a provider (201, official schema) whose service side points at this server', async () => {
    const { owner, orgId } = await h.world('SSO Org', { creator: false });
    const team = await createTeam(orgId, owner.token);
    const p = await createProvider(orgId, owner.token, providerBody({ defaultTeam: team.id, defaultRole: 'edit' }));
    expect(p).toEqual({
      object: 'saml-provider',
      id: expect.any(String),
      label: 'Acme IdP',
      ssoURL: idp.ssoURL,
      entityID: idp.entityID,
      certificate: idp.certPem.trim(),
      defaultTeam: team,
      defaultRole: 'edit',
      createdAt: expect.any(String),
      status: 'active',
      service: {
        acsURL: `${BASE}/sso/saml/${p.id}/acs`,
        startURL: `${BASE}/sso/saml/${p.id}/start`,
        entityID: `${BASE}/sso/saml/${p.id}/metadata`,
      },
      urls: { location: `${BASE}/v1/orgs/${orgId}/saml/${p.id}` },
    });
    expect(await h.db.prisma.samlProvider.findUniqueOrThrow({ where: { id: p.id } })).toMatchObject({
      organizationId: orgId,
      defaultTeamId: team.id,
    });
  });

  it('defaultRole: the organization’s default role when absent; null makes guests', async () => {
    const { owner, orgId } = await h.world('SSO Org', { creator: false });
    await h.db.prisma.organization.update({ where: { id: orgId }, data: { defaultRole: 'comment' } });
    const plain = await createProvider(orgId, owner.token);
    expect(plain.defaultRole).toBe('comment');
    expect(plain).not.toHaveProperty('defaultTeam');
    expect((await createProvider(orgId, owner.token, providerBody({ defaultRole: null }))).defaultRole).toBeNull();
  });

  it('refuses bad input with 400 naming the field; a certificate that is not a PEM X.509 certificate is refused clearly', async () => {
    const { owner, orgId } = await h.world('SSO Org', { creator: false });
    const other = await h.owner();
    const foreignTeam = await createTeam(other.orgId, other.token);
    const path = `/v1/orgs/${orgId}/saml`;
    const bad = (body: Record<string, unknown>, field: string) => refused(400, 'POST', path, { token: owner.token, body, field });
    for (const field of ['label', 'entityID', 'certificate', 'ssoURL']) {
      const body = providerBody();
      delete (body as Record<string, unknown>)[field];
      await bad(body, field);
    }
    await bad(providerBody({ label: '' }), 'label');
    await bad(providerBody({ label: 'x'.repeat(31) }), 'label');
    await bad(providerBody({ entityID: 'e'.repeat(1025) }), 'entityID');
    await bad(providerBody({ ssoURL: 'not a url' }), 'ssoURL');
    await bad(providerBody({ ssoURL: 'ftp://idp.example/sso' }), 'ssoURL');
    const notPem = await bad(providerBody({ certificate: 'hello' }), 'certificate');
    expect(notPem.body.error.message).toMatch(/PEM X\.509 certificate/);
    const broken = await bad(providerBody({ certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' }), 'certificate');
    expect(broken.body.error.message).toMatch(/not a valid X\.509 certificate/);
    const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    await bad(providerBody({ certificate: key }), 'certificate');
    await bad(providerBody({ certificate: `${idp.certPem}${otherIdp.certPem}` }), 'certificate');
    await bad(providerBody({ certificate: 'x'.repeat(10001) }), 'certificate');
    await bad(providerBody({ defaultTeam: foreignTeam.id }), 'defaultTeam');
    await bad(providerBody({ defaultRole: 'owner' }), 'defaultRole');
    await refused(400, 'POST', path, { token: owner.token, body: providerBody({ colour: 'red' }) });
  });

  it('refuses non-admins (403), outsiders (404), no token (401)', async () => {
    const { orgId, reader, guest, outsider } = await h.world('SSO Org', { creator: false });
    const path = `/v1/orgs/${orgId}/saml`;
    await refused(403, 'POST', path, { token: reader.token, body: providerBody() });
    await refused(403, 'POST', path, { token: guest.token, body: providerBody() });
    await refused(404, 'POST', path, { token: outsider.token, body: providerBody() });
    await refused(401, 'POST', path, { body: providerBody() });
  });
});

// ---------------------------------------------------------------------------------------------
describe('GET /orgs/:organizationId/saml and /saml/:samlProviderId', () => {
  it('lists (paged) and answers providers (official schemas)', async () => {
    const { owner, orgId } = await h.world('SSO Org', { creator: false });
    const a = await createProvider(orgId, owner.token);
    const b = await createProvider(orgId, owner.token, providerBody({ label: 'Second' }, otherIdp));
    const other = await h.owner();
    await createProvider(other.orgId, other.token);
    const list = await h.rest('listSAMLProvidersInOrganizationById', 'GET', `/v1/orgs/${orgId}/saml`, { token: owner.token });
    expect(list.body).toEqual({ items: [a, b], count: 2 });
    const page = await h.rest('listSAMLProvidersInOrganizationById', 'GET', `/v1/orgs/${orgId}/saml?limit=1`, { token: owner.token });
    expect(page.body).toMatchObject({ items: [a], count: 2, next: { page: expect.any(String) } });
    const one = await h.rest('getOrganizationSAMLProviderById', 'GET', `/v1/orgs/${orgId}/saml/${b.id}`, { token: owner.token });
    expect(one.body).toEqual(b);
  });

  it('answers 404 for unknown providers and another organization’s; refuses non-admins, outsiders, no token', async () => {
    const { owner, orgId, reader, outsider } = await h.world('SSO Org', { creator: false });
    const p = await createProvider(orgId, owner.token);
    const other = await h.owner();
    const theirs = await createProvider(other.orgId, other.token);
    await refused(404, 'GET', `/v1/orgs/${orgId}/saml/${newId()}`, { token: owner.token });
    await refused(404, 'GET', `/v1/orgs/${orgId}/saml/${theirs.id}`, { token: owner.token });
    await refused(400, 'GET', `/v1/orgs/${orgId}/saml?limit=5000`, { token: owner.token, field: 'limit' });
    for (const path of [`/v1/orgs/${orgId}/saml`, `/v1/orgs/${orgId}/saml/${p.id}`]) {
      await refused(403, 'GET', path, { token: reader.token });
      await refused(404, 'GET', path, { token: outsider.token });
      await refused(401, 'GET', path);
    }
  });
});

// ---------------------------------------------------------------------------------------------
describe('PATCH /orgs/:organizationId/saml/:samlProviderId', () => {
  it('updates the given fields only', async () => {
    const { owner, orgId } = await h.world('SSO Org', { creator: false });
    const team = await createTeam(orgId, owner.token);
    const p = await createProvider(orgId, owner.token, providerBody({ defaultTeam: team.id }));
    const path = `/v1/orgs/${orgId}/saml/${p.id}`;
    const res = await h.rest('updateOrganizationSAMLProvider', 'PATCH', path, {
      token: owner.token,
      body: { label: 'Renamed', certificate: otherIdp.certPem, defaultRole: 'review' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...p, label: 'Renamed', certificate: otherIdp.certPem.trim(), defaultRole: 'review' });
    const cleared = await h.rest('updateOrganizationSAMLProvider', 'PATCH', path, {
      token: owner.token,
      body: { defaultTeam: null, defaultRole: null },
    });
    expect(cleared.body).not.toHaveProperty('defaultTeam');
    expect(cleared.body.defaultRole).toBeNull();
    expect((await h.rest('updateOrganizationSAMLProvider', 'PATCH', path, { token: owner.token, body: {} })).body).toEqual(cleared.body);
  });

  it('refuses bad input (400), unknown providers (404) and callers without rights', async () => {
    const { owner, orgId, reader, outsider } = await h.world('SSO Org', { creator: false });
    const p = await createProvider(orgId, owner.token);
    const path = `/v1/orgs/${orgId}/saml/${p.id}`;
    await refused(400, 'PATCH', path, { token: owner.token, body: { label: null }, field: 'label' });
    await refused(400, 'PATCH', path, { token: owner.token, body: { certificate: 'MIIB' }, field: 'certificate' });
    await refused(400, 'PATCH', path, { token: owner.token, body: { ssoURL: 'nope' }, field: 'ssoURL' });
    await refused(400, 'PATCH', path, { token: owner.token, body: { defaultTeam: newId() }, field: 'defaultTeam' });
    await refused(404, 'PATCH', `/v1/orgs/${orgId}/saml/${newId()}`, { token: owner.token, body: { label: 'X' } });
    await refused(403, 'PATCH', path, { token: reader.token, body: { label: 'X' } });
    await refused(404, 'PATCH', path, { token: outsider.token, body: { label: 'X' } });
    await refused(401, 'PATCH', path, { body: { label: 'X' } });
  });
});

// ---------------------------------------------------------------------------------------------
describe('DELETE /orgs/:organizationId/saml/:samlProviderId', () => {
  it('deletes (205), then answers 404; refuses non-admins, outsiders, no token', async () => {
    const { owner, orgId, reader, outsider } = await h.world('SSO Org', { creator: false });
    const p = await createProvider(orgId, owner.token);
    const path = `/v1/orgs/${orgId}/saml/${p.id}`;
    await refused(403, 'DELETE', path, { token: reader.token });
    await refused(404, 'DELETE', path, { token: outsider.token });
    await refused(401, 'DELETE', path);
    expect((await h.rest('deleteOrganizationSAMLProvider', 'DELETE', path, { token: owner.token })).status).toBe(205);
    expect(await h.db.prisma.samlProvider.findUnique({ where: { id: p.id } })).toBeNull();
    await refused(404, 'DELETE', path, { token: owner.token });
    // Its sign-in is gone too.
    expect((await h.app.fetch(new Request(`${BASE}/sso/saml/${p.id}/start`))).status).toBe(404);
  });

  it('deleting the default team leaves the provider without one', async () => {
    const { owner, orgId } = await h.world('SSO Org', { creator: false });
    const team = await createTeam(orgId, owner.token);
    const p = await createProvider(orgId, owner.token, providerBody({ defaultTeam: team.id }));
    await h.call('DELETE', `/v1/orgs/${orgId}/teams/${team.id}`, { token: owner.token });
    const got = await h.rest('getOrganizationSAMLProviderById', 'GET', `/v1/orgs/${orgId}/saml/${p.id}`, { token: owner.token });
    expect(got.body).not.toHaveProperty('defaultTeam');
  });
});

// ---------------------------------------------------------------------------------------------
describe('GET /orgs/:organizationId/sso', () => {
  it('lists the sign-in start URLs to every member, guests included (official schema)', async () => {
    const { owner, orgId, guest } = await h.world('SSO Org', { creator: false });
    const a = await createProvider(orgId, owner.token);
    const b = await createProvider(orgId, owner.token, providerBody({ label: 'Other' }, otherIdp));
    const res = await h.rest('listSSOProviderLoginsInOrganization', 'GET', `/v1/orgs/${orgId}/sso`, { token: guest.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      items: [
        { id: a.id, label: 'Acme IdP', startURL: a.service.startURL },
        { id: b.id, label: 'Other', startURL: b.service.startURL },
      ],
    });
  });

  it('refuses outsiders (404) and no token (401)', async () => {
    const { orgId, outsider } = await h.world('SSO Org', { creator: false });
    await refused(404, 'GET', `/v1/orgs/${orgId}/sso`, { token: outsider.token });
    await refused(404, 'GET', `/v1/orgs/${newId()}/sso`, { token: outsider.token });
    await refused(401, 'GET', `/v1/orgs/${orgId}/sso`);
  });
});

// ---------------------------------------------------------------------------------------------
describe('single sign-on', () => {
  /** An organization with a provider for `idp`, and the provider. */
  async function ssoWorld(extra: Record<string, unknown> = {}) {
    const w = await h.world('SSO Org', { creator: false });
    const team = await createTeam(w.orgId, w.owner.token, 'Staff');
    const provider = await createProvider(w.orgId, w.owner.token, providerBody({ defaultTeam: team.id, defaultRole: 'edit', ...extra }));
    // The reader consents, signed in as itself, to the organization's single sign-on by accepting an
    // invitation: only then may the identity provider link it by email.
    await h.rest('inviteUsersToOrganization', 'POST', `/v1/orgs/${w.orgId}/invites`, {
      token: w.owner.token,
      body: { emails: [w.reader.email] },
    });
    expect((await h.call('POST', `/v1/orgs/${w.orgId}/invitation/accept`, { token: w.reader.token })).status).toBe(204);
    const assertion = (o: Partial<AssertionOptions> & { nameID: string }) =>
      samlResponse(idp, { audience: provider.service.entityID, recipient: provider.service.acsURL, ...o });
    return { ...w, team, provider, assertion };
  }

  it('IdP-initiated: a valid assertion signs a newcomer in (user, membership with defaultRole, defaultTeam, token)', async () => {
    const { orgId, team, provider, assertion } = await ssoWorld();
    const res = await postAcs(
      provider.service.acsURL,
      assertion({ nameID: 'ada-123', email: 'Ada@Acme.example', displayName: 'Ada Lovelace' }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      token: expect.stringMatching(/^lct_/),
      expiresAt: expect.any(String),
      user: { id: expect.any(String), email: 'ada@acme.example', displayName: 'Ada Lovelace' },
      organization: orgId,
    });
    const hours = (Date.parse(res.body.expiresAt) - Date.now()) / 3600_000;
    expect(hours).toBeGreaterThan(11.9);
    expect(hours).toBeLessThanOrEqual(12);
    const userId = res.body.user.id;
    expect(await h.db.prisma.user.findUniqueOrThrow({ where: { id: userId } })).toMatchObject({ emailVerified: false });
    expect(await member(orgId, userId)).toMatchObject({ role: 'edit', sso: true, disabled: false, lastSeenAt: expect.any(Date) });
    expect(await h.db.prisma.teamMember.findMany({ where: { userId }, select: { teamId: true, role: true } })).toEqual([
      { teamId: team.id, role: 'member' },
    ]);
    expect(await h.db.prisma.samlIdentity.findMany({ where: { userId }, select: { providerId: true, nameID: true } })).toEqual([
      { providerId: provider.id, nameID: 'ada-123' },
    ]);
    const token = await h.db.prisma.apiToken.findFirstOrThrow({ where: { userId } });
    expect(token).toMatchObject({ ssoOrganizationId: orgId, label: 'SSO: Acme IdP' });

    // The token works on the organization's API.
    const viewer = await h.rest('getAuthenticatedUser', 'GET', '/v1/user', { token: res.body.token });
    expect(viewer.body.id).toBe(userId);
    const org = await h.rest('getOrganizationById', 'GET', `/v1/orgs/${orgId}`, { token: res.body.token });
    expect(org.body.permissions).toMatchObject({ view: true, admin: false });
  });

  it('SP-initiated: the start URL redirects to the identity provider with an AuthnRequest the response must answer', async () => {
    const { orgId, provider, assertion } = await ssoWorld();
    const start = await h.app.fetch(new Request(`${provider.service.startURL}?redirect=${encodeURIComponent(`${BASE}/cli/welcome`)}`));
    expect(start.status).toBe(302);
    const location = new URL(start.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(idp.ssoURL);
    expect(location.searchParams.get('RelayState')).toBe(`${BASE}/cli/welcome`);
    const request = inflateRawSync(Buffer.from(location.searchParams.get('SAMLRequest')!, 'base64')).toString('utf8');
    expect(request).toContain(`AssertionConsumerServiceURL="${provider.service.acsURL}"`);
    expect(request).toContain(`Destination="${idp.ssoURL}"`);
    expect(request).toContain(`>${provider.service.entityID}</saml:Issuer>`);
    const requestId = request.match(/ID="([^"]+)"/)![1]!;

    // An answer to a request this server never made is refused.
    await acsRefused(
      401,
      provider.service.acsURL,
      assertion({ nameID: 'bob', email: 'bob@acme.example', inResponseTo: '_not-ours' }),
      /InResponseTo/,
    );

    // The answer, posted with the RelayState (a page outside the app, e.g. a tool's): a redirect back with the token in the fragment. (Pages of the app get the session cookie: test/sessions/saml.test.ts.)
    const done = await postAcs(
      provider.service.acsURL,
      assertion({ nameID: 'bob', email: 'bob@acme.example', inResponseTo: requestId }),
      `${BASE}/cli/welcome`,
    );
    expect(done.status).toBe(303);
    const back = new URL(done.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(`${BASE}/cli/welcome`);
    const fragment = new URLSearchParams(back.hash.slice(1));
    const token = fragment.get('token')!;
    expect(fragment.get('expiresAt')).toEqual(expect.any(String));
    expect((await h.rest('getOrganizationById', 'GET', `/v1/orgs/${orgId}`, { token })).status).toBe(200);

    // The request id is used up: a second answer to it is refused.
    await acsRefused(
      401,
      provider.service.acsURL,
      assertion({ nameID: 'bob', email: 'bob@acme.example', inResponseTo: requestId }),
      /InResponseTo/,
    );
  });

  it('refuses a tampered assertion, another audience, another signer, another issuer, another recipient, an expired one and a replay', async () => {
    const { provider, assertion } = await ssoWorld();
    const acs = provider.service.acsURL;
    const ok = { nameID: 'carol', email: 'carol@acme.example' };
    await acsRefused(401, acs, assertion({ ...ok, tamper: (xml) => xml.replace('carol@acme.example', 'ceo@acme.example') }), /signature/i);
    await acsRefused(401, acs, assertion({ ...ok, tamper: (xml) => xml.replace('>carol<', '>mallory<') }), /signature/i);
    await acsRefused(401, acs, assertion({ ...ok, audience: 'https://another-sp.example/metadata' }), /audience/i);
    await acsRefused(401, acs, assertion({ ...ok, signer: otherIdp }), /signature/i);
    await acsRefused(401, acs, assertion({ ...ok, issuer: otherIdp.entityID }), /issued by/);
    await acsRefused(401, acs, assertion({ ...ok, recipient: `${BASE}/sso/saml/${newId()}/acs` }), /recipient/);
    await acsRefused(401, acs, assertion({ ...ok, notOnOrAfter: Date.now() - 5 * 60_000 }), /expired/i);
    await acsRefused(401, acs, Buffer.from('<not-saml/>').toString('base64'), /refused/);
    // An assertion for this provider posted to another provider's ACS is refused (audience).
    const other = await ssoWorld();
    await acsRefused(401, other.provider.service.acsURL, assertion(ok), /audience|recipient|signature|issued by/i);

    const once = assertion(ok);
    expect((await postAcs(acs, once)).status).toBe(200);
    const before = await state();
    const again = await postAcs(acs, once);
    expect(again.status).toBe(401);
    expect(again.body.error.message).toMatch(/already used/);
    expect(await state()).toBe(before);
  });

  it('refuses a form without SAMLResponse (400), an assertion without an email (400), unknown providers (404), wrong methods (405)', async () => {
    const { provider, assertion } = await ssoWorld();
    const empty = await h.app.fetch(new Request(provider.service.acsURL, { method: 'POST', body: '' }));
    expect(empty.status).toBe(400);
    await acsRefused(400, provider.service.acsURL, assertion({ nameID: 'no-email-here' }), /email/);
    expect((await postAcs(`${BASE}/sso/saml/${newId()}/acs`, assertion({ nameID: 'x', email: 'x@acme.example' }))).status).toBe(404);
    expect((await h.app.fetch(new Request(provider.service.acsURL))).status).toBe(405);
    expect((await h.app.fetch(new Request(provider.service.startURL, { method: 'POST' }))).status).toBe(405);
    expect((await h.app.fetch(new Request(`${BASE}/sso/elsewhere`))).status).toBe(404);
    // The start URL only redirects back to this server.
    const evil = await h.app.fetch(
      new Request(`${provider.service.startURL}?redirect=${encodeURIComponent('https://evil.example/steal')}`),
    );
    expect(evil.status).toBe(400);
  });

  it('a RelayState on another origin is ignored: the answer stays JSON', async () => {
    const { provider, assertion } = await ssoWorld();
    const res = await postAcs(
      provider.service.acsURL,
      assertion({ nameID: 'dan', email: 'dan@acme.example' }),
      'https://evil.example/steal',
    );
    expect(res.status).toBe(200);
    expect(res.body.token).toMatch(/^lct_/);
  });

  it('serves the service provider metadata at its entity id', async () => {
    const { provider } = await ssoWorld();
    const res = await h.app.fetch(new Request(provider.service.entityID));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/samlmetadata+xml');
    const xml = await res.text();
    expect(xml).toContain(`entityID="${provider.service.entityID}"`);
    expect(xml).toContain(`Location="${provider.service.acsURL}"`);
  });

  it('a returning person is the same user; their role and teams are not reset by signing in again', async () => {
    const { owner, orgId, team, provider, assertion } = await ssoWorld();
    const first = await postAcs(provider.service.acsURL, assertion({ nameID: 'eve-1', email: 'eve@acme.example' }));
    const userId = first.body.user.id;
    await h.call('PATCH', `/v1/orgs/${orgId}/members/${userId}`, { token: owner.token, body: { role: 'review' } });
    await h.call('DELETE', `/v1/orgs/${orgId}/teams/${team.id}/members/${userId}`, { token: owner.token });
    // Same NameID, a changed email at the provider: still the same user.
    const second = await postAcs(provider.service.acsURL, assertion({ nameID: 'eve-1', email: 'eve.new@acme.example' }));
    expect(second.status).toBe(200);
    expect(second.body.user.id).toBe(userId);
    expect((await member(orgId, userId))?.role).toBe('review');
    expect(await h.db.prisma.teamMember.count({ where: { userId } })).toBe(0);
    expect(await h.db.prisma.apiToken.count({ where: { userId } })).toBe(2);
  });

  it('links an existing account by email only when it accepted an invitation, signed in as itself; otherwise refuses (403)', async () => {
    const { owner, orgId, reader, provider, team, assertion } = await ssoWorld();
    // The reader is a member who accepted an invitation (ssoWorld): linked, keeps the role, marked as an SSO member, put in the default team.
    const linked = await postAcs(provider.service.acsURL, assertion({ nameID: 'reader-at-idp', email: reader.email }));
    expect(linked.status).toBe(200);
    expect(linked.body.user.id).toBe(reader.id);
    expect(await member(orgId, reader.id)).toMatchObject({ role: 'read', sso: true });
    expect(await h.db.prisma.teamMember.findUnique({ where: { teamId_userId: { teamId: team.id, userId: reader.id } } })).not.toBeNull();

    // Someone else's account (not a member) cannot be claimed by this organization's identity provider.
    const stranger = await h.user('Stranger');
    await acsRefused(403, provider.service.acsURL, assertion({ nameID: 'stranger', email: stranger.email }), /cannot sign this person in/);
    // Once invited, and the invitation accepted by the account itself, it can.
    await h.rest('inviteUsersToOrganization', 'POST', `/v1/orgs/${orgId}/invites`, {
      token: owner.token,
      body: { emails: [stranger.email] },
    });
    expect((await h.call('POST', `/v1/orgs/${orgId}/invitation/accept`, { token: stranger.token })).status).toBe(204);
    const after = await postAcs(provider.service.acsURL, assertion({ nameID: 'stranger', email: stranger.email }));
    expect(after.status).toBe(200);
    expect(after.body.user.id).toBe(stranger.id);
  });

  it('refuses a disabled member (403)', async () => {
    const { orgId, reader, provider, assertion } = await ssoWorld();
    await h.db.prisma.member.update({
      where: { organizationId_userId: { organizationId: orgId, userId: reader.id } },
      data: { disabled: true },
    });
    await acsRefused(403, provider.service.acsURL, assertion({ nameID: 'r', email: reader.email }), /disabled/);
  });

  it('an SSO token reaches only its organization and expires', async () => {
    const { orgId, reader, provider, assertion } = await ssoWorld();
    const other = await h.owner('Other Org');
    await h.addMember(other.orgId, reader.id, 'admin');
    const space = (await h.rest('createSpace', 'POST', `/v1/orgs/${other.orgId}/spaces`, { token: other.token, body: { title: 'Theirs' } }))
      .body;
    const res = await postAcs(provider.service.acsURL, assertion({ nameID: 'reader', email: reader.email }));
    const token = res.body.token;
    expect((await h.call('GET', `/v1/orgs/${orgId}`, { token })).status).toBe(200);
    await refused(404, 'GET', `/v1/orgs/${other.orgId}`, { token });
    await refused(404, 'GET', `/v1/spaces/${space.id}`, { token });
    await refused(404, 'GET', `/v1/orgs/${other.orgId}/sso`, { token });
    const orgs = await h.rest('listOrganizationsForAuthenticatedUser', 'GET', '/v1/orgs', { token });
    expect(orgs.body.items.map((o: any) => o.id)).toEqual([orgId]);
    // The reader's ordinary token still reaches both.
    expect((await h.call('GET', `/v1/orgs/${other.orgId}`, { token: reader.token })).status).toBe(200);

    await h.db.prisma.apiToken.updateMany({
      where: { ssoOrganizationId: orgId, userId: reader.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await h.call('GET', `/v1/orgs/${orgId}`, { token })).status).toBe(401);
  });

  it('with sso on, members other than admins must use a token from the organization’s SSO', async () => {
    const { owner, orgId, reader, provider, assertion } = await ssoWorld();
    const space = (await h.rest('createSpace', 'POST', `/v1/orgs/${orgId}/spaces`, { token: owner.token, body: { title: 'Internal' } }))
      .body;
    await h.rest('updateOrganizationById', 'PATCH', `/v1/orgs/${orgId}`, { token: owner.token, body: { sso: true } });

    const blocked = await refused(403, 'GET', `/v1/orgs/${orgId}`, { token: reader.token });
    expect(blocked.body.error.message).toMatch(/single sign-on/);
    expect((await refused(403, 'GET', `/v1/spaces/${space.id}`, { token: reader.token })).body.error.message).toMatch(/single sign-on/);
    await refused(403, 'GET', `/v1/orgs/${orgId}/teams`, { token: reader.token });
    // They can still find where to sign in.
    const logins = await h.rest('listSSOProviderLoginsInOrganization', 'GET', `/v1/orgs/${orgId}/sso`, { token: reader.token });
    expect(logins.body.items.map((l: any) => l.id)).toEqual([provider.id]);
    // Admins keep access with their ordinary token (turning SSO on cannot lock the organization out).
    expect((await h.call('GET', `/v1/orgs/${orgId}`, { token: owner.token })).status).toBe(200);

    const signedIn = await postAcs(provider.service.acsURL, assertion({ nameID: 'reader', email: reader.email }));
    expect((await h.rest('getOrganizationById', 'GET', `/v1/orgs/${orgId}`, { token: signedIn.body.token })).status).toBe(200);
    expect((await h.rest('getSpaceById', 'GET', `/v1/spaces/${space.id}`, { token: signedIn.body.token })).status).toBe(200);

    // Turned off again, ordinary tokens work again.
    await h.rest('updateOrganizationById', 'PATCH', `/v1/orgs/${orgId}`, { token: owner.token, body: { sso: false } });
    expect((await h.call('GET', `/v1/orgs/${orgId}`, { token: reader.token })).status).toBe(200);
  });

  it('an SSO token issued outside the ACS is scoped the same way (issueToken)', async () => {
    const { orgId, reader } = await h.world('SSO Org', { creator: false });
    const other = await h.owner();
    await h.addMember(other.orgId, reader.id, 'read');
    const token = await issueToken(h.db.prisma, reader.id, 'sso', { organizationId: orgId, expiresAt: new Date(Date.now() + 60_000) });
    expect((await h.call('GET', `/v1/orgs/${orgId}`, { token })).status).toBe(200);
    expect((await h.call('GET', `/v1/orgs/${other.orgId}`, { token })).status).toBe(404);
  });
});
