import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../src/outbound/index.js';
import { requestRefusalChecker } from '../support/refused.js';
import { makeIdp, samlResponse, type Idp } from '../support/saml-idp.js';
import { txtServer } from '../support/dns-server.js';
import { setupHarness, type Harness } from '../support/harness.js';

/**
 * Trust across organizations and accounts: consent before an account is added to an organization
 * or linked to its identity provider, what a site shows of a space the caller cannot read, proof
 * of ownership of custom hostnames, IPv6 forms that carry a private IPv4 address.
 */
let h: Harness;

beforeAll(async () => {
  h = await setupHarness();
});

const refused = requestRefusalChecker({ call: (...a) => h.call(...a), rest: (...a) => h.rest(...a) }, () => h.snapshot());

// ---------------------------------------------------------------------------------------------
describe('IPv6 forms that carry an IPv4 address are checked as that address', () => {
  it('refuses [::127.0.0.1], [2002:7f00:1::] and the other transition forms up front, creating nothing', async () => {
    const { owner, orgId } = await h.world('Guard Org');
    const before = process.env.LECTERN_OPENAPI_ALLOW_PRIVATE;
    process.env.LECTERN_OPENAPI_ALLOW_PRIVATE = '0';
    try {
      for (const host of [
        '[::127.0.0.1]',
        '[2002:7f00:1::]',
        '[::ffff:7f00:1]',
        '[64:ff9b::a9fe:a9fe]',
        '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
        '[::ffff:0:10.0.0.1]',
      ]) {
        const res = await refused(400, 'POST', `/v1/orgs/${orgId}/openapi`, {
          token: owner.token,
          body: { slug: 'guarded', source: { url: `http://${host}/spec.json` } },
          field: 'source.url',
        });
        expect(res.body.error.message).toMatch(/private network/);
      }
    } finally {
      // Assigning undefined would store the string "undefined", which the config refuses.
      if (before === undefined) delete process.env.LECTERN_OPENAPI_ALLOW_PRIVATE;
      else process.env.LECTERN_OPENAPI_ALLOW_PRIVATE = before;
    }
  });

  it('checks the embedded IPv4 address of every transition form, and only that', () => {
    const cases: [string, boolean][] = [
      ['::127.0.0.1', true], // IPv4-compatible
      ['::7f00:1', true],
      ['::8.8.8.8', false],
      ['::ffff:127.0.0.1', true], // IPv4-mapped
      ['::ffff:8.8.8.8', false],
      ['::ffff:0:192.168.1.1', true], // IPv4-translated
      ['64:ff9b::169.254.169.254', true], // NAT64
      ['64:ff9b::8.8.8.8', false],
      ['64:ff9b:1::8.8.8.8', true], // local-use NAT64
      ['2002:7f00:1::', true], // 6to4
      ['2002:a00:1::1', true],
      ['2002:808:808::1', false],
      ['2001:0:4136:e378:8000:63bf:80ff:fffe', true], // Teredo, client 127.0.0.1 (stored inverted)
      ['2001:0:7f00:1::', true], // Teredo, server 127.0.0.1
      ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', false], // Teredo, both public
      ['::1', true],
      ['::', true],
      ['fe80::1%eth0', true],
      ['0:0:0:0:0:0:7f00:1', true],
      ['2606:4700:4700::1111', false],
    ];
    expect(cases.filter(([address, want]) => isPrivateAddress(address) !== want)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
describe('a site shows a reader what it publishes, not the private metadata of the space behind it', () => {
  it('a private space in a site: full for those who read it, only id/title/emoji/organization/visibility/dates for the others', async () => {
    const { owner, orgId, reader, outsider } = await h.world('Sites Org');
    const space = (await h.rest('createSpace', 'POST', `/v1/orgs/${orgId}/spaces`, { token: owner.token, body: { title: 'Secret plans' } }))
      .body;
    await h.rest('updateSpaceById', 'PATCH', `/v1/spaces/${space.id}`, { token: owner.token, body: { defaultLevel: null } });
    const cr = await h.rest('createChangeRequest', 'POST', `/v1/spaces/${space.id}/change-requests`, {
      token: owner.token,
      body: { subject: 'Draft' },
    });
    expect(cr.status).toBe(201);
    const site = (
      await h.rest('createSite', 'POST', `/v1/orgs/${orgId}/sites`, { token: owner.token, body: { title: 'Docs', spaces: [space.id] } })
    ).body;
    const sitePath = `/v1/orgs/${orgId}/sites/${site.id}`;
    expect((await h.rest('publishSite', 'POST', `${sitePath}/publish`, { token: owner.token })).status).toBe(200);

    // The reader cannot read the space itself.
    await refused(404, 'GET', `/v1/spaces/${space.id}`, { token: reader.token });

    // The owner (who can) sees all of it.
    const full = (await h.rest('listSiteSpaces', 'GET', `${sitePath}/site-spaces`, { token: owner.token })).body.items[0].space;
    expect(full).toMatchObject({ id: space.id, revision: space.revision, defaultLevel: null, changeRequests: 1 });
    expect(full.permissions.view).toBe(true);

    const before = await h.snapshot();
    const shown = (await h.rest('listSiteSpaces', 'GET', `${sitePath}/site-spaces`, { token: reader.token })).body.items[0];
    expect(shown.title).toBe('Secret plans');
    expect(shown.space).toMatchObject({
      id: space.id,
      title: 'Secret plans',
      organization: orgId,
      revision: '',
      defaultLevel: null,
      comments: 0,
      changeRequests: 0,
      changeRequestsOpen: 0,
      changeRequestsDraft: 0,
    });
    expect(shown.space.parent).toBeUndefined();
    expect(Object.values(shown.space.permissions).every((v) => v === false)).toBe(true);
    expect(JSON.stringify(shown)).not.toContain(space.revision);

    // The published profile (here public: any signed-in caller) shows the same little.
    const published = (await h.rest('getPublishedContentSite', 'GET', `${sitePath}/published`, { token: outsider.token })).body;
    const structureSpace = published.structure.structure[0].space;
    expect(structureSpace).toMatchObject({ id: space.id, revision: '', changeRequests: 0 });
    expect(JSON.stringify(published)).not.toContain(space.revision);
    expect(await h.snapshot()).toBe(before);

    // Once the reader may read the space, the site shows it whole.
    await h.rest('updateSpaceById', 'PATCH', `/v1/spaces/${space.id}`, { token: owner.token, body: { defaultLevel: 'inherit' } });
    const readable = (await h.rest('listSiteSpaces', 'GET', `${sitePath}/site-spaces`, { token: reader.token })).body.items[0].space;
    expect(readable).toMatchObject({ revision: space.revision, changeRequests: 1 });
  });
});

// ---------------------------------------------------------------------------------------------
describe('adding an existing account to an organization, or linking it to its identity provider, needs its consent', () => {
  let idp: Idp;
  beforeAll(() => {
    idp = makeIdp('Attacker');
  });

  /** Everything the attack could change: memberships, invitations, SAML links, tokens, users. */
  async function state() {
    const [base, invitations, identities, tokens, users] = await Promise.all([
      h.snapshot(),
      h.db.prisma.organizationInvitation.findMany({ orderBy: { id: 'asc' } }),
      h.db.prisma.samlIdentity.findMany({ orderBy: [{ providerId: 'asc' }, { nameID: 'asc' }] }),
      h.db.prisma.apiToken.count(),
      h.db.prisma.user.findMany({ orderBy: { id: 'asc' } }),
    ]);
    return JSON.stringify({ base, invitations, identities, tokens, users });
  }
  const refusedHere = requestRefusalChecker({ call: (...a) => h.call(...a), rest: (...a) => h.rest(...a) }, state);

  async function postAcs(acsURL: string, response: string) {
    const form = new URLSearchParams({ SAMLResponse: response });
    const res = await h.app.fetch(
      new Request(acsURL, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() }),
    );
    return { status: res.status, body: await res.json() };
  }

  async function attackerWorld() {
    const attacker = await h.owner('Attacker Org');
    const provider = (
      await h.rest('createOrganizationSAMLProvider', 'POST', `/v1/orgs/${attacker.orgId}/saml`, {
        token: attacker.token,
        body: { label: 'Mine', entityID: idp.entityID, certificate: idp.certPem, ssoURL: idp.ssoURL },
      })
    ).body;
    const assertion = (nameID: string, email: string) =>
      samlResponse(idp, { audience: provider.service.entityID, recipient: provider.service.acsURL, nameID, email });
    return { attacker, provider, assertion };
  }

  it('an admin invites an existing account and signs it in through their own identity provider: refused, nothing changes', async () => {
    const victim = await h.owner('Victim Org');
    const { attacker, provider, assertion } = await attackerWorld();
    const invited = await h.rest('inviteUsersToOrganization', 'POST', `/v1/orgs/${attacker.orgId}/invites`, {
      token: attacker.token,
      body: { emails: [victim.email], role: 'admin' },
    });
    expect(invited.body).toEqual({ users: [victim.id], invited: 1 });
    // Invited, not added.
    expect(
      await h.db.prisma.member.findUnique({ where: { organizationId_userId: { organizationId: attacker.orgId, userId: victim.id } } }),
    ).toBeNull();

    const before = await state();
    const res = await postAcs(provider.service.acsURL, assertion('victim-at-attacker', victim.email));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: { code: 403, message: expect.stringMatching(/cannot sign this person in/) } });
    expect(res.body.error.message).not.toMatch(/exist|account/i);
    expect(await state()).toBe(before);

    // The admin cannot accept for the victim: they have no invitation of their own (404), nothing changes.
    await refusedHere(404, 'POST', `/v1/orgs/${attacker.orgId}/invitation/accept`, { token: attacker.token });
    // An outsider's accept is the same 404 as for an organization that does not exist.
    await refusedHere(404, 'POST', '/v1/orgs/no-such-org/invitation/accept', { token: victim.token });
  });

  it('the same refusal for a member who never consented (no message says an account exists)', async () => {
    const { attacker, provider, assertion } = await attackerWorld();
    const member = await h.user('Member');
    await h.addMember(attacker.orgId, member.id, 'read');
    const before = await state();
    const res = await postAcs(provider.service.acsURL, assertion('member-at-attacker', member.email));
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/cannot sign this person in/);
    expect(await state()).toBe(before);
    // A new email is still provisioned just in time: nobody else owns that account.
    const fresh = await postAcs(provider.service.acsURL, assertion('new-person', 'new.person@attacker.example'));
    expect(fresh.status).toBe(200);
  });

  it('the account itself lists and accepts its invitation; then it is a member, and the identity provider may link it', async () => {
    const victim = await h.owner('Consenting Org');
    const { attacker, provider, assertion } = await attackerWorld();
    await h.rest('inviteUsersToOrganization', 'POST', `/v1/orgs/${attacker.orgId}/invites`, {
      token: attacker.token,
      body: { emails: [victim.email], role: 'edit', sso: true },
    });
    const mine = await h.call('GET', '/v1/user/invitations', { token: victim.token });
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual({
      items: [
        {
          object: 'organization-invitation',
          id: expect.any(String),
          organization: attacker.orgId,
          role: 'edit',
          sso: true,
          createdAt: expect.any(String),
        },
      ],
      count: 1,
    });
    // Another account sees none of it.
    expect((await h.call('GET', '/v1/user/invitations', { token: attacker.token })).body).toEqual({ items: [], count: 0 });

    expect((await h.call('POST', `/v1/orgs/${attacker.orgId}/invitation/accept`, { token: victim.token })).status).toBe(204);
    const row = await h.db.prisma.member.findUniqueOrThrow({
      where: { organizationId_userId: { organizationId: attacker.orgId, userId: victim.id } },
    });
    expect(row).toMatchObject({ role: 'edit', sso: true, ssoConsentAt: expect.any(Date) });
    expect(await h.db.prisma.organizationInvitation.count({ where: { userId: victim.id } })).toBe(0);
    // Accepting twice: nothing left to accept.
    await refusedHere(404, 'POST', `/v1/orgs/${attacker.orgId}/invitation/accept`, { token: victim.token });

    const signedIn = await postAcs(provider.service.acsURL, assertion('victim-at-idp', victim.email));
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.id).toBe(victim.id);
  });

  it('declining deletes the invitation (205, then 404) and adds nothing', async () => {
    const invitee = await h.user('Invitee');
    const { attacker } = await attackerWorld();
    await h.rest('inviteUsersToOrganization', 'POST', `/v1/orgs/${attacker.orgId}/invites`, {
      token: attacker.token,
      body: { emails: [invitee.email] },
    });
    expect((await h.call('DELETE', `/v1/orgs/${attacker.orgId}/invitation`, { token: invitee.token })).status).toBe(205);
    await refusedHere(404, 'DELETE', `/v1/orgs/${attacker.orgId}/invitation`, { token: invitee.token });
    expect(await h.db.prisma.member.count({ where: { organizationId: attacker.orgId, userId: invitee.id } })).toBe(0);
    await refusedHere(404, 'POST', `/v1/orgs/${attacker.orgId}/invitation/accept`, { token: invitee.token });
  });
});

