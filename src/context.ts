import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { PrismaClient, User } from './generated/prisma/client.js';
import type { Urls } from './urls.js';

/** What every request shares: the process-wide services. */
export interface Services {
  db: Database;
  config: Config;
  urls: Urls;
}

/**
 * How the caller's token was issued. `ssoOrganizationId`: the organization whose SAML sign-in
 * issued it (the token then reaches only that organization); null for an ordinary API token.
 */
export interface Session {
  ssoOrganizationId: string | null;
  /** The id of the API token of the request (never the token): audit events record it. */
  tokenId?: string | null;
  /**
   * Set for a site token (src/auth/site-token.ts): the request may read only the published content
   * of this site, and no membership counts (src/auth/permissions.ts).
   */
  siteScope?: { siteId: string; organizationId: string } | null;
  /** The client's address as the HTTP server saw it (X-Forwarded-For's last hop behind a trusted proxy); audit events record it. */
  clientAddress?: string | null;
  /** The browser session (table Session) that authenticated the request by its cookie; null for a token. */
  browserSessionId?: string | null;
  /**
   * Nobody is signed in: the request may only run the public operations (signing in), checked by
   * src/app.ts before execution; `caller` is then a placeholder until a sign-in replaces it.
   */
  anonymous?: boolean;
}

export const ORDINARY_SESSION: Session = { ssoOrganizationId: null };

/**
 * The per-request GraphQL context: the caller and the services. Its dataloaders are not in it: each
 * module makes its own on first use with `perRequest` (src/loaders.ts), keyed by this object.
 */
export interface Context extends Services {
  prisma: PrismaClient;
  caller: User;
  session: Session;
  /** Headers added to the HTTP answer (a sign-in's Set-Cookie); absent for in-process calls. */
  responseHeaders?: Headers;
  /** The HTTP request (a sign-in reads its User-Agent and protocol); absent for in-process calls. */
  request?: Request;
  /**
   * Set when the operation is one of the server's own REST route documents, validated at start:
   * the complexity limits, which bound what a client may ask for, do not apply to them.
   */
  serverDocument?: boolean;
}

export function createContext(
  services: Services,
  caller: User,
  session: Session = ORDINARY_SESSION,
  http: { responseHeaders?: Headers; request?: Request } = {},
): Context {
  return { ...services, prisma: services.db.prisma, caller, session, ...http };
}
