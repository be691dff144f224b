import { createHash } from 'node:crypto';
import { processLog, requestIdOf } from '../../ops/log.js';
import * as client from 'openid-client';
import type { OidcConfig } from '../../config.js';
import type { Services } from '../../context.js';
import type { HttpRoute, RouteCall } from '../../http/routes.js';
import { newId } from '../../ids.js';
import { guardedFetch } from '../../outbound/index.js';
import { openSession, sessionCookieFor } from './browser-sessions.js';
import { safeNext } from './next.js';

/**
 * OpenID Connect sign-in (LECTERN_OIDC_*), the authorization code flow with PKCE, state and nonce,
 * through openid-client:
 * - `GET /auth/oidc/start?next=/app/…` keeps the flow's secrets (PKCE verifier, nonce, where to go
 *   back) in an OidcSignIn row keyed by the SHA-256 of `state` — in the database, not in process
 *   memory, so any process may receive the callback — and redirects to the provider;
 * - `GET /auth/oidc/callback` takes that row (once: deleted as it is read), redeems the code, and
 *   signs the person in by their VERIFIED email: the session cookie, then a redirect to `next`.
 *   An email without an account gets one only with LECTERN_OIDC_CREATE_USERS; else a clear page.
 * Every request to the provider goes through the one outbound guard (private addresses only when
 * LECTERN_ALLOW_PRIVATE_NETWORK allows them).
 */
