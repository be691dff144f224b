import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness, type World } from '../support/harness.js';
import { insertPage, writeLive } from '../support/content-writes.js';
import { siteHelpers } from '../support/sites.js';
import { setPassword } from '../../src/modules/sessions/index.js';
import {
  axeViolations,
  launchChromium,
  MISSING_CHROMIUM,
  serveApp,
  skipBrowser,
  type AxeViolation,
  seriousViolations,
  signInThroughApp,
} from '../support/browser.js';

/**
 * Writing in the app (headless Chromium): a member who may edit and merge opens a page, presses
 * Edit (which opens a change request), types bold text and a list item into the editor, sees them
 * saved into the change request (a save cut off by a lost connection is retried) and in its diff;
 * a merge rule not met refuses the merge, then the merge goes through and main's Markdown has them.
 * Main is untouched until the merge. Every request stays on the server's origin, no script error
 * happens, and axe-core finds no serious or critical violation on the edit and change request screens.
 */
const PASSWORD = 'editor passphrase here';

if (skipBrowser) console.warn(`test/app/browser-edit-merge.test.ts skipped: ${MISSING_CHROMIUM}`);

/** Waits for what the page shows (a busy machine runs several browsers at once: generous, not a measure). */
const eventually = <T>(read: () => Promise<T> | T, message?: string) => expect.poll(read, { timeout: 20_000, message });