// ---------------------------------------------------------------------------------------------
describe('a custom hostname takes effect only once its ownership is proven (DNS TXT), and a 409 names no one', () => {
  const records = new Map<string, string[]>();
  let dnsServer: Awaited<ReturnType<typeof txtServer>>;
  beforeAll(async () => {
    dnsServer = await txtServer(records);
    process.env.LECTERN_DNS_SERVER = dnsServer.address;
  });
  afterAll(async () => {
    delete process.env.LECTERN_DNS_SERVER;
    await dnsServer.close();
  });

  async function siteOf(title: string) {
    const owner = await h.owner(title);
    const site = (await h.rest('createSite', 'POST', `/v1/orgs/${owner.orgId}/sites`, { token: owner.token, body: { title } })).body;
    return { owner, site, path: `/v1/orgs/${owner.orgId}/sites/${site.id}` };
  }
  const hostnameOf = async (siteId: string) => (await h.db.prisma.site.findUniqueOrThrow({ where: { id: siteId } })).hostname;

  it('two organizations claim one hostname; it stays pending until one proves it; the other then gets "in use", naming no one', async () => {
    const a = await siteOf('Org A');
    const b = await siteOf('Org B');
    const host = 'docs.contested.example';

    // Both may claim it: the site keeps no hostname until it is proven.
    for (const x of [a, b]) {
      const res = await h.rest('updateSiteById', 'PATCH', x.path, { token: x.owner.token, body: { hostname: host } });
      expect(res.status).toBe(200);
      expect(res.body.hostname).toBeUndefined();
      expect(await hostnameOf(x.site.id)).toBeNull();
    }
    const claimA = (await h.rest('getCustomHostname', 'GET', `/v1/custom-hostnames/${host}`, { token: a.owner.token })).body;
    expect(claimA).toMatchObject({
      object: 'custom-hostname',
      hostname: host,
      target: { type: 'site', site: a.site.id },
      isActive: false,
      status: 'dns_no_cname',
    });
    expect(claimA.verification).toEqual({
      type: 'dns-txt',
      name: `_lectern-challenge.${host}`,
      value: expect.stringMatching(/^[0-9A-Za-z]{32}$/),
    });
    const claimB = (await h.call('GET', `/v1/custom-hostnames/${host}`, { token: b.owner.token })).body;
    expect(claimB.target.site).toBe(b.site.id);
    expect(claimB.verification.value).not.toBe(claimA.verification.value);

    // Not proven: 409 telling what to publish; nothing changes.
    const notYet = await refused(409, 'PATCH', `/v1/custom-hostnames/${host}`, { token: a.owner.token });
    expect(notYet.body.error.message).toContain(`_lectern-challenge.${host}`);

    // B publishes its token first and wins.
    records.set(`_lectern-challenge.${host}`, [claimB.verification.value]);
    expect((await h.rest('dnsRevalidateCustomHostname', 'PATCH', `/v1/custom-hostnames/${host}`, { token: b.owner.token })).status).toBe(
      204,
    );
    expect(await hostnameOf(b.site.id)).toBe(host);
    expect((await h.rest('getCustomHostname', 'GET', `/v1/custom-hostnames/${host}`, { token: b.owner.token })).body).toMatchObject({
      isActive: true,
      status: 'live',
    });

    // A: the same record now (even its own token) gets only "in use", and its data stays as it was.
    records.set(`_lectern-challenge.${host}`, [claimA.verification.value]);
    const inUse = await refused(409, 'PATCH', `/v1/custom-hostnames/${host}`, { token: a.owner.token });
    expect(inUse.body.error.message).toBe('hostname: this hostname is in use');
    const again = await refused(409, 'PATCH', a.path, { token: a.owner.token, body: { hostname: host } });
    expect(again.body.error.message).toBe('hostname: this hostname is in use');
    for (const res of [inUse, again]) expect(JSON.stringify(res.body)).not.toMatch(new RegExp(`${b.owner.orgId}|${b.site.id}|Org B`));
    expect(await hostnameOf(a.site.id)).toBeNull();

    // An outsider learns nothing about the hostname (404, as for one nobody claims).
    const outsider = await h.user('Outsider');
    await refused(404, 'GET', `/v1/custom-hostnames/${host}`, { token: outsider.token });
    await refused(404, 'GET', '/v1/custom-hostnames/docs.nobody.example', { token: outsider.token });

    // Removing it frees it (205, then the 404 of a hostname nobody holds).
    expect((await h.rest('removeCustomHostname', 'DELETE', `/v1/custom-hostnames/${host}`, { token: b.owner.token })).status).toBe(205);
    expect(await hostnameOf(b.site.id)).toBeNull();
    await refused(404, 'DELETE', `/v1/custom-hostnames/${host}`, { token: b.owner.token });
  });
});
