import type { Context } from '../context.js';
import { rowsById, selectRows } from '../db/rows.js';
import type { Collection, Member, Organization, Site, Space } from '../generated/prisma/client.js';
import { batched, byId, perRequest } from '../loaders.js';

/**
 * The rows the caller's rights are decided from (src/auth/permissions.ts), loaded once per request:
 * organizations, the caller's memberships, collections, spaces and sites. They belong to the
 * permission mechanism rather than to the modules that own the tables, because a mechanism imports
 * no module; the modules read these rows through the same loaders, so a guard and the resolver
 * after it share one statement. Writers clear or prime the keys they change.
 */
export const accessRows = perRequest((ctx: Context) => {
  const { pool } = ctx.db;
  return {
    organization: byId(rowsById<Organization>(pool, 'Organization')),
    /** The caller's membership in each organization (null when not a member). */
    callerMembership: batched<string, Member | null>(async (orgIds) => {
      const rows = await selectRows<Member>(pool, 'SELECT * FROM "Member" WHERE "userId" = $1 AND "organizationId" = ANY($2::text[])', [ctx.caller.id, orgIds]);
      return new Map(rows.map((m) => [m.organizationId, m]));
    }, null),
    collection: byId(rowsById<Collection>(pool, 'Collection')),
    space: byId(rowsById<Space>(pool, 'Space')),
    site: byId(rowsById<Site>(pool, 'Site')),
  };
});
