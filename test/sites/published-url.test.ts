import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { issueSiteToken } from '../../src/auth/site-token.js';
import { newId } from '../../src/ids.js';
import { serverKeys } from '../../src/secrets.js';
import { writeLive } from '../support/content-writes.js';
import { BASE, setupHarness, type Harness, type World } from '../support/harness.js';
import { siteHelpers } from '../support/sites.js';

/**
 * The official URL lookup (resolvePublishedContentByUrl, POST /v1/urls/published, and the
 * deprecated getPublishedContentByUrl, GET): every URL form Lectern publishes (its /public URLs,
 * custom hostnames, proxy origins, `?share=` keys, visitor JWTs) → the official
 * PublishedSiteContent, or the redirect shape for a site redirect; 404 alike for what names
 * nothing and what the caller may not see; 400 naming the field; and the answer's apiToken reads
 * that site's published content, nothing else, and not after it expires.
 */
let h: Harness;
const s = siteHelpers(() => h);
beforeAll(async () => {
  h = await setupHarness();
});

const post = (token: string, body: unknown) => h.rest('resolvePublishedContentByUrl', 'POST', '/v1/urls/published', { token, body });
const get = (token: string, query: Record<string, string>) =>
  h.rest('getPublishedContentByUrl', 'GET', `/v1/urls/published?${new URLSearchParams(query)}`, { token });

/** POST and GET agree; the answer (validated by h.rest) is returned. */
async function lookup(token: string, url: string, status = 200) {
  const a = await post(token, { url });
  expect(a.status, JSON.stringify(a.body)).toBe(status);
  const b = await get(token, { url });
  expect(b.status, JSON.stringify(b.body)).toBe(status);
  const strip = (x: any) => (x && typeof x === 'object' ? { ...x, apiToken: x.apiToken ? 'token' : undefined } : x);
  expect(strip(b.body)).toEqual(strip(a.body));
  return a.body;
}

async function livePages(who: World['owner'], title: string, pages: string[]) {
  const space = await s.space(who, title);
  for (const p of pages)
    await writeLive(h, who.token, space.id, [{ operation: 'insert_page', title: p, document: { markdown: `${p} body` } }]);
  const row = await h.db.prisma.space.findUniqueOrThrow({ where: { id: space.id } });
  return { id: space.id, revisionId: row.revisionId };
}

/** A published site: section Guides (default; variants A default, B) and section Reference (C). */
async function sectionedSite(t: World, body: Record<string, unknown> = {}) {
  const a = await livePages(t.owner, 'Version A', ['Intro', 'Usage']);
  const b = await livePages(t.owner, 'Version B', ['Welcome']);
  const c = await livePages(t.owner, 'API', ['Endpoints']);
  const site = await s.site(t.owner, t.orgId, { title: 'Docs', ...body });
  const guides = await s.section(t.owner, t.orgId, site.id, { spaceId: a.id, title: 'Guides' });
  const ssB = await s.siteSpace(t.owner, t.orgId, site.id, { spaceId: b.id, sectionId: guides.id });
  const reference = await s.section(t.owner, t.orgId, site.id, { spaceId: c.id, title: 'Reference' });
  await s.ok('publishSite', 'POST', `${s.sitePath(t.orgId, site.id)}/publish`, { token: t.owner.token });
  const siteUrl = `${BASE}/public/${t.orgId}/sites/${site.id}`;
  return { site, a, b, c, guides, reference, ssA: guides.siteSpaces[0], ssB, siteUrl, sitePath: `/public/${t.orgId}/sites/${site.id}` };
}

