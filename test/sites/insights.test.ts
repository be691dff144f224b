import { beforeAll, describe, expect, it } from 'vitest';
import { BASE, setupHarness, type Harness, type World } from '../support/harness.js';
import { documentedStatuses } from '../support/openapi.js';
import { writeLive } from '../support/content-writes.js';
import { siteHelpers } from '../support/sites.js';

/**
 * Site insights: trackEventsInSiteById and aggregateSiteEvents work and validate
 * against the official schemas, bad input is a 400 naming the field, callers without rights are
 * refused, and the reader's own page views (server-side, no script) show up per page and day.
 */

let h: Harness;
const s = siteHelpers(() => h);
let t: World;
let other: World;
let siteId: string;
let sectionId: string;
let ssA: string;
let pageIntro: string;
let spaceA: string;
let base: string;

beforeAll(async () => {
  h = await setupHarness();
  t = await h.world('Insights');
  other = await h.world('Other');
  const a = await s.space(t.owner, 'Guide');
  spaceA = a.id;
  const intro = await writeLive(h, t.owner.token, a.id, [{ operation: 'insert_page', title: 'Intro', document: { markdown: 'Hello.' } }]);
  pageIntro = intro.pages[0]!;
  const site = await s.site(t.owner, t.orgId, { title: 'Docs' });
  siteId = site.id;
  const section = await s.section(t.owner, t.orgId, siteId, { spaceId: a.id, title: 'Guides' });
  sectionId = section.id;
  ssA = section.siteSpaces[0].id;
  await s.ok('publishSite', 'POST', `${s.sitePath(t.orgId, siteId)}/publish`, { token: t.owner.token });
  base = s.sitePath(t.orgId, siteId);
});

const today = () => `${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`;
const counts = async () =>
  JSON.stringify(await h.db.prisma.siteInsightDay.findMany({ orderBy: [{ pageId: 'asc' }, { eventType: 'asc' }] }));

async function refused(status: number, operationId: string, path: string, opts: { token: string; body?: unknown }, field?: string) {
  const before = await counts();
  const res = documentedStatuses(operationId).includes(String(status))
    ? await h.rest(operationId, 'POST', path, opts)
    : await h.call('POST', path, opts);
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({ error: { code: status, message: expect.any(String) } });
  if (field) expect(res.body.error.message.startsWith(`${field}:`), res.body.error.message).toBe(true);
  // Let a pending flush land before comparing.
  await h.rest('aggregateSiteEvents', 'POST', `${base}/insights/events/aggregate`, { token: t.owner.token, body: { range: 'last7Days' } });
  expect(await counts()).toBe(before);
}

const event = (type: string, page: string | null, extra: Record<string, unknown> = {}) => ({
  type,
  session: {
    sessionId: 'session-s1',
    visitorId: 'visitor-v1',
    cookies: { a: 'b' },
    ip: '203.0.113.9',
    userAgent: 'Visitor-Agent/1.0',
    language: 'en',
    referrer: null,
  },
  location: {
    url: `https://docs.test/intro`,
    siteSection: sectionId,
    siteSpace: ssA,
    siteShareKey: null,
    space: page ? spaceA : null,
    revision: null,
    page,
  },
  ...extra,
});

