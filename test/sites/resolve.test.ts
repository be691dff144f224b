import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { BASE, setupHarness, type Harness, type World } from '../support/harness.js';
import { writeLive } from '../support/content-writes.js';
import { siteHelpers } from '../support/sites.js';

/**
 * URL resolution (`publishedContent(url:)`, `Site.resolve(path:)`): every URL form Lectern hands
 * out resolves to the site, section, site space, space, revision and page it shows; defaults for
 * an omitted section / variant / page; null for what names nothing and for callers outside the
 * published site's audience; a constant number of statements as an organization's sites grow.
 */
let h: Harness;
const s = siteHelpers(() => h);
beforeAll(async () => {
  h = await setupHarness();
});

const FIELDS = `site { id } section { id path } siteSpace { id path } space { id revision } revisionId pageId pagePath canonicalUrl`;
const BY_URL = `query($url: String!) { publishedContent(url: $url) { ${FIELDS} page(format: markdown) { title path body { ... on PageMarkdownBody { markdown } } } } }`;

async function byUrl(token: string, url: string) {
  const res = await h.graphql(token, BY_URL, { url });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data.publishedContent;
}

async function livePages(
  who: { token: string },
  orgId: string,
  title: string,
  pages: { title: string; markdown: string; children?: string[] }[],
) {
  const space = await s.space({ ...who, orgId, id: '', email: '' }, title);
  for (const p of pages) {
    const {
      pages: [id],
    } = await writeLive(h, who.token, space.id, [{ operation: 'insert_page', title: p.title, document: { markdown: p.markdown } }]);
    for (const child of p.children ?? [])
      await writeLive(h, who.token, space.id, [
        { operation: 'insert_page', title: child, document: { markdown: `${child} body` }, into: id },
      ]);
  }
  const row = await h.db.prisma.space.findUniqueOrThrow({ where: { id: space.id } });
  return { id: space.id, revisionId: row.revisionId };
}

/**
 * A published sectioned site: section "Guides" (default) with variants A (default) and B, and
 * section "Reference" with space C; plus what the GraphQL structure says about their paths.
 */
async function sectionedSite(t: World, body: Record<string, unknown> = {}) {
  const a = await livePages(t.owner, t.orgId, 'Version A', [
    { title: 'Intro', markdown: 'Intro of A' },
    { title: 'Usage', markdown: 'Use A', children: ['Advanced'] },
  ]);
  const b = await livePages(t.owner, t.orgId, 'Version B', [{ title: 'Welcome', markdown: 'Welcome to B' }]);
  const c = await livePages(t.owner, t.orgId, 'API', [{ title: 'Endpoints', markdown: 'All endpoints' }]);
  const site = await s.site(t.owner, t.orgId, { title: 'Docs', ...body });
  const guides = await s.section(t.owner, t.orgId, site.id, { spaceId: a.id, title: 'Guides' });
  await s.siteSpace(t.owner, t.orgId, site.id, { spaceId: b.id, sectionId: guides.id });
  const reference = await s.section(t.owner, t.orgId, site.id, { spaceId: c.id, title: 'Reference' });
  await s.ok('publishSite', 'POST', `${s.sitePath(t.orgId, site.id)}/publish`, { token: t.owner.token });
  const res = await h.graphql(
    t.owner.token,
    `query($o: ID!, $id: ID!) { site(organizationId: $o, id: $id) { urls { published } sections { items { id path siteSpaces { id path space { id } urls { published } } } } } }`,
    { o: t.orgId, id: site.id },
  );
  expect(res.body.errors).toBeUndefined();
  const sections = res.body.data.site.sections.items;
  const ss = (spaceId: string) => sections.flatMap((x: any) => x.siteSpaces).find((x: any) => x.space.id === spaceId);
  return {
    site,
    a,
    b,
    c,
    guides: sections.find((x: any) => x.id === guides.id),
    reference: sections.find((x: any) => x.id === reference.id),
    siteUrl: res.body.data.site.urls.published as string,
    ssA: ss(a.id),
    ssB: ss(b.id),
    ssC: ss(c.id),
  };
}

