import type { Database } from '../../db/database.js';
import { rowsById, selectRows } from '../../db/rows.js';
import type { Member, Organization, User } from '../../generated/prisma/client.js';
import { batched, byId } from '../../loaders.js';

export function orgLoaders({ prisma, pool }: Database, caller: User) {
  return {
    organization: byId(rowsById<Organization>(pool, 'Organization')),
    user: byId(rowsById<User>(pool, 'User')),
    /** The caller's membership in each organization (null when not a member). */
    callerMembership: batched<string, Member | null>(async (orgIds) => {
      const rows = await selectRows<Member>(pool, 'SELECT * FROM "Member" WHERE "userId" = $1 AND "organizationId" = ANY($2::text[])', [caller.id, orgIds]);
      return new Map(rows.map((m) => [m.organizationId, m]));
    }, null),
    /** Live (not deleted) spaces per organization, for member listings. */
    organizationSpaceCount: batched<string, number>(async (orgIds) => {
      const rows = await prisma.space.groupBy({ by: ['organizationId'], where: { organizationId: { in: orgIds }, deletedAt: null }, _count: { _all: true } });
      return new Map(rows.map((r) => [r.organizationId, r._count._all]));
    }, 0),
  };
}
