import { authenticate, rateHeaders } from '../../auth/authenticate.js';
import { orgRole } from '../../auth/permissions.js';
import { bearerToken } from '../../auth/tokens.js';
import { createContext, type Services } from '../../context.js';
import { errorBody } from '../../errors.js';
import type { HttpRoute } from '../../http/routes.js';
import { errorResponse, json } from '../../rest/adapter.js';

/**
 * Spec texts, served outside /v1 (src/app.ts routes /openapi/ here):
 * - `GET /openapi/{organizationId}/{slug}`: the entry document of the spec's newest successfully
 *   processed version — the spec's `urls.published`;
 * - `GET /openapi/{organizationId}/{slug}/versions/{versionId}`: one version's entry document (the
 *   `url` of a version whose spec was given as text; for a URL source, once fetched).
 * A public spec is served to anyone, without a token; a private one only to members of its
 * organization (Bearer token, as on /v1). Anyone else gets 404, as for a spec that does not exist.
 * The text is served as it was given or fetched, as JSON or YAML.
 */
const ROUTE = /^\/openapi\/([^/]+)\/([^/]+)(?:\/versions\/([^/]+))?\/?$/;

export async function serveOpenAPIText(services: Services, request: Request, pathname: string): Promise<Response> {
  const match = pathname.match(ROUTE);
  if (!match) return errorResponse(404, 'No such endpoint');
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return new Response(JSON.stringify({ error: { code: 405, message: 'Only GET is allowed here' } }), {
      status: 405,
      headers: { 'content-type': 'application/json; charset=utf-8', allow: 'GET, HEAD' },
    });
  }
  const [organizationId, slug, versionId] = [match[1]!, match[2]!, match[3]].map((s) => (s === undefined ? s : decodeURIComponent(s)));
  const prisma = services.db.prisma;
  const spec = await prisma.openAPISpec.findUnique({ where: { organizationId_slug: { organizationId: organizationId!, slug: slug!.toLowerCase() } } });
  const missing = () => errorResponse(404, versionId ? 'OpenAPI specification version not found' : 'OpenAPI specification not found');
  if (!spec) return missing();
  if (spec.visibility !== 'public') {
    const token = bearerToken(request);
    const authenticated = token ? await authenticate(services.db, token, services.config.rateLimit) : null;
    if (!authenticated) return missing();
    if (authenticated.rate?.exceeded) return json(429, errorBody(429, 'Rate limit exceeded'), rateHeaders(authenticated.rate));
    const ctx = createContext(services, authenticated.caller, authenticated.session);
    if ((await orgRole(ctx, spec.organizationId)) === undefined) return missing();
  }
  const version = versionId
    ? await prisma.openAPISpecVersion.findFirst({ where: { id: versionId, specId: spec.id }, select: { text: true, state: true } })
    : await prisma.openAPISpecVersion.findFirst({ where: { specId: spec.id, state: 'complete' }, orderBy: { number: 'desc' }, select: { text: true, state: true } });
  if (!version?.text) {
    if (!version) return missing();
    return errorResponse(404, version.state === 'failed' ? 'This version could not be fetched (see the spec’s lastProcessedErrors)' : 'This version has not been fetched yet: its processing is pending');
  }
  const isJson = /^\s*[{[]/.test(version.text);
  return new Response(request.method === 'HEAD' ? null : version.text, {
    status: 200,
    headers: {
      'content-type': isJson ? 'application/json; charset=utf-8' : 'application/yaml; charset=utf-8',
      'cache-control': spec.visibility === 'public' ? 'public, max-age=60' : 'private, no-store',
      'x-content-type-options': 'nosniff',
    },
  });
}

export const openAPIHttpRoute: HttpRoute = { prefix: '/openapi/', serve: serveOpenAPIText };
