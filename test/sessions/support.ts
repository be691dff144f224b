import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import { BASE, type Harness } from '../support/harness.js';

/** What a browser keeps: the session cookie's value (null until one is set). */
export interface Browser {
  cookie: string | null;
}

export interface GraphQLAnswer {
  status: number;
  body: any;
  headers: Headers;
  setCookie: string[];
}

/** The `lectern_session` value a Set-Cookie list sets (undefined: not touched; '' : removed). */
export function sessionSet(setCookie: string[]): string | undefined {
  const line = setCookie.find((c) => c.startsWith('lectern_session='));
  return line === undefined ? undefined : line.slice('lectern_session='.length).split(';')[0]!;
}

/**
 * A /graphql request as the app sends it: JSON POST with the browser's cookie (no token), and
 * the cookie kept from the answer's Set-Cookie. `init` overrides the request (CSRF checks).
 */
export async function browserGraphql(
  app: App,
  browser: Browser,
  query: string,
  variables: Record<string, unknown> = {},
  opts: { address?: string; headers?: Record<string, string> } = {},
): Promise<GraphQLAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'TestBrowser/1.0', ...opts.headers };
  if (browser.cookie) headers.cookie = `lectern_session=${browser.cookie}`;
  const response = await app.fetch(
    new Request(`${BASE}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) }),
    { address: opts.address ?? '192.0.2.10' },
  );
  const setCookie = response.headers.getSetCookie();
  const value = sessionSet(setCookie);
  if (value !== undefined) browser.cookie = value || null;
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers, setCookie };
}

export const SIGN_IN = 'mutation($email: String!, $password: String!) { signIn(email: $email, password: $password) { id email } }';
export const VIEWER = '{ viewer { id displayName email photoURL } }';

/** A user with a password (set the way `lectern user password` does). */
export async function personWithPassword(h: Harness, password = 'correct horse battery') {
  const { setPassword } = await import('../../src/modules/sessions/index.js');
  const user = await h.user();
  await setPassword({ db: h.db }, user.id, password);
  return { ...user, password };
}

/** Signs a new browser in with a password; the browser then carries the cookie. */
export async function signedIn(app: App, email: string, password: string): Promise<Browser> {
  const browser: Browser = { cookie: null };
  const answer = await browserGraphql(app, browser, SIGN_IN, { email, password });
  expect(answer.body.errors, JSON.stringify(answer.body)).toBeUndefined();
  expect(browser.cookie).toMatch(/^lcs_/);
  return browser;
}
