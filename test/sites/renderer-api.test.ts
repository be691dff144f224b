import { beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness, type World } from '../support/harness.js';
import { documentedStatuses } from '../support/openapi.js';
import { writeLive } from '../support/content-writes.js';
import { siteHelpers } from '../support/sites.js';
import { findRedirect, siteCustomization } from '../../src/modules/sites/index.js';
import { createContext } from '../../src/context.js';
import { createUrls } from '../../src/urls.js';

const readerContext = () =>
  createContext(
    { db: h.db, config: h.config, urls: createUrls(h.config.publicUrl) } as never,
    { id: '', email: '', displayName: 'Visitor', photoURL: null, emailVerified: false, createdAt: new Date(0) } as never,
  );

/**
 * The API a renderer needs: site customization and site-space overrides, redirects,
 * site search. Each operation: it works and its answer validates against the official schema
 * (`h.rest`), bad input is a 400 naming the field, and a caller without rights is refused
 * (another organization: 404; a reader: 403 on writes). One seeded site for the whole file.
 */

let h: Harness;
const s = siteHelpers(() => h);
let t: World;
let other: World;
let siteId: string;
let ssA: string;
let ssB: string;
let sectionId: string;
let spaceA: string;
let pageUsage: string;
let base: string;

beforeAll(async () => {
  h = await setupHarness();
  t = await h.world('Renderer');
  other = await h.world('Other');
  const a = await s.space(t.owner, 'Version A');
  const b = await s.space(t.owner, 'Version B');
  spaceA = a.id;
  await writeLive(h, t.owner.token, a.id, [
    { operation: 'insert_page', title: 'Intro', document: { markdown: 'Install the zephyr widget here.' } },
  ]);
  const usage = await writeLive(h, t.owner.token, a.id, [
    { operation: 'insert_page', title: 'Usage', document: { markdown: 'How to use it.' } },
  ]);
  pageUsage = usage.pages[0]!;
  await writeLive(h, t.owner.token, b.id, [
    { operation: 'insert_page', title: 'Welcome', document: { markdown: 'The zephyr widget in version B.' } },
  ]);
  const site = await s.site(t.owner, t.orgId, { title: 'Docs' });
  siteId = site.id;
  const section = await s.section(t.owner, t.orgId, siteId, { spaceId: a.id, title: 'Guides' });
  sectionId = section.id;
  const b2 = await s.siteSpace(t.owner, t.orgId, siteId, { spaceId: b.id, sectionId });
  ssB = b2.id;
  ssA = section.siteSpaces.find((x: any) => x.space.id === a.id).id;
  await s.ok('publishSite', 'POST', `${s.sitePath(t.orgId, siteId)}/publish`, { token: t.owner.token });
  base = s.sitePath(t.orgId, siteId);
});

const state = async () =>
  JSON.stringify(
    await Promise.all([
      h.db.prisma.siteCustomization.findMany({ orderBy: { siteId: 'asc' } }),
      h.db.prisma.siteSpaceCustomization.findMany({ orderBy: { siteSpaceId: 'asc' } }),
      h.db.prisma.siteRedirect.findMany({ orderBy: { id: 'asc' } }),
    ]),
  );

async function refused(
  status: number,
  operationId: string,
  method: string,
  path: string,
  opts: { token: string; body?: unknown },
  field?: string,
) {
  const before = await state();
  const res = documentedStatuses(operationId).includes(String(status))
    ? await h.rest(operationId, method, path, opts)
    : await h.call(method, path, opts);
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({ error: { code: status, message: expect.any(String) } });
  if (field) expect(res.body.error.message.startsWith(`${field}:`), res.body.error.message).toBe(true);
  expect(await state()).toBe(before);
}

const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
const merge = (a: Record<string, any>, b: Record<string, any>): Record<string, any> =>
  Object.fromEntries(
    [...new Set([...Object.keys(a), ...Object.keys(b)])].map((k) => [
      k,
      k in b ? (isObj(a[k]) && isObj(b[k]) ? merge(a[k], b[k]) : b[k]) : a[k],
    ]),
  );
