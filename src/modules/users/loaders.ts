import type { Context } from '../../context.js';
import { rowsById } from '../../db/rows.js';
import type { User } from '../../generated/prisma/client.js';
import { byId, perRequest } from '../../loaders.js';

/** Per-request loaders of the users module. */
export const userLoaders = perRequest((ctx: Context) => ({
  user: byId(rowsById<User>(ctx.db.pool, 'User')),
}));
