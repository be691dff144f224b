import { errorResponse } from './respond.js';

/**
 * Cross-origin access to /v1 and /graphql (LECTERN_CORS_ORIGINS, comma-separated origins, or `*`).
 * None by default: a browser page on another origin gets no CORS headers, so it cannot read
 * answers. `*` answers `Access-Control-Allow-Origin: *`; a listed origin is echoed with
 * `Vary: Origin`. Credentials are never allowed: Lectern authenticates with the Authorization
 * header, which a page sends without credentials mode, and has no cookies a page should ride on.
 * (Before, yoga's default reflected ANY origin with `Access-Control-Allow-Credentials: true`.)
 */
export interface CorsPolicy {
  origins: string[];
}

const METHODS = 'GET, POST, PUT, PATCH, DELETE';
// If-None-Match / ETag: a front-end on another origin revalidates what it keeps (src/http/conditional.ts).
const HEADERS = 'authorization, content-type, if-none-match, x-graphql-client-name, x-graphql-client-version';
const EXPOSED = 'etag, location, retry-after, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset';

function allowedOrigin(policy: CorsPolicy, origin: string | null): string | null {
  if (!origin) return null;
  if (policy.origins.includes('*')) return '*';
  return policy.origins.includes(origin) ? origin : null;
}

/** Whether this is a CORS preflight (OPTIONS with Origin and Access-Control-Request-Method). */
export const isPreflight = (request: Request) =>
  request.method === 'OPTIONS' && request.headers.has('origin') && request.headers.has('access-control-request-method');

/** The answer to a preflight: 204 with the allowances for a permitted origin, 403 otherwise. */
export function preflight(policy: CorsPolicy, request: Request): Response {
  const origin = allowedOrigin(policy, request.headers.get('origin'));
  if (!origin) {
    return errorResponse(403, 'origin: not allowed to call this API from a browser (see LECTERN_CORS_ORIGINS)', { vary: 'origin' });
  }
  return new Response(null, {
    status: 204,
    headers: {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': METHODS,
      'access-control-allow-headers': HEADERS,
      'access-control-max-age': '600',
      vary: 'origin',
    },
  });
}

/** Adds the CORS headers for an actual request's answer (nothing when the origin is not allowed). */
export function withCors(policy: CorsPolicy, request: Request, response: Response): Response {
  const origin = allowedOrigin(policy, request.headers.get('origin'));
  if (policy.origins.length && origin !== '*') response.headers.append('vary', 'origin');
  if (!origin) return response;
  response.headers.set('access-control-allow-origin', origin);
  response.headers.set('access-control-expose-headers', EXPOSED);
  return response;
}
