import { errorResponse } from './respond.js';

/**
 * Refusals decided by the request line alone, before any routing: a method the app does not serve
 * (TRACE, TRACK, CONNECT, PROPFIND… → 405 with Allow) and a path whose percent-encoding is broken
 * (`/v1/spaces/%E0%A4%A` → 400). Left to the router, both would surface as 500s with a logged stack.
 */
export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const KNOWN = new Set<string>(METHODS);

export const isKnownMethod = (method: string | undefined) => KNOWN.has(method ?? '');

export function methodNotAllowed(method: string, allow: string): Response {
  // The method name is echoed only when it is a plain token (never arbitrary bytes).
  const named = /^[A-Za-z-]{1,20}$/.test(method) ? method.toUpperCase() : 'This method';
  return errorResponse(405, `${named} is not allowed here; allowed: ${allow}`, { allow });
}

/** Whether every %XX sequence of the path decodes to valid UTF-8. */
function wellEncoded(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

/** The refusal for this request line, or null when routing may go on. */
export function refuseRequestLine(request: Request, allowFor: (pathname: string) => string): Response | null {
  const { pathname } = new URL(request.url);
  if (!isKnownMethod(request.method)) return methodNotAllowed(request.method, allowFor(pathname));
  if (!wellEncoded(pathname)) return errorResponse(400, 'path: malformed percent-encoding (each %XX must form valid UTF-8)');
  return null;
}
