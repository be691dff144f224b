import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { siteVisitorKey } from '../../src/modules/reader/index.js';
import { serverKeys } from '../../src/secrets.js';
import { BASE, setupHarness, type Harness, type World } from '../support/harness.js';
import { insertPage, writeLive } from '../support/content-writes.js';
import { siteHelpers } from '../support/sites.js';

/**
 * The reader with the renderer API behind it: the search box and the server-rendered results page
 * (the site search: default scope from the page's site space, `scope=all`, hidden and conditioned
 * pages never found, share-link access honoured), the stored customization applied, redirects
 * before the 404 page, and caching (public sites' anonymous answers shared for a minute with an
 * ETag and 304; other audiences private). Settings go through the official operations (`h.rest`
 * validates them against the official schema). One seeded site for the whole file.
 */
let h: Harness;
const s = siteHelpers(() => h);
let t: World;
let siteId: string;
let siteUrl: string;
let path: string;
let ssV2: string;
let v2Path: string;
let usagePage: string;

type Got = { status: number; text: string; headers: Headers };
async function get(url: string, opts: { cookie?: string; token?: string; etag?: string } = {}): Promise<Got> {
  const headers: Record<string, string> = {};
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.etag) headers['if-none-match'] = opts.etag;
  const res = await h.app.fetch(new Request(url.startsWith('http') ? url : `${BASE}${url}`, { headers }));
  return { status: res.status, text: await res.text(), headers: res.headers };
}
const cookiesOf = (res: Got) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');
const hrefs = (html: string) =>
  [...html.matchAll(/<a class="result-title" href="([^"]+)">([^<]+)<\/a>/g)].map((m) => [m[1]!.replace(/&amp;/g, '&'), m[2]!]);

beforeAll(async () => {
  h = await setupHarness();
  t = await h.world('Reader search');
  const v1 = await s.space(t.owner, 'Guide v1');
  const { pages } = await writeLive(h, t.owner.token, v1.id, [
    insertPage('Intro', 'Welcome. The nebula engine starts here.\n\n## Nebula tuning\n\nTune the nebula carefully.'),
    insertPage('Usage', 'Use it.'),
    insertPage('Secret', 'nebula secrets', { hidden: true }),
    insertPage('Beta notes', 'nebula beta', { condition: 'visitor.claims.unsigned.beta == true' }),
  ]);
  usagePage = pages[1]!;
  const v2 = await s.space(t.owner, 'Guide v2');
  await writeLive(h, t.owner.token, v2.id, [insertPage('Start', 'The nebula engine, version two.')]);
  const api = await s.space(t.owner, 'API');
  await writeLive(h, t.owner.token, api.id, [insertPage('Endpoints', 'The nebula endpoint.')]);
  const site = await s.site(t.owner, t.orgId, { title: 'Nebula Docs', visibility: 'public' });
  siteId = site.id;
  path = s.sitePath(t.orgId, siteId);
  const guides = await s.section(t.owner, t.orgId, siteId, { spaceId: v1.id, title: 'Guides' });
  const v2ss = await s.siteSpace(t.owner, t.orgId, siteId, { spaceId: v2.id, sectionId: guides.id });
  [ssV2, v2Path] = [v2ss.id, v2ss.path];
  await s.section(t.owner, t.orgId, siteId, { spaceId: api.id, title: 'API' });
  await s.ok('publishSite', 'POST', `${path}/publish`, { token: t.owner.token });
  siteUrl = `${BASE}/public/${t.orgId}/sites/${siteId}`;
});

