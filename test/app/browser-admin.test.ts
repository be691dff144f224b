import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness } from '../support/harness.js';
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
 * An organization admin in the app (headless Chromium), signed in with a password: creates a site, adds a space to it and
 * publishes it, creates a team, changes a member's role, gives a guest a role on a space, gives a member a one-time password link they use — each checked through the API
 * afterwards. The same screens on a phone in dark mode: no horizontal scrolling, dark colors, the
 * theme toggle switches back to light. No serious axe-core violation on any of them.
 */
const PASSWORD = 'admin passphrase here';

if (skipBrowser) console.warn(`test/app/browser-admin.test.ts skipped: ${MISSING_CHROMIUM}`);

/** Waits for what the page shows (a busy machine runs several browsers at once: generous, not a measure). */
const eventually = <T>(read: () => Promise<T> | T, message?: string) => expect.poll(read, { timeout: 20_000, message });

describe.skipIf(skipBrowser)('the app in headless Chromium: an admin flow, phone width, dark mode', () => {
  let h: Harness;
  const s = siteHelpers(() => h);
  let served: Awaited<ReturnType<typeof serveApp>>;
  let browser: Browser;
  let world: Awaited<ReturnType<Harness['world']>>;
  let spaceId: string;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  const axeFindings: { screen: string; violations: AxeViolation[] }[] = [];

  async function freshPage(opts: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' } = {}): Promise<Page> {
    const context = await browser.newContext({
      viewport: opts.viewport ?? { width: 1280, height: 800 },
      colorScheme: opts.colorScheme ?? 'light',
    });
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('response', (r) => {
      // The signed-out "who am I" before signing in is the one 401 expected.
      if (r.status() >= 400 && !(r.status() === 401 && r.url().endsWith('/graphql'))) pageErrors.push(`${r.status()} ${r.url()}`);
    });
    await signInThroughApp(page, served.origin, world.owner.email, PASSWORD);
    return page;
  }
  const checkAxe = async (page: Page, screen: string) => axeFindings.push({ screen, violations: await axeViolations(page) });
  const graphql = async (query: string, variables: Record<string, unknown>) =>
    (await h.graphql(world.owner.token, query, variables)).body.data;

  beforeAll(async () => {
    h = await setupHarness();
    const launching = launchChromium();
    launching.catch(() => undefined);
    served = await serveApp(h);
    world = await h.world('Admin docs');
    await setPassword({ db: h.db }, world.owner.id, PASSWORD);
    spaceId = (await s.space(world.owner, 'Runbook')).id;
    await writeLive(h, world.owner.token, spaceId, [insertPage('On call', 'Who answers the pager.')]);
    browser = await launching;
  });

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await served?.close();
  });

  it('creates a site, adds a space, publishes it', async () => {
    const page = await freshPage();
    await page.goto(`${served.origin}/app/o/${world.orgId}/sites`);
    await page.getByLabel('Site title').fill('Operations');
    await checkAxe(page, 'sites');
    await page.getByRole('button', { name: 'Create site' }).click();
    await eventually(() => page.getByRole('heading', { level: 1, name: 'Operations' }).isVisible()).toBe(true);
    await page.getByLabel('Space to add').selectOption({ label: 'Runbook' });
    await page.getByRole('button', { name: 'Add space' }).click();
    await eventually(() => page.getByRole('status').textContent()).toBe('Space added');
    await page.getByRole('button', { name: 'Publish' }).click();
    await eventually(() => page.getByRole('link', { name: 'Open the published site' }).isVisible()).toBe(true);
    await checkAxe(page, 'site');

    const siteId = new URL(page.url()).pathname.split('/').pop()!;
    const data = await graphql(
      'query ($o: ID!, $s: ID!) { site(organizationId: $o, id: $s) { published siteSpaces { items { space { id } } } } }',
      { o: world.orgId, s: siteId },
    );
    expect(data.site.published).toBe(true);
    expect(data.site.siteSpaces.items.map((i: { space: { id: string } }) => i.space.id)).toEqual([spaceId]);
  });

  it("creates a team and changes a member's role", async () => {
    const page = await freshPage();
    await page.goto(`${served.origin}/app/o/${world.orgId}/teams`);
    await page.getByLabel('Team name').fill('Responders');
    await page.getByRole('button', { name: 'Create team' }).click();
    await eventually(() => page.getByRole('button', { name: 'Delete Responders' }).isVisible()).toBe(true);
    await checkAxe(page, 'teams');

    await page.getByRole('link', { name: 'Members' }).click();
    const role = page.getByLabel('Role of Reader');
    await eventually(() => role.inputValue()).toBe('read');
    await role.selectOption('edit');
    await eventually(() => page.getByRole('status').textContent()).toBe('Reader is now edit');
    await checkAxe(page, 'members');

    const data = await graphql(
      'query ($o: ID!, $u: ID!) { organization(id: $o) { member(userId: $u) { role } teams { items { title } } } }',
      { o: world.orgId, u: world.reader.id },
    );
    expect(data.organization.member.role).toBe('edit');
    expect(data.organization.teams.items.map((t: { title: string }) => t.title)).toEqual(['Responders']);
  });

  it("gives a person a role on a space from the space's permissions", async () => {
    const page = await freshPage();
    await page.goto(`${served.origin}/app/s/${spaceId}`);
    await page.getByRole('link', { name: 'Permissions' }).click();
    await eventually(() => page.getByRole('heading', { level: 1, name: 'Permissions' }).isVisible()).toBe(true);
    await page.getByLabel('Email addresses').fill(world.guest.email);
    await page.getByLabel('Role in this space').selectOption('comment');
    await page.getByRole('button', { name: 'Give access' }).click();
    await eventually(() => page.getByLabel('Role of Guest in this space').isVisible()).toBe(true);
    expect(await page.getByLabel('Role of Guest in this space').inputValue()).toBe('comment');
    await checkAxe(page, 'space permissions');
    const data = await graphql('query ($s: ID!) { userPermissionsInSpace(spaceId: $s) { items { permission user { id } } } }', {
      s: spaceId,
    });
    expect(data.userPermissionsInSpace.items).toContainEqual({ permission: 'comment', user: { id: world.guest.id } });
  });

  it('gives a member a one-time link with which they choose a password and are signed in', async () => {
    const page = await freshPage();
    await page.goto(`${served.origin}/app/o/${world.orgId}/members`);
    await page.getByRole('button', { name: 'Password link for Creator' }).click();
    const link = page.locator('.token-once');
    await eventually(() => link.isVisible()).toBe(true);
    const url = (await link.textContent())!;
    expect(url).toMatch(new RegExp(`^${served.origin}/app/reset-password\\?token=`));

    const context = await browser.newContext();
    contexts.push(context);
    const theirs = await context.newPage();
    theirs.on('pageerror', (e) => pageErrors.push(e.message));
    await theirs.goto(url);
    await theirs.getByLabel('New password').fill('the creator chose this');
    await theirs.getByLabel('Repeat the password').fill('the creator chose this');
    await checkAxe(theirs, 'reset password');
    await theirs.getByRole('button', { name: 'Set password' }).click();
    await eventually(() => theirs.getByRole('heading', { level: 1, name: 'Your organizations' }).isVisible()).toBe(true);
    await eventually(() => theirs.getByRole('link', { name: 'Admin docs' }).isVisible()).toBe(true);
  });

  it('fits a phone in dark mode, and the toggle switches to light', async () => {
    const page = await freshPage({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
    await page.goto(`${served.origin}/app/s/${spaceId}`);
    await eventually(() => page.getByRole('heading', { level: 1, name: 'On call' }).isVisible()).toBe(true);
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(await background()).toBe('rgb(17, 20, 24)');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await checkAxe(page, 'space on a phone, dark');
    const toggle = page.getByRole('button', { name: 'Dark mode' });
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    await toggle.click();
    await eventually(background).toBe('rgb(255, 255, 255)');
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
  });

  it('had no script error and axe-core found no serious violation', () => {
    expect(pageErrors).toEqual([]);
    expect(seriousViolations(axeFindings)).toEqual([]);
    expect(axeFindings.length).toBe(7);
  });
});
