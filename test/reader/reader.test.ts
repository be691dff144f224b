import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { siteVisitorKey } from '../../src/modules/reader/index.js';
import { serverKeys } from '../../src/secrets.js';
import { BASE, setupHarness, type Harness, type World } from '../support/harness.js';
import { base64, insertPage, writeLive } from '../support/content-writes.js';
import { siteHelpers } from '../support/sites.js';

/**
 * The reader's site (src/modules/reader): published sites served as HTML at their urls.published,
 * their pages' Markdown, llms.txt, llms-full.txt, sitemap.xml and robots.txt; share-link and
 * visitor-auth access; adaptive conditions; escaping and CSP.
 */
let h: Harness;
const s = siteHelpers(() => h);
let t: World;
let siteUrl: string;
let siteId: string;

type Got = { status: number; text: string; headers: Headers };
async function get(url: string, opts: { cookie?: string; token?: string } = {}): Promise<Got> {
  const headers: Record<string, string> = {};
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await h.app.fetch(new Request(url.startsWith('http') ? url : `${BASE}${url}`, { headers }));
  return { status: res.status, text: await res.text(), headers: res.headers };
}
/** `name=value` pairs of a response's Set-Cookie headers (for the next request). */
const cookiesOf = (res: Got) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');

const PNG = base64(Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex'));
const INTRO = `# Getting started

Welcome to {{ variables.product }}.

## Install

| Step | What |
| ---- | ---- |
| 1    | Download |

- [x] done task
- [ ] open task

\`\`\`js
const answer = 42;
\`\`\`

{% hint style="warning" %}
Mind the gap.
{% endhint %}

<script>alert("x")</script>

See [usage](usage.md), [advanced](./usage/advanced.md#deep), and [nowhere](missing-page.md).

![logo](logo.png)

{% include ".gitbook/includes/shared.md" %}

### Details
`;

beforeAll(async () => {
  h = await setupHarness();
  t = await s.team();
  const guides = await s.space(t.owner, 'Guides');
  const files = await writeLive(h, t.owner.token, guides.id, [
    { operation: 'update_variables', variables: { product: 'Lectern<b>' } },
    {
      operation: 'insert_reusable_content',
      title: 'Shared',
      slug: 'shared',
      document: { markdown: 'Shared paragraph for {{ variables.product }}.' },
    },
    { operation: 'insert_files', files: [{ name: 'logo.png', contentType: 'image/png', base64: PNG }] },
  ]);
  expect(files.files).toHaveLength(1);
  const { pages } = await writeLive(h, t.owner.token, guides.id, [
    insertPage('Intro', INTRO, { description: 'First steps' }),
    insertPage('Usage', 'Use it.'),
    insertPage('Secret', 'Hidden page body', { hidden: true }),
    insertPage('Beta notes', 'Only for beta testers', { condition: 'visitor.claims.unsigned.beta == true' }),
    insertPage('Private notes', 'Not indexed', { noRobotsIndex: true }),
  ]);
  await writeLive(h, t.owner.token, guides.id, [insertPage('Advanced', '## Deep\n\nDeep dive.', { into: pages[1] })]);
  const reference = await s.space(t.owner, 'Reference');
  await writeLive(h, t.owner.token, reference.id, [insertPage('Endpoints', 'All endpoints')]);
  const partners = await s.space(t.owner, 'Partners');
  await writeLive(h, t.owner.token, partners.id, [insertPage('Deals', 'Partner deals')]);
  const beta = await s.space(t.owner, 'Beta');
  await writeLive(h, t.owner.token, beta.id, [insertPage('Preview', 'Beta preview')]);

  const site = await s.site(t.owner, t.orgId, { title: 'Acme <Docs>' });
  siteId = site.id;
  await s.section(t.owner, t.orgId, site.id, { spaceId: guides.id, title: 'Guides' });
  await s.section(t.owner, t.orgId, site.id, { spaceId: reference.id, title: 'Reference' });
  const p = await s.section(t.owner, t.orgId, site.id, { spaceId: partners.id, title: 'Partners' });
  const b = await s.section(t.owner, t.orgId, site.id, { spaceId: beta.id, title: 'Beta' });
  await s.ok('updateSiteSectionById', 'PATCH', `${s.sitePath(t.orgId, site.id)}/sections/${p.id}`, {
    token: t.owner.token,
    body: { condition: 'visitor.claims.partner == true' },
  });
  await s.ok('updateSiteSectionById', 'PATCH', `${s.sitePath(t.orgId, site.id)}/sections/${b.id}`, {
    token: t.owner.token,
    body: { condition: 'visitor.claims.unsigned.beta == true' },
  });
  await s.ok('publishSite', 'POST', `${s.sitePath(t.orgId, site.id)}/publish`, { token: t.owner.token });
  siteUrl = `${BASE}/public/${t.orgId}/sites/${site.id}`;
});

/** SQL statements run while `fn` runs. */
async function counted<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const before = h.db.statements.count;
  const value = await fn();
  return [value, h.db.statements.count - before];
}

