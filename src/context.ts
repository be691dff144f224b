import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { PrismaClient, User } from './generated/prisma/client.js';
import type { Urls } from './urls.js';
import { orgLoaders } from './modules/orgs/loaders.js';
import { spaceLoaders } from './modules/spaces/loaders.js';
import { collectionLoaders } from './modules/collections/loaders.js';
import { siteLoaders } from './modules/sites/loaders.js';
import { changeRequestLoaders } from './modules/change-requests/loaders.js';

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
}

export const ORDINARY_SESSION: Session = { ssoOrganizationId: null };

/** The per-request GraphQL context: the caller and their own dataloaders. */
export interface Context extends Services {
  prisma: PrismaClient;
  caller: User;
  session: Session;
  loaders: ReturnType<typeof createLoaders>;
}

function createLoaders(db: Database, caller: User) {
  return {
    ...orgLoaders(db, caller),
    ...spaceLoaders(db),
    ...collectionLoaders(db),
    ...siteLoaders(db),
    ...changeRequestLoaders(db.prisma),
  };
}

export function createContext(services: Services, caller: User, session: Session = ORDINARY_SESSION): Context {
  return { ...services, prisma: services.db.prisma, caller, session, loaders: createLoaders(services.db, caller) };
}