const FLOW_MINUTES = 10;
const NO_STORE = { 'cache-control': 'no-store' };
/** An error's message and its causes' (openid-client wraps a transport failure in a generic one). */
const reasonOf = (error: unknown): string => {
  const parts: string[] = [];
  for (let e = error as { message?: string; cause?: unknown } | undefined, i = 0; e && i < 4; e = e.cause as typeof e, i++)
    if (e.message) parts.push(e.message);
  return parts.join(': ');
};
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A short page for a person whose sign-in could not finish (not JSON: they arrive by browser). */
function page(status: number, title: string, message: string): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Lectern</title></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p><a href="/app/sign-in">Back to sign-in</a></p></main></body></html>`;
  return new Response(html, { status, headers: { 'content-type': 'text/html; charset=utf-8', ...NO_STORE } });
}

// The provider's discovered metadata, per process (derived from settings, not state another process needs).
let discovered: { key: string; at: number; config: Promise<client.Configuration> } | undefined;

function providerConfiguration(oidc: OidcConfig): Promise<client.Configuration> {
  const key = `${oidc.issuer}\n${oidc.clientId}`;
  if (discovered && discovered.key === key && Date.now() - discovered.at < 10 * 60_000) return discovered.config;
  const auth = oidc.clientSecret ? client.ClientSecretPost(oidc.clientSecret) : client.None();
  const config = client.discovery(new URL(oidc.issuer), oidc.clientId, undefined, auth, {
    [client.customFetch]: guardedFetch as client.CustomFetch,
    // An http issuer is the operator's explicit setting (a provider on a private network or loopback).
    execute: oidc.issuer.startsWith('http:') ? [client.allowInsecureRequests] : [],
  });
  const entry = { key, at: Date.now(), config };
  discovered = entry;
  config.catch(() => {
    if (discovered === entry) discovered = undefined;
  });
  return config;
}

const callbackUrl = (services: Services) => `${services.config.publicUrl}/auth/oidc/callback`;
const stateKey = (state: string) => createHash('sha256').update(state).digest('hex');

async function start({ services, request }: RouteCall): Promise<Response> {
  const oidc = services.config.oidc;
  if (!oidc) return page(404, 'Single sign-on is not configured', 'This server has no OpenID Connect provider.');
  let config: client.Configuration;
  try {
    config = await providerConfiguration(oidc);
  } catch (error) {
    processLog().fault('OIDC discovery failed', reasonOf(error), { requestId: requestIdOf(request) });
    return page(502, 'The sign-in provider did not answer', 'Try again in a moment; if it keeps failing, tell your administrator.');
  }
  const prisma = services.db.prisma;
  await prisma.oidcSignIn.deleteMany({ where: { expiresAt: { lt: new Date() } } });
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const next = safeNext(new URL(request.url).searchParams.get('next'), services.config.publicUrl);
  await prisma.oidcSignIn.create({
    data: { id: stateKey(state), codeVerifier, nonce, next, expiresAt: new Date(Date.now() + FLOW_MINUTES * 60_000) },
  });
  const location = client.buildAuthorizationUrl(config, {
    redirect_uri: callbackUrl(services),
    scope: 'openid email profile',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return new Response(null, { status: 302, headers: { location: location.href, ...NO_STORE } });
}

/** The person the provider vouches for: their verified email and a name, from the ID token or userinfo. */
async function identity(config: client.Configuration, tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>) {
  let claims: Record<string, unknown> = { ...tokens.claims() };
  if (typeof claims.email !== 'string' || claims.email_verified === undefined) {
    claims = { ...claims, ...(await client.fetchUserInfo(config, tokens.access_token, String(claims.sub))) };
  }
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 200) : email.split('@')[0]!;
  return { email, verified: claims.email_verified === true, name };
}

async function callback({ services, request }: RouteCall): Promise<Response> {
  const oidc = services.config.oidc;
  if (!oidc) return page(404, 'Single sign-on is not configured', 'This server has no OpenID Connect provider.');
  const params = new URL(request.url).searchParams;
  const state = params.get('state');
  // Taken once: a replayed or forged callback finds nothing.
  const flow = state ? await takeFlow(services, stateKey(state)) : undefined;
  if (!flow) return page(400, 'This sign-in has expired', 'It was already used, or took too long. Start again from the sign-in page.');
  if (params.has('error'))
    return page(401, 'The sign-in provider refused', params.get('error_description') ?? params.get('error') ?? 'No reason given.');
  let config: client.Configuration;
  let person: Awaited<ReturnType<typeof identity>>;
  try {
    config = await providerConfiguration(oidc);
    // The URL the provider sent the browser to (the public one; behind a proxy the request's may differ).
    const current = new URL(`${callbackUrl(services)}?${params.toString()}`);
    const tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: flow.codeVerifier,
      expectedState: state!,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    person = await identity(config, tokens);
  } catch (error) {
    processLog().fault('OIDC sign-in failed', reasonOf(error), { requestId: requestIdOf(request) });
    return page(
      401,
      'The sign-in could not be completed',
      'The provider’s answer could not be verified. Start again from the sign-in page.',
    );
  }
  if (!person.email || !person.verified)
    return page(
      403,
      'Your email is not verified',
      'The sign-in provider did not vouch for your email address, so Lectern cannot tell which account is yours.',
    );
  const user = await accountFor(services, oidc, person);
  if (!user)
    return page(403, 'No account for this email', `There is no Lectern account for ${person.email}. Ask an administrator to invite you.`);
  const opened = await openSession(services, user.id, { userAgent: request.headers.get('user-agent') });
  return new Response(null, {
    status: 302,
    headers: { location: flow.next, 'set-cookie': sessionCookieFor(services, request, opened), ...NO_STORE },
  });
}

/** The flow a state names, deleted as it is read (one statement: two callbacks cannot both take it). */
async function takeFlow(services: Services, id: string) {
  const { rows } = await services.db.pool.query<{ codeVerifier: string; nonce: string; next: string }>(
    `DELETE FROM "OidcSignIn" WHERE id = $1 AND "expiresAt" > now() AT TIME ZONE 'UTC' RETURNING "codeVerifier", nonce, next`,
    [id],
  );
  return rows[0];
}

/** The account of a verified email; created when the settings allow it. */
async function accountFor(services: Services, oidc: OidcConfig, person: { email: string; name: string }) {
  const prisma = services.db.prisma;
  const existing = await prisma.user.findUnique({ where: { email: person.email } });
  if (existing || !oidc.createUsers) return existing;
  return prisma.user.upsert({
    where: { email: person.email },
    create: { id: newId(), email: person.email, displayName: person.name, emailVerified: true },
    update: {},
  });
}

export const oidcHttpRoutes: HttpRoute[] = [
  { method: 'GET', path: '/auth/oidc/start', handle: start },
  { method: 'GET', path: '/auth/oidc/callback', handle: callback },
];
