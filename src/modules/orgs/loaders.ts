import type { Member, PrismaClient, User } from '../../generated/prisma/client.js';
import { batched, byId } from '../../loaders.js';

export function orgLoaders(prisma: PrismaClient, caller: User) {
  return {
    organization: byId((ids) => prisma.organization.findMany({ where: { id: { in: ids } } })),
    user: byId((ids) => prisma.user.findMany({ where: { id: { in: ids } } })),
    /** The caller's membership in each organization (null when not a member). */
    callerMembership: batched<string, Member | null>(async (orgIds) => {
      const rows = await prisma.member.findMany({ where: { userId: caller.id, organizationId: { in: orgIds } } });
      return new Map(rows.map((m) => [m.organizationId, m]));
    }, null),
    /** Live (not deleted) spaces per organization, for member listings. */
    organizationSpaceCount: batched<string, number>(async (orgIds) => {
      const rows = await prisma.space.groupBy({ by: ['organizationId'], where: { organizationId: { in: orgIds }, deletedAt: null }, _count: { _all: true } });
      return new Map(rows.map((r) => [r.organizationId, r._count._all]));
    }, 0),
  };
}
