import { orgRole } from '../../auth/permissions.js';
import { createContext } from '../../context.js';
import { errorResponse } from '../../http/respond.js';
import type { HttpRoute, RouteCall } from '../../http/routes.js';

/**
 * Spec texts, served outside /v1:
 * - `GET /openapi/{organizationId}/{slug}`: the entry document of the spec's newest successfully
 *   processed version — the spec's `urls.published`;
 * - `GET /openapi/{organizationId}/{slug}/versions/{versionId}`: one version's entry document (the
 *   `url` of a version whose spec was given as text; for a URL source, once fetched).
 * A public spec is served to anyone, without a token; a private one only to members of its
 * organization (an optional Bearer token, authenticated by the app as on /v1). Anyone else gets 404,
 * as for a spec that does not exist.
 * The text is served as it was given or fetched, as JSON or YAML.
 */
export async function serveOpenAPIText({ services, params, caller }: RouteCall): Promise<Response> {
  const { organizationId, slug, versionId } = params as { organizationId: string; slug: string; versionId?: string };
  const prisma = services.db.prisma;
  const spec = await prisma.openAPISpec.findUnique({ where: { organizationId_slug: { organizationId, slug: slug.toLowerCase() } } });
  const missing = () => errorResponse(404, versionId ? 'OpenAPI specification version not found' : 'OpenAPI specification not found');
  if (!spec) return missing();
  if (spec.visibility !== 'public') {
    if (!caller) return missing();
    const ctx = createContext(services, caller.user, caller.session);
    if ((await orgRole(ctx, spec.organizationId)) === undefined) return missing();
  }
  const version = versionId
    ? await prisma.openAPISpecVersion.findFirst({ where: { id: versionId, specId: spec.id }, select: { text: true, state: true } })
    : await prisma.openAPISpecVersion.findFirst({
        where: { specId: spec.id, state: 'complete' },
        orderBy: { number: 'desc' },
        select: { text: true, state: true },
      });
  if (!version?.text) {
    if (!version) return missing();
    return errorResponse(
      404,
      version.state === 'failed'
        ? 'This version could not be fetched (see the spec’s lastProcessedErrors)'
        : 'This version has not been fetched yet: its processing is pending',
    );
  }
  const isJson = /^\s*[{[]/.test(version.text);
  return new Response(version.text, {
    status: 200,
    headers: {
      'content-type': isJson ? 'application/json; charset=utf-8' : 'application/yaml; charset=utf-8',
      'cache-control': spec.visibility === 'public' ? 'public, max-age=60' : 'private, no-store',
      'x-content-type-options': 'nosniff',
    },
  });
}

export const openAPIHttpRoutes: HttpRoute[] = [
  { method: 'GET', path: '/openapi/:organizationId/:slug', handle: serveOpenAPIText, optionalToken: true },
  { method: 'GET', path: '/openapi/:organizationId/:slug/versions/:versionId', handle: serveOpenAPIText, optionalToken: true },
];
