import http, { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServerAdapter } from '@whatwg-node/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { createUrls } from '../../src/urls.js';
import { setupHarness, type Harness } from '../support/harness.js';
import { axeViolations, isSerious, launchChromium, MISSING_CHROMIUM, skipBrowser } from '../support/browser.js';

/**
 * Sign-in through OpenID Connect in headless Chromium, against a real OpenID provider (the
 * `oidc-provider` package) on loopback: the app's sign-in screen shows the provider's button, the
 * browser goes through the provider's login and consent forms and comes back signed in to the
 * screen it asked for (`next`).
 */
if (skipBrowser) console.warn(`test/app/browser-oidc.test.ts skipped: ${MISSING_CHROMIUM}`);

const CLIENT = { id: 'lectern-app', secret: 'a-client-secret-for-tests-only-0123456789' };

/** Waits for what the page shows (a busy machine runs several browsers at once: generous, not a measure). */
const eventually = <T>(read: () => Promise<T> | T, message?: string) => expect.poll(read, { timeout: 20_000, message });

describe.skipIf(skipBrowser)('the app in headless Chromium: sign in with OpenID Connect', () => {
  let h: Harness;
  let browser: Browser;
  let lectern: Server;
  let provider: http.Server;
  let origin: string;
  let issuer: string;
  let orgId: string;
  const pageErrors: string[] = [];

  /** Starts `server` on an ephemeral loopback port: its origin. */
  async function listen(server: Server): Promise<string> {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  beforeAll(async () => {
    h = await setupHarness();
    const launching = launchChromium();
    launching.catch(() => undefined);
    // Loopback is private: Lectern's outbound guard reaches the provider only when this allows it.
    process.env.LECTERN_ALLOW_PRIVATE_NETWORK = '1';
    let app: App | undefined;
    lectern = createServer(createServerAdapter((request: Request) => app!.fetch(request)));
    origin = await listen(lectern);
    provider = http.createServer();
    issuer = await listen(provider);
    const { default: Provider } = await import('oidc-provider');
    const oidc = new Provider(issuer, {
      clients: [
        {
          client_id: CLIENT.id,
          client_secret: CLIENT.secret,
          redirect_uris: [`${origin}/auth/oidc/callback`],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      findAccount: (_ctx: unknown, id: string) =>
        id === 'grace-sub'
          ? { accountId: id, claims: () => ({ sub: id, email: 'grace@example.com', email_verified: true, name: 'Grace' }) }
          : undefined,
      cookies: { keys: ['a-cookie-key-for-tests-only'] },
      pkce: { required: () => true },
    });
    provider.on('request', oidc.callback());
    const config = {
      ...h.config,
      publicUrl: origin,
      oidc: { issuer, clientId: CLIENT.id, clientSecret: CLIENT.secret, label: 'Acme ID', createUsers: false },
    };
    app = createApp({ db: h.db, config, urls: createUrls(origin) });
    const grace = await h.user('Grace', 'grace@example.com');
    orgId = (await h.owner('Other org')).orgId;
    await h.addMember(orgId, grace.id, 'read');
    browser = await launching;
  });

  afterAll(async () => {
    delete process.env.LECTERN_ALLOW_PRIVATE_NETWORK;
    await browser?.close();
    for (const server of [lectern, provider]) {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
    }
  });

  it("goes from the app's sign-in screen through the provider and back to the screen asked for", async () => {
    const context = await browser.newContext();
    const page: Page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${origin}/app/o/${orgId}`);
    await page.waitForURL(/\/app\/sign-in\?next=/);
    const button = page.getByRole('link', { name: 'Sign in with Acme ID' });
    await eventually(() => button.isVisible()).toBe(true);
    const violations = (await axeViolations(page)).filter(isSerious);
    expect(violations.map((v) => v.id)).toEqual([]);
    await button.click();

    // The provider's own forms (its development interactions): login, then consent.
    await page.waitForURL((url) => url.origin === issuer);
    await page.locator('input[name="login"]').fill('grace-sub');
    await page.locator('input[name="password"]').fill('anything');
    await page.locator('button[type="submit"]').click();
    await page.waitForURL((url) => url.origin === origin || url.origin === issuer);
    if (new URL(page.url()).origin === issuer) await page.locator('button[type="submit"]').click();

    await page.waitForURL(`${origin}/app/o/${orgId}`);
    await eventually(() => page.getByRole('heading', { level: 1, name: 'Other org' }).isVisible()).toBe(true);
    await eventually(() => page.getByRole('link', { name: 'Grace' }).isVisible()).toBe(true);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
