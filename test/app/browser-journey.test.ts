import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { setupHarness, type Harness } from '../support/harness.js';
import { insertPage, writeLive } from '../support/content-writes.js';
import { siteHelpers } from '../support/sites.js';
import {
  axeViolations,
  launchChromium,
  MISSING_CHROMIUM,
  serveApp,
  skipBrowser,
  type AxeViolation,
  seriousViolations,
} from '../support/browser.js';

/**
 * A person's journey through the app (/app) in headless Chromium, on data written through the API:
 * created by `lectern user create --password-stdin`, they open a space's `urls.app` signed out,
 * are sent to sign in and back; they see the space's page tree, move through it with the
 * keyboard, open a page rendered as the published site renders it, find another page with Ctrl+K,
 * open every other kind of `urls.app`, create and revoke an API token, and sign out. Every request
 * stays on the server's origin, no script error happens, and axe-core finds no serious or critical
 * violation on any screen visited.
 * The app is the one `npm run build:web` put in web/dist (npm ci's postinstall).
 */
if (skipBrowser) console.warn(`test/app/browser-journey.test.ts skipped: ${MISSING_CHROMIUM}`);

/** Where the screenshots go (printed by the test); LECTERN_SCREENSHOTS overrides. */
const SHOTS = process.env.LECTERN_SCREENSHOTS ?? path.join(tmpdir(), 'lectern-browser-screenshots');

/** Waits for what the page shows (a busy machine runs several browsers at once: generous, not a measure). */
const eventually = <T>(read: () => Promise<T> | T, message?: string) => expect.poll(read, { timeout: 20_000, message });

