import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness, type World } from '../support/harness.js';
import { writeLive } from '../support/content-writes.js';
import { siteHelpers } from '../support/sites.js';

/**
 * The REST answers of site customization, site-space overrides, the published site's
 * customizations and insights, byte for byte (JSON.stringify) as recorded in
 * customization-rest-shapes.json for a well-filled site, and the 400s of a set of bad bodies. The
 * record was taken while these positions were JSON in GraphQL; their typed GraphQL must rebuild
 * the same bytes. Ids and times are replaced by placeholders before comparing.
 * `CAPTURE_REST_SHAPES=1` writes the record instead of comparing.
 */

const RECORD = fileURLToPath(new URL('./customization-rest-shapes.json', import.meta.url));
const capture = process.env.CAPTURE_REST_SHAPES === '1';

let h: Harness;
const s = siteHelpers(() => h);
let t: World;
let base: string;
const names = new Map<string, string>();
const answers: Record<string, string> = {};

function normalized(value: unknown): string {
  let text = JSON.stringify(value) ?? '<empty>';
  for (const [id, name] of names) text = text.split(id).join(name);
  // The day of the week of the counts is the day the test runs.
  text = text.replace(/("column":"dayOfWeek","values":\[)\d(\])/g, '$1<dow>$2');
  return text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>');
}

async function record(name: string, method: string, path: string, token: string, body?: unknown) {
  const res = await h.call(method, path, { token, body });
  answers[name] = `${res.status} ${normalized(res.body)}`;
  return res;
}

const ref = (kind: string, fields: Record<string, string>) => ({ kind, ...fields });
let pageId: string;
let spaceId: string;
let sectionId: string;
let ssA: string;
let ssB: string;

