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
}

export const ORDINARY_SESSION: Session = { ssoOrganizationId: null };

/** The per-request GraphQL context: the caller and their own dataloaders. */
export interface Context extends Services {
  prisma: PrismaClient;
  caller: User;
  session: Session;
  loaders: Loaders;
}

/**
 * The modules' per-request dataloaders (made fresh for every context). Empty here: the module
 * registry (src/modules/index.ts) declares their shape and hands over the factory that makes them.
 */
export interface Loaders {}

export type LoaderFactory = (db: Database, caller: User) => Loaders;

let createLoaders: LoaderFactory = () => {
  throw new Error('no loaders: the module registry was not installed (installModules in src/modules/index.ts)');
};

/** Called by the module registry when it is installed. */
export function useLoaders(factory: LoaderFactory) {
  createLoaders = factory;
}

export function createContext(services: Services, caller: User, session: Session = ORDINARY_SESSION): Context {
  return { ...services, prisma: services.db.prisma, caller, session, loaders: createLoaders(services.db, caller) };
}