/** A PUT body as a renderer's settings page sends it: the settings read, changed, sent back whole (both official descriptions require every section). */
async function fullBody(changes: Record<string, any>, drop: string[] = []) {
  const {
    updatedAt: _u,
    title: _t,
    ...current
  } = await s.ok('getSiteCustomizationById', 'GET', `${base}/customization`, { token: t.owner.token });
  const body = merge(current, changes);
  for (const k of drop) delete body[k];
  return body;
}

describe('site customization', () => {
  it('reads the defaults titled after the site, then a PUT replaces them (what it leaves out reverts to the defaults)', async () => {
    const first = await s.ok('getSiteCustomizationById', 'GET', `${base}/customization`, { token: t.reader.token });
    expect(first.title).toBe('Docs');
    expect(first.updatedAt).toBeUndefined();
    expect(first.styling.theme).toBe('clean');

    const put = await s.ok('updateSiteCustomizationById', 'PUT', `${base}/customization`, {
      token: t.creator.token,
      body: await fullBody({
        title: 'Handbook',
        styling: { primaryColor: { light: '#ff0000', dark: '#00ff00' } },
        announcement: { enabled: true, message: 'New!', style: 'info' },
        pagination: { enabled: false },
      }),
    });
    expect(put).toMatchObject({
      title: 'Handbook',
      styling: { theme: 'clean', primaryColor: { light: '#ff0000', dark: '#00ff00' } },
      pagination: { enabled: false },
      announcement: { message: 'New!' },
    });
    expect(put.updatedAt).toEqual(expect.any(String));
    expect(await s.ok('getSiteCustomizationById', 'GET', `${base}/customization?unmasked=true`, { token: t.reader.token })).toEqual(put);

    // A full replacement: a second PUT without the announcement and the title drops them (the title is the site's again).
    const again = await s.ok('updateSiteCustomizationById', 'PUT', `${base}/customization`, {
      token: t.owner.token,
      body: await fullBody(
        { styling: { theme: 'bold', primaryColor: { light: '#346DDB', dark: '#346DDB' } }, pagination: { enabled: true } },
        ['announcement'],
      ),
    });
    expect(again.announcement).toBeUndefined();
    expect(again.title).toBe('Docs');
    expect(again.styling.theme).toBe('bold');
    // What a body leaves out reverts to the defaults (a partial body is accepted too).
    const partial = await h.call('PUT', `${base}/customization`, { token: t.owner.token, body: { styling: { theme: 'bold' } } });
    expect(partial.status).toBe(200);
    expect(partial.body.pagination).toEqual({ enabled: true });
  });

  it('refuses bad input naming the field, and callers without rights', async () => {
    const path = `${base}/customization`;
    await refused(
      400,
      'updateSiteCustomizationById',
      'PUT',
      path,
      { token: t.owner.token, body: { styling: { primaryColr: 1 } } },
      'styling.primaryColr',
    );
    await refused(
      400,
      'updateSiteCustomizationById',
      'PUT',
      path,
      { token: t.owner.token, body: { styling: { primaryColor: { light: 'red', dark: '#000' } } } },
      'styling.primaryColor.light',
    );
    await refused(
      400,
      'updateSiteCustomizationById',
      'PUT',
      path,
      { token: t.owner.token, body: { favicon: { icon: { light: 'javascript:alert(1)', dark: 'https://x.test/i.png' } } } },
      'favicon.icon.light',
    );
    const body = await fullBody({});
    await refused(403, 'updateSiteCustomizationById', 'PUT', path, { token: t.reader.token, body });
    await refused(404, 'updateSiteCustomizationById', 'PUT', path, { token: other.owner.token, body });
    expect((await h.call('GET', path, { token: other.owner.token })).status).toBe(404);
  });

  it('a site space overrides only what it sets; null clears one override; delete removes them (205, then 204)', async () => {
    const path = `${base}/site-spaces/${ssB}/customization`;
    const got = await s.ok('getSiteSpaceCustomizationById', 'GET', path, { token: t.reader.token });
    expect(got.styling.theme).toBe('bold');

    const o1 = await s.ok('overrideSiteSpaceCustomizationById', 'PATCH', path, {
      token: t.creator.token,
      body: { title: 'Version B docs', styling: { theme: 'muted', primaryColor: { light: '#123456', dark: '#654321' } } },
    });
    expect(o1).toMatchObject({
      title: 'Version B docs',
      styling: { theme: 'muted', primaryColor: { light: '#123456', dark: '#654321' }, corners: 'rounded' },
    });
    const o2 = await s.ok('overrideSiteSpaceCustomizationById', 'PATCH', path, {
      token: t.creator.token,
      body: { styling: { theme: null } },
    });
    expect(o2.styling.theme).toBe('bold'); // back to the site's
    expect(o2.styling.primaryColor).toEqual({ light: '#123456', dark: '#654321' });
    const stored = await h.db.prisma.siteSpaceCustomization.findUniqueOrThrow({ where: { siteSpaceId: ssB } });
    expect(stored.override).toEqual({ title: 'Version B docs', styling: { primaryColor: { light: '#123456', dark: '#654321' } } });

    // The other site space, the published profile and the reader's face agree.
    expect(
      (await s.ok('getSiteSpaceCustomizationById', 'GET', `${base}/site-spaces/${ssA}/customization`, { token: t.reader.token })).title,
    ).toBe('Docs');
    const published = await s.ok('getPublishedContentSite', 'GET', `${base}/published`, { token: t.reader.token });
    expect(published.customizations.siteSpaces[ssB].title).toBe('Version B docs');
    expect(published.customizations.site.styling.theme).toBe('bold');
    const ctx = readerContext();
    expect((await siteCustomization(ctx, { id: siteId, title: 'Docs' }, ssB)).title).toBe('Version B docs');

    await refused(
      400,
      'overrideSiteSpaceCustomizationById',
      'PATCH',
      path,
      { token: t.owner.token, body: { header: { links: [{ title: 'x', to: { kind: 'url', url: 'https://a.test', bogus: 1 } }] } } },
      'header.links[0].to.bogus',
    );
    await refused(403, 'overrideSiteSpaceCustomizationById', 'PATCH', path, { token: t.reader.token, body: { title: 'No' } });
    await refused(404, 'overrideSiteSpaceCustomizationById', 'PATCH', path, { token: other.owner.token, body: { title: 'No' } });
    await refused(403, 'deleteSiteSpaceCustomizationById', 'DELETE', path, { token: t.reader.token });
    await refused(404, 'getSiteSpaceCustomizationById', 'GET', `${base}/site-spaces/nope/customization`, { token: t.owner.token });

    expect((await h.rest('deleteSiteSpaceCustomizationById', 'DELETE', path, { token: t.owner.token })).status).toBe(205);
    expect((await h.rest('deleteSiteSpaceCustomizationById', 'DELETE', path, { token: t.owner.token })).status).toBe(204);
    expect((await s.ok('getSiteSpaceCustomizationById', 'GET', path, { token: t.reader.token })).title).toBe('Docs');
  });

  it('GraphQL: the same through site.customization and the mutations, typed', async () => {
    const res = await h.graphql(
      t.owner.token,
      `mutation($o: ID!, $s: ID!, $ss: ID!) {
      overrideSiteSpaceCustomization(organizationId: $o, siteId: $s, siteSpaceId: $ss, input: {
        title: "Via GraphQL"
        localizedTitle: [{ language: pt_br, text: "Via GraphQL (pt-br)" }]
        styling: { theme: bold, codeTheme: { openapi: { light: github_light, dark: github_dark } } }
        header: { primaryLink: { kind: page, page: "p1", space: "s1" } }
      }) { title styling { theme } }
    }`,
      { o: t.orgId, s: siteId, ss: ssA },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.overrideSiteSpaceCustomization).toEqual({ title: 'Via GraphQL', styling: { theme: 'bold' } });
    const read = await h.graphql(
      t.reader.token,
      `query($o: ID!, $s: ID!, $ss: ID!) { site(organizationId: $o, id: $s) {
        a: customization(siteSpace: $ss) {
          title localizedTitle { language text }
          styling { theme font { default custom { id } } codeTheme { openapi { light dark } } }
          header { primaryLink { __typename ... on ContentRefPage { kind page space } } }
        }
        site: customization { title }
      } }`,
      { o: t.orgId, s: siteId, ss: ssA },
    );
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.site.a).toEqual({
      title: 'Via GraphQL',
      localizedTitle: [{ language: 'pt_br', text: 'Via GraphQL (pt-br)' }],
      styling: {
        theme: 'bold',
        font: { default: 'Inter', custom: null },
        codeTheme: { openapi: { light: 'github_light', dark: 'github_dark' } },
      },
      header: { primaryLink: { __typename: 'ContentRefPage', kind: 'page', page: 'p1', space: 's1' } },
    });
    expect(read.body.data.site.site.title).toBe('Docs');

    // A font is one of two (oneOf style): both set is a 400 naming the field, and nothing is stored.
    const both = await h.graphql(
      t.owner.token,
      `mutation($o: ID!, $s: ID!) {
      updateSiteCustomization(organizationId: $o, siteId: $s, input: { styling: { font: { default: Lato, custom: { id: "x" } } } }) { title }
    }`,
      { o: t.orgId, s: siteId },
    );
    expect(both.body.errors?.[0]?.message).toBe('styling.font: set exactly one of default, custom');
    const custom = await h.graphql(
      t.owner.token,
      `mutation($o: ID!, $s: ID!) {
      updateSiteCustomization(organizationId: $o, siteId: $s, input: {
        styling: {
          headingFont: { custom: { id: "brand", custom: true, fontFamily: "Brand", fontFaces: [{ weight: 700, sources: [{ url: "https://fonts.example/b.woff2", format: woff2 }] }] } }
        }
        header: { preset: default, links: [{ title: "Nowhere", to: null, links: [] }] }
      }) { styling { font { default } headingFont { custom { fontFamily fontFaces { weight sources { url format } } } } } header { links { title to { __typename } } } }
    }`,
      { o: t.orgId, s: siteId },
    );
    expect(custom.body.errors).toBeUndefined();
    expect(custom.body.data.updateSiteCustomization).toEqual({
      styling: {
        font: { default: 'Inter' },
        headingFont: {
          custom: {
            fontFamily: 'Brand',
            fontFaces: [{ weight: 700, sources: [{ url: 'https://fonts.example/b.woff2', format: 'woff2' }] }],
          },
        },
      },
      header: { links: [{ title: 'Nowhere', to: null }] },
    });
    // The same settings through REST: the official JSON.
    const rest = await s.ok('getSiteCustomizationById', 'GET', `${base}/customization`, { token: t.reader.token });
    expect(rest.styling.headingFont).toEqual({
      id: 'brand',
      custom: true,
      fontFaces: [{ weight: 700, sources: [{ url: 'https://fonts.example/b.woff2', format: 'woff2' }] }],
      fontFamily: 'Brand',
    });
    expect(rest.header.links).toEqual([{ to: null, links: [], title: 'Nowhere' }]);
  });
});

