import type { PrismaClient } from '../../generated/prisma/client.js';
import { byId } from '../../loaders.js';

export function collectionLoaders(prisma: PrismaClient) {
  return {
    collection: byId((ids) => prisma.collection.findMany({ where: { id: { in: ids } } })),
  };
}
