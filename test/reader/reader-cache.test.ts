import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { clearReaderCache, siteVisitorKey } from '../../src/modules/reader/index.js';
import { serverKeys } from '../../src/secrets.js';
import { BASE, setupHarness, type Harness, type World } from '../support/harness.js';
import { insertPage, writeCr, writeLive } from '../support/content-writes.js';
import { siteHelpers } from '../support/sites.js';

/**
 * The reader's cache of rendered answers (src/modules/reader/page-cache.ts) and its ETag/304: a hit
 * answers the bytes of the cold render; a merge, a customization change or a renamed section is a
 * new answer at once; visitors with other claims never share an entry; access is decided before the
 * cache; a hit costs the same few statements whatever the size of the space.
 */
let h: Harness;
const s = siteHelpers(() => h);
let t: World;

type Got = { status: number; text: string; headers: Headers };
async function get(url: string, opts: { cookie?: string; token?: string; etag?: string } = {}): Promise<Got> {
  const headers: Record<string, string> = {};
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.etag) headers['if-none-match'] = opts.etag;
  const res = await h.app.fetch(new Request(url, { headers }));
  return { status: res.status, text: await res.text(), headers: res.headers };
}
const cookiesOf = (res: Got) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');

async function counted<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const before = h.db.statements.count;
  const value = await fn();
  return [value, h.db.statements.count - before];
}

/** A published site over one new space of `pages` pages (plus `more` changes); its URL and ids. */
async function siteOf(title: string, pages: number, opts: { visibility?: string; more?: Parameters<typeof writeLive>[3] } = {}) {
  const space = await s.space(t.owner, `${title} space`);
  const changes = [
    ...Array.from({ length: pages }, (_, i) => insertPage(`Page ${i}`, `Body of page ${i} in ${title}.\n\n## Part\n\nText.`)),
    ...(opts.more ?? []),
  ];
  const pageIds: string[] = [];
  for (let i = 0; i < changes.length; i += 50)
    pageIds.push(...(await writeLive(h, t.owner.token, space.id, changes.slice(i, i + 50))).pages);
  const site = await s.site(t.owner, t.orgId, { title, visibility: opts.visibility ?? 'public', spaces: [space.id] });
  await s.ok('publishSite', 'POST', `${s.sitePath(t.orgId, site.id)}/publish`, { token: t.owner.token });
  return { space, site, pageIds, url: `${BASE}/public/${t.orgId}/sites/${site.id}` };
}

beforeAll(async () => {
  h = await setupHarness();
  t = await s.team();
});

