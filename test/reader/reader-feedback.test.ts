import { beforeAll, describe, expect, it } from 'vitest';
import { BASE, setupHarness, type Harness, type World } from '../support/harness.js';
import { insertPage, writeLive } from '../support/content-writes.js';
import { siteHelpers } from '../support/sites.js';

/**
 * Page feedback on published sites: the customization's `feedback.enabled` shows
 * "Was this page helpful?" with the official ratings (good, ok, bad) as a plain form (no script)
 * posting to Lectern's own `<site URL>/~gitbook/feedback`, which counts an official
 * `page_post_feedback` (aggregateSiteEvents counts it, by rating) and answers 303 to the page's
 * `?feedback=thanks`.
 */
let h: Harness;
const s = siteHelpers(() => h);
let t: World;

type Got = { status: number; text: string; headers: Headers };
async function get(url: string, cookie?: string): Promise<Got> {
  const res = await h.app.fetch(new Request(url, { headers: cookie ? { cookie } : {} }));
  return { status: res.status, text: await res.text(), headers: res.headers };
}
async function post(url: string, fields: Record<string, string>, cookie?: string): Promise<Got> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (cookie) headers.cookie = cookie;
  const res = await h.app.fetch(new Request(url, { method: 'POST', headers, body: new URLSearchParams(fields).toString() }));
  return { status: res.status, text: await res.text(), headers: res.headers };
}
const cookiesOf = (res: Got) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');
const decode = (v: string) => v.replace(/&#x26;|&amp;/g, '&').replace(/&quot;/g, '"');

/** A published site over one new space of two pages; its URL and ids. */
async function siteOf(title: string, opts: { visibility?: string; publish?: boolean } = {}) {
  const space = await s.space(t.owner, `${title} space`);
  const { pages } = await writeLive(h, t.owner.token, space.id, [insertPage('Intro', 'Intro body.'), insertPage('Usage', 'Usage body.')]);
  const site = await s.site(t.owner, t.orgId, { title, visibility: opts.visibility ?? 'public', spaces: [space.id] });
  if (opts.publish !== false) await s.ok('publishSite', 'POST', `${s.sitePath(t.orgId, site.id)}/publish`, { token: t.owner.token });
  return { space, site, pages: pages as string[], url: `${BASE}/public/${t.orgId}/sites/${site.id}` };
}

async function setFeedback(siteId: string, enabled: boolean) {
  const path = `${s.sitePath(t.orgId, siteId)}/customization`;
  const { updatedAt: _u, title: _t, ...current } = await s.ok('getSiteCustomizationById', 'GET', path, { token: t.owner.token });
  await s.ok('updateSiteCustomizationById', 'PUT', path, { token: t.owner.token, body: { ...current, feedback: { enabled } } });
}

/** The form's hidden fields on a page. */
function formOf(html: string): { action: string; page: string; path: string } {
  const form = /<form class="feedback" method="post" action="([^"]+)">(.*?)<\/form>/s.exec(html);
  expect(form, 'the feedback form').toBeTruthy();
  const hidden = (name: string) => decode(new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(form![2]!)![1]!);
  return { action: decode(form![1]!), page: hidden('page'), path: hidden('path') };
}

async function feedbackCounts(siteId: string, token = t.owner.token) {
  return s.ok('aggregateSiteEvents', 'POST', `${s.sitePath(t.orgId, siteId)}/insights/events/aggregate`, {
    token,
    body: {
      range: 'last24Hours',
      where: [{ column: 'eventType', values: ['page_post_feedback'] }],
      groupBy: [{ column: 'page' }, { column: 'eventPageFeedbackRating' }],
      order: { by: { column: 'eventsCount' }, direction: 'desc' },
    },
  });
}

beforeAll(async () => {
  h = await setupHarness();
  t = await s.team();
});

