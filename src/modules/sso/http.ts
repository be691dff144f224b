import type { Services } from '../../context.js';
import { errorResponse, json } from '../../http/respond.js';
import type { HttpRoute, RouteCall } from '../../http/routes.js';
import { randomUUID } from 'node:crypto';
import { appPathOf, openSession, sessionCookieFor } from '../sessions/index.js';
import { purgeNonces, samlFor, signIn, SsoRefused, type SignedIn } from './saml.js';

/**
 * The browser side of single sign-on, outside /v1 and without a token:
 *
 * - `GET /sso/saml/{provider}/start[?redirect=<url>]` (or `?next=<path>`): redirects (302) to the
 *   identity provider with an AuthnRequest. `redirect`, when given, must be a URL (or a path) on
 *   Lectern's own public origin; it travels as the RelayState.
 * - `POST /sso/saml/{provider}/acs` (form: SAMLResponse, RelayState): validates the response and
 *   signs the person in. When the RelayState is a page of the app (below /app), the browser is
 *   signed in like any other: the session cookie (scoped to the organization and ending with an
 *   SSO token's lifetime) and a 303 to that page, no token. Otherwise the answer is JSON `{ token, expiresAt, user: { id, email, displayName },
 *   organization }` (200, not cached) — or, when the RelayState is a URL on Lectern's public origin,
 *   a 303 redirect to it with `#token=<token>&expiresAt=<ISO date>` in the fragment (a fragment is
 *   not sent to servers nor kept in logs). A refused response answers 401 (403 when the person may
 *   not sign in, 400 when the assertion lacks an email) in the usual error shape.
 * - `GET /sso/saml/{provider}/metadata`: the service provider's SAML metadata (its entity id is this URL).
 */
const NO_STORE = { 'cache-control': 'no-store' };
/**
 * The ACS form's largest body. It is read without a token, so it is small: a signed response with
 * a certificate and dozens of attributes is 10–30 KB (base64), and 256 KB leaves room for large
 * attribute sets while bounding what an anonymous caller can make the server read and parse.
 */
export const ACS_BODY_LIMIT = 256 * 1024;

/** A URL on Lectern's public origin (absolute, or a path of it), or null. */
function sameOrigin(services: Services, value: string | null | undefined): URL | null {
  if (!value || (value.startsWith('/') && (value.startsWith('//') || value.includes('\\')))) return null;
  try {
    const url = new URL(value, services.config.publicUrl);
    return url.origin === new URL(services.config.publicUrl).origin ? url : null;
  } catch {
    return null;
  }
}

/** The SAML provider the path names, or null. */
async function providerOf({ services, params }: RouteCall) {
  return services.db.prisma.samlProvider.findUnique({ where: { id: params.providerId! } });
}

const missingProvider = () => errorResponse(404, 'SAML provider not found');

async function serveMetadata(call: RouteCall): Promise<Response> {
  const provider = await providerOf(call);
  if (!provider) return missingProvider();
  const xml = samlFor(call.services, provider).generateServiceProviderMetadata(null);
  return new Response(xml, { status: 200, headers: { 'content-type': 'application/samlmetadata+xml; charset=utf-8' } });
}

async function serveStart(call: RouteCall): Promise<Response> {
  const { services, request } = call;
  const provider = await providerOf(call);
  if (!provider) return missingProvider();
  await purgeNonces(services.db.prisma);
  const params = new URL(request.url).searchParams;
  const redirect = params.get('redirect') ?? params.get('next');
  if (redirect !== null && !sameOrigin(services, redirect)) {
    return errorResponse(400, `redirect: must be a URL on ${new URL(services.config.publicUrl).origin}`);
  }
  const location = await samlFor(services, provider).getAuthorizeUrlAsync(redirect ?? '', undefined, {});
  return new Response(null, { status: 302, headers: { location, ...NO_STORE } });
}

async function serveAcs(call: RouteCall): Promise<Response> {
  const { services } = call;
  // The form was read (at most ACS_BODY_LIMIT bytes, else 413) before any database work.
  const form = new URLSearchParams(call.body);
  const provider = await providerOf(call);
  if (!provider) return missingProvider();
  await purgeNonces(services.db.prisma);
  const samlResponse = form.get('SAMLResponse');
  if (!samlResponse) return errorResponse(400, 'SAMLResponse: is required (an HTTP-POST binding form field)');
  try {
    const appPage = appPathOf(form.get('RelayState'), services.config.publicUrl);
    const done = await signIn(services, provider, samlResponse, call.clientAddress ?? null, { withToken: !appPage });
    if (appPage) return await browserSignedIn(call, done, appPage);
    const relay = sameOrigin(services, form.get('RelayState'));
    if (relay) {
      relay.hash = new URLSearchParams({ token: done.token!, expiresAt: done.expiresAt.toISOString() }).toString();
      return new Response(null, { status: 303, headers: { location: relay.toString(), ...NO_STORE } });
    }
    return json(
      200,
      {
        token: done.token,
        expiresAt: done.expiresAt.toISOString(),
        user: { id: done.user.id, email: done.user.email, displayName: done.user.displayName },
        organization: done.organizationId,
      },
      NO_STORE,
    );
  } catch (error) {
    if (error instanceof SsoRefused) return errorResponse(error.status, error.message);
    throw error;
  }
}

/**
 * A browser's SAML sign-in ends in the app's session (src/modules/sessions): the cookie, then the
 * app page. The session reaches only the organization and ends when an SSO token would; the sign-in
 * is recorded as a token's is (action ssoSignIn), with the session's id.
 */
async function browserSignedIn({ services, request, clientAddress }: RouteCall, done: SignedIn, appPage: string): Promise<Response> {
  const opened = await openSession(services, done.user.id, {
    userAgent: request.headers.get('user-agent'),
    ssoOrganizationId: done.organizationId,
    expiresAt: done.expiresAt,
  });
  await services.db.prisma.auditEvent.create({
    data: {
      id: randomUUID(),
      organizationId: done.organizationId,
      action: 'ssoSignIn',
      actorId: done.user.id,
      source: 'sso',
      targetType: 'session',
      targetId: opened.id,
      clientAddress: clientAddress ?? null,
      payload: { after: { expiresAt: opened.expiresAt.toISOString() } },
    },
  });
  return new Response(null, {
    status: 303,
    headers: { location: appPage, 'set-cookie': sessionCookieFor(services, request, opened), ...NO_STORE },
  });
}

export const ssoHttpRoutes: HttpRoute[] = [
  { method: 'GET', path: '/sso/saml/:providerId/start', handle: serveStart },
  { method: 'POST', path: '/sso/saml/:providerId/acs', handle: serveAcs, bodyLimit: ACS_BODY_LIMIT },
  { method: 'GET', path: '/sso/saml/:providerId/metadata', handle: serveMetadata },
];
