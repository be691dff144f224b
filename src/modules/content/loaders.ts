import type { Context } from '../../context.js';
import { rowsById } from '../../db/rows.js';
import type { Revision } from '../../generated/prisma/client.js';
import { byId, perRequest } from '../../loaders.js';

/** Per-request loaders of the content module. */
export const contentLoaders = perRequest((ctx: Context) => ({
  revision: byId(rowsById<Revision>(ctx.db.pool, 'Revision')),
}));