describe('site redirects', () => {
  let liveId: string;
  it('creates (201), lists, reads by source (exact, then wildcard with capture), updates and deletes', async () => {
    const created = await s.ok(
      'createSiteRedirect',
      'POST',
      `${base}/redirects`,
      {
        token: t.creator.token,
        body: { source: '/old-usage', destination: { kind: 'site-page', siteSpaceId: ssA, pageId: pageUsage }, permanent: true },
      },
      201,
    );
    expect(created).toMatchObject({
      object: 'site-redirect',
      source: '/old-usage',
      draft: false,
      permanent: true,
      captureWildcard: false,
      destination: { kind: 'site-page', siteSpaceId: ssA, pageId: pageUsage },
    });
    expect(created.updatedAt).toBeUndefined();
    liveId = created.id;
    // Wildcard sources are 0.202.0's (0.146.0's pattern refuses `*`): read without the 0.146.0 check.
    const byPath = await h.call('POST', `${base}/redirects`, {
      token: t.owner.token,
      body: { source: '/legacy/*', captureWildcard: true, destination: { kind: 'path', spaceId: spaceA, path: 'usage' } },
    });
    expect(byPath.status).toBe(201);
    expect(byPath.body.destination).toEqual({ kind: 'site-page', siteSpaceId: ssA, pageId: pageUsage });
    await s.ok(
      'createSiteRedirect',
      'POST',
      `${base}/redirects`,
      { token: t.owner.token, body: { source: '/b', destination: { kind: 'site-space', siteSpaceId: ssB } } },
      201,
    );
    // External destinations are 0.202.0's too (0.146.0 has sections, site spaces and pages only).
    expect(
      (
        await h.call('POST', `${base}/redirects`, {
          token: t.owner.token,
          body: { source: '/out', draft: true, destination: { kind: 'external', url: 'https://example.com/x' } },
        })
      ).status,
    ).toBe(201);

    const live = (await h.call('GET', `${base}/redirects?orderBy=source`, { token: t.reader.token })).body;
    expect(live.items.map((r: any) => r.source)).toEqual(['/b', '/legacy/*', '/old-usage']);
    expect(live.count).toBe(3);
    expect((await s.ok('listSiteRedirects', 'GET', `${base}/redirects?search=old`, { token: t.reader.token })).count).toBe(1);
    const drafts = (await h.call('GET', `${base}/redirects?draft=true&search=OU`, { token: t.reader.token })).body;
    expect(drafts.items.map((r: any) => r.source)).toEqual(['/out']);
    const page1 = (await h.call('GET', `${base}/redirects?limit=2&orderBy=updatedAt`, { token: t.reader.token })).body;
    expect(page1.items).toHaveLength(2);
    expect(page1.next.page).toEqual(expect.any(String));

    const exact = await s.ok('getSiteRedirectBySource', 'GET', `${base}/redirect?source=/old-usage`, { token: t.reader.token });
    expect(exact.redirect.id).toBe(liveId);
    expect(exact.target).toMatch(/\/usage$/);
    const wild = (await h.call('GET', `${base}/redirect?source=${encodeURIComponent('/legacy/deep/page')}`, { token: t.reader.token }))
      .body;
    expect(wild.redirect.source).toBe('/legacy/*');
    expect(wild.target).toMatch(/\/usage\/deep\/page$/);
    expect((await h.rest('getSiteRedirectBySource', 'GET', `${base}/redirect?source=/out`, { token: t.reader.token })).status).toBe(404); // drafts are not live

    const site = await h.db.prisma.site.findUniqueOrThrow({ where: { id: siteId } });
    const found = await findRedirect(readerContext(), site, '/b');
    expect(found).toMatchObject({ permanent: false, target: expect.stringMatching(/\/version-b$|\/[^/]+$/) });

    const updated = await s.ok('updateSiteRedirectById', 'PATCH', `${base}/redirects/${liveId}`, {
      token: t.owner.token,
      body: { permanent: false, destination: { kind: 'site-section', siteSectionId: sectionId } },
    });
    expect(updated).toMatchObject({
      permanent: false,
      destination: { kind: 'site-section', siteSectionId: sectionId },
      updatedAt: expect.any(String),
    });
  });

  it('bulk upsert: created, updated, deleted, published and per-item errors', async () => {
    const res = await s.ok('bulkUpsertSiteRedirects', 'PUT', `${base}/redirects`, {
      token: t.owner.token,
      body: {
        redirects: [
          { source: '/n1', destination: { kind: 'external', url: 'https://example.com/n1' } },
          { source: '/b', destination: { kind: 'site-space', siteSpaceId: ssA }, permanent: true },
          { source: '/legacy/*', destination: null },
          { source: '/out', intent: 'publish' },
          { source: '/n2', intent: 'draft', destination: { kind: 'site-space', siteSpaceId: 'nope' } },
          { source: '/never', destination: null },
        ],
      },
    });
    expect(res.results.map((r: any) => r.status)).toEqual(['created', 'updated', 'deleted', 'published', 'error', 'error']);
    expect(res.results[4].error).toMatch(/siteSpaceId/);
    const live = await h.db.prisma.siteRedirect.findMany({ where: { siteId, draft: false }, orderBy: { source: 'asc' } });
    expect(live.map((r) => r.source)).toEqual(['/b', '/n1', '/old-usage', '/out']);
  });

  it('refuses bad input naming the field, duplicates (409), and callers without rights', async () => {
    const path = `${base}/redirects`;
    await refused(
      400,
      'createSiteRedirect',
      'POST',
      path,
      { token: t.owner.token, body: { source: 'no-slash', destination: { kind: 'external', url: 'https://a.test' } } },
      'source',
    );
    await refused(
      400,
      'createSiteRedirect',
      'POST',
      path,
      { token: t.owner.token, body: { source: '/x', destination: { kind: 'external', url: 'https://a.test' }, extra: 1 } },
      'extra',
    );
    await refused(
      400,
      'createSiteRedirect',
      'POST',
      path,
      { token: t.owner.token, body: { source: '/x', destination: { kind: 'site-page', siteSpaceId: ssA } } },
      'destination.pageId',
    );
    await refused(
      400,
      'createSiteRedirect',
      'POST',
      path,
      { token: t.owner.token, body: { source: '/x', destination: { kind: 'site-section', siteSectionId: 'nope' } } },
      'destination.siteSectionId',
    );
    await refused(
      400,
      'bulkUpsertSiteRedirects',
      'PUT',
      path,
      { token: t.owner.token, body: { redirects: [{ source: '/x' }] } },
      'redirects[0].destination',
    );
    await refused(400, 'listSiteRedirects', 'GET', `${path}?orderBy=nope`, { token: t.owner.token }, 'orderBy');
    await refused(
      400,
      'updateSiteRedirectById',
      'PATCH',
      `${path}/${liveId}`,
      { token: t.owner.token, body: { permanent: 'yes' } },
      'permanent',
    );
    expect(
      (
        await h.call('POST', path, {
          token: t.owner.token,
          body: { source: '/b', destination: { kind: 'external', url: 'https://a.test' } },
        })
      ).status,
    ).toBe(409);

    await refused(403, 'createSiteRedirect', 'POST', path, {
      token: t.reader.token,
      body: { source: '/x', destination: { kind: 'external', url: 'https://a.test' } },
    });
    await refused(403, 'bulkUpsertSiteRedirects', 'PUT', path, {
      token: t.reader.token,
      body: { redirects: [{ source: '/x', destination: null }] },
    });
    await refused(403, 'updateSiteRedirectById', 'PATCH', `${path}/${liveId}`, { token: t.reader.token, body: { permanent: true } });
    await refused(403, 'deleteSiteRedirectById', 'DELETE', `${path}/${liveId}`, { token: t.reader.token });
    await refused(404, 'listSiteRedirects', 'GET', path, { token: other.owner.token });
    await refused(404, 'getSiteRedirectBySource', 'GET', `${base}/redirect?source=/b`, { token: other.owner.token });
    await refused(404, 'deleteSiteRedirectById', 'DELETE', `${path}/${liveId}`, { token: other.owner.token });
  });

  it('deletes (205, then 404)', async () => {
    expect((await h.rest('deleteSiteRedirectById', 'DELETE', `${base}/redirects/${liveId}`, { token: t.owner.token })).status).toBe(205);
    await s.expectRefused(
      'deleteSiteRedirectById',
      'DELETE',
      `${base}/redirects/${liveId}`,
      { token: t.owner.token },
      404,
      /^Site redirect not found$/,
    );
  });
});
