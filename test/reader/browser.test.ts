import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness } from '../support/harness.js';
import { launchChromium, MISSING_CHROMIUM, serveApp, skipBrowser } from '../support/browser.js';
import { insertPage, writeLive } from '../support/content-writes.js';
import { siteHelpers } from '../support/sites.js';

/**
 * The reader's site in a real headless Chromium (the Debian package `chromium`, driven by
 * playwright-core; .ci/run installs it): a published page shows its sidebar tree, outline and
 * previous/next; a page holding `<script>alert(1)</script>` shows it as text and no dialog opens;
 * the light/dark toggle (the one hashed inline script) works and is remembered; every request the
 * browser makes stays on 127.0.0.1 (no CDN) and the console reports no CSP violation.
 *
 * Without a Chromium: in CI (`CI` set) the test fails; elsewhere it is skipped, saying so.
 * Run with `npm run test:browser` (test/reader/browser-journey.test.ts is the reader's journey).
 */
if (skipBrowser) console.warn(`test/reader/browser.test.ts skipped: ${MISSING_CHROMIUM}`);

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const INTRO = `Welcome to the guide.

## Install

\`\`\`js
const answer = 42;
\`\`\`

<script>alert(1)</script>

![logo](logo.png)

## Configure

Set it up.
`;

describe.skipIf(skipBrowser)('the reader in headless Chromium', () => {
  let h: Harness;
  const s = siteHelpers(() => h);
  let served: Awaited<ReturnType<typeof serveApp>>;
  let origin: string;
  let siteUrl: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const requests: string[] = [];
  const consoleErrors: string[] = [];
  const dialogs: string[] = [];

  beforeAll(async () => {
    h = await setupHarness();
    // An app whose public URL is the loopback address it listens on: the page's links, files and assets point there.
    served = await serveApp(h);
    origin = served.origin;

    const [launched, owner] = await Promise.all([launchChromium(), h.owner('Browser org')]);
    browser = launched;
    const space = await s.space(owner, 'Guides');
    await writeLive(h, owner.token, space.id, [
      { operation: 'insert_files', files: [{ name: 'logo.png', contentType: 'image/png', base64: PNG }] },
    ]);
    const { pages } = await writeLive(h, owner.token, space.id, [
      insertPage('Intro', INTRO),
      insertPage('Usage', '## Daily use\n\nUse it.\n\n## Tips\n\nMore.'),
      insertPage('Reference', 'All of it.'),
    ]);
    await writeLive(h, owner.token, space.id, [insertPage('Advanced', '## Deep\n\nDeep dive.', { into: pages[1] })]);
    const site = await s.site(owner, owner.orgId, { title: 'Browser docs', spaces: [space.id] });
    await s.ok('publishSite', 'POST', `${s.sitePath(owner.orgId, site.id)}/publish`, { token: owner.token });
    siteUrl = `${origin}/public/${owner.orgId}/sites/${site.id}`;

    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    context.on('request', (r) => requests.push(r.url()));
    page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  it('a published page: the sidebar tree, the outline, previous/next are visible and lead on', async () => {
    const started = performance.now();
    const res = await page.goto(`${siteUrl}/usage`);
    expect(res?.status()).toBe(200);
    const tree = page.getByRole('navigation', { name: 'Pages' });
    await expect.poll(() => tree.isVisible()).toBe(true);
    expect(await tree.getByRole('link').allTextContents()).toEqual(['Intro', 'Usage', 'Advanced', 'Reference']);
    expect(await tree.locator('a[aria-current="page"]').textContent()).toBe('Usage');
    const outline = page.locator('aside.outline');
    expect(await outline.isVisible()).toBe(true);
    expect(await outline.getByRole('link').allTextContents()).toEqual(['Daily use', 'Tips']);
    expect(await page.locator('a[rel="prev"]').isVisible()).toBe(true);
    expect(await page.locator('a[rel="prev"]').innerText()).toMatch(/Previous\s+Intro/);
    const next = page.locator('a[rel="next"]');
    expect(await next.isVisible()).toBe(true);
    await Promise.all([page.waitForURL(`${siteUrl}/usage/advanced`), next.click()]);
    expect(await page.locator('h1.title').textContent()).toBe('Advanced');
    // The sidebar leads on too.
    await Promise.all([page.waitForURL(`${siteUrl}/reference`), tree.getByRole('link', { name: 'Reference' }).click()]);
    expect(await page.locator('h1.title').textContent()).toBe('Reference');
    console.log(`browser: page, tree, outline, next, sidebar: ${(performance.now() - started).toFixed(0)} ms`);
  });

  it('a page holding <script>alert(1)</script> shows it as text: no dialog, no script of the page runs', async () => {
    await page.goto(`${siteUrl}/intro`);
    const shown = page.locator('article.content').getByText('<script>alert(1)</script>', { exact: true });
    expect(await shown.isVisible()).toBe(true);
    // The code block is highlighted; the image comes from this server and loads.
    expect(await page.locator('pre code .hljs-keyword').first().textContent()).toBe('const');
    const img = page.locator('article.content img[alt="logo"]');
    await img.scrollIntoViewIfNeeded();
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(1);
    // Only the one hashed inline script is in the document, and no dialog opened.
    expect(await page.locator('script').count()).toBe(1);
    await page.waitForTimeout(100);
    expect(dialogs).toEqual([]);
  });

  it('the light/dark toggle switches the theme and remembers it', async () => {
    await page.goto(`${siteUrl}/intro`);
    const html = page.locator('html');
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const toggle = page.locator('#theme-toggle');
    // The button is hidden until the (hashed) script runs: visible means the CSP let it run.
    expect(await toggle.isVisible()).toBe(true);
    // The site's customization decides the first theme: GitBook's default customization is light.
    expect(await html.getAttribute('data-theme')).toBe('light');
    expect(await background()).toBe('rgb(255, 255, 255)');
    await toggle.click();
    expect(await html.getAttribute('data-theme')).toBe('dark');
    expect(await background()).toBe('rgb(17, 20, 24)');
    await page.reload();
    expect(await html.getAttribute('data-theme')).toBe('dark');
    expect(await background()).toBe('rgb(17, 20, 24)');
    await page.locator('#theme-toggle').click();
    expect(await html.getAttribute('data-theme')).toBe('light');
    expect(await background()).toBe('rgb(255, 255, 255)');
  });

  it('no request left 127.0.0.1 and the console reported no CSP violation (nor any error)', () => {
    expect(requests.length).toBeGreaterThan(5);
    const elsewhere = requests.filter((u) => {
      const url = new URL(u);
      return !(url.protocol === 'data:' || (url.protocol === 'http:' && url.hostname === '127.0.0.1'));
    });
    expect(elsewhere).toEqual([]);
    // The page's own files and the file route only.
    expect(requests.some((u) => u.startsWith(`${origin}/files/`))).toBe(true);
    expect(consoleErrors).toEqual([]);
  });
});