describe('search in the reader', () => {
  it('every page has a search box (a GET form to the page itself, no script needed)', async () => {
    const page = await get(`${siteUrl}/intro`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<form class="search" role="search" method="get" action="${siteUrl}/intro"><input type="search" name="q"`);
  });

  it('?q= answers the results page: the default scope from the current page, linked to published URLs, sections with anchors', async () => {
    const res = await get(`${siteUrl}/intro?q=nebula`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<meta name="robots" content="noindex">');
    const found = hrefs(res.text);
    // v1 (current) and the API section's default; not v2 (another variant of the current section); not the hidden or conditioned pages.
    expect(found.map(([, title]) => title).sort()).toEqual(['Endpoints', 'Intro']);
    expect(found).toContainEqual([`${siteUrl}/intro`, 'Intro']);
    expect(res.text).toContain(`href="${siteUrl}/intro#nebula-tuning"`);
    expect(res.text).not.toMatch(/Secret|Beta notes/);
    // From v2, its own results instead of v1's.
    const fromV2 = hrefs((await get(`${siteUrl}/${v2Path}/start?q=nebula`)).text)
      .map(([, title]) => title)
      .sort();
    expect(fromV2).toEqual(['Endpoints', 'Start']);
    // Every section and variant.
    const all = hrefs((await get(`${siteUrl}/intro?q=nebula&scope=all`)).text)
      .map(([, title]) => title)
      .sort();
    expect(all).toEqual(['Endpoints', 'Intro', 'Start']);
    // The visitor's claims open conditioned pages.
    const beta = await get(`${siteUrl}/intro?q=nebula&visitor.beta=true`);
    expect(beta.status).toBe(302);
    const withClaims = await get(beta.headers.get('location')!, { cookie: cookiesOf(beta) });
    expect(hrefs(withClaims.text).map(([, title]) => title)).toContain('Beta notes');
    // Nothing found, empty and over-long queries: a page that says so.
    expect((await get(`${siteUrl}/intro?q=zzzznothing`)).text).toContain('No results');
    expect((await get(`${siteUrl}/intro?q=`)).status).toBe(200);
    expect((await get(`${siteUrl}/intro?q=${'x'.repeat(600)}`)).text).toContain('too long');
  });

  it('share-link sites: searching needs the key too', async () => {
    const space = await s.space(t.owner, 'Shared space');
    await writeLive(h, t.owner.token, space.id, [insertPage('Home', 'The comet handbook.')]);
    const site = await s.site(t.owner, t.orgId, { title: 'Shared', visibility: 'share-link', spaces: [space.id] });
    await s.ok('publishSite', 'POST', `${s.sitePath(t.orgId, site.id)}/publish`, { token: t.owner.token });
    const url = `${BASE}/public/${t.orgId}/sites/${site.id}`;
    expect((await get(`${url}?q=comet`)).status).toBe(404);
    const link = await s.ok(
      'createSiteShareLink',
      'POST',
      `${s.sitePath(t.orgId, site.id)}/share-links`,
      { token: t.owner.token, body: { name: 'P' } },
      201,
    );
    const key = new URL(link.urls.published).searchParams.get('share')!;
    const first = await get(`${url}?q=comet&share=${key}`);
    expect(first.status).toBe(302);
    const res = await get(first.headers.get('location')!, { cookie: cookiesOf(first) });
    expect(res.status).toBe(200);
    expect(hrefs(res.text).map(([, title]) => title)).toEqual(['Home']);
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
  });
});

describe('customization, redirects, caching', () => {
  it('applies the stored customization: title, colors, logo, favicon, links, announcement, theme, pagination', async () => {
    const current = await s.ok('getSiteCustomizationById', 'GET', `${path}/customization`, { token: t.owner.token });
    const { updatedAt: _u, ...body } = current;
    await s.ok('updateSiteCustomizationById', 'PUT', `${path}/customization`, {
      token: t.owner.token,
      body: {
        ...body,
        title: 'Nebula Handbook',
        styling: { ...body.styling, primaryColor: { light: '#AA3355', dark: '#55AA33' } },
        header: {
          ...body.header,
          logo: { light: 'https://example.com/logo-light.png', dark: 'https://example.com/logo-dark.png' },
          links: [{ title: 'Status', to: { kind: 'url', url: 'https://status.example.com' }, links: [] }],
        },
        footer: {
          ...body.footer,
          groups: [{ title: 'More', links: [{ title: 'Usage', to: { kind: 'page', page: usagePage } }] }],
          copyright: '© Nebula Inc',
        },
        favicon: { emoji: '1f30c' },
        announcement: {
          enabled: true,
          message: 'Version 2 is out',
          style: 'warning',
          link: { title: 'Read more', to: { kind: 'url', url: 'https://example.com/v2' } },
        },
        themes: { default: 'dark', toggeable: false },
        pagination: { enabled: false },
      },
    });
    const html = (await get(`${siteUrl}/intro`)).text;
    expect(html).toContain('<title>Intro | Nebula Handbook</title>');
    expect(html).toContain('--primary:#AA3355');
    expect(html).toContain('--primary:#55AA33');
    expect(html).toContain('<img class="logo-img logo-light" src="https://example.com/logo-light.png" alt="Nebula Handbook">');
    expect(html).toContain('<a href="https://status.example.com">Status</a>');
    expect(html).toContain(`<a href="${siteUrl}/usage">Usage</a>`);
    expect(html).toContain('© Nebula Inc');
    expect(html).toContain(
      `<link rel="icon" href="data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><text y=".9em" font-size="90">🌌</text></svg>')}">`,
    );
    expect(html).toMatch(
      /<div class="announcement announcement-warning" role="note">Version 2 is out <a href="https:\/\/example.com\/v2">Read more<\/a><\/div>/,
    );
    expect(html).toContain('<html lang="en" data-theme="dark" data-theme-fixed="">');
    expect(html).not.toContain('id="theme-toggle"');
    expect(html).not.toContain('class="pager"');
    // A site space's override wins on its pages.
    await s.ok('overrideSiteSpaceCustomizationById', 'PATCH', `${path}/site-spaces/${ssV2}/customization`, {
      token: t.owner.token,
      body: { title: 'Nebula v2' },
    });
    expect((await get(`${siteUrl}/${v2Path}/start`)).text).toContain('<title>Start | Nebula v2</title>');
    expect((await get(`${siteUrl}/intro`)).text).toContain('<title>Intro | Nebula Handbook</title>');
  });

  it('follows redirects before the 404 page (301 permanent, 302 otherwise); live pages win', async () => {
    const ss = await s.ok('listSiteSpaces', 'GET', `${path}/site-spaces?limit=100`, { token: t.owner.token });
    const v1 = ss.items.find((x: any) => x.space.title === 'Guide v1').id;
    await s.ok(
      'createSiteRedirect',
      'POST',
      `${path}/redirects`,
      {
        token: t.owner.token,
        body: { source: '/old-usage', destination: { kind: 'site-page', siteSpaceId: v1, pageId: usagePage }, permanent: true },
      },
      201,
    );
    // External destinations are 0.202.0's only: not through the two-version check.
    expect(
      (
        await h.call('POST', `${path}/redirects`, {
          token: t.owner.token,
          body: { source: '/elsewhere', destination: { kind: 'external', url: 'https://example.com/x' } },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await h.call('POST', `${path}/redirects`, {
          token: t.owner.token,
          body: { source: '/intro', destination: { kind: 'external', url: 'https://example.com/never' } },
        })
      ).status,
    ).toBe(201);
    const permanent = await get(`${siteUrl}/old-usage`);
    expect(permanent.status).toBe(301);
    expect(permanent.headers.get('location')).toBe(`${siteUrl}/usage`);
    const temporary = await get(`${siteUrl}/elsewhere`);
    expect(temporary.status).toBe(302);
    expect(temporary.headers.get('location')).toBe('https://example.com/x');
    expect((await get(`${siteUrl}/intro`)).status).toBe(200);
    expect((await get(`${siteUrl}/no-such-page`)).status).toBe(404);
  });

  it('public pages for anonymous readers are shared a minute with an ETag and 304; other audiences stay private', async () => {
    const first = await get(`${siteUrl}/intro`);
    expect(first.headers.get('cache-control')).toBe('public, max-age=60, stale-while-revalidate=600');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await get(`${siteUrl}/intro`, { etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect((await get(`${siteUrl}/usage`, { etag })).status).toBe(200);
    expect((await get(`${siteUrl}/intro.md`)).headers.get('cache-control')).toMatch(/^public, max-age=60/);
    // A member (token) and a visitor with claims: private.
    expect((await get(`${siteUrl}/intro`, { token: t.reader.token })).headers.get('cache-control')).toBe('private, no-cache');
    // An unlisted site: anyone holding the URL reads it without a token, so a shared cache may keep
    // its anonymous answers too (they carry noindex; a cache holds nothing the URL does not already give).
    await s.ok('updateSiteById', 'PATCH', path, { token: t.owner.token, body: { visibility: 'unlisted' } });
    const unlisted = await get(`${siteUrl}/intro`);
    expect(unlisted.headers.get('cache-control')).toBe('public, max-age=60, stale-while-revalidate=600');
    expect((await get(`${siteUrl}/intro`, { etag: unlisted.headers.get('etag')! })).status).toBe(304);
    await s.ok('updateSiteById', 'PATCH', path, { token: t.owner.token, body: { visibility: 'public' } });
    // 404 pages are not stored.
    expect((await get(`${siteUrl}/no-such-page`)).headers.get('cache-control')).toBe('no-store');
  });
});

describe('publishing auth (visitor-auth key and settings)', () => {
  const sign = (key: string) =>
    new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('10m').sign(new TextEncoder().encode(key));

  it('get answers the key the reader verifies (the derived one until regenerated); regenerate replaces it; fallbackURL redirects refused visitors', async () => {
    const space = await s.space(t.owner, 'Members only');
    await writeLive(h, t.owner.token, space.id, [insertPage('Home', 'For signed-in visitors.')]);
    const site = await s.site(t.owner, t.orgId, { title: 'Private', visibility: 'visitor-auth', spaces: [space.id] });
    const sp = s.sitePath(t.orgId, site.id);
    await s.ok('publishSite', 'POST', `${sp}/publish`, { token: t.owner.token });
    const url = `${BASE}/public/${t.orgId}/sites/${site.id}`;

    const auth = await s.ok('getSitePublishingAuthById', 'GET', `${sp}/publishing/auth`, { token: t.creator.token });
    expect(auth).toEqual({
      object: 'publishing-auth',
      backend: 'custom',
      privateKey: siteVisitorKey(await serverKeys({ db: h.db, config: h.config }), site.id),
    });
    const oldToken = await sign(auth.privateKey);
    expect((await get(`${url}?jwt_token=${oldToken}`)).status).toBe(302);

    const regenerated = await s.ok('regenerateSitePublishingAuthById', 'POST', `${sp}/publishing/auth/regenerate`, {
      token: t.owner.token,
    });
    expect(regenerated.privateKey).not.toBe(auth.privateKey);
    expect(regenerated.privateKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await s.ok('getSitePublishingAuthById', 'GET', `${sp}/publishing/auth`, { token: t.owner.token })).privateKey).toBe(
      regenerated.privateKey,
    );
    // Stored sealed, never in clear.
    const row = await h.db.prisma.sitePublishingAuth.findUnique({ where: { siteId: site.id } });
    expect(row!.keySealed).not.toContain(regenerated.privateKey);
    expect((await get(`${url}?jwt_token=${oldToken}`)).status).toBe(401);
    const fresh = await get(`${url}?jwt_token=${await sign(regenerated.privateKey)}`);
    expect(fresh.status).toBe(302);
    expect((await get(url, { cookie: cookiesOf(fresh) })).text).toContain('For signed-in visitors.');

    const updated = await s.ok('updateSitePublishingAuthById', 'PATCH', `${sp}/publishing/auth`, {
      token: t.owner.token,
      body: { backend: 'custom', fallbackURL: 'https://login.example.com/start', logoutURL: 'https://login.example.com/out' },
    });
    expect(updated).toMatchObject({
      fallbackURL: 'https://login.example.com/start',
      logoutURL: 'https://login.example.com/out',
      privateKey: regenerated.privateKey,
    });
    const refused = await get(`${url}/home`);
    expect(refused.status).toBe(302);
    expect(refused.headers.get('location')).toBe('https://login.example.com/start?location=%2Fhome');
    const unset = await s.ok('updateSitePublishingAuthById', 'PATCH', `${sp}/publishing/auth`, {
      token: t.owner.token,
      body: { backend: 'custom', fallbackURL: null },
    });
    expect(unset.fallbackURL).toBeUndefined();
    expect(unset.logoutURL).toBe('https://login.example.com/out');
    expect((await get(`${url}/home`)).status).toBe(401);

    // GraphQL answers the same.
    const gql = await h.graphql(
      t.owner.token,
      'query($o: ID!, $s: ID!) { site(organizationId: $o, id: $s) { publishingAuth { privateKey } } }',
      {
        o: t.orgId,
        s: site.id,
      },
    );
    expect(gql.body.data.site.publishingAuth.privateKey).toBe(regenerated.privateKey);

    // Bad input: 400 naming the field, nothing changed.
    for (const [body, field] of [
      [{ backend: 'custom', fallbackURL: 'not a url' }, 'fallbackURL'],
      [{ backend: 'custom', logoutURL: 'javascript:alert(1)' }, 'logoutURL'],
      [{ backend: 'integration' }, 'backend'],
      [{ fallbackURL: 'https://x.example' }, 'backend'],
      [{ backend: 'custom', privateKey: 'mine' }, 'privateKey'],
    ] as const) {
      const res = await h.call('PATCH', `${sp}/publishing/auth`, { token: t.owner.token, body });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.message.startsWith(`${field}:`), res.body.error.message).toBe(true);
    }
    expect((await h.db.prisma.sitePublishingAuth.findUnique({ where: { siteId: site.id } }))!.logoutURL).toBe(
      'https://login.example.com/out',
    );

    // Callers without rights: readers 403 (the key admits anyone), outsiders 404; nothing changed.
    await s.expectRefused('getSitePublishingAuthById', 'GET', `${sp}/publishing/auth`, { token: t.reader.token }, 403);
    await s.expectRefused('regenerateSitePublishingAuthById', 'POST', `${sp}/publishing/auth/regenerate`, { token: t.reader.token }, 403);
    await s.expectRefused(
      'updateSitePublishingAuthById',
      'PATCH',
      `${sp}/publishing/auth`,
      { token: t.outsider.token, body: { backend: 'custom' } },
      404,
    );
    expect((await s.ok('getSitePublishingAuthById', 'GET', `${sp}/publishing/auth`, { token: t.owner.token })).privateKey).toBe(
      regenerated.privateKey,
    );
  });
});
