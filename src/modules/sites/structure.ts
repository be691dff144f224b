import type { Context } from '../../context.js';
import type { Prisma, Site, SiteSection, SiteSectionGroup, SiteSpace } from '../../generated/prisma/client.js';
import { groupBy, perRequest } from '../../loaders.js';
import { byPosition } from '../../positions.js';
import { siteLoaders } from './loaders.js';
import { accessRows } from '../../auth/access-rows.js';

/** Section groups nest at most this deep (a root group is depth 1): the REST shapes are written out to this depth. */
export const MAX_GROUP_DEPTH = 3;

export type StructureNode = SiteSection | SiteSectionGroup;
export const isSection = (node: StructureNode | SiteSpace): node is SiteSection => 'path' in node && !('spaceId' in node);
export const isSiteSpace = (node: StructureNode | SiteSpace): node is SiteSpace => 'spaceId' in node;

/**
 * A site's whole structure, read once per request (three batched statements for any number of
 * sites) and queried in memory by every resolver below the site: which section is the default,
 * which site space is the default of its section, the order of everything.
 *
 * - A site with sections keeps every site space in a section; a site without sections keeps them
 *   at its root (`sectionId` null).
 * - Sections and section groups under one parent (the root or a group) share one ordering.
 * - The default section is the site's explicit one when it still exists, else the first section
 *   of the structure; the default site space of a section (or of the root) likewise.
 */
export interface SiteView {
  site: Site;
  sectioned: boolean;
  /** Sections, depth first through the groups. */
  sections: SiteSection[];
  /** Groups, depth first. */
  groups: SiteSectionGroup[];
  /** Site spaces: the root's, then each section's in section order. */
  siteSpaces: SiteSpace[];
  /** Sections and groups directly under a group (null: the root), in order. */
  children(groupId: string | null): StructureNode[];
  /** Site spaces of a section (null: the root), in order. */
  spacesIn(sectionId: string | null): SiteSpace[];
  section(id: string): SiteSection | undefined;
  group(id: string): SiteSectionGroup | undefined;
  siteSpace(id: string): SiteSpace | undefined;
  defaultSectionId: string | null;
  defaultSiteSpaceIn(sectionId: string | null): string | null;
  /** 1 for a group at the root, 2 for a group inside it, … */
  depthOf(groupId: string): number;
}

export function buildView(site: Site, sectionRows: SiteSection[], groupRows: SiteSectionGroup[], siteSpaceRows: SiteSpace[]): SiteView {
  const groupById = new Map(groupRows.map((g) => [g.id, g]));
  const sectionById = new Map(sectionRows.map((s) => [s.id, s]));
  // A reference to a group that is gone counts as the root (the foreign key sets it null anyway).
  const parentOfSection = (s: SiteSection) => (s.sectionGroupId && groupById.has(s.sectionGroupId) ? s.sectionGroupId : null);
  const parentOfGroup = (g: SiteSectionGroup) => (g.parentId && groupById.has(g.parentId) ? g.parentId : null);
  const childMap = groupBy<StructureNode, string | null>([...sectionRows, ...groupRows], (n) => (isSection(n) ? parentOfSection(n) : parentOfGroup(n)));
  for (const list of childMap.values()) list.sort(byPosition);

  const sections: SiteSection[] = [];
  const groups: SiteSectionGroup[] = [];
  const depth = new Map<string, number>();
  const visit = (parent: string | null, level: number) => {
    for (const node of childMap.get(parent) ?? []) {
      if (isSection(node)) sections.push(node);
      else if (!depth.has(node.id)) {
        depth.set(node.id, level);
        groups.push(node);
        visit(node.id, level + 1);
      }
    }
  };
  visit(null, 1);

  const spaceMap = groupBy(
    siteSpaceRows.filter((ss) => ss.sectionId === null || sectionById.has(ss.sectionId)),
    (ss) => ss.sectionId,
  );
  for (const list of spaceMap.values()) list.sort(byPosition);
  const siteSpaces = [...(spaceMap.get(null) ?? []), ...sections.flatMap((s) => spaceMap.get(s.id) ?? [])];
  const siteSpaceById = new Map(siteSpaces.map((ss) => [ss.id, ss]));

  const defaultSectionId =
    site.defaultSiteSectionId && sectionById.has(site.defaultSiteSectionId) ? site.defaultSiteSectionId : (sections[0]?.id ?? null);

  return {
    site,
    sectioned: sections.length > 0,
    sections,
    groups,
    siteSpaces,
    children: (groupId) => childMap.get(groupId) ?? [],
    spacesIn: (sectionId) => spaceMap.get(sectionId) ?? [],
    section: (id) => sectionById.get(id),
    group: (id) => groupById.get(id),
    siteSpace: (id) => siteSpaceById.get(id),
    defaultSectionId,
    defaultSiteSpaceIn(sectionId) {
      const list = spaceMap.get(sectionId) ?? [];
      const explicit = sectionId === null ? site.defaultSiteSpaceId : sectionById.get(sectionId)?.defaultSiteSpaceId;
      return explicit && list.some((ss) => ss.id === explicit) ? explicit : (list[0]?.id ?? null);
    },
    depthOf: (groupId) => depth.get(groupId) ?? 1,
  };
}

const views = perRequest((_ctx: Context) => new Map<string, Promise<SiteView>>());

/** The structure of a site for this request (batched with every other site the request reads). */
export function siteView(ctx: Context, site: Site): Promise<SiteView> {
  const memo = views(ctx);
  let view = memo.get(site.id);
  if (!view) {
    view = Promise.all([siteLoaders(ctx).siteSections.load(site.id), siteLoaders(ctx).siteSectionGroups.load(site.id), siteLoaders(ctx).siteSpaces.load(site.id)]).then(
      ([sections, groups, siteSpaces]) => buildView(site, sections, groups, siteSpaces),
    );
    memo.set(site.id, view);
  }
  return view;
}

/** The view of a site's row by id (for resolvers below the site, which hold a child row). */
export async function siteViewById(ctx: Context, siteId: string): Promise<SiteView> {
  const site = await accessRows(ctx).site.load(siteId);
  if (!site) throw new Error(`site ${siteId} vanished during the request`);
  return siteView(ctx, site);
}

/** Forgets what this request read about a site, after a write to it. */
export function invalidateSite(ctx: Context, siteId: string) {
  views(ctx).delete(siteId);
  accessRows(ctx).site.clear(siteId);
  siteLoaders(ctx).siteSections.clear(siteId);
  siteLoaders(ctx).siteSectionGroups.clear(siteId);
  siteLoaders(ctx).siteSpaces.clear(siteId);
  siteLoaders(ctx).siteShareLinks.clear(siteId);
}

type Tx = Prisma.TransactionClient;

/**
 * Inside a write transaction: locks the site's row (every structural write of a site takes this
 * lock first, so concurrent moves and inserts run one after the other and each sees the others'
 * result) and reads its structure fresh.
 */
export async function lockedView(tx: Tx, siteId: string): Promise<SiteView | null> {
  const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "Site" WHERE id = ${siteId} FOR UPDATE`;
  if (!locked.length) return null;
  const [site, sections, groups, siteSpaces] = await Promise.all([
    tx.site.findUniqueOrThrow({ where: { id: siteId } }),
    tx.siteSection.findMany({ where: { siteId } }),
    tx.siteSectionGroup.findMany({ where: { siteId } }),
    // All site spaces, those of deleted spaces too: they keep their place and path for a restore.
    tx.siteSpace.findMany({ where: { siteId } }),
  ]);
  return buildView(site, sections, groups, siteSpaces);
}