describe('page feedback', () => {
  it('is off by default: no form, the route is a 404', async () => {
    const { url, pages } = await siteOf('Quiet docs');
    const page = await get(`${url}/intro`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('class="feedback"');
    expect(page.text).not.toContain('Was this page helpful?');
    const res = await post(`${url}/~gitbook/feedback`, { page: pages[0]!, path: '/intro', rating: 'good' });
    expect(res.status).toBe(404);
    expect(res.text).toContain('Page not found');
  });

  it('enabled: an accessible form without script; a rating is counted (official page_post_feedback) and answered by a 303 to the thank-you', async () => {
    const { url, site, pages, space } = await siteOf('Rated <docs>');
    await setFeedback(site.id, true);
    const page = await get(`${url}/intro`);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<fieldset><legend>Was this page helpful\?<\/legend>/);
    expect(page.text).toMatch(
      /<button type="submit" name="rating" value="good">Good<\/button><button type="submit" name="rating" value="ok">OK<\/button><button type="submit" name="rating" value="bad">Bad<\/button>/,
    );
    // The CSP lets the form post to the site (same origin), and no script was added.
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(page.text.match(/<script>/g)).toHaveLength(1);
    const form = formOf(page.text);
    expect(form).toEqual({ action: `${url}/~gitbook/feedback`, page: pages[0], path: '/intro' });

    const res = await post(form.action, { page: form.page, path: form.path, rating: 'good' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${url}/intro?feedback=thanks`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    await post(form.action, { page: form.page, path: form.path, rating: 'good' });
    await post(form.action, { page: pages[1]!, path: '/usage', rating: 'bad' });

    // The thank-you replaces the buttons; the plain page keeps them (its own cache entry, either order).
    const thanks = await get(`${url}/intro?feedback=thanks`);
    expect(thanks.status).toBe(200);
    expect(thanks.text).toContain('<p class="feedback" role="status">Thank you for your feedback.</p>');
    expect(thanks.text).not.toContain('<form class="feedback"');
    const again = await get(`${url}/intro`);
    expect(again.text).toContain('<form class="feedback"');
    expect(again.text).not.toContain('Thank you for your feedback');
    expect((await get(`${url}/intro?feedback=thanks`)).text).toContain('Thank you for your feedback.');

    // aggregateSiteEvents (official schema through h.rest) counts them by page and rating.
    const agg = await feedbackCounts(site.id, t.reader.token);
    expect(agg.columns).toEqual([
      {
        column: 'page',
        values: [
          { page: pages[0], space: space.id },
          { page: pages[1], space: space.id },
        ],
      },
      { column: 'eventPageFeedbackRating', values: ['good', 'bad'] },
      { column: 'eventsCount', values: [2, 1] },
    ]);
    const summary = await s.ok('aggregateSiteEvents', 'POST', `${s.sitePath(t.orgId, site.id)}/insights/events/aggregate`, {
      token: t.owner.token,
      body: {
        range: 'last7Days',
        select: [{ column: 'eventType' }, { column: 'pageFeedbackRating' }, { column: 'eventsCount' }],
        where: [{ column: 'eventType', values: ['page_post_feedback'] }],
      },
    });
    expect(summary.columns).toEqual([
      { column: 'eventType', values: ['page_post_feedback'] },
      { column: 'pageFeedbackRating', values: [{ ok: 0, good: 2, bad: 1 }] },
      { column: 'eventsCount', values: [3] },
    ]);
    // The thank-you page is not a second page view.
    const views = await s.ok('aggregateSiteEvents', 'POST', `${s.sitePath(t.orgId, site.id)}/insights/events/aggregate`, {
      token: t.owner.token,
      body: {
        range: 'last7Days',
        where: [
          { column: 'eventType', values: ['page_view'] },
          { column: 'page', values: [{ page: pages[0], space: space.id }] },
        ],
      },
    });
    expect(views.columns).toEqual([{ column: 'eventsCount', values: [2] }]);
  });

  it('refuses a page not of the site, a page at another path, or another rating: 400 naming the field, nothing counted', async () => {
    const { url, site, pages } = await siteOf('Strict docs');
    await setFeedback(site.id, true);
    const other = await siteOf('Other docs');
    const before = JSON.stringify(await feedbackCounts(site.id));
    for (const [fields, field] of [
      [{ page: other.pages[0]!, path: '/intro', rating: 'good' }, 'page'],
      [{ page: pages[1]!, path: '/intro', rating: 'good' }, 'page'],
      [{ page: pages[0]!, path: '/no/such/page', rating: 'good' }, 'page'],
      [{ path: '/intro', rating: 'good' }, 'page'],
      [{ page: pages[0]!, path: '/intro', rating: 'great' }, 'rating'],
      [{ page: pages[0]!, path: '/intro', rating: '<b>' }, 'rating'],
      [{ page: pages[0]!, path: '/intro' }, 'rating'],
    ] as const) {
      const res = await post(`${url}/~gitbook/feedback`, fields);
      expect(res.status, JSON.stringify(fields)).toBe(400);
      const body = JSON.parse(res.text);
      expect(body).toEqual({ error: { code: 400, message: expect.any(String) } });
      expect(body.error.message.startsWith(`${field}:`), body.error.message).toBe(true);
      expect(res.text).not.toContain('<b>');
    }
    expect(JSON.stringify(await feedbackCounts(site.id))).toBe(before);
  });

  it('a share-link site: refused without the key as its page is; with the share cookie the rating is counted; no key in the page', async () => {
    const { url, site, pages } = await siteOf('Shared docs', { visibility: 'share-link' });
    await setFeedback(site.id, true);
    const fields = { page: pages[0]!, path: '/intro', rating: 'ok' };
    const refused = await post(`${url}/~gitbook/feedback`, fields);
    expect(refused.status).toBe((await get(`${url}/intro`)).status);
    expect(refused.status).toBe(404);
    expect((await post(`${url}/~gitbook/feedback`, fields, 'lectern_share=wrong')).status).toBe(404);
    expect((await feedbackCounts(site.id)).columns[2].values).toEqual([]);

    const link = await s.ok(
      'createSiteShareLink',
      'POST',
      `${s.sitePath(t.orgId, site.id)}/share-links`,
      { token: t.owner.token, body: { name: 'Partner' } },
      201,
    );
    const key = new URL(link.urls.published).searchParams.get('share')!;
    const cookie = cookiesOf(await get(`${url}/intro?share=${key}`));
    const page = await get(`${url}/intro`, cookie);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(key);
    const form = formOf(page.text);
    expect(form.action).not.toContain(key);
    const res = await post(form.action, { page: form.page, path: form.path, rating: 'ok' }, cookie);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${url}/intro?feedback=thanks`);
    expect(res.headers.get('location')).not.toContain(key);
    expect((await feedbackCounts(site.id)).columns[2].values).toEqual([1]);
  });

  it("at a site's custom hostname: the form posts to /~gitbook/feedback there, answered by a 303 to the page there", async () => {
    const { site, pages } = await siteOf('Hosted feedback');
    await setFeedback(site.id, true);
    const host = 'docs.feedback-reader.test';
    // As a proven claim leaves it (the hostname tests of the sites module prove one through DNS).
    await h.db.prisma.site.update({ where: { id: site.id }, data: { hostname: host } });
    const form = formOf((await get(`http://${host}/usage`)).text);
    expect(form).toEqual({ action: '/~gitbook/feedback', page: pages[1], path: '/usage' });
    const res = await post(`http://${host}${form.action}`, { page: form.page, path: form.path, rating: 'bad' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/usage?feedback=thanks');
    expect((await get(`http://${host}/usage?feedback=thanks`)).text).toContain('Thank you for your feedback.');
    expect((await feedbackCounts(site.id)).columns[1]).toEqual({ column: 'eventPageFeedbackRating', values: ['bad'] });
  });

  it('a site not published (or not there): 404', async () => {
    const { url, site, pages } = await siteOf('Draft docs', { publish: false });
    await setFeedback(site.id, true);
    const res = await post(`${url}/~gitbook/feedback`, { page: pages[0]!, path: '/intro', rating: 'good' });
    expect(res.status).toBe(404);
    expect(
      (await post(`${BASE}/public/${t.orgId}/sites/no-such-site/~gitbook/feedback`, { page: pages[0]!, path: '/intro', rating: 'good' }))
        .status,
    ).toBe(404);
    expect((await feedbackCounts(site.id)).columns[2].values).toEqual([]);
  });

  it('trackEventsInSiteById: page_post_feedback needs its official feedback.rating (400 naming it) and is counted with it', async () => {
    const { site, pages, space } = await siteOf('Tracked docs');
    const events = (feedback?: unknown) => ({
      events: [
        {
          type: 'page_post_feedback',
          session: { sessionId: 's', visitorId: 'v', cookies: {}, userAgent: 'UA', language: null, referrer: null },
          location: {
            url: 'https://docs.test/intro',
            siteSection: null,
            siteSpace: null,
            siteShareKey: null,
            space: space.id,
            revision: null,
            page: pages[0],
          },
          ...(feedback === undefined ? {} : { feedback }),
        },
      ],
    });
    const path = `${s.sitePath(t.orgId, site.id)}/insights/events`;
    for (const bad of [undefined, {}, { rating: 'great' }]) {
      const res = await h.call('POST', path, { token: t.owner.token, body: events(bad) });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/^events\[0\]\.feedback\.rating:/);
    }
    expect((await h.rest('trackEventsInSiteById', 'POST', path, { token: t.owner.token, body: events({ rating: 'ok' }) })).status).toBe(
      204,
    );
    const agg = await feedbackCounts(site.id);
    expect(agg.columns[1]).toEqual({ column: 'eventPageFeedbackRating', values: ['ok'] });
  });
});
