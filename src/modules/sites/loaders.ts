import type { Context } from '../../context.js';
import type { Site, SiteExternalLink, SiteSection, SiteSectionGroup, SiteShareLink, SiteSpace } from '../../generated/prisma/client.js';
import { selectRowGroups } from '../../db/rows.js';
import { byPosition } from '../../positions.js';
import { batched, groupBy, perRequest } from '../../loaders.js';

const BY_POSITION = [{ position: 'asc' as const }, { id: 'asc' as const }];
const BY_CREATION = [{ createdAt: 'asc' as const }, { id: 'asc' as const }];

/**
 * Per-request loaders of the site domain. Every level of a nested site query (sites of an
 * organization, their sections, section groups, site spaces, share links) is one statement per
 * request, whatever the number of parents asking. The site row itself is loaded by the permission
 * mechanism (src/auth/access-rows.ts), which decides rights from it.
 */
export const siteLoaders = perRequest(({ prisma, db }: Context) => {
  const perSite = <T extends { siteId: string }>(fetch: (siteIds: string[]) => Promise<T[]>) =>
    batched<string, T[]>(async (siteIds) => groupBy(await fetch(siteIds), (row) => row.siteId), []);
  return {
    /** Every site of each organization, oldest first (an organization has few sites: lists page them in memory). */
    organizationSites: batched<string, Site[]>(
      async (orgIds) =>
        groupBy(await prisma.site.findMany({ where: { organizationId: { in: orgIds } }, orderBy: BY_CREATION }), (s) => s.organizationId),
      [],
    ),
    siteSections: perSite<SiteSection>((siteIds) =>
      prisma.siteSection.findMany({ where: { siteId: { in: siteIds } }, orderBy: BY_POSITION }),
    ),
    /**
     * Section groups and external links of each site, by position: one statement for both (a FULL
     * JOIN ON false puts each row of either table on a row of its own), so the structure costs the
     * statements it did before links existed.
     */
    siteGroupsAndLinks: batched<string, { groups: SiteSectionGroup[]; links: SiteExternalLink[] }>(
      async (siteIds) => {
        const rows = await selectRowGroups(
          db.pool,
          `SELECT g.*, NULL AS "__next", l.* FROM (SELECT * FROM "SiteSectionGroup" WHERE "siteId" = ANY($1::text[])) g
           FULL JOIN (SELECT * FROM "SiteExternalLink" WHERE "siteId" = ANY($1::text[])) l ON false`,
          [siteIds],
        );
        const out = new Map<string, { groups: SiteSectionGroup[]; links: SiteExternalLink[] }>();
        const of = (siteId: string) => out.get(siteId) ?? (out.set(siteId, { groups: [], links: [] }), out.get(siteId)!);
        for (const [group, link] of rows) {
          if (group) of(group.siteId as string).groups.push(group as unknown as SiteSectionGroup);
          if (link) of(link.siteId as string).links.push(link as unknown as SiteExternalLink);
        }
        for (const v of out.values()) v.groups.sort(byPosition), v.links.sort(byPosition);
        return out;
      },
      { groups: [], links: [] },
    ),
    /** Site spaces whose space is live: a deleted space leaves the site until it is restored. */
    siteSpaces: perSite<SiteSpace>((siteIds) =>
      prisma.siteSpace.findMany({ where: { siteId: { in: siteIds }, space: { deletedAt: null } }, orderBy: BY_POSITION }),
    ),
    siteShareLinks: perSite<SiteShareLink>((siteIds) =>
      prisma.siteShareLink.findMany({ where: { siteId: { in: siteIds } }, orderBy: BY_CREATION }),
    ),
  };
});
