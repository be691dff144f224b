import { inflateRawSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/auth/tokens.js';
import { BASE, setupHarness, type Harness } from '../support/harness.js';
import { makeIdp, samlResponse, type Idp } from '../support/saml-idp.js';
import { browserGraphql, sessionSet, VIEWER } from './support.js';

/** The existing SAML sign-in ends in the app's session when it returns to a page of the app. */
let h: Harness;
let idp: Idp;
beforeAll(async () => {
  h = await setupHarness();
  idp = makeIdp('Initech');
});

async function samlWorld() {
  const owner = await h.owner('SAML Org');
  const created = await h.rest('createOrganizationSAMLProvider', 'POST', `/v1/orgs/${owner.orgId}/saml`, {
    token: owner.token,
    body: { label: 'Initech IdP', entityID: idp.entityID, certificate: idp.certPem, ssoURL: idp.ssoURL, defaultRole: 'read' },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const provider = created.body;
  const assertion = (o: { nameID: string; email: string; inResponseTo?: string }) =>
    samlResponse(idp, { audience: provider.service.entityID, recipient: provider.service.acsURL, ...o });
  return { owner, provider, assertion };
}

const postAcs = (acsURL: string, response: string, relayState?: string) =>
  h.app.fetch(
    new Request(acsURL, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'SAML Browser' },
      body: new URLSearchParams({ SAMLResponse: response, ...(relayState ? { RelayState: relayState } : {}) }).toString(),
    }),
  );

describe('SAML sign-in for the app', () => {
  it('SP-initiated with next=/app/…: ends in the session cookie and a redirect to that page, no token', async () => {
    const { owner, provider, assertion } = await samlWorld();
    const start = await h.app.fetch(new Request(`${provider.service.startURL}?next=${encodeURIComponent(`/app/o/${owner.orgId}`)}`));
    expect(start.status).toBe(302);
    const location = new URL(start.headers.get('location')!);
    const relay = location.searchParams.get('RelayState')!;
    const requestId = inflateRawSync(Buffer.from(location.searchParams.get('SAMLRequest')!, 'base64'))
      .toString('utf8')
      .match(/ID="([^"]+)"/)![1]!;

    const done = await postAcs(
      provider.service.acsURL,
      assertion({ nameID: 'milton', email: 'milton@initech.example', inResponseTo: requestId }),
      relay,
    );
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`/app/o/${owner.orgId}`);
    const secret = sessionSet(done.headers.getSetCookie())!;
    expect(secret).toMatch(/^lcs_/);
    expect(done.headers.getSetCookie()[0]).toMatch(/HttpOnly; SameSite=Lax/);

    const user = await h.db.prisma.user.findUniqueOrThrow({ where: { email: 'milton@initech.example' } });
    // No SSO token was minted for the browser: its session is its credential.
    expect(await h.db.prisma.apiToken.count({ where: { userId: user.id } })).toBe(0);
    const session = await h.db.prisma.session.findUniqueOrThrow({ where: { hash: hashToken(secret) } });
    expect(session).toMatchObject({ userId: user.id, ssoOrganizationId: owner.orgId, userAgent: 'SAML Browser' });
    const hours = (session.expiresAt.getTime() - Date.now()) / 3600_000;
    expect(hours).toBeGreaterThan(11.9);
    expect(hours).toBeLessThanOrEqual(12);
    expect(
      await h.db.prisma.auditEvent.count({
        where: { action: 'ssoSignIn', targetType: 'session', targetId: session.id, organizationId: owner.orgId },
      }),
    ).toBe(1);

    const viewer = await browserGraphql(h.app, { cookie: secret }, VIEWER);
    expect(viewer.body.data.viewer.id).toBe(user.id);
    const org = await browserGraphql(h.app, { cookie: secret }, 'query($id: ID!) { organization(id: $id) { id } }', { id: owner.orgId });
    expect(org.body.data?.organization.id, JSON.stringify(org.body)).toBe(owner.orgId);
  });

  it('a SAML session reaches only its organization, like an SSO token', async () => {
    const { owner, provider, assertion } = await samlWorld();
    const done = await postAcs(provider.service.acsURL, assertion({ nameID: 'peter', email: 'peter@initech.example' }), `${BASE}/app`);
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/app');
    const secret = sessionSet(done.headers.getSetCookie())!;
    const user = await h.db.prisma.user.findUniqueOrThrow({ where: { email: 'peter@initech.example' } });
    const other = await h.owner('Elsewhere');
    await h.addMember(other.orgId, user.id, 'admin');
    const own = await browserGraphql(h.app, { cookie: secret }, 'query($id: ID!) { organization(id: $id) { id } }', { id: owner.orgId });
    expect(own.body.data.organization.id).toBe(owner.orgId);
    const elsewhere = await browserGraphql(h.app, { cookie: secret }, 'query($id: ID!) { organization(id: $id) { id } }', {
      id: other.orgId,
    });
    expect(elsewhere.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('a RelayState outside the app keeps the API clients’ answer (no cookie)', async () => {
    const { provider, assertion } = await samlWorld();
    const json = await postAcs(provider.service.acsURL, assertion({ nameID: 'bill', email: 'bill@initech.example' }));
    expect(json.status).toBe(200);
    expect(json.headers.getSetCookie()).toEqual([]);
    expect((await json.json()).token).toMatch(/^lct_/);
    const away = await postAcs(provider.service.acsURL, assertion({ nameID: 'bill', email: 'bill@initech.example' }), `${BASE}/appendix`);
    expect(away.status).toBe(303);
    expect(away.headers.get('location')).toMatch(/\/appendix#token=lct_/);
    expect(away.headers.getSetCookie()).toEqual([]);
  });
});
