import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import type { OidcConfig } from '../../src/config.js';
import { hashToken } from '../../src/auth/tokens.js';
import { createUrls } from '../../src/urls.js';
import { BASE, setupHarness, type Harness } from '../support/harness.js';
import { browserGraphql, sessionSet, VIEWER } from './support.js';

/**
 * OpenID Connect sign-in against a real OpenID provider (the `oidc-provider` package) on loopback:
 * real HTTP between Lectern's client and the provider (discovery, token, JWKS), the browser's part
 * (the redirects, the provider's login and consent forms) driven by fetch with a cookie jar.
 */
let h: Harness;
let server: http.Server;
let issuer: string;
const people = new Map<string, { email: string; email_verified: boolean; name: string }>();
const CLIENT = { id: 'lectern-app', secret: 'a-client-secret-for-tests-only-0123456789' };

beforeAll(async () => {
  h = await setupHarness();
  // Loopback is private: the outbound guard lets Lectern reach it only when this setting allows.
  process.env.LECTERN_ALLOW_PRIVATE_NETWORK = '1';
  server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { default: Provider } = await import('oidc-provider');
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        redirect_uris: [`${BASE}/auth/oidc/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: (_ctx: unknown, id: string) => {
      const person = people.get(id);
      return person ? { accountId: id, claims: () => ({ sub: id, ...person }) } : undefined;
    },
    cookies: { keys: ['a-cookie-key-for-tests-only'] },
    pkce: { required: () => true },
  });
  server.on('request', provider.callback());
});

afterAll(async () => {
  delete process.env.LECTERN_ALLOW_PRIVATE_NETWORK;
  await new Promise((resolve) => server.close(resolve));
});

const appWith = (oidc: Partial<OidcConfig> = {}): App =>
  createApp({
    db: h.db,
    config: {
      ...h.config,
      oidc: { issuer, clientId: CLIENT.id, clientSecret: CLIENT.secret, label: 'Acme ID', createUsers: false, ...oidc },
    },
    urls: createUrls(BASE),
  });

/** A browser at the provider: follows its redirects and keeps its cookies. */
class ProviderBrowser {
  private jar = new Map<string, string>();
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.jar.size) headers.set('cookie', [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return response;
  }
  /** Follows redirects within the provider; answers the first answer that is not one, or the redirect that leaves it. */
  async follow(url: string, init: RequestInit = {}): Promise<Response> {
    let response = await this.fetch(url, init);
    while (response.status >= 300 && response.status < 400) {
      const next = new URL(response.headers.get('location')!, url).href;
      if (!next.startsWith(issuer)) return response;
      url = next;
      response = await this.fetch(url);
    }
    return response;
  }
  /** Submits the provider's interaction form (login or consent) on the page `html`. */
  async submit(pageUrl: string, html: string, fields: Record<string, string>): Promise<Response> {
    const action = html.match(/<form[^>]*action="([^"]+)"/)![1]!;
    return this.follow(new URL(action, pageUrl).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

/** The whole journey: Lectern's start → the provider's login and consent → Lectern's callback. */
async function signInThroughProvider(app: App, accountId: string, next = '/app/s/space1') {
  const start = await app.fetch(new Request(`${BASE}/auth/oidc/start?next=${encodeURIComponent(next)}`));
  expect(start.status).toBe(302);
  const authorize = new URL(start.headers.get('location')!);
  expect(authorize.origin).toBe(issuer);
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorize.searchParams.get('state')).toBeTruthy();
  expect(authorize.searchParams.get('nonce')).toBeTruthy();

  const browser = new ProviderBrowser();
  let page = await browser.follow(authorize.href);
  let pageUrl = page.url;
  const login = await page.text();
  expect(login).toContain('name="login"');
  page = await browser.submit(pageUrl, login, { prompt: 'login', login: accountId, password: 'any' });
  if (page.status === 200) {
    pageUrl = page.url;
    page = await browser.submit(pageUrl, await page.text(), { prompt: 'consent' });
  }
  expect(page.status).toBeGreaterThanOrEqual(300);
  const back = new URL(page.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(`${BASE}/auth/oidc/callback`);
  const callback = await app.fetch(new Request(back.href, { headers: { 'user-agent': 'OIDC Browser' } }));
  return { callback, back };
}

describe('OpenID Connect sign-in', () => {
  it('signInOptions names the provider when configured', async () => {
    const answer = await browserGraphql(appWith(), { cookie: null }, '{ signInOptions { password oidc { label } } }');
    expect(answer.body.data.signInOptions).toEqual({ password: true, oidc: { label: 'Acme ID' } });
  });

  it('signs a person in by verified email: the session cookie, then back to `next`; the callback works once', async () => {
    const app = appWith();
    const person = await h.user('Ada', 'ada.oidc@example.com');
    people.set('ada-sub', { email: 'Ada.OIDC@example.com', email_verified: true, name: 'Ada' });
    const { callback, back } = await signInThroughProvider(app, 'ada-sub', '/app/s/space1?x=1');
    expect(callback.status, await callback.clone().text()).toBe(302);
    expect(callback.headers.get('location')).toBe('/app/s/space1?x=1');
    const secret = sessionSet(callback.headers.getSetCookie())!;
    expect(secret).toMatch(/^lcs_/);
    expect(callback.headers.getSetCookie()[0]).toMatch(/HttpOnly; SameSite=Lax/);
    const viewer = await browserGraphql(app, { cookie: secret }, VIEWER);
    expect(viewer.body.data.viewer).toMatchObject({ id: person.id, email: 'ada.oidc@example.com' });
    expect(await h.db.prisma.session.findUniqueOrThrow({ where: { hash: hashToken(secret) } })).toMatchObject({
      userId: person.id,
      userAgent: 'OIDC Browser',
    });
    // The flow's record is used up: the same callback again is refused.
    const replay = await app.fetch(new Request(back.href));
    expect(replay.status).toBe(400);
    expect(replay.headers.getSetCookie()).toEqual([]);
  });

  it('next stays below /app on this origin', async () => {
    const app = appWith();
    await h.user('Bob', 'bob.oidc@example.com');
    people.set('bob-sub', { email: 'bob.oidc@example.com', email_verified: true, name: 'Bob' });
    for (const next of ['https://evil.example/app', '//evil.example/app', '/v1/user']) {
      const { callback } = await signInThroughProvider(app, 'bob-sub', next);
      expect(callback.headers.get('location')).toBe('/app');
    }
  });

  it('refuses an unverified email and an unknown one (clear page), or creates the account when allowed', async () => {
    people.set('eve-sub', { email: 'eve.oidc@example.com', email_verified: false, name: 'Eve' });
    await h.user('Eve', 'eve.oidc@example.com');
    const unverified = (await signInThroughProvider(appWith(), 'eve-sub')).callback;
    expect(unverified.status).toBe(403);
    expect(await unverified.text()).toContain('Your email is not verified');
    expect(unverified.headers.getSetCookie()).toEqual([]);

    people.set('new-sub', { email: 'newcomer.oidc@example.com', email_verified: true, name: 'New <Person>' });
    const unknown = (await signInThroughProvider(appWith(), 'new-sub')).callback;
    expect(unknown.status).toBe(403);
    expect(await unknown.text()).toContain('No account for this email');
    expect(await h.db.prisma.user.count({ where: { email: 'newcomer.oidc@example.com' } })).toBe(0);

    const created = (await signInThroughProvider(appWith({ createUsers: true }), 'new-sub')).callback;
    expect(created.status).toBe(302);
    const user = await h.db.prisma.user.findUniqueOrThrow({ where: { email: 'newcomer.oidc@example.com' } });
    expect(user).toMatchObject({ displayName: 'New <Person>', emailVerified: true });
  });

  it('refuses a callback whose state it never issued; reaches the provider only when private addresses are allowed', async () => {
    const forged = await appWith().fetch(new Request(`${BASE}/auth/oidc/callback?code=abc&state=forged`));
    expect(forged.status).toBe(400);
    await h.db.prisma.oidcSignIn.deleteMany({});
    process.env.LECTERN_ALLOW_PRIVATE_NETWORK = '0';
    try {
      // Another client id: its provider metadata is not discovered yet, so this start must fetch it.
      const start = await appWith({ clientId: 'another-client' }).fetch(new Request(`${BASE}/auth/oidc/start`));
      expect(start.status).toBe(502);
      expect(await h.db.prisma.oidcSignIn.count()).toBe(0);
    } finally {
      process.env.LECTERN_ALLOW_PRIVATE_NETWORK = '1';
    }
  });

  it('is a 404 page when OIDC is not configured', async () => {
    expect((await h.app.fetch(new Request(`${BASE}/auth/oidc/start`))).status).toBe(404);
  });
});