describe('a public site', () => {
  it('renders a page: layout, tree, outline, previous/next, escaped user content, strict CSP', async () => {
    const res = await get(`${siteUrl}/intro`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'sha256-[^']+'(;|$)/);
    expect(csp).not.toMatch(/unsafe-inline|https?:\/\/[^ ]*cdn/);
    const html = res.text;
    // The site title is escaped; the page's <script> is text; no other script than the hashed one.
    expect(html).toContain('Acme &lt;Docs&gt;');
    expect(html).toContain('<p>&#x3C;script>alert("x")&#x3C;/script></p>');
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html).not.toMatch(/<script[^>]*src=/);
    // Variables evaluated (and escaped), reusable content expanded.
    expect(html).toContain('Welcome to Lectern&#x3C;b>.');
    expect(html).toContain('Shared paragraph for Lectern&#x3C;b>.');
    // Headings with anchors; outline; GFM table, task list, highlighted code, hint.
    expect(html).toMatch(/<h2 id="install">Install<a href="#install" class="anchor"/);
    expect(html).toMatch(/<aside class="outline"[^>]*>.*href="#install".*href="#details"/s);
    expect(html).toMatch(/<table>.*<th>Step<\/th>/s);
    expect(html).toMatch(/<input type="checkbox" checked disabled>/);
    expect(html).toMatch(/<code class="language-js hljs"><span class="hljs-keyword">const<\/span>/);
    expect(html).toMatch(/<aside class="hint hint-warning" role="note">\s*<p>Mind the gap.<\/p>/);
    // Links between pages go to site URLs; a broken link is marked.
    expect(html).toContain(`href="${siteUrl}/usage"`);
    expect(html).toContain(`href="${siteUrl}/usage/advanced#deep"`);
    expect(html).toMatch(/<span class="broken-link" title="Broken link: missing-page.md">nowhere<\/span>/);
    // The image comes through the file route, and that URL serves it.
    const img = /<img src="([^"]+)" alt="logo" loading="lazy">/.exec(html)?.[1]?.replace(/&#x26;|&amp;/g, '&');
    expect(img).toMatch(new RegExp(`^${BASE}/files/`));
    expect((await get(img!)).status).toBe(200);
    // The tree: visible pages, nested; hidden and condition-failing pages left out; the current page marked.
    expect(html).toMatch(/<nav aria-label="Pages">.*Intro.*Usage.*Advanced.*Private notes/s);
    expect(html).not.toMatch(/<nav aria-label="Pages">[^]*Secret[^]*<\/nav>/);
    expect(html).not.toContain('Beta notes');
    expect(html).toContain(`href="${siteUrl}/intro" aria-current="page"`);
    // Sections: Guides and Reference (Partners and Beta need claims).
    expect(html).toMatch(/<nav class="sections".*Guides.*Reference/s);
    expect(html).not.toMatch(/<nav class="sections"[^]*Partners/);
    // Previous/next: first page has only next.
    expect(html).toMatch(/<a class="next" rel="next" href="[^"]+\/usage"><small>Next<\/small>Usage<\/a>/);
    expect(html).not.toContain('rel="prev"');
    expect(html).not.toContain('name="robots"');
  });

  it('the site root shows the first page; previous/next in the middle; nested pages; a 404 page', async () => {
    const root = await get(siteUrl);
    expect(root.status).toBe(200);
    expect(root.text).toContain('<h1 class="title">Intro</h1>');
    const usage = await get(`${siteUrl}/usage`);
    expect(usage.text).toMatch(/rel="prev" href="[^"]+\/intro"/);
    expect(usage.text).toMatch(/rel="next" href="[^"]+\/usage\/advanced"/);
    expect((await get(`${siteUrl}/reference`)).text).toContain('<h1 class="title">Endpoints</h1>');
    // Hidden pages open by URL (they are only out of the navigation).
    expect((await get(`${siteUrl}/secret`)).status).toBe(200);
    const missing = await get(`${siteUrl}/no/such/page`);
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('Page not found');
    // A page marked noRobotsIndex says so.
    expect((await get(`${siteUrl}/private-notes`)).text).toContain('<meta name="robots" content="noindex">');
  });

  it('a page view costs a constant handful of statements, the same for 7 and for 47 pages', async () => {
    await get(`${siteUrl}/usage`);
    const [, nested] = await counted(() => get(`${siteUrl}/usage/advanced`));
    const [, intro] = await counted(() => get(`${siteUrl}/intro`));
    expect(nested).toBeLessThanOrEqual(12);
    expect(intro).toBeLessThanOrEqual(14);
    const guides = (await h.db.prisma.siteSpace.findFirstOrThrow({ where: { siteId, path: 'guides' } })).spaceId;
    await writeLive(
      h,
      t.owner.token,
      guides,
      Array.from({ length: 40 }, (_, i) => insertPage(`Extra ${i}`, `Extra page ${i}`)),
    );
    await get(`${siteUrl}/usage`);
    const [, nestedLarge] = await counted(() => get(`${siteUrl}/usage/advanced`));
    expect(nestedLarge).toBe(nested);
    const started = performance.now();
    for (let i = 0; i < 20; i++) await get(`${siteUrl}/intro`);
    console.log(
      `statements per page view: ${nested} (nested page, 7 or 47 pages), ${intro} (a page rendered before: its HTML is cached); ${((performance.now() - started) / 20).toFixed(1)} ms per view of the intro page in-process`,
    );
  });

  it('Markdown, llms.txt, llms-full.txt, sitemap.xml, robots.txt', async () => {
    const md = await get(`${siteUrl}/usage/advanced.md`);
    expect(md.status).toBe(200);
    expect(md.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(md.text).toBe('# Advanced\n\n## Deep\n\nDeep dive.\n');
    const intro = (await get(`${siteUrl}/intro.md`)).text;
    expect(intro).toContain('Welcome to Lectern<b>.');
    expect(intro).toContain('Shared paragraph for Lectern<b>.');

    const llms = (await get(`${siteUrl}/llms.txt`)).text;
    expect(llms).toMatch(/^# Acme <Docs>\n/);
    expect(llms).toContain(`- [Intro](${siteUrl}/intro.md): First steps`);
    expect(llms).toContain(`## Reference`);
    expect(llms).toContain(`- [Endpoints](${siteUrl}/reference/endpoints.md)`);
    expect(llms).not.toMatch(/Secret|Beta notes|Deals/);
    const full = (await get(`${siteUrl}/llms-full.txt`)).text;
    expect(full).toContain('Deep dive.');
    expect(full).toContain('All endpoints');
    expect(full).not.toContain('Partner deals');

    const sitemap = await get(`${siteUrl}/sitemap.xml`);
    expect(sitemap.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(sitemap.text).toContain(`<loc>${siteUrl}/usage/advanced</loc>`);
    expect(sitemap.text).not.toMatch(/private-notes|secret|beta-notes/);
    expect((await get(`${siteUrl}/robots.txt`)).text).toBe(`User-agent: *\nAllow: /\n\nSitemap: ${siteUrl}/sitemap.xml\n`);
  });
});

describe('adaptive content', () => {
  it('site external links in the section tabs where they sit in the structure: escaped, rel=noopener, drafts out, conditions honoured', async () => {
    const [one, two] = [await s.space(t.owner, 'Links one'), await s.space(t.owner, 'Links two')];
    await writeLive(h, t.owner.token, one.id, [insertPage('Start', 'Start body')]);
    await writeLive(h, t.owner.token, two.id, [insertPage('Other', 'Other body')]);
    const site = await s.site(t.owner, t.orgId, { title: 'Linked' });
    const path = s.sitePath(t.orgId, site.id);
    await s.section(t.owner, t.orgId, site.id, { spaceId: one.id, title: 'First' });
    const link = (body: Record<string, unknown>) =>
      s.ok('addExternalLinkToSite', 'POST', `${path}/external-links`, { token: t.owner.token, body }, 201);
    const status = await link({ title: 'Status <b>&', url: "https://status.example.com/?a=1&b='2'" });
    const group = await s.group(t.owner, t.orgId, site.id, { title: 'More' });
    await link({ title: 'Blog', url: 'http://blog.example.com/', parent: group.id });
    await link({ title: 'Draft link', url: 'https://draft.example.com/', draft: true });
    await link({ title: 'Partner portal', url: 'https://partners.example.com/', condition: 'visitor.claims.unsigned.partner == true' });
    const odd = await link({ title: 'Odd scheme', url: 'https://odd.example.com/' });
    // A row the API would refuse (not http(s)), as an older or hand-edited database could hold.
    await h.db.prisma.siteExternalLink.update({ where: { id: odd.id }, data: { url: 'javascript:alert(1)' } });
    await s.ok('publishSite', 'POST', `${path}/publish`, { token: t.owner.token });
    const url = `${BASE}/public/${t.orgId}/sites/${site.id}`;

    // One section and links: the tabs show, in the structure's order (the group holding only a link).
    const html = (await get(`${url}/start`)).text;
    const nav = html.match(/<nav class="sections"[^]*?<\/nav>/)?.[0] ?? '';
    expect(nav).toContain(
      '<a class="external" href="https://status.example.com/?a=1&amp;b=&#39;2&#39;" rel="noopener">Status &lt;b&gt;&amp; <span aria-hidden="true">↗</span><span class="sr-only"> (external link)</span></a>',
    );
    expect(nav).toMatch(
      /First[^]*Status[^]*<div class="group-title">More<\/div><ul><li><a class="external" href="http:\/\/blog\.example\.com\/" rel="noopener">Blog/,
    );
    expect(html).not.toContain('Status <b>');
    for (const hidden of ['Draft link', 'draft.example.com', 'Partner portal', 'Odd scheme', 'javascript:'])
      expect(html).not.toContain(hidden);

    // The link's condition: shown to a visitor whose claims satisfy it.
    const cookie = cookiesOf(await get(`${url}/start?visitor.partner=true`));
    const partner = (await get(`${url}/start`, { cookie })).text;
    expect(partner).toMatch(/Blog[^]*<a class="external" href="https:\/\/partners\.example\.com\/" rel="noopener">Partner portal/);

    // A link made draft leaves the tabs (the fingerprint covers links: a new answer at once).
    await s.ok('updateSiteExternalLinkById', 'PATCH', `${path}/external-links/${status.id}`, {
      token: t.owner.token,
      body: { draft: true },
    });
    expect((await get(`${url}/start`)).text).not.toContain('status.example.com');
  });

  it('unsigned claims (?visitor.beta=true, then a cookie) show the Beta section and page', async () => {
    const first = await get(`${siteUrl}/intro?visitor.beta=true`);
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe(`/public/${t.orgId}/sites/${siteId}/intro`);
    const cookie = cookiesOf(first);
    expect(first.headers.getSetCookie()[0]).toMatch(new RegExp(`; Path=/public/${t.orgId}/sites/${siteId}; HttpOnly; SameSite=Lax`));
    const html = (await get(`${siteUrl}/intro`, { cookie })).text;
    expect(html).toMatch(/<nav class="sections".*Beta/s);
    expect(html).toContain('Beta notes');
    expect(html).not.toMatch(/<nav class="sections"[^]*Partners/);
    expect((await get(`${siteUrl}/beta`, { cookie })).status).toBe(200);
    expect((await get(`${siteUrl}/beta`)).status).toBe(404);
    expect((await get(`${siteUrl}/beta-notes`)).status).toBe(404);
  });

  it('signed claims (a JWT with the site key) show the Partners section; a forged or expired token is refused', async () => {
    const key = new TextEncoder().encode(siteVisitorKey(await serverKeys({ db: h.db, config: h.config }), siteId));
    const token = await new SignJWT({ partner: true }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(key);
    const first = await get(`${siteUrl}/partners?jwt_token=${token}`);
    expect(first.status).toBe(302);
    const html = (await get(`${siteUrl}/partners`, { cookie: cookiesOf(first) })).text;
    expect(html).toContain('<h1 class="title">Deals</h1>');
    expect(html).toMatch(/<nav class="sections".*Partners/s);
    const forged = await new SignJWT({ partner: true })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('not-the-site-key-not-the-site-key'));
    expect((await get(`${siteUrl}/partners?jwt_token=${forged}`)).status).toBe(401);
    expect((await get(`${siteUrl}/partners`)).status).toBe(404);
  });
});

describe('a large tree', () => {
  it('shows the current branch open and marks the other branches closed, with words for screen readers', async () => {
    const space = await s.space(t.owner, 'Large tree');
    const { pages } = await writeLive(h, t.owner.token, space.id, [insertPage('Branch A', 'A'), insertPage('Branch B', 'B')]);
    await writeLive(h, t.owner.token, space.id, [
      insertPage('Leaf A', 'Leaf A body', { into: pages[0] }),
      insertPage('Leaf B', 'Leaf B body', { into: pages[1] }),
    ]);
    for (let i = 0; i < 400; i += 50)
      await writeLive(
        h,
        t.owner.token,
        space.id,
        Array.from({ length: 50 }, (_, j) => insertPage(`Filler ${i + j}`, 'x')),
      );
    const site = await s.site(t.owner, t.orgId, { title: 'Large', spaces: [space.id] });
    await s.ok('publishSite', 'POST', `${s.sitePath(t.orgId, site.id)}/publish`, { token: t.owner.token });
    const html = (await get(`${BASE}/public/${t.orgId}/sites/${site.id}/branch-a/leaf-a`)).text;
    const nav = html.match(/<nav aria-label="Pages">[^]*?<\/nav>/)?.[0] ?? '';
    expect(nav).toContain('aria-current="page">Leaf A</a>');
    expect(nav).toMatch(/<li><a href="[^"]*\/branch-a">Branch A<\/a><ul>/);
    expect(nav).toMatch(
      /<li class="closed"><a href="[^"]*\/branch-b">Branch B<span class="sr-only"> \(has pages inside\)<\/span><\/a><\/li>/,
    );
    expect(nav).not.toContain('Leaf B');
    expect(html).toContain('.sidebar li.closed>a::after{content:" \\203A"');
  });
});