describe('site insights', () => {
  it('tracks events through the API and aggregates them per page and day (official shapes)', async () => {
    const body = {
      events: [
        event('page_view', pageIntro),
        event('page_view', pageIntro, { timestamp: new Date().toISOString() }),
        event('page_view', null),
        event('search_open', null),
      ],
    };
    const track = await h.rest('trackEventsInSiteById', 'POST', `${base}/insights/events`, { token: t.reader.token, body });
    expect(track.status, JSON.stringify(track.body)).toBe(204);

    const agg = await s.ok('aggregateSiteEvents', 'POST', `${base}/insights/events/aggregate`, {
      token: t.reader.token,
      body: {
        range: 'last7Days',
        where: [{ column: 'eventType', values: ['page_view'] }],
        groupBy: [{ column: 'page' }, { column: 'datetime', interval: 'day' }],
        order: { by: { column: 'eventsCount' }, direction: 'desc' },
      },
    });
    expect(agg.columns).toEqual([
      { column: 'page', values: [{ page: pageIntro, space: spaceA }, null] },
      { column: 'datetime', values: [today(), today()] },
      { column: 'eventsCount', values: [2, 1] },
    ]);
    // Nothing about the visitor is stored: only counters.
    const rows = await h.db.prisma.siteInsightDay.findMany({ where: { siteId } });
    // (Markers no random id can contain: "UA" alone was found inside a generated id.)
    expect(JSON.stringify(rows)).not.toMatch(/203\.0\.113|Visitor-Agent|visitor-v1|session-s1/);
    const byType = await s.ok('aggregateSiteEvents', 'POST', `${base}/insights/events/aggregate`, {
      token: t.owner.token,
      body: {
        range: { from: new Date(Date.now() - 86_400_000).toISOString(), to: new Date().toISOString() },
        select: [{ column: 'eventType' }, { column: 'eventsCount' }],
      },
    });
    expect(byType.columns).toEqual([
      { column: 'eventType', values: ['page_view', 'search_open'] },
      { column: 'eventsCount', values: [3, 1] },
    ]);
  });

  it('counts the reader page views server-side (no script), per page and day', async () => {
    const url = `${BASE}/public/${t.orgId}/sites/${siteId}/intro`;
    for (let i = 0; i < 3; i++) {
      const res = await h.app.fetch(new Request(url, { headers: { cookie: 'x=y' } }));
      expect(res.status).toBe(200);
      expect(await res.text()).not.toMatch(/insights/);
    }
    const agg = await s.ok('aggregateSiteEvents', 'POST', `${base}/insights/events/aggregate`, {
      token: t.owner.token,
      body: {
        range: 'last24Hours',
        where: [
          { column: 'page', values: [{ page: pageIntro, space: spaceA }] },
          { column: 'eventType', values: ['page_view'] },
        ],
        groupBy: [{ column: 'siteSpace' }, { column: 'page' }, { column: 'datetime' }],
      },
    });
    expect(agg.columns).toEqual([
      { column: 'siteSpace', values: [ssA] },
      { column: 'page', values: [{ page: pageIntro, space: spaceA }] },
      { column: 'datetime', values: [today()] },
      { column: 'eventsCount', values: [2 + 3] },
    ]);
  });

  it('refuses bad input naming the field, and callers without rights', async () => {
    const track = `${base}/insights/events`;
    const agg = `${base}/insights/events/aggregate`;
    await refused(400, 'trackEventsInSiteById', track, { token: t.owner.token, body: {} }, 'events');
    await refused(
      400,
      'trackEventsInSiteById',
      track,
      { token: t.owner.token, body: { events: [event('page_view', pageIntro), event('page_vue', pageIntro)] } },
      'events[1].type',
    );
    await refused(
      400,
      'trackEventsInSiteById',
      track,
      { token: t.owner.token, body: { events: [event('page_view', pageIntro, { timestamp: '2001-01-01T00:00:00Z' })] } },
      'events[0].timestamp',
    );
    await refused(
      400,
      'trackEventsInSiteById',
      track,
      { token: t.owner.token, body: { events: [{ ...event('page_view', 1 as never) }] } },
      'events[0].location.page',
    );
    await refused(400, 'aggregateSiteEvents', agg, { token: t.owner.token, body: {} }, 'range');
    await refused(400, 'aggregateSiteEvents', agg, { token: t.owner.token, body: { range: 'lastDecade' } }, 'range');
    await refused(
      400,
      'aggregateSiteEvents',
      agg,
      { token: t.owner.token, body: { range: 'last7Days', groupBy: [{ column: 'visitorsCount' }] } },
      'groupBy[0].column',
    );
    await refused(
      400,
      'aggregateSiteEvents',
      agg,
      { token: t.owner.token, body: { range: 'last7Days', select: [{ column: 'datetime', interval: 'hour' }] } },
      'select[0].interval',
    );
    await refused(
      400,
      'aggregateSiteEvents',
      agg,
      { token: t.owner.token, body: { range: 'last7Days', where: [{ column: 'page', operator: 'like', values: ['x'] }] } },
      'where[0].operator',
    );
    await refused(400, 'aggregateSiteEvents', agg, { token: t.owner.token, body: { range: 'last7Days', limit: 0 } }, 'limit');
    // Outsiders (another organization) get the site's 404; no token is a 401.
    await refused(404, 'trackEventsInSiteById', track, { token: other.owner.token, body: { events: [event('page_view', pageIntro)] } });
    await refused(404, 'aggregateSiteEvents', agg, { token: other.owner.token, body: { range: 'last7Days' } });
    expect((await h.call('POST', track, { token: null, body: { events: [event('page_view', pageIntro)] } })).status).toBe(401);
  });

  it('GraphQL: typed tracking and aggregation (values in the list of their kind)', async () => {
    const track = await h.graphql(
      t.reader.token,
      `mutation($o: ID!, $s: ID!, $input: SiteInsightsTrackEventsInput!) { trackSiteEvents(organizationId: $o, siteId: $s, input: $input) }`,
      {
        o: t.orgId,
        s: siteId,
        input: {
          events: [
            {
              type: 'page_post_feedback',
              session: { sessionId: 'g1' },
              location: { url: 'https://docs.test/a', page: pageIntro, space: spaceA },
              feedback: { rating: 'ok' },
            },
            { type: 'ask_view', session: {}, location: { url: 'https://docs.test/a', siteSpace: ssA } },
            {
              type: 'link_click',
              session: {},
              location: { url: 'https://docs.test/a' },
              link: { target: { kind: 'url', url: 'https://x.example' }, position: 'content' },
            },
            { type: 'search_open_result', session: {}, location: { url: 'https://docs.test/a' }, query: 'q', result: { recordId: 'r1' } },
          ],
        },
      },
    );
    expect(track.body.errors).toBeUndefined();
    expect(track.body.data.trackSiteEvents).toBe(true);
    const query = `query($o: ID!, $s: ID!, $q: SiteInsightsQueryInput!) { site(organizationId: $o, id: $s) { insights(query: $q) {
      columns { column datetimes days eventTypes ids pages { page space } ratings counts ratingCounts { ok good bad } }
    } } }`;
    const res = await h.graphql(t.owner.token, query, {
      o: t.orgId,
      s: siteId,
      q: {
        range: { custom: { from: new Date(Date.now() - 86_400_000).toISOString(), to: new Date().toISOString() } },
        where: [{ column: 'eventType', ids: ['page_post_feedback', 'ask_view'] }],
        groupBy: [{ column: 'eventType' }, { column: 'page' }],
        select: [{ column: 'eventType' }, { column: 'page' }, { column: 'pageFeedbackRating' }, { column: 'eventsCount' }],
        order: { by: { column: 'eventType' }, direction: 'asc' },
      },
    });
    expect(res.body.errors).toBeUndefined();
    const none = { datetimes: null, days: null, eventTypes: null, ids: null, pages: null, ratings: null, counts: null, ratingCounts: null };
    expect(res.body.data.site.insights.columns).toEqual([
      { ...none, column: 'eventType', eventTypes: ['ask_view', 'page_post_feedback'] },
      { ...none, column: 'page', pages: [null, { page: pageIntro, space: spaceA }] },
      {
        ...none,
        column: 'pageFeedbackRating',
        ratingCounts: [
          { ok: 0, good: 0, bad: 0 },
          { ok: 1, good: 0, bad: 0 },
        ],
      },
      { ...none, column: 'eventsCount', counts: [1, 1] },
    ]);
    // The range is one of two (oneOf style): both set is a 400 naming it; the service's own checks name the rest.
    const both = await h.graphql(t.owner.token, query, {
      o: t.orgId,
      s: siteId,
      q: { range: { preset: 'last7Days', custom: { from: new Date().toISOString(), to: new Date().toISOString() } } },
    });
    expect(both.body.errors?.[0]?.message).toBe('range: set exactly one of preset, custom');
    const unrecorded = await h.graphql(t.owner.token, query, {
      o: t.orgId,
      s: siteId,
      q: { range: { preset: 'last7Days' }, groupBy: [{ column: 'visitorsCount' }] },
    });
    expect(unrecorded.body.errors?.[0]?.message).toMatch(/^groupBy\[0\]\.column: is not recorded by Lectern/);
  });
});
