import type { Services } from '../../context.js';
import { errorResponse, json } from '../../http/respond.js';
import type { HttpRoute, RouteCall } from '../../http/routes.js';
import { purgeNonces, samlFor, signIn, SsoRefused } from './saml.js';

/**
 * The browser side of single sign-on, outside /v1 and without a token:
 *
 * - `GET /sso/saml/{provider}/start[?redirect=<url>]`: redirects (302) to the identity provider
 *   with an AuthnRequest. `redirect`, when given, must be a URL on Lectern's own public origin; it
 *   travels as the RelayState.
 * - `POST /sso/saml/{provider}/acs` (form: SAMLResponse, RelayState): validates the response and
 *   signs the person in. The answer is JSON `{ token, expiresAt, user: { id, email, displayName },
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

/** A URL on Lectern's public origin, or null. */
function sameOrigin(services: Services, value: string | null | undefined): URL | null {
  if (!value) return null;
  try {
    const url = new URL(value);
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
  const redirect = new URL(request.url).searchParams.get('redirect');
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
    const done = await signIn(services, provider, samlResponse, call.clientAddress ?? null);
    const relay = sameOrigin(services, form.get('RelayState'));
    if (relay) {
      relay.hash = new URLSearchParams({ token: done.token, expiresAt: done.expiresAt.toISOString() }).toString();
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

export const ssoHttpRoutes: HttpRoute[] = [
  { method: 'GET', path: '/sso/saml/:providerId/start', handle: serveStart },
  { method: 'POST', path: '/sso/saml/:providerId/acs', handle: serveAcs, bodyLimit: ACS_BODY_LIMIT },
  { method: 'GET', path: '/sso/saml/:providerId/metadata', handle: serveMetadata },
];