describe('publishedContent(url:) on this server’s URLs', () => {
  let t: World;
  let x: Awaited<ReturnType<typeof sectionedSite>>;
  beforeAll(async () => {
    t = await s.team();
    x = await sectionedSite(t);
  });

  it('the site root: default section, default site space, first page', async () => {
    expect(x.siteUrl).toBe(`${BASE}/public/${t.orgId}/sites/${x.site.id}`);
    const r = await byUrl(t.outsider.token, x.siteUrl);
    expect(r).toMatchObject({
      site: { id: x.site.id },
      section: { id: x.guides.id },
      siteSpace: { id: x.ssA.id },
      revisionId: x.a.revisionId,
      pagePath: 'intro',
    });
    expect(r.page).toMatchObject({ title: 'Intro', path: 'intro', body: { markdown: expect.stringContaining('Intro of A') } });
    expect(r.canonicalUrl).toBe(`${x.siteUrl}/intro`);
    // An outsider sees only what the site publishes of the space (as SiteSpace.space), not its revision.
    expect(r.space).toEqual({ id: x.a.id, revision: '' });
    expect((await byUrl(t.reader.token, x.siteUrl)).space).toEqual({ id: x.a.id, revision: x.a.revisionId });
  });

  it('page paths, nested pages, a trailing slash, a variant, another section', async () => {
    expect(await byUrl(t.outsider.token, `${x.siteUrl}/usage/advanced/`)).toMatchObject({
      siteSpace: { id: x.ssA.id },
      pagePath: 'usage/advanced',
      page: { title: 'Advanced' },
    });
    expect(x.ssB.urls.published).toBe(`${x.siteUrl}/${x.ssB.path}`);
    expect(await byUrl(t.outsider.token, x.ssB.urls.published)).toMatchObject({
      section: { id: x.guides.id },
      siteSpace: { id: x.ssB.id },
      revisionId: x.b.revisionId,
      pagePath: 'welcome',
    });
    expect(await byUrl(t.outsider.token, `${x.ssB.urls.published}/welcome`)).toMatchObject({
      siteSpace: { id: x.ssB.id },
      page: { title: 'Welcome' },
    });
    expect(x.ssC.urls.published).toBe(`${x.siteUrl}/${x.reference.path}`);
    const c = await byUrl(t.outsider.token, `${x.ssC.urls.published}/endpoints?utm=1#top`);
    expect(c).toMatchObject({
      section: { id: x.reference.id },
      siteSpace: { id: x.ssC.id },
      pagePath: 'endpoints',
      canonicalUrl: `${x.ssC.urls.published}/endpoints`,
    });
    // Every canonical URL resolves back to the same page.
    expect(await byUrl(t.outsider.token, c.canonicalUrl)).toMatchObject({ pageId: c.pageId });
    // The default section and site space named by their own paths resolve too; the canonical URL leaves them out.
    for (const url of [
      `${x.siteUrl}/${x.guides.path}/usage`,
      `${x.siteUrl}/${x.ssA.path}/usage`,
      `${x.siteUrl}/${x.guides.path}/${x.ssA.path}/usage`,
    ]) {
      expect(await byUrl(t.outsider.token, url), url).toMatchObject({
        section: { id: x.guides.id },
        siteSpace: { id: x.ssA.id },
        pagePath: 'usage',
        canonicalUrl: `${x.siteUrl}/usage`,
      });
    }
    expect(await byUrl(t.outsider.token, `${x.siteUrl}/${x.guides.path}/${x.ssB.path}/welcome`)).toMatchObject({
      siteSpace: { id: x.ssB.id },
      canonicalUrl: `${x.ssB.urls.published}/welcome`,
    });
  });

  it('Site.resolve(path:) answers the same below the site', async () => {
    const res = await h.graphql(
      t.reader.token,
      `query($o: ID!, $id: ID!) { site(organizationId: $o, id: $id) { root: resolve(path: "") { ${FIELDS} } b: resolve(path: "/${x.ssB.path}/welcome") { ${FIELDS} } none: resolve(path: "nope/nothing") { pageId } } }`,
      { o: t.orgId, id: x.site.id },
    );
    expect(res.body.errors).toBeUndefined();
    const { root, b, none } = res.body.data.site;
    const withoutPage = ({ page: _page, ...rest }: any) => rest;
    expect(root).toEqual(withoutPage(await byUrl(t.reader.token, x.siteUrl)));
    expect(b).toEqual(withoutPage(await byUrl(t.reader.token, `${x.ssB.urls.published}/welcome`)));
    expect(none).toBeNull();
  });

  it('unknown pages, sites, organizations, hosts and other paths are null; a URL that is not one is a 400 naming url', async () => {
    for (const url of [
      `${x.siteUrl}/no-such-page`,
      `${x.siteUrl}/usage/advanced/deeper`,
      `${x.ssB.urls.published}/intro`,
      `${BASE}/public/${t.orgId}/sites/missing`,
      `${BASE}/public/missing/sites/${x.site.id}`,
      `${BASE}/public/${t.orgId}/s/${x.a.id}`,
      `${BASE}/v1/orgs/${t.orgId}/sites/${x.site.id}`,
      `https://elsewhere.example.com/public/${t.orgId}/sites/${x.site.id}`,
      `${x.siteUrl}/%E0%A4%A`,
    ])
      expect(await byUrl(t.owner.token, url), url).toBeNull();
    for (const url of ['not a url', 'ftp://lectern.test/public/x/sites/y']) {
      const res = await h.graphql(t.owner.token, BY_URL, { url });
      expect(res.body.data?.publishedContent ?? null).toBeNull();
      expect(res.body.errors[0].message).toMatch(/url/);
    }
  });

  it('the organization hostname and the site basename forms (ids keep working)', async () => {
    const hostname = `acme${newId(6).toLowerCase()}`;
    await h.db.prisma.organization.update({ where: { id: t.orgId }, data: { hostname } });
    await s.ok('updateSiteById', 'PATCH', s.sitePath(t.orgId, x.site.id), { token: t.owner.token, body: { basename: 'handbook' } });
    const res = await h.graphql(t.owner.token, `query($o: ID!, $id: ID!) { site(organizationId: $o, id: $id) { urls { published } } }`, {
      o: t.orgId,
      id: x.site.id,
    });
    const url = res.body.data.site.urls.published;
    expect(url).toBe(`${BASE}/public/${hostname}/sites/handbook`);
    expect(await byUrl(t.outsider.token, `${url}/usage`)).toMatchObject({
      site: { id: x.site.id },
      pagePath: 'usage',
      canonicalUrl: `${url}/usage`,
    });
    expect(await byUrl(t.outsider.token, `${BASE}/public/${t.orgId}/sites/${x.site.id}/usage`)).toMatchObject({ pagePath: 'usage' });
    // Another organization's site with the same basename is not reached through this organization's hostname.
    const other = await s.team();
    const otherSite = await s.site(other.owner, other.orgId);
    await s.ok('updateSiteById', 'PATCH', s.sitePath(other.orgId, otherSite.id), {
      token: other.owner.token,
      body: { basename: 'handbook' },
    });
    await s.ok('publishSite', 'POST', `${s.sitePath(other.orgId, otherSite.id)}/publish`, { token: other.owner.token });
    expect((await byUrl(t.outsider.token, `${url}/usage`)).site.id).toBe(x.site.id);
    await h.db.prisma.organization.update({ where: { id: t.orgId }, data: { hostname: null } });
    await h.db.prisma.site.update({ where: { id: x.site.id }, data: { basename: null } });
  });
});