/** Every official section filled, written in the official schema's order. */
const fullBody = () => ({
  title: 'Handbook',
  localizedTitle: { fr: 'Manuel', 'pt-br': 'Manual', de: 'Handbuch' },
  styling: {
    theme: 'gradient',
    primaryColor: { light: '#112233', dark: '#445566' },
    tint: { color: { light: '#abc', dark: '#def' } },
    infoColor: { light: '#101010', dark: '#202020' },
    successColor: { light: '#303030', dark: '#404040' },
    warningColor: { light: '#505050', dark: '#606060' },
    dangerColor: { light: '#707070', dark: '#808080' },
    corners: 'circular',
    depth: 'flat',
    links: 'accent',
    font: {
      id: 'brand',
      custom: true,
      fontFamily: 'Brand Sans',
      fontFaces: [
        { weight: 400, sources: [{ url: 'https://fonts.example/brand-400.woff2', format: 'woff2' }] },
        { weight: 700, sources: [{ url: 'https://fonts.example/brand-700.woff' }] },
      ],
    },
    headingFont: null,
    monospaceFont: 'JetBrainsMono',
    background: 'match',
    icons: 'duotone',
    codeTheme: { default: { light: 'monochrome-light', dark: 'monochrome-dark' }, openapi: { light: 'default-light', dark: 'andromeeda' } },
    sidebar: { background: 'filled', list: 'pill' },
    search: 'prominent',
  },
  internationalization: { locale: 'pt-br' },
  favicon: { icon: { light: 'https://cdn.example/fav-light.png', dark: 'https://cdn.example/fav-dark.png' } },
  header: {
    preset: 'custom',
    logo: { light: 'https://cdn.example/logo-light.svg', dark: 'https://cdn.example/logo-dark.svg' },
    primaryLink: ref('url', { url: 'https://example.com' }),
    backgroundColor: { light: '#ffffff', dark: '#000000' },
    linkColor: { light: '#333333', dark: '#cccccc' },
    links: [
      {
        title: 'Guides',
        localizedTitle: { fr: 'Guides FR' },
        style: 'button-primary',
        to: ref('page', { page: pageId, space: spaceId }),
        links: [
          { title: 'Start', localizedTitle: { de: 'Anfang' }, to: ref('anchor', { anchor: 'install', page: pageId, space: spaceId }) },
          { title: 'Spec', to: ref('openapi', { spec: 'petstore' }) },
        ],
        condition: 'visitor.claims.plan == "pro"',
      },
      { title: 'More', to: null, links: [{ title: 'Tag', to: ref('tag', { tag: 'v1', space: spaceId }) }] },
    ],
  },
  footer: {
    logo: { light: 'https://cdn.example/f-light.svg', dark: 'https://cdn.example/f-dark.svg' },
    groups: [
      {
        title: 'Company',
        localizedTitle: { fr: 'Société' },
        links: [
          { title: 'About', to: ref('url', { url: 'https://example.com/about' }) },
          { title: 'Files', to: ref('file', { file: 'f1', space: spaceId }) },
          { title: 'Space', to: ref('space', { space: spaceId }) },
          { title: 'Team', to: ref('user', { user: 'u1' }) },
          { title: 'Shelf', to: ref('collection', { collection: 'c1' }) },
          { title: 'Block', to: ref('reusable-content', { reusableContent: 'r1', space: spaceId }) },
        ],
      },
    ],
    copyright: '© Example',
  },
  announcement: {
    enabled: true,
    message: 'Version 2 is out',
    localizedMessage: { fr: 'La version 2 est sortie' },
    link: { title: 'Read', localizedTitle: { fr: 'Lire' }, to: ref('url', { url: 'https://example.com/v2' }) },
    style: 'warning',
  },
  themes: { default: 'system', toggeable: false },
  feedback: { enabled: true },
  ai: {
    mode: 'assistant',
    greeting: 'Ask me',
    localizedGreeting: { fr: 'Demandez' },
    suggestions: ['How to install?', 'Where are the keys?'],
    instructions: 'Be brief.',
  },
  advancedCustomization: { enabled: false },
  pageActions: { items: ['markdown', 'assistant', 'pdf', 'git'] },
  externalLinks: { target: 'blank' },
  pagination: { enabled: false },
  trademark: { enabled: false },
  privacyPolicy: { url: 'https://example.com/privacy' },
  socialPreview: { url: 'https://example.com/preview.png' },
  socialAccounts: [
    { platform: 'github', handle: 'example', display: { footer: true, header: true } },
    { platform: 'bluesky', handle: 'example.bsky.social', display: { footer: false, header: false } },
  ],
  insights: { trackingCookie: false },
});

beforeAll(async () => {
  h = await setupHarness();
  t = await h.world('Shapes');
  const space = await s.space(t.owner, 'Guide');
  spaceId = space.id;
  pageId = (await writeLive(h, t.owner.token, space.id, [{ operation: 'insert_page', title: 'Intro', document: { markdown: 'Hi.' } }]))
    .pages[0]!;
  const other = await s.space(t.owner, 'Other');
  const site = await s.site(t.owner, t.orgId, { title: 'Docs' });
  base = s.sitePath(t.orgId, site.id);
  const section = await s.section(t.owner, t.orgId, site.id, { spaceId, title: 'Guides' });
  sectionId = section.id;
  ssA = section.siteSpaces[0].id;
  ssB = (await s.siteSpace(t.owner, t.orgId, site.id, { spaceId: other.id, sectionId })).id;
  await s.ok('publishSite', 'POST', `${base}/publish`, { token: t.owner.token });
  for (const [id, name] of [
    [site.id, '<site>'],
    [t.orgId, '<org>'],
    [spaceId, '<space>'],
    [other.id, '<other>'],
    [pageId, '<page>'],
    [sectionId, '<section>'],
    [ssA, '<ssA>'],
    [ssB, '<ssB>'],
  ] as const)
    names.set(id, name);
});

