import type { Context } from '../../context.js';
import { requireSite } from '../../auth/permissions.js';
import { badRequest, conflict, notFound } from '../../errors.js';
import type { Prisma, SiteSpace } from '../../generated/prisma/client.js';
import * as input from './input.js';
import { insertSiteSpace, positionAt, requireSiteSpaceTarget, writeSite, type Sibling } from './site-service.js';
import type { SiteView } from './structure.js';

const siblingsIn = (view: SiteView, sectionId: string | null, except?: string): Sibling[] =>
  view
    .spacesIn(sectionId)
    .filter((ss) => ss.id !== except)
    .map((ss) => ({ id: ss.id, position: ss.position, kind: 'siteSpace' as const }));

/**
 * Links a space into a site: into the given section, else the site's default section, else (a site
 * without sections) its root; at the end, with a path made from the space's title. A space appears
 * once per section (409 when it is already there).
 */
export async function addSiteSpace(
  ctx: Context,
  organizationId: string,
  siteId: string,
  body: { spaceId: string; sectionId?: string | null },
): Promise<SiteSpace> {
  await requireSite(ctx, organizationId, siteId, 'write');
  const space = await requireSiteSpaceTarget(ctx, organizationId, body.spaceId, 'spaceId');
  return writeSite(ctx, siteId, async (tx, view) => {
    let sectionId: string | null;
    if (body.sectionId != null) {
      if (!view.section(body.sectionId)) throw badRequest('sectionId', 'is not a section of this site');
      sectionId = body.sectionId;
    } else sectionId = view.sectioned ? view.defaultSectionId : null;
    if (view.spacesIn(sectionId).some((ss) => ss.spaceId === space.id))
      throw conflict(`The space is already in this ${sectionId ? 'section' : 'site'}`);
    return insertSiteSpace(tx, siteId, sectionId, space);
  });
}

/** Removes a site space; 404 when the site has no such site space. */
export async function deleteSiteSpace(ctx: Context, organizationId: string, siteId: string, id: string): Promise<boolean> {
  await requireSite(ctx, organizationId, siteId, 'write');
  return writeSite(ctx, siteId, async (tx, view) => {
    if (!view.siteSpace(id)) throw notFound('Site space');
    await tx.siteSpace.delete({ where: { id } });
    return true;
  });
}

export interface UpdateSiteSpaceInput {
  path?: string | null;
  condition?: string | null;
  spaceId?: string | null;
  hidden?: boolean | null;
}

/**
 * Updates a site space. `condition`: unset keeps, null removes. `path` is unique among the site
 * spaces of its section (409 otherwise). `spaceId` points it at another space of the organization.
 * `hidden` keeps it out of the site's navigation.
 */
export async function updateSiteSpace(ctx: Context, organizationId: string, siteId: string, id: string, body: UpdateSiteSpaceInput) {
  await requireSite(ctx, organizationId, siteId, 'write');
  const data: Prisma.SiteSpaceUncheckedUpdateInput = {};
  if (body.path !== undefined) data.path = input.path('path', body.path);
  if (body.condition !== undefined) data.condition = input.condition('condition', body.condition);
  if (body.hidden !== undefined) {
    if (body.hidden === null) throw badRequest('hidden', 'cannot be null');
    data.hidden = body.hidden;
  }
  if (body.spaceId !== undefined) {
    if (body.spaceId === null) throw badRequest('spaceId', 'cannot be null');
    data.spaceId = (await requireSiteSpaceTarget(ctx, organizationId, body.spaceId, 'spaceId')).id;
  }
  return writeSite(ctx, siteId, async (tx, view) => {
    const siteSpace = view.siteSpace(id);
    if (!siteSpace) throw notFound('Site space');
    if (data.path !== undefined && view.spacesIn(siteSpace.sectionId).some((ss) => ss.id !== id && ss.path === data.path)) {
      throw conflict(
        `path: another site space of this ${siteSpace.sectionId ? 'section' : 'site'} already has the path "${data.path as string}"`,
      );
    }
    return tx.siteSpace.update({ where: { id }, data });
  });
}

export interface SiteSpacePosition {
  before?: { type: string; siteSpace: string } | null;
  after?: { type: string; siteSpace: string } | null;
}

/**
 * Moves a site space before or after another site space of the site (joining that one's section,
 * its path made unique there if needed), or without a position to the end of its section (or of
 * the root). One row written, under the site's lock. 404 when the site has no such site space; 400
 * when the position points at itself or at no site space of this site.
 */
export async function moveSiteSpace(
  ctx: Context,
  organizationId: string,
  siteId: string,
  id: string,
  body: { position?: SiteSpacePosition | null },
) {
  await requireSite(ctx, organizationId, siteId, 'write');
  const target = input.pointer(body.position, 'site-space', 'siteSpace');
  return writeSite(ctx, siteId, async (tx, view) => {
    const siteSpace = view.siteSpace(id);
    if (!siteSpace) throw notFound('Site space');
    let sectionId = siteSpace.sectionId;
    let siblings: Sibling[];
    let index: number;
    if (target) {
      if (target.id === id) throw badRequest(target.field, 'cannot be the site space being moved');
      const anchor = view.siteSpace(target.id);
      if (!anchor) throw badRequest(target.field, 'is not a site space of this site');
      sectionId = anchor.sectionId;
      siblings = siblingsIn(view, sectionId, id);
      index = siblings.findIndex((s) => s.id === anchor.id) + (target.after ? 1 : 0);
    } else {
      siblings = siblingsIn(view, sectionId, id);
      index = siblings.length;
    }
    const data: Prisma.SiteSpaceUncheckedUpdateInput = { sectionId, position: await positionAt(tx, siblings, index) };
    if (sectionId !== siteSpace.sectionId) {
      // A new section: keep the path unique there; the old section no longer defaults to it.
      const taken = view.spacesIn(sectionId).map((ss) => ss.path);
      if (taken.includes(siteSpace.path)) data.path = input.uniquePath(siteSpace.path, taken, 'space');
      if (siteSpace.sectionId)
        await tx.siteSection.updateMany({ where: { id: siteSpace.sectionId, defaultSiteSpaceId: id }, data: { defaultSiteSpaceId: null } });
    }
    return tx.siteSpace.update({ where: { id }, data });
  });
}
