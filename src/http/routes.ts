import type { Services } from '../context.js';

/**
 * A route outside /v1 and /graphql (downloads, SSO, OpenAPI texts): the paths under `prefix`,
 * served by the module that owns them and listed in the module registry (src/modules/index.ts).
 * These routes take no token (/openapi: an optional one), so src/app.ts charges each request to the
 * client's address before calling `serve`.
 */
export interface HttpRoute {
  /** The paths served, e.g. `/files/`. */
  prefix: string;
  serve(services: Services, request: Request, pathname: string): Promise<Response>;
  /** What one request costs of the address's token-less budget (default 1). */
  cost?: number;
  /** The Allow header of a 405 on one of these paths (default `GET, HEAD`). */
  allow?: (pathname: string) => string;
}

export const findHttpRoute = (routes: readonly HttpRoute[], pathname: string) => routes.find((r) => pathname.startsWith(r.prefix));