describe('REST answers of customization and insights, byte for byte', () => {
  it('site customization: defaults, a full PUT, a 0.146.0 body, reads', async () => {
    const token = t.owner.token;
    await record('get-defaults', 'GET', `${base}/customization`, token);
    await record('put-full', 'PUT', `${base}/customization`, token, fullBody());
    await record('get-full', 'GET', `${base}/customization`, token);
    const legacy = JSON.parse(JSON.stringify((await h.call('GET', `${base}/customization`, { token })).body));
    legacy.pdf = { enabled: false };
    legacy.git = { showEditLink: true };
    delete legacy.pageActions.items;
    legacy.pageActions.mcp = false;
    await record('put-legacy', 'PUT', `${base}/customization`, token, legacy);
    await record('put-sparse', 'PUT', `${base}/customization`, token, {
      styling: { theme: 'bold', font: 'Roboto', headingFont: 'Lato' },
      favicon: { emoji: '📘' },
      header: { preset: 'none', links: [] },
    });
    await record('put-full-again', 'PUT', `${base}/customization`, token, fullBody());
  });

  it('site-space overrides and the published site', async () => {
    const token = t.owner.token;
    const path = `${base}/site-spaces/${ssB}/customization`;
    await record('get-override-none', 'GET', path, token);
    await record('patch-override', 'PATCH', path, token, {
      title: 'Version B',
      localizedTitle: { fr: 'Version B FR' },
      styling: {
        theme: 'muted',
        primaryColor: { light: '#010203', dark: '#040506' },
        tint: { color: { light: '#111', dark: '#222' } },
        corners: 'straight',
        sidebar: { list: 'line' },
        codeTheme: { openapi: { light: 'github-light', dark: 'github-dark' } },
      },
      favicon: { emoji: '🚀' },
      announcement: { enabled: false, message: 'Old news', style: 'info' },
      header: {
        primaryLink: ref('url', { url: 'https://b.example' }),
        links: [{ title: 'Only', to: ref('space', { space: spaceId }), links: [] }],
      },
      footer: { copyright: 'B only' },
      themes: { default: 'dark' },
      feedback: { enabled: false },
    });
    await record('patch-override-remove', 'PATCH', path, token, {
      title: null,
      styling: { tint: null, corners: null },
      footer: { copyright: null },
    });
    await record('get-override', 'GET', path, token);
    await record('get-override-a', 'GET', `${base}/site-spaces/${ssA}/customization`, token);
    const published = await h.call('GET', `${base}/published`, { token });
    answers['published-customizations'] = `${published.status} ${normalized(published.body.customizations ?? published.body)}`;
  });

  it('bad customization bodies: the same 400s', async () => {
    const token = t.owner.token;
    const bad: [string, unknown][] = [
      ['unknown-top', { nope: 1 }],
      ['unknown-nested', { styling: { theme: 'clean', shade: 'x' } }],
      ['bad-enum', { styling: { theme: 'neon' } }],
      ['bad-color', { styling: { primaryColor: { light: 'red', dark: '#000' } } }],
      ['bad-type', { feedback: { enabled: 'yes' } }],
      ['bad-ref-kind', { header: { preset: 'default', links: [{ title: 'x', links: [], to: { kind: 'planet' } }] } }],
      ['missing-ref-field', { header: { preset: 'default', links: [{ title: 'x', links: [], to: { kind: 'page' } }] } }],
      ['bad-uri', { favicon: { icon: { light: 'javascript:alert(1)', dark: 'https://x.example/a.png' } } }],
      ['bad-font', { styling: { font: 'Comic' } }],
      ['bad-locale', { localizedTitle: { xx: 'Nope' } }],
      ['bad-legacy-switch', { pageActions: { mcp: 'on' } }],
      ['bad-git', { git: { showEditLink: true, other: 1 } }],
      ['bad-array', { socialAccounts: 'github' }],
      ['null-required', { styling: null }],
    ];
    for (const [name, body] of bad) await record(`put-bad-${name}`, 'PUT', `${base}/customization`, token, body);
    const path = `${base}/site-spaces/${ssB}/customization`;
    const badPatch: [string, unknown][] = [
      ['unknown', { nope: 1 }],
      ['bad-enum', { styling: { corners: 'sharp' } }],
      ['bad-title', { title: 'x' }],
      ['bad-ref', { header: { primaryLink: { kind: 'url' } } }],
      ['bad-locale', { localizedTitle: { xx: 'Nope' } }],
    ];
    for (const [name, body] of badPatch) await record(`patch-bad-${name}`, 'PATCH', path, token, body);
    // The body is checked before the site is looked up (as every REST body that becomes typed
    // GraphQL input): a bad body to a site that does not exist is the body's 400.
    const missing = await h.call('PUT', `${base.replace(/sites\/[^/]+/, 'sites/nope')}/customization`, { token, body: { nope: 1 } });
    expect(missing.body).toEqual({ error: { code: 400, message: 'nope: is not a known field' } });
    const missingGood = await h.call('PUT', `${base.replace(/sites\/[^/]+/, 'sites/nope')}/customization`, { token, body: {} });
    expect(missingGood.body).toEqual({ error: { code: 404, message: 'Site not found' } });
  });

  it('insights: tracking and aggregations', async () => {
    const token = t.owner.token;
    const location = (page: string | null) => ({
      url: 'https://docs.test/intro',
      siteSection: sectionId,
      siteSpace: ssA,
      siteShareKey: null,
      space: page ? spaceId : null,
      revision: null,
      page,
    });
    const session = { sessionId: 's1', visitorId: 'v1', cookies: { a: 'b' }, ip: '203.0.113.9', userAgent: 'UA', language: 'en' };
    const events = [
      { type: 'page_view', session, location: location(pageId) },
      { type: 'page_view', session, location: location(pageId), timestamp: new Date().toISOString() },
      { type: 'page_view', session, location: location(null) },
      { type: 'search_open', session, location: location(null) },
      { type: 'search_type_query', session, location: location(null), query: 'install' },
      { type: 'page_post_feedback', session, location: location(pageId), feedback: { rating: 'good' } },
      { type: 'page_post_feedback', session, location: location(pageId), feedback: { rating: 'bad', comment: 'meh' } },
      {
        type: 'link_click',
        session,
        location: location(pageId),
        link: { target: ref('url', { url: 'https://example.com' }), position: 'content' },
      },
    ];
    await record('track', 'POST', `${base}/insights/events`, token, { events });
    const agg = `${base}/insights/events/aggregate`;
    const queries: [string, unknown][] = [
      ['default', { range: 'last7Days' }],
      [
        'pages',
        {
          range: 'last30Days',
          where: [{ column: 'eventType', values: ['page_view'] }],
          groupBy: [{ column: 'page' }, { column: 'datetime', interval: 'day' }],
          order: { by: { column: 'eventsCount' }, direction: 'desc' },
        },
      ],
      [
        'types',
        {
          range: { from: new Date(Date.now() - 86_400_000).toISOString(), to: new Date().toISOString() },
          select: [{ column: 'eventType' }, { column: 'eventsCount' }],
        },
      ],
      [
        'ids',
        {
          range: 'last24Hours',
          groupBy: [{ column: 'siteSection' }, { column: 'siteSpace' }, { column: 'dayOfWeek' }],
          where: [{ column: 'page', operator: 'notIn', values: [null] }],
          limit: 10,
        },
      ],
      [
        'feedback',
        {
          range: 'lastYear',
          groupBy: [{ column: 'eventPageFeedbackRating' }],
          select: [{ column: 'eventPageFeedbackRating' }, { column: 'pageFeedbackRating' }, { column: 'eventsCount' }],
          order: { by: { column: 'eventPageFeedbackRating' }, direction: 'asc' },
        },
      ],
      [
        'rating-by-page',
        {
          range: 'last3Months',
          groupBy: [{ column: 'page' }],
          select: [{ column: 'page' }, { column: 'pageFeedbackRating' }],
          where: [{ column: 'eventType', values: ['page_post_feedback'] }],
        },
      ],
      [
        'week',
        {
          range: 'last7Days',
          groupBy: [{ column: 'datetime', interval: 'week' }],
          where: [{ column: 'dayOfWeek', operator: 'greaterThanOrEqual', values: [1] }],
        },
      ],
    ];
    for (const [name, body] of queries) await record(`aggregate-${name}`, 'POST', agg, token, body);
    const badQueries: [string, unknown][] = [
      ['no-range', {}],
      ['bad-preset', { range: 'lastDecade' }],
      ['bad-column', { range: 'last7Days', groupBy: [{ column: 'visitorsCount' }] }],
      ['bad-interval', { range: 'last7Days', groupBy: [{ column: 'datetime', interval: 'hour' }] }],
      ['bad-operator', { range: 'last7Days', where: [{ column: 'eventType', operator: 'like', values: ['x'] }] }],
      ['bad-limit', { range: 'last7Days', limit: 0 }],
      ['bad-order', { range: 'last7Days', order: { by: { column: 'eventsCount' }, direction: 'up' } }],
      ['bad-range', { range: { from: 'yesterday', to: new Date().toISOString() } }],
      ['aggregate-grouped', { range: 'last7Days', groupBy: [{ column: 'eventsCount' }] }],
    ];
    for (const [name, body] of badQueries) await record(`aggregate-bad-${name}`, 'POST', agg, token, body);
    const badEvents: [string, unknown][] = [
      ['no-events', {}],
      ['bad-type', { events: [{ type: 'nap', session, location: location(null) }] }],
      ['no-session', { events: [{ type: 'page_view', location: location(null) }] }],
      ['bad-url', { events: [{ type: 'page_view', session, location: { ...location(null), url: 'nope' } }] }],
      ['bad-rating', { events: [{ type: 'page_post_feedback', session, location: location(pageId), feedback: { rating: 'meh' } }] }],
      ['bad-timestamp', { events: [{ type: 'page_view', session, location: location(null), timestamp: '2001-01-01T00:00:00Z' }] }],
      ['bad-id', { events: [{ type: 'page_view', session, location: { ...location(null), page: 5 } }] }],
    ];
    for (const [name, body] of badEvents) await record(`track-bad-${name}`, 'POST', `${base}/insights/events`, token, body);
  });

  it('loose bodies the services always took answer as their plain equivalents (what Lectern does not read is ignored)', async () => {
    const token = t.owner.token;
    const agg = `${base}/insights/events/aggregate`;
    const plain = {
      range: 'last30Days',
      where: [{ column: 'page', operator: 'notIn', values: [pageId, null] }],
      groupBy: [{ column: 'eventType' }],
    };
    const loose = {
      range: 'last30Days',
      extra: { any: 'thing' },
      where: [{ column: 'page', operator: 'notIn', values: [{ page: pageId, space: 5, more: true }, { page: null }], note: 'x' }],
      groupBy: [{ column: 'eventType', claim: 'ignored' }],
    };
    const a = await h.call('POST', agg, { token, body: plain });
    const b = await h.call('POST', agg, { token, body: loose });
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(JSON.stringify(b.body)).toBe(JSON.stringify(a.body));
    const event = {
      type: 'page_view',
      session: { sessionId: 's', visitorId: 'v', cookies: { c: '1' }, visitorAuthClaims: { plan: 'pro' }, anything: [1] },
      location: {
        url: 'https://docs.test/x',
        displayContext: 'site',
        siteShareKey: 'k',
        revision: 'r',
        page: pageId,
        space: spaceId,
        other: 1,
      },
      unknownField: { deep: true },
    };
    const tracked = await h.call('POST', `${base}/insights/events`, { token, body: { events: [event], extra: 1 } });
    expect(tracked.status, JSON.stringify(tracked.body)).toBe(204);
  });

  it('matches the record', () => {
    if (capture) {
      writeFileSync(RECORD, `${JSON.stringify(answers, null, 1)}\n`);
      return;
    }
    const expected = JSON.parse(readFileSync(RECORD, 'utf8')) as Record<string, string>;
    expect(Object.keys(answers)).toEqual(Object.keys(expected));
    for (const [name, text] of Object.entries(expected)) expect(answers[name], name).toBe(text);
  });
});
