import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness } from '../support/harness.js';
import { launchChromium, MISSING_CHROMIUM, serveApp, skipBrowser } from '../support/browser.js';

/**
 * The pages Lectern serves outside the published sites, in a real headless Chromium: GraphiQL on
 * GET /graphql asks for the token, loads the schema with it, runs a query and shows the answer in
 * its result pane; the landing page on GET / loads. Any page error (an uncaught exception, a script
 * that does not parse) or console error fails the test. The reader's pages are checked in
 * test/reader/browser*.test.ts.
 */
if (skipBrowser) console.warn(`test/http/browser-pages.test.ts skipped: ${MISSING_CHROMIUM}`);

describe.skipIf(skipBrowser)("Lectern's own pages in headless Chromium", () => {
  let h: Harness;
  let served: Awaited<ReturnType<typeof serveApp>>;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    h = await setupHarness();
    served = await serveApp(h);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  /** A new tab that records page errors, console errors and the dialogs it answers. */
  async function openTab(answer: string | null) {
    const page = await context.newPage();
    const errors: string[] = [];
    const dialogs: string[] = [];
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console: ${m.text()}`);
    });
    page.on('dialog', (d) => {
      dialogs.push(`${d.type()}: ${d.message()}`);
      void (answer === null ? d.dismiss() : d.accept(answer));
    });
    return { page, errors, dialogs };
  }

  it('GraphiQL asks for the token, runs a query with it and shows the answer', async () => {
    const user = await h.user('Grace Hopper');
    const { page, errors, dialogs } = await openTab(user.token);
    await page.goto(`${served.origin}/graphql`);
    // By the load event every inline script has parsed and run.
    expect(errors).toEqual([]);
    // The editor is there once GraphiQL's script ran (a script that does not parse leaves #root empty).
    const run = page.getByRole('button', { name: /execute query/i });
    await run.waitFor();
    expect(dialogs).toHaveLength(1);
    expect(dialogs[0]).toMatch(/^prompt: Your Lectern API token/);
    await run.click();
    // The result pane's editor shows the JSON answer (its spaces as no-break spaces).
    const answer = async () => (await page.locator('.graphiql-response').innerText()).replace(/\u00a0/g, ' ');
    await expect.poll(answer, { timeout: 20_000 }).toContain('"viewer"');
    expect(JSON.parse(await answer())).toEqual({ data: { viewer: { id: user.id, displayName: 'Grace Hopper' } } });
    // The token stays in this tab's sessionStorage, not in localStorage.
    expect(await page.evaluate(() => sessionStorage.getItem('lectern-token'))).toBe(user.token);
    expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain(user.token);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('GraphiQL without a token (prompt cancelled) still loads and answers that a token is needed', async () => {
    const { page, errors, dialogs } = await openTab(null);
    await page.goto(`${served.origin}/graphql`);
    const run = page.getByRole('button', { name: /execute query/i });
    await run.waitFor();
    expect(dialogs).toHaveLength(1);
    await run.click();
    const answer = async () => (await page.locator('.graphiql-response').innerText()).replace(/\u00a0/g, ' ');
    await expect.poll(answer, { timeout: 20_000 }).toMatch(/"errors"|"viewer": null/);
    // The only console errors allowed are the browser's own reports of the 401 answers; no script error.
    expect(errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
    await page.close();
  });

  it('the landing page loads with no page error', async () => {
    const { page, errors } = await openTab(null);
    const response = await page.goto(`${served.origin}/`);
    expect(response?.status()).toBe(200);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Lectern is running');
    await page.getByRole('link', { name: 'GraphiQL' }).waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });
});