describe('the URL lookup: this server’s URLs, hostnames, proxies', () => {
  let t: World;
  let x: Awaited<ReturnType<typeof sectionedSite>>;
  beforeAll(async () => {
    t = await s.team();
    x = await sectionedSite(t);
  });

  it('the site root: default section and variant, first page; not complete (a section could follow)', async () => {
    const r = await lookup(t.outsider.token, x.siteUrl);
    expect(r).toEqual({
      site: x.site.id,
      siteSection: x.guides.id,
      siteSpace: x.ssA.id,
      space: x.a.id,
      revision: x.a.revisionId,
      pathname: '',
      basePath: `${x.sitePath}/`,
      siteBasePath: `${x.sitePath}/`,
      apiToken: expect.stringMatching(/^lst_/),
      organization: t.orgId,
      complete: false,
      canonicalUrl: `${x.siteUrl}/intro`,
    });
  });

  it('a page, a named variant, another section: base paths, pathname, complete', async () => {
    expect(await lookup(t.outsider.token, `${x.siteUrl}/usage`)).toMatchObject({
      siteSpace: x.ssA.id,
      pathname: 'usage',
      basePath: `${x.sitePath}/`,
      complete: true,
      canonicalUrl: `${x.siteUrl}/usage`,
    });
    expect(await lookup(t.outsider.token, `${x.siteUrl}/${x.ssB.path}/welcome`)).toMatchObject({
      siteSection: x.guides.id,
      siteSpace: x.ssB.id,
      space: x.b.id,
      revision: x.b.revisionId,
      pathname: 'welcome',
      basePath: `${x.sitePath}/${x.ssB.path}/`,
      complete: true,
    });
    // A section of one variant, named: complete without a page.
    expect(await lookup(t.outsider.token, `${x.siteUrl}/${x.reference.path}`)).toMatchObject({
      siteSection: x.reference.id,
      space: x.c.id,
      pathname: '',
      basePath: `${x.sitePath}/${x.reference.path}/`,
      complete: true,
    });
  });

  it('a custom hostname and a proxy origin', async () => {
    const host = `docs-${newId(6).toLowerCase()}.example.com`;
    await h.db.prisma.site.update({ where: { id: x.site.id }, data: { hostname: host } });
    expect(await lookup(t.outsider.token, `https://${host}/usage`)).toMatchObject({
      site: x.site.id,
      pathname: 'usage',
      basePath: '/',
      siteBasePath: '/',
      canonicalUrl: `https://${host}/usage`,
    });
    await h.db.prisma.site.update({ where: { id: x.site.id }, data: { hostname: null } });
    const proxy = `proxy-${newId(6).toLowerCase()}.example.com/help`;
    await s.ok('updateSiteById', 'PATCH', s.sitePath(t.orgId, x.site.id), { token: t.owner.token, body: { proxy } });
    expect(await lookup(t.outsider.token, `https://${proxy}/${x.ssB.path}`)).toMatchObject({
      siteSpace: x.ssB.id,
      basePath: `/help/${x.ssB.path}/`,
      siteBasePath: '/help/',
      pathname: '',
    });
    await s.ok('updateSiteById', 'PATCH', s.sitePath(t.orgId, x.site.id), { token: t.owner.token, body: { proxy: null } });
  });

  it('redirects answer the official redirect shape; what names nothing is a 404', async () => {
    const base = s.sitePath(t.orgId, x.site.id);
    // Set-up through the API (the redirect routes' own conformance is covered by renderer-api.test.ts).
    for (const body of [
      { source: '/old-usage', destination: { kind: 'site-space', siteSpaceId: x.ssB.id } },
      { source: '/elsewhere', destination: { kind: 'external', url: 'https://example.org/docs' } },
    ]) {
      expect((await h.call('POST', `${base}/redirects`, { token: t.owner.token, body })).status).toBe(201);
    }
    expect(await lookup(t.outsider.token, `${x.siteUrl}/old-usage`)).toEqual({ target: 'content', redirect: `${x.siteUrl}/${x.ssB.path}` });
    expect(await lookup(t.outsider.token, `${x.siteUrl}/elsewhere`)).toEqual({
      target: 'external',
      site: x.site.id,
      redirect: 'https://example.org/docs',
    });
    const missing = await lookup(t.outsider.token, `${x.siteUrl}/no-such-page`, 404);
    expect(missing).toEqual({ error: { code: 404, message: 'No content found for the URL' } });
    expect(await lookup(t.outsider.token, `${BASE}/public/${t.orgId}/sites/nope`, 404)).toEqual(missing);
    expect(await lookup(t.outsider.token, 'https://unknown.example.net/page', 404)).toEqual(missing);
  });

  it('bad input: 400 naming the field', async () => {
    const bad = async (res: { status: number; body: any }, field: string) => {
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.message).toMatch(new RegExp(`^${field.replace('.', '\\.')}: `));
    };
    await bad(await h.call('POST', '/v1/urls/published', { token: t.outsider.token, body: {} }), 'url');
    await bad(await h.call('POST', '/v1/urls/published', { token: t.outsider.token, body: { url: 'not a url' } }), 'url');
    await bad(await h.call('POST', '/v1/urls/published', { token: t.outsider.token, body: { url: 'ftp://example.com/x' } }), 'url');
    await bad(
      await h.call('POST', '/v1/urls/published', { token: t.outsider.token, body: { url: x.siteUrl, visitor: { jwtToken: 5 } } }),
      'visitor.jwtToken',
    );
    await bad(
      await h.call('POST', '/v1/urls/published', { token: t.outsider.token, body: { url: x.siteUrl, visitor: { type: 'robot' } } }),
      'visitor.type',
    );
    await bad(
      await h.call('POST', '/v1/urls/published', { token: t.outsider.token, body: { url: x.siteUrl, redirectOnError: 'yes' } }),
      'redirectOnError',
    );
    await bad(await h.call('GET', '/v1/urls/published', { token: t.outsider.token }), 'url');
    await bad(
      await h.call('GET', `/v1/urls/published?url=${encodeURIComponent(x.siteUrl)}&redirectOnError=maybe`, { token: t.outsider.token }),
      'redirectOnError',
    );
    expect((await h.call('POST', '/v1/urls/published', { body: { url: x.siteUrl } })).status).toBe(401);
  });
});