describe.skipIf(skipBrowser)('the app in headless Chromium: edit a page in a change request, review its diff, merge', () => {
  let h: Harness;
  const s = siteHelpers(() => h);
  let served: Awaited<ReturnType<typeof serveApp>>;
  let browser: Browser;
  let world: World;
  let spaceId: string;
  let page: Page;
  const contexts: BrowserContext[] = [];
  const requests: string[] = [];
  const pageErrors: string[] = [];
  /** Failures the test causes on purpose: saves cut off (the browser logs net::ERR_FAILED) and a merge refused (412). */
  const causedFailures: string[] = [];
  let savesCutOff = 0;
  const axeFindings: { screen: string; violations: AxeViolation[] }[] = [];

  const checkAxe = async (screen: string) => axeFindings.push({ screen, violations: await axeViolations(page) });
  const mainMarkdown = async () =>
    (await h.graphql(world.creator.token, 'query ($s: ID!) { space(id: $s) { page(path: "release-notes") { markdown } } }', { s: spaceId }))
      .body.data.space.page.markdown as string;

  beforeAll(async () => {
    h = await setupHarness();
    const launching = launchChromium();
    launching.catch(() => undefined);
    served = await serveApp(h);
    world = await h.world('Writers');
    await setPassword({ db: h.db }, world.creator.id, PASSWORD);
    spaceId = (await s.space(world.owner, 'Product')).id;
    await writeLive(h, world.owner.token, spaceId, [insertPage('Release notes', 'What changed in this release.\n')]);
    browser = await launching;

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    context.on('request', (r) => requests.push(r.url()));
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() !== 'error' || /status of 401/.test(m.text())) return;
      if (/net::ERR_FAILED|status of 412/.test(m.text())) causedFailures.push(m.text());
      else pageErrors.push(m.text());
    });
    // The signed-out "who am I" before signing in is the one failed request expected.
    page.on('response', (r) => {
      if (r.status() === 412 && r.url().endsWith('/graphql')) causedFailures.push('412');
      else if (r.status() >= 400 && !(r.status() === 401 && r.url().endsWith('/graphql'))) pageErrors.push(`${r.status()} ${r.url()}`);
    });
    await signInThroughApp(page, served.origin, world.creator.email, PASSWORD);
  });

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await served?.close();
  });

  it('Edit opens the page in a new change request, and the typed text is saved into it, not into main', async () => {
    await page.goto(`${served.origin}/app/s/${spaceId}/release-notes`);
    await eventually(() => page.getByRole('heading', { level: 1, name: 'Release notes' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.waitForURL((url) => /\/app\/s\/[^/]+\/~\/changes\/\d+\/edit\/release-notes$/.test(url.pathname));
    const editor = page.getByRole('textbox', { name: 'Page content' });
    await eventually(() => editor.isVisible()).toBe(true);
    await expect(page.getByRole('status').filter({ hasText: 'No changes yet' }).count()).resolves.toBe(1);

    // The caret at the end of the page, once the editor has the focus (a key pressed before it
    // has it goes nowhere, and the typing would land at the start).
    await editor.click();
    await eventually(() => editor.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    await editor.evaluate((el) => {
      const end = document.createRange();
      end.selectNodeContents(el.lastElementChild ?? el);
      end.collapse(false);
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(end);
    });
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+b');
    await page.keyboard.type('Faster sync');
    await page.keyboard.press('Control+b');
    await eventually(() => page.getByText('All changes saved').isVisible()).toBe(true);

    // The connection is lost: the save fails and is retried until it goes through, nothing typed is lost.
    await page.route('**/graphql', (route) => {
      if (!route.request().postData()?.includes('EditWritePage')) return route.fallback();
      savesCutOff++;
      return route.abort('failed');
    });
    await page.keyboard.press('Enter');
    await page.keyboard.type('- item one');
    await eventually(() => page.getByText('Not saved — retrying').isVisible()).toBe(true);
    await page.unroute('**/graphql');
    await eventually(() => page.getByText('All changes saved').isVisible()).toBe(true);
    await checkAxe('edit page');

    expect(await mainMarkdown()).not.toContain('Faster sync');
    const number = Number(/\/changes\/(\d+)\//.exec(new URL(page.url()).pathname)![1]);
    const cr = (
      await h.graphql(
        world.creator.token,
        'query ($s: ID!, $n: String!) { space(id: $s) { changeRequest(id: $n) { status content { typedPage(path: "release-notes") { markdown } } } } }',
        { s: spaceId, n: String(number) },
      )
    ).body.data.space.changeRequest;
    expect(cr.status).toBe('open');
    expect(cr.content.typedPage.markdown).toContain('**Faster sync**');
    expect(cr.content.typedPage.markdown).toMatch(/^[-*] item one$/m);

    // Edit again continues the same change request.
    await page.goto(`${served.origin}/app/s/${spaceId}/release-notes`);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.waitForURL((url) => url.pathname.endsWith(`/changes/${number}/edit/release-notes`));
    await eventually(() => page.getByRole('textbox', { name: 'Page content' }).textContent()).toContain('Faster sync');
  });

  it("shows the change request's diff with the bold text and the list item, and merges it into main", async () => {
    await page.getByRole('link', { name: /^change request #\d+/ }).click();
    const diff = page.getByRole('region', { name: 'Changes to Release notes' });
    await eventually(() => diff.isVisible()).toBe(true);
    await eventually(() => diff.getByText('Faster sync').isVisible()).toBe(true);
    expect(await diff.locator('strong', { hasText: 'Faster sync' }).count()).toBeGreaterThan(0);
    expect(await diff.getByRole('listitem').filter({ hasText: 'item one' }).count()).toBeGreaterThan(0);
    await checkAxe('change request');
    await diff.getByRole('tab', { name: 'Markdown' }).click();
    await eventually(() => diff.getByRole('tabpanel').textContent()).toContain('**Faster sync**');
    expect(await diff.getByRole('tabpanel').textContent()).toMatch(/[-*] item one/);
    await checkAxe('change request, Markdown diff');

    // A merge rule the change request does not meet: the refusal is shown and main is unchanged.
    const setRules = async (mergeRules: unknown) =>
      expect((await h.call('PATCH', `/v1/spaces/${spaceId}`, { token: world.owner.token, body: { mergeRules } })).status).toBe(200);
    await setRules({ type: 'rules', rules: [{ rule: 'require_change_request_description' }] });
    await page.getByRole('button', { name: 'Merge' }).click();
    await eventually(() =>
      page
        .getByRole('alert')
        .filter({ hasText: /^Not merged: .*description/i })
        .count(),
    ).toBe(1);
    expect(await mainMarkdown()).not.toContain('Faster sync');

    await setRules({ type: 'none' });
    await page.getByRole('button', { name: 'Merge' }).click();
    await eventually(() => page.getByRole('status').filter({ hasText: 'This change request is merged into main.' }).count()).toBe(1);
    await eventually(() => page.getByText('merged', { exact: true }).isVisible()).toBe(true);
    const markdown = await mainMarkdown();
    expect(markdown).toContain('What changed in this release.');
    expect(markdown).toContain('**Faster sync**');
    expect(markdown).toMatch(/^[-*] item one$/m);
  });

  it('made no request to another origin, had no script error, and axe-core found no serious violation', () => {
    expect(requests.filter((url) => !url.startsWith(`${served.origin}/`))).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(savesCutOff).toBeGreaterThan(0);
    expect(causedFailures.filter((f) => f.includes('ERR_FAILED')).length).toBeLessThanOrEqual(savesCutOff);
    expect(causedFailures.filter((f) => f.includes('412')).length).toBeLessThanOrEqual(2);
    expect(seriousViolations(axeFindings)).toEqual([]);
    expect(axeFindings.length).toBe(3);
  });
});