describe('rendered answers kept', () => {
  it('a hit answers the cold render’s bytes and tag, in fewer statements; 304 on If-None-Match', async () => {
    const { url } = await siteOf('Cached', 3);
    clearReaderCache();
    const [cold, coldStatements] = await counted(() => get(`${url}/page-1`));
    const [warm, warmStatements] = await counted(() => get(`${url}/page-1`));
    expect(cold.status).toBe(200);
    expect(warm.text).toBe(cold.text);
    expect(warm.headers.get('etag')).toBe(cold.headers.get('etag'));
    expect(warm.headers.get('content-security-policy')).toBe(cold.headers.get('content-security-policy'));
    expect(warm.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(warmStatements).toBeLessThan(coldStatements);
    // A public site as anyone sees it may sit in a shared cache.
    expect(warm.headers.get('cache-control')).toMatch(/^public, max-age=\d+/);
    expect(warm.headers.get('vary')).toBe('Cookie, Authorization');

    const etag = cold.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const notModified = await get(`${url}/page-1`, { etag });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');
    expect(notModified.headers.get('etag')).toBe(etag);
    expect((await get(`${url}/page-1`, { etag: '"other"' })).status).toBe(200);
    // Another page, another tag.
    expect((await get(`${url}/page-2`)).headers.get('etag')).not.toBe(etag);

    // The agents' files and a page's Markdown: tags and 304 too.
    for (const path of ['page-1.md', 'llms.txt', 'llms-full.txt', 'sitemap.xml']) {
      const first = await get(`${url}/${path}`);
      expect(first.status, path).toBe(200);
      const tag = first.headers.get('etag')!;
      expect(tag, path).toBeTruthy();
      const again = await get(`${url}/${path}`, { etag: tag });
      expect(again.status, path).toBe(304);
      expect((await get(`${url}/${path}`)).text, path).toBe(first.text);
    }
    // 404 pages are neither kept nor tagged.
    expect((await get(`${url}/nope`)).headers.get('etag')).toBeNull();
  });

  it('a merge, a live edit, a customization change and a renamed section are new answers at once', async () => {
    const { space, site, pageIds, url } = await siteOf('Changing', 2);
    const before = await get(`${url}/page-0`);
    expect(before.text).toContain('Body of page 0 in Changing.');
    expect((await get(`${url}/page-0`)).text).toBe(before.text); // kept

    // A change request merged: a new revision.
    const cr = await h.rest('createChangeRequest', 'POST', `/v1/spaces/${space.id}/change-requests`, {
      token: t.owner.token,
      body: { subject: 'Edit' },
    });
    expect(cr.status).toBe(201);
    await writeCr(h, t.owner.token, space.id, cr.body.id, [insertPage('Merged page', 'From the change request.')]);
    const merged = await h.rest('mergeChangeRequest', 'POST', `/v1/spaces/${space.id}/change-requests/${cr.body.number}/merge`, {
      token: t.owner.token,
    });
    expect(merged.status).toBe(200);
    const afterMerge = await get(`${url}/page-0`);
    expect(afterMerge.text).toContain('Merged page');
    expect(afterMerge.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect((await get(`${url}/merged-page`)).text).toContain('From the change request.');

    // A live edit of the page itself.
    await writeLive(h, t.owner.token, space.id, [{ operation: 'update_page', page: pageIds[0], document: { markdown: 'Edited body.' } }]);
    const edited = await get(`${url}/page-0`);
    expect(edited.text).toContain('Edited body.');
    expect(edited.text).not.toContain('Body of page 0');
    expect((await get(`${url}/page-0.md`)).text).toContain('Edited body.');
    expect((await get(`${url}/llms-full.txt`)).text).toContain('Edited body.');

    // The site's customization: its title and an announcement.
    const {
      updatedAt: _u,
      title: _t,
      ...current
    } = await s.ok('getSiteCustomizationById', 'GET', `${s.sitePath(t.orgId, site.id)}/customization`, { token: t.owner.token });
    await s.ok('updateSiteCustomizationById', 'PUT', `${s.sitePath(t.orgId, site.id)}/customization`, {
      token: t.owner.token,
      body: { ...current, title: 'Renamed docs', announcement: { enabled: true, message: 'Fresh announcement', style: 'info' } },
    });
    const customized = await get(`${url}/page-0`);
    expect(customized.text).toContain('Renamed docs');
    expect(customized.text).toContain('Fresh announcement');

    // The space's title (the variant switcher shows it) and the site's structure: a second site space.
    const other = await s.space(t.owner, 'Second variant');
    await writeLive(h, t.owner.token, other.id, [insertPage('Other', 'Other body')]);
    await s.siteSpace(t.owner, t.orgId, site.id, { spaceId: other.id });
    const withVariant = await get(`${url}/page-0`);
    expect(withVariant.text).toContain('Second variant');
    await s.ok('updateSpaceById', 'PATCH', `/v1/spaces/${other.id}`, { token: t.owner.token, body: { title: 'Renamed variant' } });
    const renamed = await get(`${url}/page-0`);
    expect(renamed.text).toContain('Renamed variant');
    expect(renamed.text).not.toContain('Second variant');

    // Unpublished: a 404 page at once.
    await s.ok('unpublishSite', 'POST', `${s.sitePath(t.orgId, site.id)}/unpublish`, { token: t.owner.token });
    expect((await get(`${url}/page-0`)).status).toBe(404);
  });

  it('visitors with other claims never share an answer, whichever comes first', async () => {
    const { site, url } = await siteOf('Adaptive', 2, {
      more: [
        insertPage('Beta notes', 'For beta testers', { condition: 'visitor.claims.unsigned.beta == true' }),
        insertPage('Pro notes', 'For pro', { condition: 'visitor.claims.plan == "pro"' }),
      ],
    });
    // Anonymous first, then a beta visitor: the beta page shows only to the latter.
    const anonymous = await get(`${url}/page-0`);
    expect(anonymous.text).not.toContain('Beta notes');
    const beta = cookiesOf(await get(`${url}/page-0?visitor.beta=true`));
    const betaPage = await get(`${url}/page-0`, { cookie: beta });
    expect(betaPage.text).toContain('Beta notes');
    expect(betaPage.headers.get('cache-control')).toBe('private, no-cache');
    expect((await get(`${url}/page-0`)).text).toBe(anonymous.text);
    // A visitor with beta=false sees what anyone sees, but from an entry of their own claims.
    const notBeta = cookiesOf(await get(`${url}/page-1?visitor.beta=false`));
    const notBetaPage = await get(`${url}/page-1`, { cookie: notBeta });
    expect(notBetaPage.text).not.toContain('Beta notes');
    // Signed claims: a pro visitor first, then anyone, then a visitor with another plan.
    const key = new TextEncoder().encode(siteVisitorKey(await serverKeys({ db: h.db, config: h.config }), site.id));
    const jwt = (claims: Record<string, unknown>) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(key);
    const pro = cookiesOf(await get(`${url}/page-1?jwt_token=${await jwt({ plan: 'pro' })}`));
    expect((await get(`${url}/page-1`, { cookie: pro })).text).toContain('Pro notes');
    expect((await get(`${url}/page-1`)).text).not.toContain('Pro notes');
    const free = cookiesOf(await get(`${url}/page-1?jwt_token=${await jwt({ plan: 'free' })}`));
    expect((await get(`${url}/page-1`, { cookie: free })).text).not.toContain('Pro notes');
    expect((await get(`${url}/pro-notes`, { cookie: free })).status).toBe(404);
    expect((await get(`${url}/pro-notes`, { cookie: pro })).status).toBe(200);
    expect((await get(`${url}/pro-notes`)).status).toBe(404);
    // llms.txt follows the claims too.
    expect((await get(`${url}/llms.txt`, { cookie: pro })).text).toContain('Pro notes');
    expect((await get(`${url}/llms.txt`)).text).not.toContain('Pro notes');
  });

  it('access is decided before the cache: a share-link page kept for a key holder is refused without it, and once revoked', async () => {
    const { site, url } = await siteOf('Shared', 1, { visibility: 'share-link' });
    const link = await s.ok(
      'createSiteShareLink',
      'POST',
      `${s.sitePath(t.orgId, site.id)}/share-links`,
      { token: t.owner.token, body: { name: 'Partner' } },
      201,
    );
    const shareKey = new URL(link.urls.published).searchParams.get('share')!;
    const cookie = cookiesOf(await get(`${url}/page-0?share=${shareKey}`));
    const page = await get(`${url}/page-0`, { cookie });
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('private, no-cache');
    const etag = page.headers.get('etag')!;
    expect((await get(`${url}/page-0`, { cookie })).text).toBe(page.text); // kept
    // Without the key: refused, even with the kept answer's tag, and nothing of it in the answer.
    for (const opts of [{}, { etag }, { token: t.outsider.token }, { cookie: 'lectern_share=wrong' }]) {
      const refused = await get(`${url}/page-0`, opts);
      expect(refused.status).toBe(404);
      expect(refused.text).not.toContain('Body of page 0');
      expect(refused.headers.get('etag')).toBeNull();
    }
    for (const path of ['page-0.md', 'llms-full.txt']) expect((await get(`${url}/${path}`)).status).toBe(404);
    // A member reaches it with a token.
    expect((await get(`${url}/page-0`, { token: t.guest.token })).status).toBe(200);
    // Revoked: the cookie no longer opens the kept page.
    await s.ok('updateSiteShareLinkById', 'PATCH', `${s.sitePath(t.orgId, site.id)}/share-links/${link.id}`, {
      token: t.owner.token,
      body: { active: false },
    });
    expect((await get(`${url}/page-0`, { cookie })).status).toBe(404);
    expect((await get(`${url}/page-0`, { cookie, etag })).status).toBe(404);
  });

  it('a hit costs the same statements for a space of 3 pages and of 300', async () => {
    const small = await siteOf('Small', 3);
    const large = await siteOf('Large', 300);
    const hit = async (url: string) => {
      await get(`${url}/page-1`);
      return (await counted(() => get(`${url}/page-1`)))[1];
    };
    const [smallHit, largeHit] = [await hit(small.url), await hit(large.url)];
    // The site's row with the fingerprint of what it shows, in one statement — none while that
    // state is kept (up to 1 s, no write since): 0 or 1, whatever the size of the space.
    for (const n of [smallHit, largeHit]) expect(n).toBeLessThanOrEqual(1);
    const [, notModified] = await counted(() => get(`${large.url}/page-1`, { etag: '"x"' }));
    expect(notModified).toBeLessThanOrEqual(1);
    console.log(`statements per kept page: ${smallHit} (3 pages), ${largeHit} (300 pages)`);
  });

  it('the site state is kept: a write through this process shows at once, one made elsewhere within a second', async () => {
    const { site, url } = await siteOf('Kept state', 1);
    expect((await get(`${url}/page-0`)).text).toContain('Kept state');
    // A write that is no mutation of this process (as another server's would be): the kept state
    // may serve the old title for up to a second, never longer.
    await h.db.prisma.site.update({ where: { id: site.id }, data: { title: 'Written elsewhere' } });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await get(`${url}/page-0`)).text).toContain('Written elsewhere');
    // Through the API of this process: at once.
    await s.ok('updateSiteById', 'PATCH', s.sitePath(t.orgId, site.id), { token: t.owner.token, body: { title: 'Written here' } });
    expect((await get(`${url}/page-0`)).text).toContain('Written here');
  });
});