describe.skipIf(skipBrowser)('the app in headless Chromium: sign in, browse from urls.app, page tree, page, search', () => {
  let h: Harness;
  const s = siteHelpers(() => h);
  let served: Awaited<ReturnType<typeof serveApp>>;
  let browser: Browser;
  let owner: { id: string; email: string; token: string; orgId: string; password: string };
  /** The signed-in person's tab, kept from test to test. */
  let signedIn: Page;
  let spaceAppUrl: string;
  /** The `urls.app` of each kind of object, as the REST API answers them, and the heading its screen shows. */
  let appLinks: { kind: string; url: string; heading: string | RegExp }[] = [];
  const contexts: BrowserContext[] = [];
  const requests: string[] = [];
  const pageErrors: string[] = [];
  /** Subscriptions the app opened (answers of /graphql as text/event-stream). */
  const eventStreams: string[] = [];
  const axeFindings: { screen: string; violations: AxeViolation[] }[] = [];

  async function freshPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    context.on('request', (r) => requests.push(r.url()));
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('response', (r) => {
      if ((r.headers()['content-type'] ?? '').includes('text/event-stream') && r.status() === 200) eventStreams.push(r.url());
    });
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 401/.test(m.text())) pageErrors.push(m.text());
    });
    // A signed-out visitor's "who am I" is a 401, the only failed request expected.
    page.on('response', (r) => {
      if (r.status() >= 400 && !(r.status() === 401 && r.url().endsWith('/graphql'))) pageErrors.push(`${r.status()} ${r.url()}`);
    });
    return page;
  }

  async function checkAxe(page: Page, screen: string) {
    axeFindings.push({ screen, violations: await axeViolations(page) });
  }

  beforeAll(async () => {
    h = await setupHarness();
    const launching = launchChromium();
    launching.catch(() => undefined);
    served = await serveApp(h);
    owner = await createPerson();
    const space = await s.space(owner, 'Handbook');
    const written = await writeLive(h, owner.token, space.id, [
      insertPage('Getting started', 'Welcome aboard. The **zephyrine** setting is explained here.\n\n<script>alert(1)</script>\n'),
      insertPage('Guides', 'All the guides.'),
    ]);
    await writeLive(h, owner.token, space.id, [
      { ...insertPage('Deployment', 'Ship it with the kestrel command.\n\n```sh\nkestrel deploy\n```\n'), into: written.pages[1] },
    ]);
    // The space's app URL as the API answers it (absolute, on the served origin).
    const res = await fetch(`${served.origin}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query ($id: ID!) { space(id: $id) { urls { app } } }', variables: { id: space.id } }),
    });
    spaceAppUrl = (await res.json()).data.space.urls.app;
    expect(spaceAppUrl).toBe(`${served.origin}/app/s/${space.id}`);
    appLinks = await linksOfEveryKind(space.id, written.revision);
    browser = await launching;
  });

  /** `lectern user create … --org-title … --password-stdin` on the test's database: a person with a password, admin of a new organization. */
  async function createPerson() {
    const server = inject('dbServer');
    const database = (await h.db.pool.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db;
    const url = server.host!.startsWith('/')
      ? `postgres://postgres@localhost:${server.port}/${database}?host=${server.host}`
      : `postgres://${server.user}${server.password ? `:${server.password}` : ''}@${server.host}:${server.port}/${database}`;
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: url };
    delete env.npm_lifecycle_event;
    const password = 'a long enough passphrase';
    const args = ['user', 'create', '--email', 'ada@example.com', '--name', 'Ada', '--org-title', 'Journey docs', '--password-stdin'];
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [path.resolve(import.meta.dirname, '../../bin/lectern.js'), ...args], {
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`lectern user create: ${code}\n${stderr}`))));
      child.stdin.end(`${password}\n`);
    });
    const created = JSON.parse(out);
    return { id: created.user.id, email: 'ada@example.com', token: created.token, orgId: created.organization.id, password };
  }

  /** REST on the served origin (its `urls` are built from that origin). */
  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(`${served.origin}/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${owner.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return res.json();
  }

  async function linksOfEveryKind(spaceId: string, revision: string) {
    const org = await api('GET', `/orgs/${owner.orgId}`);
    const collection = await api('POST', `/orgs/${owner.orgId}/collections`, { title: 'Manuals' });
    const cr = await api('POST', `/spaces/${spaceId}/change-requests`, { subject: 'Clarify the welcome' });
    const rev = await api('GET', `/spaces/${spaceId}/revisions/${revision}`);
    const site = await api('POST', `/orgs/${owner.orgId}/sites`, { title: 'Public docs' });
    const page = await api('GET', `/spaces/${spaceId}/content/path/guides%2Fdeployment`);
    const spec = await api('PUT', `/orgs/${owner.orgId}/openapi/petstore`, {
      source: { text: JSON.stringify({ openapi: '3.1.0', info: { title: 'Pets', version: '1' }, paths: {} }) },
    });
    return [
      { kind: 'organization', url: org.urls.app, heading: 'Journey docs' },
      { kind: 'collection', url: collection.urls.app, heading: 'Manuals' },
      { kind: 'change request', url: cr.urls.app, heading: /Clarify the welcome/ },
      { kind: 'revision', url: rev.urls.app, heading: /^Revision of / },
      { kind: 'site', url: site.urls.app, heading: 'Public docs' },
      { kind: 'page', url: page.urls.app, heading: 'Deployment' },
      { kind: 'OpenAPI specification', url: spec.urls.app, heading: 'OpenAPI: petstore' },
    ];
  }

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await served?.close();
  });

  it('sends a signed-out visitor of a urls.app link to sign in, and back to it once signed in with a password', async () => {
    const page = (signedIn = await freshPage());
    await page.goto(spaceAppUrl);
    await page.waitForURL(/\/app\/sign-in\?next=/);
    expect(new URL(page.url()).searchParams.get('next')).toBe(new URL(spaceAppUrl).pathname);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await eventually(() => page.getByRole('alert').textContent()).toBe('Email or password is incorrect');
    await checkAxe(page, 'sign-in');
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname.startsWith(new URL(spaceAppUrl).pathname) && !url.pathname.includes('sign-in'));
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'lectern_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
  });

  it('opens the space from its urls.app: page tree, the first page current, keyboard navigation, a rendered page', async () => {
    const page = signedIn;
    await page.goto(spaceAppUrl);
    const tree = page.getByRole('tree', { name: 'Pages' });
    await eventually(() => tree.isVisible()).toBe(true);
    const first = tree.getByRole('treeitem', { name: 'Getting started' });
    await eventually(() => first.getAttribute('aria-current')).toBe('page');
    await eventually(() => page.getByRole('heading', { level: 1, name: 'Getting started' }).isVisible()).toBe(true);
    // The published site's renderer: Markdown rendered, raw HTML shown as text (escaped), not run.
    const body = page.locator('.page-body');
    expect(await body.locator('strong').textContent()).toBe('zephyrine');
    expect(await body.textContent()).toContain('<script>alert(1)</script>');
    await checkAxe(page, 'space page');

    // Keyboard: one tab stop; ↓ to Guides, → expands it, ↓ to Deployment, Enter opens it.
    await first.focus();
    await page.keyboard.press('ArrowDown');
    const guides = tree.getByRole('treeitem', { name: 'Guides' });
    await eventually(() => guides.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await guides.getAttribute('aria-expanded')).toBe('false');
    await page.keyboard.press('ArrowRight');
    await eventually(() => guides.getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press('ArrowDown');
    const deployment = tree.getByRole('treeitem', { name: 'Deployment' });
    await eventually(() => deployment.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await eventually(() => page.getByRole('heading', { level: 1, name: 'Deployment' }).isVisible()).toBe(true);
    expect(new URL(page.url()).pathname).toBe(`${new URL(spaceAppUrl).pathname}/guides/deployment`);
    await eventually(() => deployment.getAttribute('aria-current')).toBe('page');
    expect(await first.getAttribute('aria-current')).toBeNull();
    expect(await page.locator('.page-body pre code').textContent()).toContain('kestrel deploy');
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, 'app-space-page.png') });
    console.log(`screenshot: ${path.join(SHOTS, 'app-space-page.png')}`);
    // ← goes back to the parent, ← again collapses it.
    await deployment.focus();
    await page.keyboard.press('ArrowLeft');
    await eventually(() => guides.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('ArrowLeft');
    await eventually(() => guides.getAttribute('aria-expanded')).toBe('false');
    await checkAxe(page, 'nested page');

    // Ctrl+K: the search dialog, results with the match highlighted; ↓/Enter opens the page.
    const dialog = page.getByRole('dialog');
    // Pressed again while the dialog is not there: on a loaded machine a key pressed while the
    // screen re-renders after axe's pass was seen to go unanswered once (CI); a person presses again.
    await eventually(async () => {
      if (!(await dialog.isVisible())) await page.keyboard.press('Control+k');
      return dialog.isVisible();
    }).toBe(true);
    await dialog.getByLabel('Search').fill('zephyrine');
    const result = dialog.getByRole('option').first();
    await eventually(() => result.isVisible()).toBe(true);
    expect(await result.locator('mark').first().textContent()).toMatch(/zephyrine/i);
    await checkAxe(page, 'search dialog');
    await page.keyboard.press('Enter');
    await eventually(() => page.getByRole('heading', { level: 1, name: 'Getting started' }).isVisible()).toBe(true);
    expect(await dialog.isVisible()).toBe(false);
  });

  it('follows the space live: a page written through the API appears in the open tree (a subscription over SSE with the session cookie)', async () => {
    const page = signedIn;
    const tree = page.getByRole('tree', { name: 'Pages' });
    expect(await tree.getByRole('treeitem', { name: 'Troubleshooting' }).count()).toBe(0);
    const spaceId = new URL(spaceAppUrl).pathname.split('/')[3]!;
    await writeLive(h, owner.token, spaceId, [insertPage('Troubleshooting', 'When it breaks.')]);
    await eventually(() => tree.getByRole('treeitem', { name: 'Troubleshooting' }).count()).toBe(1);
    expect(eventStreams.length).toBeGreaterThan(0);
  });

  it('opens the right screen for every kind of urls.app the API answers', async () => {
    const page = signedIn;
    for (const link of appLinks) {
      expect(link.url, link.kind).toMatch(new RegExp(`^${served.origin}/app/`));
      await page.goto(link.url);
      const heading = page.getByRole('heading', { level: 1, name: link.heading });
      await eventually(() => heading.isVisible(), `${link.kind}: ${link.url}`).toBe(true);
      await checkAxe(page, link.kind);
    }
  });

  it('creates an API token shown once, lists this session, revokes the token, signs out', async () => {
    const page = signedIn;
    await page.goto(`${served.origin}/app/settings`);
    await eventually(() => page.getByRole('heading', { level: 2, name: 'Sessions' }).isVisible()).toBe(true);
    await eventually(() => page.getByText('(this browser)').isVisible()).toBe(true);
    await page.getByLabel('Token name').fill('Deploy bot');
    await page.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByLabel('New API token');
    await eventually(() => shown.isVisible()).toBe(true);
    const token = (await shown.textContent())!;
    const viewer = async () =>
      (
        await fetch(`${served.origin}/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: '{"query":"{ viewer { email } }"}',
        })
      ).status;
    expect(await viewer()).toBe(200);
    await checkAxe(page, 'settings');
    page.once('dialog', (d) => d.accept());
    await page.getByRole('button', { name: 'Revoke Deploy bot' }).click();
    await eventually(() => page.getByRole('button', { name: 'Revoke Deploy bot' }).count()).toBe(0);
    expect(await viewer()).toBe(401);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/app\/sign-in/);
    await page.goto(spaceAppUrl);
    await page.waitForURL(/\/app\/sign-in\?next=/);
  });

  it('made no request to another origin, had no script error, and axe-core found no serious violation', () => {
    const elsewhere = requests.filter((url) => !url.startsWith(`${served.origin}/`));
    expect(elsewhere).toEqual([]);
    expect(requests.some((url) => url.startsWith(`${served.origin}/app/assets/`))).toBe(true);
    expect(pageErrors).toEqual([]);
    expect(seriousViolations(axeFindings)).toEqual([]);
    expect(axeFindings.length).toBeGreaterThanOrEqual(3);
  });
});
