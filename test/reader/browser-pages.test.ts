import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness } from '../support/harness.js';
import { launchChromium, MISSING_CHROMIUM, serveApp, skipBrowser } from '../support/browser.js';
import { insertPage, writeLive } from '../support/content-writes.js';
import { siteHelpers, type Owner } from '../support/sites.js';

/**
 * Every kind of published-site page carries the reader's one script (the light/dark toggle): a
 * page, a page whose body begins with its title, an empty section, search results, the not-found
 * page and a share-link site opened by its link. In headless Chromium each one loads with no page
 * error and no console error, its script runs (the toggle shows and switches the theme), and it has
 * exactly one <h1>.
 */
if (skipBrowser) console.warn(`test/reader/browser-pages.test.ts skipped: ${MISSING_CHROMIUM}`);

describe.skipIf(skipBrowser)("the reader's pages run their script with no page error", () => {
  let h: Harness;
  const s = siteHelpers(() => h);
  let served: Awaited<ReturnType<typeof serveApp>>;
  let browser: Browser;
  let owner: Owner;
  let siteUrl: string;
  let sectionPath: string;
  let shareUrl: string;

  beforeAll(async () => {
    h = await setupHarness();
    served = await serveApp(h);
    browser = await launchChromium();
    owner = await h.owner('Pages');
    const guides = await s.space(owner, 'Guides');
    await writeLive(h, owner.token, guides.id, [
      insertPage('Setup', '# Setup\n\nInstall it.\n\n## Then\n\nUse it.'),
      insertPage('Usage', 'Daily use.'),
    ]);
    const empty = await s.space(owner, 'API reference');
    const site = await s.site(owner, owner.orgId, { title: 'Docs', spaces: [guides.id] });
    sectionPath = ((await s.section(owner, owner.orgId, site.id, { spaceId: empty.id, title: 'API' })) as { path: string }).path;
    await s.ok('publishSite', 'POST', `${s.sitePath(owner.orgId, site.id)}/publish`, { token: owner.token });
    siteUrl = `${served.origin}/public/${owner.orgId}/sites/${site.id}`;

    const shared = await s.site(owner, owner.orgId, { title: 'Shared', visibility: 'share-link', spaces: [guides.id] });
    await s.ok('publishSite', 'POST', `${s.sitePath(owner.orgId, shared.id)}/publish`, { token: owner.token });
    const link = await s.ok(
      'createSiteShareLink',
      'POST',
      `${s.sitePath(owner.orgId, shared.id)}/share-links`,
      { token: owner.token, body: { name: 'Readers' } },
      201,
    );
    shareUrl = link.urls.published.replace(/^https?:\/\/[^/]+/, served.origin);
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  async function visit(url: string, status: number): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ colorScheme: 'light' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    // The not-found page's 404 is reported by the browser as a console error of its own: not a script's.
    page.on(
      'console',
      (m) => m.type() === 'error' && !(status === 404 && /status of 404/.test(m.text())) && errors.push(`console: ${m.text()}`),
    );
    const response = await page.goto(url);
    expect(response?.status(), url).toBe(status);
    // The script ran: the theme toggle it reveals is shown, and it switches the theme.
    const toggle = page.locator('#theme-toggle');
    await toggle.waitFor({ state: 'visible' });
    await toggle.click();
    await expect.poll(() => page.evaluate(() => document.documentElement.getAttribute('data-theme'))).toBe('dark');
    expect(await page.locator('h1').count(), url).toBe(1);
    return { page, errors };
  }

  it.each([
    ['a page', '/usage', 200, 'Usage'],
    ['a page whose body begins with its title', '/setup', 200, 'Setup'],
    ['an empty section', 'SECTION', 200, 'API'],
    ['search results', '/setup?q=install', 200, 'Search'],
    ['the not-found page', '/no-such-page', 404, 'Page not found'],
  ])('%s', async (_name, path, status, heading) => {
    const url = `${siteUrl}${path === 'SECTION' ? `/${sectionPath}` : path}`;
    const { page, errors } = await visit(url, status);
    expect((await page.locator('h1').innerText()).replace(/#$/, '').trim()).toBe(heading);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('a share-link site opened by its link', async () => {
    const { page, errors } = await visit(shareUrl, 200);
    expect(page.url()).not.toContain('share=');
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
