import type { Context } from '../../context.js';
import { requireOrg, requireSite, requireSpace, SITE_WRITE_ROLE } from '../../auth/permissions.js';
import { badRequest, conflict, notFound } from '../../errors.js';
import type { Prisma, Site, Space } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { paginateArray, type PageArgs } from '../../pagination.js';
import { byPosition, placeAt, type Positioned } from '../../positions.js';
import { claimHostname } from './hostname-service.js';
import * as input from './input.js';
import { invalidateSite, lockedView, type SiteView } from './structure.js';
import { siteLoaders } from './loaders.js';
import { accessRows } from '../../auth/access-rows.js';
import { publishAfterWrite } from '../../live/events.js';

type Tx = Prisma.TransactionClient;

/** A sibling in a site's structure: sections, groups and external links share one ordering per parent; site spaces one per section. */
export interface Sibling extends Positioned {
  kind: 'section' | 'group' | 'siteSpace' | 'link';
}

async function setPosition(tx: Tx, item: Sibling, position: number) {
  if (item.kind === 'section') await tx.siteSection.update({ where: { id: item.id }, data: { position } });
  else if (item.kind === 'group') await tx.siteSectionGroup.update({ where: { id: item.id }, data: { position } });
  else if (item.kind === 'link') await tx.siteExternalLink.update({ where: { id: item.id }, data: { position } });
  else await tx.siteSpace.update({ where: { id: item.id }, data: { position } });
}

/**
 * The position for an item inserted at `index` among `siblings` (sorted, the item itself left
 * out). Siblings renumbered to make room are written in the caller's transaction (which holds the
 * site's lock) and updated in `siblings`, so a caller placing several items in turn sees them.
 */
export async function positionAt(tx: Tx, siblings: Sibling[], index: number): Promise<number> {
  const { position, renumber } = placeAt(siblings, index);
  for (const { item, position: moved } of renumber) {
    item.position = moved;
    await setPosition(tx, item, moved);
  }
  return position;
}

/** The position one past the last sibling. */
export const positionAtEnd = (tx: Tx, siblings: Sibling[]) => positionAt(tx, siblings, siblings.length);

/** A space that may be linked into a site of `organizationId`: one the caller can read (404 otherwise), of that organization (400 otherwise). */
export async function requireSiteSpaceTarget(ctx: Context, organizationId: string, spaceId: string, field: string): Promise<Space> {
  if (!spaceId) throw badRequest(field, 'must be a space id');
  const space = await requireSpace(ctx, spaceId, 'read');
  if (space.organizationId !== organizationId) throw badRequest(field, 'is a space of another organization');
  return space;
}

/** Runs a structural write of a site under its row lock, then forgets what the request had read of it. */
export async function writeSite<T>(ctx: Context, siteId: string, write: (tx: Tx, view: SiteView) => Promise<T>): Promise<T> {
  try {
    return await ctx.prisma.$transaction(async (tx) => {
      const view = await lockedView(tx, siteId);
      if (!view) throw notFound('Site');
      return write(tx, view);
    });
  } finally {
    invalidateSite(ctx, siteId);
  }
}

/**
 * Appends a site space for `space` under a section (null: the site's root), with a path unique
 * there. Reads the siblings fresh (several inserts can run in one transaction).
 */
export async function insertSiteSpace(tx: Tx, siteId: string, sectionId: string | null, space: Space) {
  const siblings = await tx.siteSpace.findMany({ where: { siteId, sectionId }, select: { id: true, position: true, path: true } });
  const path = input.uniquePath(
    space.title,
    siblings.map((s) => s.path),
    'space',
  );
  const position = await positionAtEnd(
    tx,
    siblings.map((s) => ({ id: s.id, position: s.position, kind: 'siteSpace' as const })).sort(byPosition),
  );
  return tx.siteSpace.create({ data: { id: newId(), siteId, sectionId, spaceId: space.id, path, position } });
}

export interface ListSitesArgs extends PageArgs {
  space?: string | null;
  title?: string | null;
  published?: boolean | null;
  type?: readonly string[] | null;
}