describe('who gets an answer: share links, visitor tokens, members', () => {
  let t: World;
  beforeAll(async () => {
    t = await s.team();
  });

  it('share-link sites: `?share=KEY` of an active link (key echoed as shareKey), members without; others 404 as for nothing', async () => {
    const x = await sectionedSite(t, { visibility: 'share-link' });
    const link = await s.ok(
      'createSiteShareLink',
      'POST',
      `${s.sitePath(t.orgId, x.site.id)}/share-links`,
      { token: t.owner.token, body: { name: 'Partner' } },
      201,
    );
    const key = new URL(link.urls.published).searchParams.get('share')!;
    const nothing = await lookup(t.outsider.token, `${BASE}/public/${t.orgId}/sites/none`, 404);
    expect(await lookup(t.outsider.token, `${x.siteUrl}/usage`, 404)).toEqual(nothing);
    expect(await lookup(t.outsider.token, `${x.siteUrl}/usage?share=wrong`, 404)).toEqual(nothing);
    // The share-link URL form Lectern publishes (its urls.published) resolves.
    expect(await lookup(t.outsider.token, link.urls.published)).toMatchObject({
      site: x.site.id,
      shareKey: key,
      canonicalUrl: `${x.siteUrl}/intro?share=${key}`,
    });
    expect(await lookup(t.outsider.token, `${x.siteUrl}/usage?share=${key}`)).toMatchObject({ pathname: 'usage', shareKey: key });
    const member = await lookup(t.guest.token, `${x.siteUrl}/usage`);
    expect(member.shareKey).toBeUndefined();
    // Unpublished: nobody, members included.
    await s.ok('unpublishSite', 'POST', `${s.sitePath(t.orgId, x.site.id)}/unpublish`, { token: t.owner.token });
    expect(await lookup(t.owner.token, `${x.siteUrl}/usage`, 404)).toEqual(nothing);
  });

  it('visitor-auth sites: a JWT signed with the site key (visitor.jwtToken, visitorAuthToken, ?jwt_token=); redirectOnError to the fallback', async () => {
    const x = await sectionedSite(t, { visibility: 'visitor-auth' });
    const sp = s.sitePath(t.orgId, x.site.id);
    const auth = await s.ok('getSitePublishingAuthById', 'GET', `${sp}/publishing/auth`, { token: t.owner.token });
    const jwt = await new SignJWT({ plan: 'pro' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(auth.privateKey));
    const forged = await new SignJWT({ plan: 'pro' })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('not-the-site-key-not-the-site-key'));
    const url = `${x.siteUrl}/usage`;
    const nothing = { error: { code: 404, message: 'No content found for the URL' } };

    expect((await post(t.outsider.token, { url })).body).toEqual(nothing);
    // The official PlainObject's untyped branch matches every value (no non-empty unsignedClaims passes its oneOf): an empty one here, a real one below.
    const viaBody = await post(t.outsider.token, { url, visitor: { jwtToken: jwt, unsignedClaims: {} } });
    expect(
      (
        await h.call('POST', '/v1/urls/published', {
          token: t.outsider.token,
          body: { url, visitor: { jwtToken: jwt, unsignedClaims: { beta: 'yes' } } },
        })
      ).body,
    ).toMatchObject({ pathname: 'usage' });
    expect(viaBody.status).toBe(200);
    expect(viaBody.body).toMatchObject({ site: x.site.id, pathname: 'usage', contextId: expect.any(String) });
    expect((await get(t.outsider.token, { url, visitorAuthToken: jwt })).body).toMatchObject({
      pathname: 'usage',
      contextId: viaBody.body.contextId,
    });
    expect((await post(t.outsider.token, { url: `${url}?jwt_token=${jwt}` })).body).toMatchObject({ pathname: 'usage' });
    expect((await post(t.outsider.token, { url, visitor: { jwtToken: forged } })).body).toEqual(nothing);
    // Members need no token.
    expect((await post(t.reader.token, { url })).status).toBe(200);

    // redirectOnError: the fallback (sign-in) URL, when the site has one.
    expect((await post(t.outsider.token, { url, redirectOnError: true })).body).toEqual(nothing);
    await s.ok('updateSitePublishingAuthById', 'PATCH', `${sp}/publishing/auth`, {
      token: t.owner.token,
      body: { backend: 'custom', fallbackURL: 'https://login.example.com/start' },
    });
    expect((await post(t.outsider.token, { url, redirectOnError: true, visitor: { jwtToken: forged } })).body).toEqual({
      target: 'application',
      redirect: 'https://login.example.com/start',
    });
    expect((await get(t.outsider.token, { url, redirectOnError: 'true' })).body).toEqual({
      target: 'application',
      redirect: 'https://login.example.com/start',
    });
  });
});