describe('publishedContent(url:) on a custom hostname and a proxy origin', () => {
  it('resolves both, the longest proxy path first', async () => {
    const t = await s.team();
    const space = await livePages(t.owner, t.orgId, 'Solo', [
      { title: 'Start', markdown: 'Start here' },
      { title: 'Next', markdown: 'Then this' },
    ]);
    const site = await s.site(t.owner, t.orgId, { spaces: [space.id] });
    await s.ok('publishSite', 'POST', `${s.sitePath(t.orgId, site.id)}/publish`, { token: t.owner.token });
    // A proven hostname (the DNS proof is covered by the custom-hostname tests).
    const host = `docs-${newId(6).toLowerCase()}.example.com`;
    await h.db.prisma.site.update({ where: { id: site.id }, data: { hostname: host } });
    const onHost = await byUrl(t.outsider.token, `https://${host.toUpperCase()}/next`);
    expect(onHost).toMatchObject({ site: { id: site.id }, section: null, pagePath: 'next', canonicalUrl: `https://${host}/next` });
    expect(await byUrl(t.outsider.token, `https://${host}/`)).toMatchObject({ pagePath: 'start' });
    expect(await byUrl(t.outsider.token, `https://${host}/missing`)).toBeNull();

    const proxy = `proxy-${newId(6).toLowerCase()}.example.com/docs`;
    await s.ok('updateSiteById', 'PATCH', s.sitePath(t.orgId, site.id), { token: t.owner.token, body: { proxy } });
    const other = await s.site(t.owner, t.orgId, {
      title: 'Deeper',
      spaces: [(await livePages(t.owner, t.orgId, 'Deep', [{ title: 'Deep page', markdown: 'x' }])).id],
    });
    await s.ok('publishSite', 'POST', `${s.sitePath(t.orgId, other.id)}/publish`, { token: t.owner.token });
    await s.ok('updateSiteById', 'PATCH', s.sitePath(t.orgId, other.id), { token: t.owner.token, body: { proxy: `${proxy}/v2` } });
    expect(await byUrl(t.outsider.token, `https://${proxy}/next`)).toMatchObject({
      site: { id: site.id },
      pagePath: 'next',
      canonicalUrl: `https://${proxy}/next`,
    });
    expect(await byUrl(t.outsider.token, `https://${proxy}/v2/deep-page`)).toMatchObject({ site: { id: other.id }, pagePath: 'deep-page' });
    expect(await byUrl(t.outsider.token, `https://${proxy.split('/')[0]}/next`)).toBeNull();
  });
});

