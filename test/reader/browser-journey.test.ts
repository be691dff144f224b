import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { SignJWT } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness } from '../support/harness.js';
import { insertPage, writeLive, type Change } from '../support/content-writes.js';
import { siteHelpers } from '../support/sites.js';
import {
  axeViolations,
  launchChromium,
  MISSING_CHROMIUM,
  serveApp,
  skipBrowser,
  summarizePng,
  type AxeViolation,
} from '../support/browser.js';

/**
 * A reader's journey through published sites in headless Chromium, on data built
 * through the API: a public site with two sections (Guides with two variants, Reference), nested
 * pages, an image, a code block, and a third section shown only to visitors whose signed claims
 * match; a share-link site; a visitor-auth site. The browser opens the site, follows the sidebar,
 * switches section and variant, searches and opens a result, is refused by the share-link site
 * without the key and let in with it, is let into the visitor-auth site by a JWT signed with the
 * site's publishing-auth key (from the official getSitePublishingAuthById), sees the adaptive
 * section only with a matching claim; it saves screenshots (light and dark, desktop and phone
 * width; decoded to check they are not blank) and axe-core finds no serious or critical violation
 * on the rendered pages. Run with `npm run test:browser`.
 */
if (skipBrowser) console.warn(`test/reader/browser-journey.test.ts skipped: ${MISSING_CHROMIUM}`);

/** Where the screenshots go (printed by the test); LECTERN_SCREENSHOTS overrides. */
const SHOTS = process.env.LECTERN_SCREENSHOTS ?? join(tmpdir(), 'lectern-browser-screenshots');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const LIGHT_BG = 'rgb(255, 255, 255)';
const DARK_BG = 'rgb(17, 20, 24)';

/** A 240×90 PNG of three colored bands (something visible in the screenshots). */
function bandsPng(): string {
  const [w, hgt] = [240, 90];
  const colors = [
    [52, 109, 219],
    [0, 168, 70],
    [224, 138, 0],
  ];
  const rows = Buffer.alloc(hgt * (w * 3 + 1));
  for (let y = 0; y < hgt; y++)
    for (let x = 0; x < w; x++) {
      const c = colors[Math.floor((x * 3) / w)]!;
      rows.set(c, y * (w * 3 + 1) + 1 + x * 3);
    }
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(hgt, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]).toString('base64');
}

const INTRO = `Welcome to the guide. Read [Usage](usage.md) next.

## Install

\`\`\`js
// the answer
const answer = 42;
console.log("the answer is", answer);
\`\`\`

![Three colored bands](bands.png)

## Configure

Set it up.
`;

