import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { PrismaClient, User } from './generated/prisma/client.js';
import type { Urls } from './urls.js';
import { orgLoaders } from './modules/orgs/loaders.js';
import { spaceLoaders } from './modules/spaces/loaders.js';
import { collectionLoaders } from './modules/collections/loaders.js';

/** What every request shares: the process-wide services. */
export interface Services {
  db: Database;
  config: Config;
  urls: Urls;
}

/** The per-request GraphQL context: the caller and their own dataloaders. */
export interface Context extends Services {
  prisma: PrismaClient;
  caller: User;
  loaders: ReturnType<typeof createLoaders>;
}

function createLoaders(prisma: PrismaClient, caller: User) {
  return {
    ...orgLoaders(prisma, caller),
    ...spaceLoaders(prisma),
    ...collectionLoaders(prisma),
  };
}

export function createContext(services: Services, caller: User): Context {
  return { ...services, prisma: services.db.prisma, caller, loaders: createLoaders(services.db.prisma, caller) };
}
