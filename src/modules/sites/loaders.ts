import type { Context } from '../../context.js';
import type { Site, SiteSection, SiteSectionGroup, SiteShareLink, SiteSpace } from '../../generated/prisma/client.js';
import { batched, groupBy, perRequest } from '../../loaders.js';

const BY_POSITION = [{ position: 'asc' as const }, { id: 'asc' as const }];
const BY_CREATION = [{ createdAt: 'asc' as const }, { id: 'asc' as const }];

/**
 * Per-request loaders of the site domain. Every level of a nested site query (sites of an
 * organization, their sections, section groups, site spaces, share links) is one statement per
 * request, whatever the number of parents asking. The site row itself is loaded by the permission
 * mechanism (src/auth/access-rows.ts), which decides rights from it.
 */
export const siteLoaders = perRequest(({ prisma }: Context) => {
  const perSite = <T extends { siteId: string }>(fetch: (siteIds: string[]) => Promise<T[]>) =>
    batched<string, T[]>(async (siteIds) => groupBy(await fetch(siteIds), (row) => row.siteId), []);
  return {
    /** Every site of each organization, oldest first (an organization has few sites: lists page them in memory). */
    organizationSites: batched<string, Site[]>(
      async (orgIds) => groupBy(await prisma.site.findMany({ where: { organizationId: { in: orgIds } }, orderBy: BY_CREATION }), (s) => s.organizationId),
      [],
    ),
    siteSections: perSite<SiteSection>((siteIds) => prisma.siteSection.findMany({ where: { siteId: { in: siteIds } }, orderBy: BY_POSITION })),
    siteSectionGroups: perSite<SiteSectionGroup>((siteIds) => prisma.siteSectionGroup.findMany({ where: { siteId: { in: siteIds } }, orderBy: BY_POSITION })),
    /** Site spaces whose space is live: a deleted space leaves the site until it is restored. */
    siteSpaces: perSite<SiteSpace>((siteIds) =>
      prisma.siteSpace.findMany({ where: { siteId: { in: siteIds }, space: { deletedAt: null } }, orderBy: BY_POSITION }),
    ),
    siteShareLinks: perSite<SiteShareLink>((siteIds) => prisma.siteShareLink.findMany({ where: { siteId: { in: siteIds } }, orderBy: BY_CREATION })),
  };
});