/**
 * The sites of an organization, oldest first, filtered by a space they contain, a title
 * (case-insensitive substring), their published status and their types.
 */
export async function listSites(ctx: Context, organizationId: string, args: ListSitesArgs) {
  await requireOrg(ctx, organizationId);
  let sites = await siteLoaders(ctx).organizationSites.load(organizationId);
  if (args.title != null) {
    const needle = args.title.toLowerCase();
    sites = sites.filter((s) => s.title.toLowerCase().includes(needle));
  }
  if (args.published != null) sites = sites.filter((s) => s.published === args.published);
  if (args.type?.length) sites = sites.filter((s) => args.type!.includes(s.type));
  if (args.space != null) {
    const siteSpaces = await siteLoaders(ctx).siteSpaces.loadMany(sites.map((s) => s.id));
    sites = sites.filter((_s, i) => {
      const rows = siteSpaces[i];
      return Array.isArray(rows) && rows.some((ss) => ss.spaceId === args.space);
    });
  }
  return paginateArray(args, sites);
}

export const getSite = (ctx: Context, organizationId: string, id: string) => requireSite(ctx, organizationId, id);

/**
 * The management side of a site (its lists, share links, adaptive schema) is for members of its
 * organization, also when the site was reached through a published profile by an outsider.
 */
export const requireSiteMember = (ctx: Context, site: Site) => requireSite(ctx, site.organizationId, site.id);

export interface CreateSiteInput {
  type?: string | null;
  title?: string | null;
  visibility?: string | null;
  spaces?: readonly string[] | null;
}

/** A new, unpublished site; the given spaces become its (root) site spaces, in order. */
export async function createSite(ctx: Context, organizationId: string, body: CreateSiteInput) {
  await requireOrg(ctx, organizationId, SITE_WRITE_ROLE);
  const title = input.title('title', body.title, { min: 2, max: 128 }) ?? 'Untitled site';
  if (body.type === null) throw badRequest('type', 'cannot be null');
  if (body.visibility === null) throw badRequest('visibility', 'cannot be null');
  const spaceIds = body.spaces ?? [];
  spaceIds.forEach((id, i) => {
    if (spaceIds.indexOf(id) !== i) throw badRequest(`spaces[${i}]`, 'lists a space twice');
  });
  const spaces: Space[] = [];
  for (const [i, id] of spaceIds.entries()) spaces.push(await requireSiteSpaceTarget(ctx, organizationId, id, `spaces[${i}]`));
  const id = newId();
  await ctx.prisma.$transaction(async (tx) => {
    await tx.site.create({ data: { id, organizationId, title, type: body.type ?? 'basic', visibility: body.visibility ?? 'public' } });
    for (const space of spaces) await insertSiteSpace(tx, id, null, space);
  });
  invalidateSite(ctx, id);
  siteLoaders(ctx).organizationSites.clear(organizationId);
  return requireSite(ctx, organizationId, id);
}

export interface UpdateSiteInput {
  title?: string | null;
  visibility?: string | null;
  basename?: string | null;
  hostname?: string | null;
  adaptiveContent?: { enabled?: boolean | null } | null;
  agentsContext?: string | null;
  defaultSiteSpace?: string | null;
  defaultSiteSection?: string | null;
  proxy?: string | null;
}

/**
 * Updates a site. `defaultSiteSection` names one of its sections; `defaultSiteSpace` a site space
 * of its root (a site without sections) or of its default section (after `defaultSiteSection`
 * applies); `proxy: null` removes the proxy, as `basename: null` and `hostname: null` do theirs.
 * `hostname` (the custom domain) is accepted here too, although the official body leaves it out:
 * nothing else would set it. It is a claim until proven (hostname-service.ts); `hostname` in the
 * answer is the proven one.
 */
