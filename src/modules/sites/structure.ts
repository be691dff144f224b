import type { Context } from '../../context.js';
import type { Prisma, Site, SiteExternalLink, SiteSection, SiteSectionGroup, SiteSpace } from '../../generated/prisma/client.js';
import { groupBy, perRequest } from '../../loaders.js';
import { byPosition } from '../../positions.js';
import { siteLoaders } from './loaders.js';
import { accessRows } from '../../auth/access-rows.js';

/** Section groups nest at most this deep (a root group is depth 1): the REST shapes are written out to this depth. */
export const MAX_GROUP_DEPTH = 3;

export type StructureNode = SiteSection | SiteSectionGroup;
export const isSection = (node: StructureItem | SiteSpace): node is SiteSection => 'path' in node && !('spaceId' in node);
export const isSiteSpace = (node: StructureItem | SiteSpace): node is SiteSpace => 'spaceId' in node;
/** A node of a sectioned site's structure: a section, a group or an external link (official SiteStructure's items and group children). */
export type StructureItem = StructureNode | SiteExternalLink;
export const isExternalLink = (node: StructureItem | SiteSpace): node is SiteExternalLink => 'url' in node;

/**
 * Groups answered inside a published structure (`publishedSite`): copies marked here, so that their
 * `children` leave draft external links out too, however deep the visitor's query goes. The same
 * group read through the site's own structure (members) keeps its drafts.
 */
const publishedGroups = new WeakSet<SiteSectionGroup>();
export function asPublished(group: SiteSectionGroup): SiteSectionGroup {
  const copy = { ...group };
  publishedGroups.add(copy);
  return copy;
}
export const isPublishedGroup = (group: SiteSectionGroup) => publishedGroups.has(group);
/** Items as visitors see them: no draft external link; groups marked published. */
export function publishedItems(items: StructureItem[]): StructureItem[] {
  return items.flatMap((item): StructureItem[] =>
    isExternalLink(item) ? (item.draft ? [] : [item]) : isSection(item) ? [item] : [asPublished(item)],
  );
}

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
  /** External links, depth first through the groups. */
  links: SiteExternalLink[];
  /** Sections, groups and external links directly under a group (null: the root), in their one shared order. */
  items(groupId: string | null): StructureItem[];
  link(id: string): SiteExternalLink | undefined;
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

export function buildView(
  site: Site,
  sectionRows: SiteSection[],
  groupRows: SiteSectionGroup[],
  siteSpaceRows: SiteSpace[],
  linkRows: SiteExternalLink[] = [],
): SiteView {
  const groupById = new Map(groupRows.map((g) => [g.id, g]));
  const sectionById = new Map(sectionRows.map((s) => [s.id, s]));
  // A reference to a group that is gone counts as the root (the foreign key sets it null anyway).
  const parentOfSection = (s: SiteSection) => (s.sectionGroupId && groupById.has(s.sectionGroupId) ? s.sectionGroupId : null);
  const parentOfGroup = (g: SiteSectionGroup) => (g.parentId && groupById.has(g.parentId) ? g.parentId : null);
  const childMap = groupBy<StructureNode, string | null>([...sectionRows, ...groupRows], (n) =>
    isSection(n) ? parentOfSection(n) : parentOfGroup(n),
  );
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

  // External links share their parent's ordering with its sections and groups (a link whose group is gone counts as at the root).
  const parentOfLink = (l: SiteExternalLink) => (l.sectionGroupId && depth.has(l.sectionGroupId) ? l.sectionGroupId : null);
  const itemMap = groupBy<StructureItem, string | null>([...sectionRows, ...groupRows, ...linkRows], (n) =>
    isExternalLink(n) ? parentOfLink(n) : isSection(n) ? parentOfSection(n) : parentOfGroup(n),
  );
  for (const list of itemMap.values()) list.sort(byPosition);
  const links: SiteExternalLink[] = [];
  const walkLinks = (parent: string | null) => {
    for (const node of itemMap.get(parent) ?? []) {
      if (isExternalLink(node)) links.push(node);
      else if (!isSection(node)) walkLinks(node.id);
    }
  };
  walkLinks(null);
  const linkById = new Map(links.map((l) => [l.id, l]));

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
    links,
    items: (groupId) => itemMap.get(groupId) ?? [],
    link: (id) => linkById.get(id),
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
    const l = siteLoaders(ctx);
    view = Promise.all([l.siteSections.load(site.id), l.siteGroupsAndLinks.load(site.id), l.siteSpaces.load(site.id)]).then(
      ([sections, { groups, links }, siteSpaces]) => buildView(site, sections, groups, siteSpaces, links),
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
  siteLoaders(ctx).siteGroupsAndLinks.clear(siteId);
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
  const [site, sections, groups, siteSpaces, links] = await Promise.all([
    tx.site.findUniqueOrThrow({ where: { id: siteId } }),
    tx.siteSection.findMany({ where: { siteId } }),
    tx.siteSectionGroup.findMany({ where: { siteId } }),
    // All site spaces, those of deleted spaces too: they keep their place and path for a restore.
    tx.siteSpace.findMany({ where: { siteId } }),
    tx.siteExternalLink.findMany({ where: { siteId } }),
  ]);
  return buildView(site, sections, groups, siteSpaces, links);
}
