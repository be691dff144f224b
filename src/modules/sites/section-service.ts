import type { Context } from '../../context.js';
import { requireSite } from '../../auth/permissions.js';
import { badRequest, conflict, notFound } from '../../errors.js';
import type { Prisma, SiteSection } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import * as input from './input.js';
import { insertSiteSpace, positionAt, positionAtEnd, requireSiteSpaceTarget, writeSite, type Sibling } from './site-service.js';
import { isExternalLink, isSection, lockedView, type SiteView } from './structure.js';

/** The sections, groups and external links directly under a group (null: the root), as siblings, `except` one. */
export function structureSiblings(view: SiteView, parent: string | null, except?: string): Sibling[] {
  return view
    .items(parent)
    .filter((n) => n.id !== except)
    .map((n) => ({
      id: n.id,
      position: n.position,
      kind: isExternalLink(n) ? ('link' as const) : isSection(n) ? ('section' as const) : ('group' as const),
    }));
}

export interface AddSectionInput {
  spaceId: string;
  title?: string | null;
  icon?: string | null;
}

/**
 * Adds a section at the end of the site's root, with the space as its first site space (variant).
 * The first section of a site that had its site spaces at the root first gathers them into a
 * section of their own (titled as the site, the default one), so that every site space of a site
 * with sections belongs to a section.
 */
export async function addSection(ctx: Context, organizationId: string, siteId: string, body: AddSectionInput): Promise<SiteSection> {
  await requireSite(ctx, organizationId, siteId, 'write');
  const space = await requireSiteSpaceTarget(ctx, organizationId, body.spaceId, 'spaceId');
  const given = input.title('title', body.title ?? undefined, { min: 2, max: 128 });
  const title = given ?? ([...space.title].length >= 2 ? [...space.title].slice(0, 128).join('') : 'Untitled section');
  const icon = input.icon('icon', body.icon) ?? null;
  return writeSite(ctx, siteId, async (tx, locked) => {
    let view = locked;
    const rootSpaces = view.spacesIn(null);
    if (!view.sectioned && rootSpaces.length) {
      const wrapper = await tx.siteSection.create({
        data: {
          id: newId(),
          siteId,
          title: [...view.site.title].slice(0, 128).join(''),
          path: input.uniquePath(view.site.title, [], 'section'),
          defaultSiteSpaceId: view.defaultSiteSpaceIn(null),
          position: await positionAtEnd(tx, structureSiblings(view, null)),
        },
      });
      await tx.siteSpace.updateMany({ where: { siteId, sectionId: null }, data: { sectionId: wrapper.id } });
      await tx.site.update({ where: { id: siteId }, data: { defaultSiteSectionId: wrapper.id, defaultSiteSpaceId: null } });
      view = (await lockedView(tx, siteId))!;
    }
    const section = await tx.siteSection.create({
      data: {
        id: newId(),
        siteId,
        title,
        icon,
        path: input.uniquePath(
          title,
          view.sections.map((s) => s.path),
          'section',
        ),
        position: await positionAtEnd(tx, structureSiblings(view, null)),
      },
    });
    await insertSiteSpace(tx, siteId, section.id, space);
    return section;
  });
}

/** Deletes a section and its site spaces; 404 when the site has no such section. */
export async function deleteSection(ctx: Context, organizationId: string, siteId: string, id: string): Promise<boolean> {
  await requireSite(ctx, organizationId, siteId, 'write');
  return writeSite(ctx, siteId, async (tx, view) => {
    if (!view.section(id)) throw notFound('Site section');
    await tx.siteSection.delete({ where: { id } });
    if (view.site.defaultSiteSectionId === id) await tx.site.update({ where: { id: siteId }, data: { defaultSiteSectionId: null } });
    return true;
  });
}

export interface UpdateSectionInput {
  title?: string | null;
  path?: string | null;
  defaultSiteSpace?: string | null;
  condition?: string | null;
  icon?: string | null;
  description?: string | null;
}

/**
 * Updates a section. `condition`, `icon` and `description`: unset keeps, null removes. `path` must
 * be unique among the site's sections (409 otherwise); `defaultSiteSpace` names one of its site spaces.
 */
export async function updateSection(ctx: Context, organizationId: string, siteId: string, id: string, body: UpdateSectionInput) {
  await requireSite(ctx, organizationId, siteId, 'write');
  const data: Prisma.SiteSectionUpdateInput = {};
  if (body.title !== undefined) data.title = input.title('title', body.title, { min: 2, max: 128 });
  if (body.path !== undefined) data.path = input.path('path', body.path);
  if (body.condition !== undefined) data.condition = input.condition('condition', body.condition);
  if (body.icon !== undefined) data.icon = input.icon('icon', body.icon);
  if (body.description !== undefined)
    data.description = body.description === null ? null : input.title('description', body.description, { min: 0, max: 256 });
  if (body.defaultSiteSpace === null) throw badRequest('defaultSiteSpace', 'cannot be null');
  const defaultSiteSpace = body.defaultSiteSpace;
  return writeSite(ctx, siteId, async (tx, view) => {
    if (!view.section(id)) throw notFound('Site section');
    if (data.path !== undefined && view.sections.some((s) => s.id !== id && s.path === data.path)) {
      throw conflict(`path: another section of this site already has the path "${data.path as string}"`);
    }
    if (defaultSiteSpace !== undefined) {
      if (view.siteSpace(defaultSiteSpace)?.sectionId !== id) throw badRequest('defaultSiteSpace', 'is not a site space of this section');
      data.defaultSiteSpaceId = defaultSiteSpace;
    }
    return tx.siteSection.update({ where: { id }, data });
  });
}

export interface SectionPosition {
  before?: { type: string; siteSection: string } | null;
  after?: { type: string; siteSection: string } | null;
}

/**
 * Moves a section before or after another section of the site (it joins that section's group, or
 * the root), or without a position to the end of the site's root. Only the moved row is written
 * (fractional positions), under the site's lock. 404 when the site has no such section; 400 when
 * the position points at the section itself or at no section of this site.
 */
export async function moveSection(
  ctx: Context,
  organizationId: string,
  siteId: string,
  id: string,
  body: { position?: SectionPosition | null },
) {
  await requireSite(ctx, organizationId, siteId, 'write');
  // Before or after a section, or an external link (sortSiteStructure names links as anchors too).
  const target = input.pointer(body.position, ['site-section', 'site-external-link'], 'siteSection');
  return writeSite(ctx, siteId, async (tx, view) => {
    if (!view.section(id)) throw notFound('Site section');
    let parent: string | null = null;
    let siblings: Sibling[];
    let index: number;
    if (target) {
      if (target.id === id) throw badRequest(target.field, 'cannot be the section being moved');
      const anchor = target.type === 'site-external-link' ? view.link(target.id) : view.section(target.id);
      if (!anchor)
        throw badRequest(target.field, `is not a${target.type === 'site-external-link' ? 'n external link' : ' section'} of this site`);
      parent = anchor.sectionGroupId && view.group(anchor.sectionGroupId) ? anchor.sectionGroupId : null;
      siblings = structureSiblings(view, parent, id);
      index = siblings.findIndex((s) => s.id === anchor.id) + (target.after ? 1 : 0);
    } else {
      siblings = structureSiblings(view, null, id);
      index = siblings.length;
    }
    const position = await positionAt(tx, siblings, index);
    return tx.siteSection.update({ where: { id }, data: { sectionGroupId: parent, position } });
  });
}
