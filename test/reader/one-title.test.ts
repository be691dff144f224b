import { beforeAll, describe, expect, it } from 'vitest';
import { BASE, setupHarness, type Harness } from '../support/harness.js';
import { insertPage, writeLive } from '../support/content-writes.js';
import { siteHelpers, type Owner } from '../support/sites.js';

/**
 * One title per page on the published site: a body that begins with a level-1 heading saying the
 * page's title (as Git Sync and the README write pages) shows that title once, as the page's one
 * <h1>, in the page's Markdown and in llms-full.txt too; a heading that says something else stays.
 * A section whose space has no page yet shows the site with an empty state, not "Page not found".
 */
let h: Harness;
const s = siteHelpers(() => h);
let owner: Owner;
let siteUrl: string;
let apiSection: { path: string };

const h1s = (html: string) =>
  [...html.matchAll(/<h1[\s>][^]*?<\/h1>/g)].map((m) =>
    m[0]
      .replace(/<[^>]+>/g, '')
      .replace(/#$/, '')
      .trim(),
  );

async function get(path: string): Promise<{ status: number; text: string }> {
  const response = await h.app.fetch(new Request(`${siteUrl}${path}`));
  return { status: response.status, text: await response.text() };
}

beforeAll(async () => {
  h = await setupHarness();
  owner = await h.owner('Titles');
  const guides = await s.space(owner, 'Guides');
  await writeLive(h, owner.token, guides.id, [
    insertPage('Setup', '# Setup\n\n1. npm ci\n2. npm start\n\n## Later\n\nMore.'),
    insertPage('Café  Guide', '#   cafe\u0301 guide\n\nNormalized: case, spacing and Unicode form.', { slug: 'cafe' }),
    insertPage('Usage', '# Using it daily\n\nA heading that is not the title stays.'),
    insertPage('Intro', 'Welcome.\n\n# Setup\n\nNot leading: stays.'),
  ]);
  const api = await s.space(owner, 'API reference');
  const site = await s.site(owner, owner.orgId, { title: 'Docs', spaces: [guides.id] });
  apiSection = (await s.section(owner, owner.orgId, site.id, { spaceId: api.id, title: 'API' })) as { path: string };
  await s.ok('publishSite', 'POST', `${s.sitePath(owner.orgId, site.id)}/publish`, { token: owner.token });
  siteUrl = `${BASE}/public/${owner.orgId}/sites/${site.id}`;
});

describe('one title per page on the published site', () => {
  it('a leading "# Title" is the title: one <h1>, not in the outline', async () => {
    const page = await get('/setup');
    expect(page.status).toBe(200);
    expect(h1s(page.text)).toEqual(['Setup']);
    expect(page.text).toContain('<h2 id="later">');
    expect(page.text).not.toMatch(/href="#setup"/);
  });

  it('titles compare as normalized text (case, spaces, Unicode form)', async () => {
    const page = await get('/cafe');
    expect(page.status).toBe(200);
    expect(h1s(page.text)).toHaveLength(1);
    expect(page.text).toContain('Normalized');
  });

  it('a leading heading that says something else, or a title heading later in the body, stays', async () => {
    expect(h1s((await get('/usage')).text)).toEqual(['Usage', 'Using it daily']);
    expect(h1s((await get('/intro')).text)).toEqual(['Intro', 'Setup']);
  });

  it("the page's Markdown and llms-full.txt carry the title once", async () => {
    const markdown = (await get('/setup.md')).text;
    expect(markdown.match(/^# Setup$/gm)).toHaveLength(1);
    expect(markdown).toContain('1. npm ci');
    const parts = (await get('/llms-full.txt')).text.split('\n---\n\n');
    const setup = parts.find((p) => p.startsWith('# Setup\n'))!;
    expect(setup.match(/^# Setup$/gm)).toHaveLength(1);
    expect(setup).toContain('1. npm ci');
    expect(parts.find((p) => p.startsWith('# Usage\n'))).toContain('# Using it daily');
  });
});

describe('an empty section', () => {
  it('shows the site with "This section has no pages yet", not "Page not found"', async () => {
    const page = await get(`/${apiSection.path}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('This section has no pages yet');
    expect(page.text).not.toContain('Page not found');
    expect(h1s(page.text)).toEqual(['API']);
    // The section tabs are there, the empty one marked as the current one.
    expect(page.text).toMatch(/<nav class="sections"[^]*aria-current="page">API<\/a>/);
  });

  it('a missing page inside it, or elsewhere, is still not found', async () => {
    expect((await get(`/${apiSection.path}/nothing-here`)).status).toBe(404);
    expect((await get('/no-such-page')).status).toBe(404);
  });
});