describe('visibility: as the published site', () => {
  it('share-link sites: the key of an active link opens them; members need none; others get null', async () => {
    const t = await s.team();
    const x = await sectionedSite(t, { visibility: 'share-link' });
    const link = await s.ok(
      'createSiteShareLink',
      'POST',
      `${s.sitePath(t.orgId, x.site.id)}/share-links`,
      { token: t.owner.token, body: { name: 'Partner' } },
      201,
    );
    const key = new URL(link.urls.published).searchParams.get('share')!;
    expect(await byUrl(t.outsider.token, `${x.siteUrl}/usage`)).toBeNull();
    expect(await byUrl(t.outsider.token, `${x.siteUrl}/usage?share=wrong`)).toBeNull();
    const opened = await byUrl(t.outsider.token, `${x.siteUrl}/usage?share=${key}`);
    expect(opened).toMatchObject({ pagePath: 'usage', canonicalUrl: `${x.siteUrl}/usage?share=${key}` });
    // Through the published profile a key holder reaches the Site, and Site.resolve takes the key too.
    const q = `query($o: ID!, $id: ID!, $k: String) { publishedSite(organizationId: $o, id: $id, shareKey: $k) { site { resolve(path: "usage", shareKey: $k) { pagePath canonicalUrl } } } }`;
    const profile = await h.graphql(t.outsider.token, q, { o: t.orgId, id: x.site.id, k: key });
    expect(profile.body.data.publishedSite.site.resolve).toEqual({ pagePath: 'usage', canonicalUrl: `${x.siteUrl}/usage?share=${key}` });
    expect(await byUrl(t.guest.token, `${x.siteUrl}/usage`)).toMatchObject({ pagePath: 'usage', canonicalUrl: `${x.siteUrl}/usage` });
    await s.ok('updateSiteShareLinkById', 'PATCH', `${s.sitePath(t.orgId, x.site.id)}/share-links/${link.id}`, {
      token: t.owner.token,
      body: { active: false },
    });
    expect(await byUrl(t.outsider.token, `${x.siteUrl}/usage?share=${key}`)).toBeNull();
  });

  it('visitor-auth sites answer members only; unpublished sites nobody; private spaces stay out of reach', async () => {
    const t = await s.team();
    const x = await sectionedSite(t, { visibility: 'visitor-auth' });
    expect(await byUrl(t.outsider.token, x.siteUrl)).toBeNull();
    expect(await byUrl(t.reader.token, x.siteUrl)).toMatchObject({ pagePath: 'intro' });
    // Site.resolve checks the same audience, whoever holds the Site object.
    const viaSite = await h.graphql(
      t.guest.token,
      `query($o: ID!, $id: ID!) { site(organizationId: $o, id: $id) { resolve(path: "usage") { pagePath } } }`,
      { o: t.orgId, id: x.site.id },
    );
    expect(viaSite.body.data.site.resolve).toEqual({ pagePath: 'usage' });
    await s.ok('unpublishSite', 'POST', `${s.sitePath(t.orgId, x.site.id)}/unpublish`, { token: t.owner.token });
    expect(await byUrl(t.owner.token, x.siteUrl)).toBeNull();
    const site = await h.graphql(
      t.owner.token,
      `query($o: ID!, $id: ID!) { site(organizationId: $o, id: $id) { resolve(path: "") { pageId } } }`,
      { o: t.orgId, id: x.site.id },
    );
    expect(site.body.data.site.resolve).toBeNull();
    // A space the site does not publish is not reached through the site's URLs, by page path or by its id.
    const hidden = await livePages(t.owner, t.orgId, 'Secret', [{ title: 'Plans', markdown: 'Secret plans' }]);
    const pub = await sectionedSite(t);
    for (const url of [`${pub.siteUrl}/plans`, `${pub.siteUrl}/${hidden.id}/plans`, `${pub.siteUrl}/${pub.reference.path}/plans`]) {
      const r = await byUrl(t.outsider.token, url);
      expect(r, url).toBeNull();
    }
  });
});