describe('a custom hostname', () => {
  it('serves the site at `/` of its hostname, links relative to `/`; the API and other hosts keep working', async () => {
    const [one, two] = [await s.space(t.owner, 'Hosted one'), await s.space(t.owner, 'Hosted two')];
    const { pages } = await writeLive(h, t.owner.token, one.id, [
      insertPage('Welcome', 'Hosted welcome, see [more](more.md).'),
      insertPage('More', 'More hosted text.'),
    ]);
    await writeLive(h, t.owner.token, one.id, [insertPage('Deeper', 'Deep hosted text.', { into: pages[1] })]);
    await writeLive(h, t.owner.token, two.id, [insertPage('Api', 'Second section text.')]);
    const site = await s.site(t.owner, t.orgId, { title: 'Hosted docs' });
    await s.section(t.owner, t.orgId, site.id, { spaceId: one.id, title: 'Guide' });
    await s.section(t.owner, t.orgId, site.id, { spaceId: two.id, title: 'Second' });
    await s.ok('publishSite', 'POST', `${s.sitePath(t.orgId, site.id)}/publish`, { token: t.owner.token });
    const host = 'docs.hosted-reader.test';
    // As a proven claim leaves it (the hostname tests of the sites module prove one through DNS).
    await h.db.prisma.site.update({ where: { id: site.id }, data: { hostname: host } });
    const at = `http://${host}`;

    const home = await get(`${at}/`);
    expect(home.status).toBe(200);
    expect(home.text).toContain('Hosted welcome');
    expect(home.text).toContain('<link rel="canonical" href="https://docs.hosted-reader.test/welcome">');
    // Every link of the page stays on the hostname: relative to `/` (never `//`), anchors, or the canonical URL.
    const targets = [...home.text.matchAll(/\s(?:href|action|src)="([^"]*)"/g)].map((m) => m[1]!);
    expect(targets.length).toBeGreaterThan(5);
    for (const target of targets) expect(target, target).toMatch(/^(\/(?!\/)|#|https:\/\/docs\.hosted-reader\.test\/|data:)/);
    expect(home.text).toContain('<a class="brand" href="/">');
    expect(home.text).toContain('href="/more"'); // the sidebar, and the body's link to a page
    expect(home.text).toContain('href="/second"'); // the other section's tab
    expect(home.text).not.toContain(BASE);
    expect((await get(`${at}/more/deeper`)).text).toContain('Deep hosted text.');
    expect((await get(`${at}/second`)).text).toContain('Second section text.');
    expect((await get(`${at}/welcome.md`)).text).toContain('Hosted welcome');
    expect((await get(`${at}/llms.txt`)).text).toContain('(https://docs.hosted-reader.test/more/deeper.md)');
    expect((await get(`${at}/sitemap.xml`)).text).toContain('<loc>https://docs.hosted-reader.test/more/deeper</loc>');
    const missing = await get(`${at}/nope`);
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('<a href="/">Go to the site’s home page</a>');
    const head = await h.app.fetch(new Request(`${at}/more`, { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    // Visitor claims: the cookie lives at `/` of the hostname, the clean URL is relative.
    const claims = await get(`${at}/more?visitor.beta=true`);
    expect(claims.status).toBe(302);
    expect(claims.headers.get('location')).toBe('/more');
    expect(claims.headers.getSetCookie()[0]).toMatch(/; Path=\/; HttpOnly; SameSite=Lax/);

    // The API and the probes keep working on that host; writes are not the reader's.
    const me = await h.app.fetch(new Request(`${at}/v1/user`, { headers: { authorization: `Bearer ${t.owner.token}` } }));
    expect(me.status).toBe(200);
    expect(((await me.json()) as { id: string }).id).toBe(t.owner.id);
    expect((await h.app.fetch(new Request(`${at}/healthz`))).status).toBe(200);
    expect((await h.app.fetch(new Request(`${at}/`, { method: 'POST', body: '{}' }))).status).not.toBe(200);
    // Its `/public/…` URL still serves it; another host is not this site.
    expect((await get(`${BASE}/public/${t.orgId}/sites/${site.id}/more`)).text).toContain('More hosted text.');
    const other = await h.app.fetch(new Request('http://elsewhere.hosted-reader.test/more'));
    expect(other.status).toBe(404);
    expect(await other.text()).not.toContain('More hosted text.');
  });
});

describe('access', () => {
  async function siteWith(visibility: string, publish = true) {
    const space = await s.space(t.owner, `Space ${visibility}`);
    await writeLive(h, t.owner.token, space.id, [insertPage('Home', `Home of ${visibility}`)]);
    const site = await s.site(t.owner, t.orgId, { title: `${visibility} site`, visibility, spaces: [space.id] });
    if (publish) await s.ok('publishSite', 'POST', `${s.sitePath(t.orgId, site.id)}/publish`, { token: t.owner.token });
    return { site, url: `${BASE}/public/${t.orgId}/sites/${site.id}` };
  }

  it('share-link: refused without a key; ?share=KEY sets a cookie that opens it; a wrong or revoked key does not', async () => {
    const { site, url } = await siteWith('share-link');
    expect((await get(url)).status).toBe(404);
    expect((await get(`${url}?share=wrong`)).status).toBe(404);
    const link = await s.ok(
      'createSiteShareLink',
      'POST',
      `${s.sitePath(t.orgId, site.id)}/share-links`,
      { token: t.owner.token, body: { name: 'Partner' } },
      201,
    );
    const key = new URL(link.urls.published).searchParams.get('share')!;
    const first = await get(`${url}/home?share=${key}`);
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe(`/public/${t.orgId}/sites/${site.id}/home`);
    expect(first.headers.getSetCookie()[0]).toMatch(/^lectern_share=.+; Path=\/public\/[^;]+; HttpOnly; SameSite=Lax/);
    const cookie = cookiesOf(first);
    const page = await get(`${url}/home`, { cookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Home of share-link');
    expect(page.text).toContain('<meta name="robots" content="noindex">');
    expect(page.headers.get('cache-control')).toMatch(/private/);
    expect((await get(`${url}/home.md`, { cookie })).text).toContain('Home of share-link');
    expect((await get(`${url}/robots.txt`, { cookie })).text).toBe('User-agent: *\nDisallow: /\n');
    expect((await get(`${url}/sitemap.xml`, { cookie })).text).not.toContain('<url>');
    // Members reach it with their token.
    expect((await get(`${url}/home`, { token: t.guest.token })).status).toBe(200);
    expect((await get(`${url}/home`, { token: t.outsider.token })).status).toBe(404);
    await s.ok('updateSiteShareLinkById', 'PATCH', `${s.sitePath(t.orgId, site.id)}/share-links/${link.id}`, {
      token: t.owner.token,
      body: { active: false },
    });
    expect((await get(`${url}/home`, { cookie })).status).toBe(404);
  });

  it('visitor-auth: a valid JWT opens it (then a cookie); none, invalid or expired tokens are refused', async () => {
    const { site, url } = await siteWith('visitor-auth');
    const key = new TextEncoder().encode(siteVisitorKey(await serverKeys({ db: h.db, config: h.config }), site.id));
    expect((await get(url)).status).toBe(401);
    const valid = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('10m').sign(key);
    const first = await get(`${url}?jwt_token=${valid}`);
    expect(first.status).toBe(302);
    const page = await get(url, { cookie: cookiesOf(first) });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Home of visitor-auth');
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(key);
    const refused = await get(`${url}?jwt_token=${expired}`);
    expect(refused.status).toBe(401);
    expect(refused.headers.getSetCookie()[0]).toMatch(/^lectern_visitor=; .*Max-Age=0/);
    expect((await get(url, { cookie: `lectern_visitor=${expired}` })).status).toBe(401);
    expect((await get(`${url}?jwt_token=not.a.jwt`)).status).toBe(401);
    // Another site's key does not open it.
    const other = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(siteVisitorKey(await serverKeys({ db: h.db, config: h.config }), siteId)));
    expect((await get(`${url}?jwt_token=${other}`)).status).toBe(401);
  });

  it('unpublished and unknown sites are a 404 page; unlisted sites are noindex and out of the sitemap', async () => {
    const { url } = await siteWith('public', false);
    const res = await get(url);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await get(`${url}/llms.txt`)).status).toBe(404);
    expect((await get(`${BASE}/public/${t.orgId}/sites/nope`)).status).toBe(404);
    const unlisted = await siteWith('unlisted');
    const page = await get(unlisted.url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<meta name="robots" content="noindex">');
    expect((await get(`${unlisted.url}/sitemap.xml`)).text).not.toContain('<url>');
  });
});
