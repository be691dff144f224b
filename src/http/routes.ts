import type { Services, Session } from '../context.js';
import type { User } from '../generated/prisma/client.js';

/** The methods a route may answer; a GET route answers HEAD too (the same handler; the body is dropped). */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Who sent a request with a valid token. */
export interface Caller {
  user: User;
  session: Session;
}

/** What a route's handler is given. */
export interface RouteCall {
  services: Services;
  request: Request;
  /** The path's parameters (`:name` in the pattern), percent-decoded. */
  params: Record<string, string>;
  /** The caller, for a route with `optionalToken` when a valid token was sent; else null. */
  caller: Caller | null;
  /** The body as text, for a route with `bodyLimit` (read before the handler runs); else undefined. */
  body: string | undefined;
  /** The client's address (X-Forwarded-For's last hop behind a trusted proxy), when the HTTP server knows it. */
  clientAddress?: string | null;
}

/**
 * A route outside /v1 and /graphql (downloads, SSO, OpenAPI texts; /healthz and /readyz), declared
 * as data by the module that owns it and listed in the module registry (src/modules/index.ts);
 * src/app.ts puts every one on its one router. Such a route takes no token (or an optional one), so
 * a request without a valid token is charged to the client's address before its handler runs.
 *
 *   { method: 'GET', path: '/exports/:id.pdf', cost: 10, handle: ({ services, params }) => … }
 */
export interface HttpRoute {
  method: RouteMethod;
  /** An itty-router pattern: `/files/:spaceId/:fileId/:name`, `/exports/:id.pdf`, `/files/*`. */
  path: string;
  handle(call: RouteCall): Promise<Response> | Response;
  /** What a request without a (valid) token costs of the address's budget (default 1; 0: not charged, e.g. /healthz). */
  cost?: number;
  /**
   * A token is optional: when one is sent, the app's one authentication step resolves the caller
   * (per-user budget, failed-token throttle, tenant gate, as on /v1) and gives it to the handler;
   * without one (or with an invalid one) the request is anonymous, charged to the address.
   */
  optionalToken?: boolean;
  /** The body is read (as text, at most this many bytes, else 413) before the handler; without it the body is never read. */
  bodyLimit?: number;
}