describe('the apiToken: one hour, that site’s published content, nothing else', () => {
  let t: World;
  let x: Awaited<ReturnType<typeof sectionedSite>>;
  let token: string;
  let other: { id: string };
  beforeAll(async () => {
    t = await s.team();
    x = await sectionedSite(t, { visibility: 'share-link' });
    const link = await s.ok(
      'createSiteShareLink',
      'POST',
      `${s.sitePath(t.orgId, x.site.id)}/share-links`,
      { token: t.owner.token, body: { name: 'P' } },
      201,
    );
    token = (await lookup(t.outsider.token, link.urls.published)).apiToken;
    other = await s.space(t.owner, 'Not on the site');
    await h.db.prisma.space.update({ where: { id: other.id }, data: { visibility: 'public' } });
  });

  it('reads the site’s spaces and published profile', async () => {
    const space = await h.rest('getSpaceById', 'GET', `/v1/spaces/${x.a.id}`, { token });
    expect(space.status, JSON.stringify(space.body)).toBe(200);
    const pages = await h.rest('listPages', 'GET', `/v1/spaces/${x.b.id}/content/pages`, { token });
    expect(pages.status).toBe(200);
    expect(pages.body.pages.map((p: any) => p.title)).toEqual(['Welcome']);
    const byRevision = await h.rest('listPagesInRevisionById', 'GET', `/v1/spaces/${x.c.id}/revisions/${x.c.revisionId}/pages`, { token });
    expect(byRevision.status).toBe(200);
    // What the site publishes is each space's current revision: an older one (content since
    // removed) or a change request's is no part of it, and answers as a revision that is not there.
    const older = await h.db.prisma.revision.findFirstOrThrow({ where: { spaceId: x.a.id, id: { not: x.a.revisionId } } });
    for (const path of [`/v1/spaces/${x.a.id}/revisions/${older.id}`, `/v1/spaces/${x.a.id}/revisions/${older.id}/pages`]) {
      const refused = await h.call('GET', path, { token });
      expect(refused.status, path).toBe(404);
      expect(refused.body.error.message).toMatch(/Revision/);
    }
    // A member's token still reads the space's history.
    expect((await h.call('GET', `/v1/spaces/${x.a.id}/revisions/${older.id}/pages`, { token: t.owner.token })).status).toBe(200);
    const profile = await h.rest('getPublishedContentSite', 'GET', `/v1/orgs/${t.orgId}/sites/${x.site.id}/published`, { token });
    expect(profile.status, JSON.stringify(profile.body)).toBe(200);
    expect(profile.body.site.id).toBe(x.site.id);
  });

  it('nothing else: other spaces (public ones too), other sites, the organization, writes, GraphQL', async () => {
    expect((await h.call('GET', `/v1/spaces/${other.id}`, { token })).status).toBe(404);
    expect((await h.call('GET', `/v1/spaces/${other.id}/content/pages`, { token })).status).toBe(404);
    const otherSite = await sectionedSite(t);
    expect((await h.call('GET', `/v1/orgs/${t.orgId}/sites/${otherSite.site.id}/published`, { token })).status).toBe(404);
    expect((await h.call('GET', `/v1/spaces/${otherSite.a.id}`, { token })).status).toBe(404);
    for (const [method, path] of [
      ['GET', `/v1/orgs/${t.orgId}`],
      ['GET', '/v1/user'],
      ['GET', `/v1/orgs/${t.orgId}/sites/${x.site.id}`],
      ['GET', `/v1/spaces/${x.a.id}/comments`],
      ['GET', `/v1/spaces/${x.a.id}/change-requests`],
      ['PATCH', `/v1/spaces/${x.a.id}`],
      ['POST', '/v1/urls/published'],
      ['POST', '/graphql'],
    ] as const) {
      const before = await s.snapshot();
      const res = await h.call(method, path, {
        token,
        body: method === 'GET' ? undefined : path === '/graphql' ? { query: '{ viewer { id } }' } : { title: 'Hacked', url: x.siteUrl },
      });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.message).toMatch(/only reads the published content of its site/);
      expect(await s.snapshot()).toBe(before);
    }
  });

  it('refused after expiry, when altered, and once the site is unpublished', async () => {
    const keys = await serverKeys({ db: h.db, config: h.config });
    const claims = { siteId: x.site.id, organizationId: t.orgId, userId: t.outsider.id };
    const expired = issueSiteToken(keys, claims, Date.now() - 2 * 60 * 60 * 1000);
    expect((await h.call('GET', `/v1/spaces/${x.a.id}`, { token: expired })).status).toBe(401);
    const [payload, signature] = token.slice(4).split('.');
    const otherSite = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    otherSite[0] = 'another-site';
    expect(
      (
        await h.call('GET', `/v1/spaces/${x.a.id}`, {
          token: `lst_${Buffer.from(JSON.stringify(otherSite)).toString('base64url')}.${signature}`,
        })
      ).status,
    ).toBe(401);
    // A fresh token (just under the hour) works; unpublishing the site ends it.
    const fresh = issueSiteToken(keys, claims, Date.now() - 59 * 60 * 1000);
    expect((await h.call('GET', `/v1/spaces/${x.a.id}`, { token: fresh })).status).toBe(200);
    await s.ok('unpublishSite', 'POST', `${s.sitePath(t.orgId, x.site.id)}/unpublish`, { token: t.owner.token });
    expect((await h.call('GET', `/v1/spaces/${x.a.id}`, { token: fresh })).status).toBe(404);
    expect((await h.call('GET', `/v1/orgs/${t.orgId}/sites/${x.site.id}/published`, { token: fresh })).status).toBe(404);
  });

  it('GraphQL: publishedContentLookup answers the same lookup', async () => {
    const pub = await sectionedSite(t);
    const res = await h.graphql(
      t.outsider.token,
      `query($input: PublishedContentLookupInput!) {
        publishedContentLookup(input: $input) { ... on PublishedSiteContent { site pathname apiToken } }
      }`,
      {
        input: { url: `${pub.siteUrl}/usage` },
      },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.publishedContentLookup).toMatchObject({
      site: pub.site.id,
      pathname: 'usage',
      apiToken: expect.stringMatching(/^lst_/),
    });
  });
});
