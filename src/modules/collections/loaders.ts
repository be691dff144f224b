import type { Database } from '../../db/database.js';
import { rowsById } from '../../db/rows.js';
import type { Collection } from '../../generated/prisma/client.js';
import { byId } from '../../loaders.js';

export function collectionLoaders({ pool }: Database) {
  return {
    collection: byId(rowsById<Collection>(pool, 'Collection')),
  };
}