describe.skipIf(skipBrowser)(
  'a reader in headless Chromium: sections, variants, search, access, adaptive content, screenshots, accessibility',
  () => {
    let h: Harness;
    const s = siteHelpers(() => h);
    let served: Awaited<ReturnType<typeof serveApp>>;
    let browser: Browser;
    let siteUrl: string;
    let v2Path: string;
    let siteKey: string;
    let shared: { url: string; key: string };
    let members: { url: string; key: string };
    const contexts: BrowserContext[] = [];
    const requests: string[] = [];
    const cspViolations: string[] = [];
    const pageErrors: string[] = [];
    /** Pages axe looked at, with their serious or critical violations (and the minor ones, printed). */
    const axeFindings: { page: string; violations: AxeViolation[] }[] = [];

    /** A fresh browser context (its own cookies and storage) and a page in it, watched for CSP violations and errors. */
    async function freshPage(viewport = DESKTOP): Promise<Page> {
      const context = await browser.newContext({ viewport, colorScheme: 'light' });
      contexts.push(context);
      context.on('request', (r) => requests.push(r.url()));
      const page = await context.newPage();
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
      });
      page.on('pageerror', (e) => pageErrors.push(e.message));
      return page;
    }

    async function checkAxe(page: Page, label: string) {
      axeFindings.push({ page: label, violations: await axeViolations(page) });
    }

    const sidebar = (page: Page) => page.getByRole('navigation', { name: 'Pages' });
    const sections = (page: Page) => page.getByRole('navigation', { name: 'Sections' });
    const title = (page: Page) => page.locator('h1.title').textContent();

    beforeAll(async () => {
      const started = performance.now();
      h = await setupHarness();
      const launching = launchChromium();
      launching.catch(() => undefined);
      served = await serveApp(h);
      const owner = await h.owner('Journey org');
      const sitePath = (id: string) => s.sitePath(owner.orgId, id);
      const publish = (id: string) => s.ok('publishSite', 'POST', `${sitePath(id)}/publish`, { token: owner.token });
      const published = (id: string) => `${served.origin}/public/${owner.orgId}/sites/${id}`;

      /** A space with its files, then pages written live; `nested`: pages put under the second page. */
      const spaceWith = async (title: string, pages: Change[], more: { files?: Change[]; nested?: Change[] } = {}) => {
        const { files = [], nested = [] } = more;
        const space = await s.space(owner, title);
        if (files.length) await writeLive(h, owner.token, space.id, files);
        const written = await writeLive(h, owner.token, space.id, pages);
        if (nested.length)
          await writeLive(
            h,
            owner.token,
            space.id,
            nested.map((c) => ({ ...c, into: written.pages[1] })),
          );
        return space;
      };

      // The three sites are built side by side (their own spaces), the browser starting meanwhile.
      const mainSite = async () => {
        // Guides v1: nested pages, an image, a code block. Guides v2: another variant. Reference, Partners.
        const [v1, v2, reference, partners] = await Promise.all([
          spaceWith(
            'Guide v1',
            [insertPage('Intro', INTRO), insertPage('Usage', '## Daily use\n\nUse it every day.'), insertPage('Reference notes', 'Notes.')],
            {
              files: [{ operation: 'insert_files', files: [{ name: 'bands.png', contentType: 'image/png', base64: bandsPng() }] }],
              nested: [insertPage('Advanced', '## Deep\n\nThe quasar tuning, in depth.')],
            },
          ),
          spaceWith('Guide v2', [insertPage('Start', 'Version two starts here.'), insertPage('Upgrade', 'From v1 to v2.')]),
          spaceWith('Reference', [insertPage('Endpoints', 'Every quasar endpoint.')]),
          spaceWith('Partners', [insertPage('Deals', 'Partner deals.')]),
        ]);
        const site = await s.site(owner, owner.orgId, { title: 'Journey docs', visibility: 'public' });
        const guides = await s.section(owner, owner.orgId, site.id, { spaceId: v1.id, title: 'Guides' });
        v2Path = (await s.siteSpace(owner, owner.orgId, site.id, { spaceId: v2.id, sectionId: guides.id })).path;
        await s.section(owner, owner.orgId, site.id, { spaceId: reference.id, title: 'Reference' });
        const p = await s.section(owner, owner.orgId, site.id, { spaceId: partners.id, title: 'Partners' });
        await s.ok('updateSiteSectionById', 'PATCH', `${sitePath(site.id)}/sections/${p.id}`, {
          token: owner.token,
          body: { condition: 'visitor.claims.partner == true' },
        });
        await publish(site.id);
        siteUrl = published(site.id);
        siteKey = (await s.ok('getSitePublishingAuthById', 'GET', `${sitePath(site.id)}/publishing/auth`, { token: owner.token }))
          .privateKey;
      };
      const shareSite = async () => {
        const space = await spaceWith('Shared space', [insertPage('Handbook', 'The partner handbook.')]);
        const site = await s.site(owner, owner.orgId, { title: 'Shared docs', visibility: 'share-link', spaces: [space.id] });
        await publish(site.id);
        const link = await s.ok(
          'createSiteShareLink',
          'POST',
          `${sitePath(site.id)}/share-links`,
          { token: owner.token, body: { name: 'Partner' } },
          201,
        );
        shared = { url: published(site.id), key: new URL(link.urls.published).searchParams.get('share')! };
      };
      const authSite = async () => {
        const space = await spaceWith('Members space', [insertPage('Welcome', 'Only for signed-in visitors.')]);
        const site = await s.site(owner, owner.orgId, { title: 'Members docs', visibility: 'visitor-auth', spaces: [space.id] });
        await publish(site.id);
        const auth = await s.ok('getSitePublishingAuthById', 'GET', `${sitePath(site.id)}/publishing/auth`, { token: owner.token });
        members = { url: published(site.id), key: auth.privateKey };
      };
      await Promise.all([mainSite(), shareSite(), authSite()]);

      browser = await launching;
      mkdirSync(SHOTS, { recursive: true });
      console.log(`browser journey: data and browser ready in ${(performance.now() - started).toFixed(0)} ms`);
    });

    afterAll(async () => {
      await browser?.close();
      await served?.close();
    });

    it('opens the site and follows the sidebar into nested pages', async () => {
      const page = await freshPage();
      const res = await page.goto(siteUrl);
      expect(res?.status()).toBe(200);
      expect(await title(page)).toBe('Intro');
      expect(await sidebar(page).getByRole('link').allTextContents()).toEqual(['Intro', 'Usage', 'Advanced', 'Reference notes']);
      await Promise.all([page.waitForURL(`${siteUrl}/usage`), sidebar(page).getByRole('link', { name: 'Usage' }).click()]);
      expect(await title(page)).toBe('Usage');
      await Promise.all([page.waitForURL(`${siteUrl}/usage/advanced`), sidebar(page).getByRole('link', { name: 'Advanced' }).click()]);
      expect(await title(page)).toBe('Advanced');
      expect(await page.locator('.breadcrumbs').textContent()).toBe('Usage');
      expect(await sidebar(page).locator('a[aria-current="page"]').textContent()).toBe('Advanced');
      // The page's code block is highlighted and its image (from this server's file route) loads.
      await page.goto(`${siteUrl}/intro`);
      expect(await page.locator('pre code .hljs-keyword').first().textContent()).toBe('const');
      const img = page.locator('article.content img[alt="Three colored bands"]');
      await img.scrollIntoViewIfNeeded();
      await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(240);
      await checkAxe(page, 'intro (light)');
    });

    it('switches section, then variant', async () => {
      const page = await freshPage();
      await page.goto(`${siteUrl}/intro`);
      expect(await sections(page).getByRole('link').allTextContents()).toEqual(['Guides', 'Reference']);
      expect(await sections(page).locator('a[aria-current="page"]').textContent()).toBe('Guides');
      await Promise.all([
        page.waitForURL(new RegExp(`^${siteUrl}/reference(/endpoints)?$`)),
        sections(page).getByRole('link', { name: 'Reference' }).click(),
      ]);
      expect(await title(page)).toBe('Endpoints');
      expect(await sections(page).locator('a[aria-current="page"]').textContent()).toBe('Reference');
      expect(await sidebar(page).getByRole('link').allTextContents()).toEqual(['Endpoints']);
      // Reference has one variant: no switcher.
      expect(await page.locator('details.variants').count()).toBe(0);
      await Promise.all([
        page.waitForURL(new RegExp(`^${siteUrl}(/intro)?$`)),
        sections(page).getByRole('link', { name: 'Guides' }).click(),
      ]);
      expect(await title(page)).toBe('Intro');

      // The variant switcher: closed, it shows the current variant; opened, it leads to the other.
      const switcher = page.locator('details.variants');
      expect(await switcher.locator('summary').textContent()).toBe('Guide v1');
      const other = switcher.getByRole('link', { name: 'Guide v2' });
      expect(await other.isVisible()).toBe(false);
      await switcher.locator('summary').click();
      expect(await other.isVisible()).toBe(true);
      await checkAxe(page, 'variant switcher open');
      await Promise.all([page.waitForURL(new RegExp(`^${siteUrl}/${v2Path}(/start)?$`)), other.click()]);
      expect(await title(page)).toBe('Start');
      expect(await page.locator('details.variants summary').textContent()).toBe('Guide v2');
      expect(await sidebar(page).getByRole('link').allTextContents()).toEqual(['Start', 'Upgrade']);
      expect(await sections(page).locator('a[aria-current="page"]').textContent()).toBe('Guides');
    });

    it('searches from the header and opens a result', async () => {
      const page = await freshPage();
      await page.goto(`${siteUrl}/intro`);
      const box = page.getByRole('searchbox', { name: 'Search this site' }).first();
      await box.fill('quasar');
      await Promise.all([page.waitForURL(/\?q=quasar$/), box.press('Enter')]);
      expect(await title(page)).toBe('Search');
      expect(await page.getByRole('status').textContent()).toBe('2 pages found for “quasar”.');
      const results = page.locator('a.result-title');
      expect((await results.allTextContents()).sort()).toEqual(['Advanced', 'Endpoints']);
      await checkAxe(page, 'search results');
      await Promise.all([page.waitForURL(`${siteUrl}/usage/advanced`), results.filter({ hasText: 'Advanced' }).click()]);
      expect(await title(page)).toBe('Advanced');
      expect(await page.locator('article.content').textContent()).toContain('The quasar tuning, in depth.');
    });

    it('a share-link site refuses without the key (and with a wrong one), opens with it and stays open', async () => {
      const page = await freshPage();
      const refused = await page.goto(shared.url);
      expect(refused?.status()).toBe(404);
      expect(await page.locator('main h1').textContent()).toBe('Page not found');
      expect(await page.locator('body').textContent()).not.toContain('partner handbook');
      await checkAxe(page, 'share-link site without the key (404)');
      expect((await page.goto(`${shared.url}?share=not-the-key`))?.status()).toBe(404);

      const opened = await page.goto(`${shared.url}?share=${shared.key}`);
      expect(opened?.status()).toBe(200);
      // The key left the address bar (a redirect that set the cookie).
      expect(page.url()).toBe(shared.url);
      expect(await title(page)).toBe('Handbook');
      expect(await page.locator('article.content').textContent()).toContain('The partner handbook.');
      expect((await page.reload())?.status()).toBe(200);
      await checkAxe(page, 'share-link site with the key');
    });

    it('a visitor-auth site: refused without a token or with one signed by another key; a JWT signed with its publishing-auth key opens it', async () => {
      const page = await freshPage();
      const refused = await page.goto(members.url);
      expect(refused?.status()).toBe(401);
      expect(await page.locator('body').textContent()).not.toContain('Only for signed-in visitors');
      await checkAxe(page, 'visitor-auth site without a token (401)');
      const sign = (key: string) =>
        new SignJWT({ name: 'Ada' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('10m').sign(new TextEncoder().encode(key));
      expect((await page.goto(`${members.url}?jwt_token=${await sign(siteKey)}`))?.status()).toBe(401);

      const opened = await page.goto(`${members.url}?jwt_token=${await sign(members.key)}`);
      expect(opened?.status()).toBe(200);
      expect(page.url()).toBe(members.url);
      expect(await title(page)).toBe('Welcome');
      expect(await page.locator('article.content').textContent()).toContain('Only for signed-in visitors.');
      // The token is kept in a cookie: the next visit needs no token.
      expect((await page.goto(`${members.url}/welcome`))?.status()).toBe(200);
    });

    it('the adaptive section appears only for a visitor whose signed claims match', async () => {
      const page = await freshPage();
      const sign = (claims: Record<string, unknown>) =>
        new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('10m').sign(new TextEncoder().encode(siteKey));
      await page.goto(`${siteUrl}/intro`);
      expect(await sections(page).getByRole('link').allTextContents()).toEqual(['Guides', 'Reference']);
      expect((await page.goto(`${siteUrl}/partners`))?.status()).toBe(404);

      // A signed claim that does not match: still hidden.
      expect((await page.goto(`${siteUrl}/intro?jwt_token=${await sign({ partner: false })}`))?.status()).toBe(200);
      expect(page.url()).toBe(`${siteUrl}/intro`);
      expect(await sections(page).getByRole('link').allTextContents()).toEqual(['Guides', 'Reference']);
      expect((await page.goto(`${siteUrl}/partners`))?.status()).toBe(404);

      // A matching claim: the Partners section is listed and opens.
      expect((await page.goto(`${siteUrl}/intro?jwt_token=${await sign({ partner: true })}`))?.status()).toBe(200);
      expect(await sections(page).getByRole('link').allTextContents()).toEqual(['Guides', 'Reference', 'Partners']);
      await Promise.all([
        page.waitForURL(new RegExp(`^${siteUrl}/partners(/deals)?$`)),
        sections(page).getByRole('link', { name: 'Partners' }).click(),
      ]);
      expect(await title(page)).toBe('Deals');

      // Another visitor (no claims) still does not see it.
      const stranger = await freshPage();
      await stranger.goto(`${siteUrl}/intro`);
      expect(await sections(stranger).getByRole('link').allTextContents()).toEqual(['Guides', 'Reference']);
    });

    it('screenshots, light and dark, desktop and phone width, are not blank', async () => {
      const shots: Record<string, ReturnType<typeof summarizePng>> = {};
      for (const [width, viewport] of [
        ['desktop', DESKTOP],
        ['phone', PHONE],
      ] as const) {
        const page = await freshPage(viewport);
        await page.goto(`${siteUrl}/intro`);
        const img = page.locator('article.content img');
        await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(240);
        if (width === 'phone') {
          // The phone layout: the sidebar waits behind the "Menu" switch (no script).
          expect(await page.locator('aside.sidebar').isVisible()).toBe(false);
          await page.getByText('Menu', { exact: true }).click();
          expect(await page.locator('aside.sidebar').isVisible()).toBe(true);
          await checkAxe(page, 'phone, menu open');
          await page.getByText('Menu', { exact: true }).click();
          expect(await page.locator('aside.sidebar').isVisible()).toBe(false);
        }
        for (const theme of ['light', 'dark'] as const) {
          if ((await page.locator('html').getAttribute('data-theme')) !== theme) await page.locator('#theme-toggle').click();
          expect(await page.locator('html').getAttribute('data-theme')).toBe(theme);
          // Nothing wider than the viewport (no sideways scrolling), and the page is scrolled to its top left.
          expect(await page.evaluate(() => [document.documentElement.scrollWidth, scrollX, scrollY])).toEqual([viewport.width, 0, 0]);
          if (theme === 'dark' && width === 'desktop') await checkAxe(page, 'intro (dark)');
          const png = await page.screenshot({ type: 'png' });
          const file = join(SHOTS, `intro-${width}-${theme}.png`);
          writeFileSync(file, png);
          const summary = summarizePng(png);
          shots[`${width}-${theme}`] = summary;
          // The viewport's size (device pixels), many colors (text, code, image), and the theme's background the most frequent one.
          expect([summary.width, summary.height]).toEqual([viewport.width, viewport.height]);
          expect(summary.colors).toBeGreaterThan(50);
          expect(summary.dominant.rgb).toBe(theme === 'light' ? LIGHT_BG : DARK_BG);
          expect(summary.dominant.share).toBeLessThan(0.97);
          expect(summary.dominant.share).toBeGreaterThan(0.3);
        }
      }
      console.log(
        `browser screenshots in ${SHOTS}: ${Object.entries(shots)
          .map(([k, v]) => `${k} ${v.colors} colors, ${(v.dominant.share * 100).toFixed(1)}% background`)
          .join('; ')}`,
      );
    });

    it('axe-core: no serious or critical violation on any rendered page', () => {
      expect(axeFindings.map((f) => f.page).sort()).toEqual([
        'intro (dark)',
        'intro (light)',
        'phone, menu open',
        'search results',
        'share-link site with the key',
        'share-link site without the key (404)',
        'variant switcher open',
        'visitor-auth site without a token (401)',
      ]);
      const minor = axeFindings.flatMap((f) =>
        f.violations
          .filter((v) => v.impact !== 'serious' && v.impact !== 'critical')
          .map((v) => `${f.page}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      );
      if (minor.length) console.log(`axe, minor or moderate: ${minor.join('; ')}`);
      const serious = axeFindings.flatMap((f) =>
        f.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${f.page}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      );
      expect(serious).toEqual([]);
    });

    it('no request left 127.0.0.1, no CSP violation, no script error', () => {
      expect(requests.filter((u) => !u.startsWith(`${served.origin}/`) && !u.startsWith('data:'))).toEqual([]);
      expect(cspViolations).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  },
);