describe('statements', () => {
  it('resolving a URL costs the same number of statements for 1 site of 2 sections and 30 sites of 20 sections', async () => {
    const count = async (sites: number, sections: number) => {
      const t = await s.team();
      const x = await sectionedSite(t);
      const spaces = await h.db.prisma.space.findMany({ where: { organizationId: t.orgId } });
      const extra = Array.from({ length: sections }, (_v, i) => ({
        id: newId(),
        siteId: x.site.id,
        title: `S${i}`,
        path: `s-${i}`,
        position: 10 + i,
      }));
      await h.db.prisma.siteSection.createMany({ data: extra });
      await h.db.prisma.siteSpace.createMany({
        data: extra.flatMap((sec) =>
          spaces.map((sp, i) => ({ id: newId(), siteId: x.site.id, sectionId: sec.id, spaceId: sp.id, path: `v-${i}`, position: i })),
        ),
      });
      for (let i = 1; i < sites; i++)
        await h.db.prisma.site.create({ data: { id: newId(), organizationId: t.orgId, title: `Other ${i}`, published: true } });
      const url = `${x.siteUrl}/s-${sections - 1}/v-1`;
      const before = h.db.statements.count;
      const r = await byUrl(t.outsider.token, url);
      expect(r.section.path).toBe(`s-${sections - 1}`);
      return h.db.statements.count - before;
    };
    const small = await count(1, 2);
    const large = await count(30, 20);
    expect(large).toBe(small);
  });
});