export async function updateSite(ctx: Context, organizationId: string, id: string, body: UpdateSiteInput) {
  await requireSite(ctx, organizationId, id, 'write');
  const data: Prisma.SiteUpdateInput = {};
  if (body.title !== undefined) data.title = input.title('title', body.title, { min: 2, max: 128 });
  for (const key of ['visibility', 'agentsContext'] as const) {
    if (body[key] === null) throw badRequest(key, 'cannot be null');
    if (body[key] !== undefined) data[key] = body[key];
  }
  if (body.basename !== undefined) data.basename = input.basename('basename', body.basename);
  if (body.proxy !== undefined) data.proxy = input.proxy('proxy', body.proxy);
  // A new hostname is only claimed here: it takes effect once its ownership is proven (hostname-service.ts).
  const hostname = body.hostname !== undefined ? input.hostname('hostname', body.hostname) : undefined;
  if (body.adaptiveContent !== undefined) {
    if (typeof body.adaptiveContent?.enabled !== 'boolean') throw badRequest('adaptiveContent.enabled', 'must be true or false');
    data.adaptiveContent = body.adaptiveContent.enabled;
  }
  if (body.defaultSiteSection === null) throw badRequest('defaultSiteSection', 'cannot be null');
  if (body.defaultSiteSpace === null) throw badRequest('defaultSiteSpace', 'cannot be null');
  const { defaultSiteSection, defaultSiteSpace } = body;
  try {
    return await writeSite(ctx, id, async (tx, view) => {
      if (hostname !== undefined) await claimHostname(tx, view.site, hostname);
      let defaultSectionId = view.defaultSectionId;
      if (defaultSiteSection !== undefined) {
        if (!view.section(defaultSiteSection)) throw badRequest('defaultSiteSection', 'is not a section of this site');
        data.defaultSiteSectionId = defaultSectionId = defaultSiteSection;
      }
      if (defaultSiteSpace !== undefined) {
        const siteSpace = view.siteSpace(defaultSiteSpace);
        if (!view.sectioned) {
          if (!siteSpace || siteSpace.sectionId !== null) throw badRequest('defaultSiteSpace', 'is not a site space of this site');
          data.defaultSiteSpaceId = siteSpace.id;
        } else {
          if (!siteSpace || siteSpace.sectionId !== defaultSectionId)
            throw badRequest('defaultSiteSpace', "is not a site space of the site's default section");
          await tx.siteSection.update({ where: { id: defaultSectionId! }, data: { defaultSiteSpaceId: siteSpace.id } });
        }
      }
      return tx.site.update({ where: { id }, data });
    });
  } catch (error) {
    if ((error as { code?: string }).code === 'P2002') throw conflict('hostname: this hostname is in use');
    throw error;
  } finally {
    siteLoaders(ctx).organizationSites.clear(organizationId);
  }
}

/** Deletes a site with its structure and share links; 404 when there is no such site. */
export async function deleteSite(ctx: Context, organizationId: string, id: string): Promise<boolean> {
  await requireSite(ctx, organizationId, id, 'write');
  const { count } = await ctx.prisma.site.deleteMany({ where: { id, organizationId } });
  invalidateSite(ctx, id);
  siteLoaders(ctx).organizationSites.clear(organizationId);
  if (!count) throw notFound('Site');
  return true;
}

/** Live updates (src/live/): site publication events of an organization. */
export const siteTopic = (organizationId: string) => `site:${organizationId}`;

/** Publishes (or, `published: false`, unpublishes) a site; doing it twice changes nothing more. */
export async function setPublished(ctx: Context, organizationId: string, id: string, published: boolean): Promise<Site> {
  const before = await requireSite(ctx, organizationId, id, 'write');
  const site = await ctx.prisma.site.update({ where: { id }, data: { published } });
  // Live updates (subscriptions.ts): only a change is announced (publishing twice changes nothing).
  if (before.published !== published)
    await publishAfterWrite(ctx.prisma, {
      topic: siteTopic(organizationId),
      action: published ? 'published' : 'unpublished',
      organizationId,
      siteId: id,
    });
  invalidateSite(ctx, id);
  siteLoaders(ctx).organizationSites.clear(organizationId);
  accessRows(ctx).site.prime(id, site);
  return site;
}
