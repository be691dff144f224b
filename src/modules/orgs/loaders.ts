import type { Context } from '../../context.js';
import { batched, perRequest } from '../../loaders.js';

/**
 * Per-request loaders of the orgs module. The organization and membership rows themselves are
 * loaded by the permission mechanism (src/auth/access-rows.ts), which decides rights from them.
 */
export const orgLoaders = perRequest((ctx: Context) => ({
  /** Live (not deleted) spaces per organization, for member listings. */
  organizationSpaceCount: batched<string, number>(async (orgIds) => {
    const rows = await ctx.prisma.space.groupBy({
      by: ['organizationId'],
      where: { organizationId: { in: orgIds }, deletedAt: null },
      _count: { _all: true },
    });
    return new Map(rows.map((r) => [r.organizationId, r._count._all]));
  }, 0),
}));
