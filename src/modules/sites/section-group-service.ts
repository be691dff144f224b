import type { Context } from '../../context.js';
import { requireSite } from '../../auth/permissions.js';
import { badRequest, notFound } from '../../errors.js';
import type { Prisma, SiteSectionGroup } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import * as input from './input.js';
import { structureSiblings } from './section-service.js';
import { positionAt, positionAtEnd, writeSite, type Sibling } from './site-service.js';
import { isSection, MAX_GROUP_DEPTH, type SiteView } from './structure.js';

type Tx = Prisma.TransactionClient;

async function place(tx: Tx, item: Sibling, parent: string | null, position: number) {
  if (item.kind === 'section') await tx.siteSection.update({ where: { id: item.id }, data: { sectionGroupId: parent, position } });
  else if (item.kind === 'link') await tx.siteExternalLink.update({ where: { id: item.id }, data: { sectionGroupId: parent, position } });
  else await tx.siteSectionGroup.update({ where: { id: item.id }, data: { parentId: parent, position } });
}

export interface CreateSectionGroupInput {
  title: string;
  icon?: string | null;
  sections?: readonly string[] | null;
  parent?: string | null;
}

/**
 * Adds a section group at the end of its parent (another group, or the site's root), and moves the
 * listed sections into it, in that order. Groups nest at most MAX_GROUP_DEPTH deep.
 */
export async function createSectionGroup(
  ctx: Context,
  organizationId: string,
  siteId: string,
  body: CreateSectionGroupInput,
): Promise<SiteSectionGroup> {
  await requireSite(ctx, organizationId, siteId, 'write');
  const title = input.title('title', body.title, { min: 1, max: 100 })!;
  const icon = input.icon('icon', body.icon) ?? null;
  const sectionIds = body.sections ?? [];
  return writeSite(ctx, siteId, async (tx, view) => {
    const parent = body.parent ?? null;
    if (parent !== null) {
      if (!view.group(parent)) throw badRequest('parent', 'is not a section group of this site');
      if (view.depthOf(parent) + 1 > MAX_GROUP_DEPTH)
        throw badRequest('parent', `section groups nest at most ${MAX_GROUP_DEPTH} levels deep`);
    }
    sectionIds.forEach((id, i) => {
      if (!view.section(id)) throw badRequest(`sections[${i}]`, 'is not a section of this site');
      if (sectionIds.indexOf(id) !== i) throw badRequest(`sections[${i}]`, 'lists a section twice');
    });
    const group = await tx.siteSectionGroup.create({
      data: { id: newId(), siteId, parentId: parent, title, icon, position: await positionAtEnd(tx, structureSiblings(view, parent)) },
    });
    for (const [i, id] of sectionIds.entries())
      await tx.siteSection.update({ where: { id }, data: { sectionGroupId: group.id, position: i + 1 } });
    return group;
  });
}

/** A group of a site in the path (404 when the site has no such group). */
export async function requireSectionGroup(
  ctx: Context,
  organizationId: string,
  siteId: string,
  id: string,
  action: 'read' | 'write' = 'read',
) {
  await requireSite(ctx, organizationId, siteId, action);
  const group = await ctx.prisma.siteSectionGroup.findFirst({ where: { id, siteId } });
  if (!group) throw notFound('Site section group');
  return group;
}

export async function updateSectionGroup(
  ctx: Context,
  organizationId: string,
  siteId: string,
  id: string,
  body: { title?: string | null; icon?: string | null },
) {
  await requireSectionGroup(ctx, organizationId, siteId, id, 'write');
  const data: Prisma.SiteSectionGroupUpdateInput = {};
  if (body.title !== undefined) data.title = input.title('title', body.title, { min: 1, max: 100 });
  if (body.icon !== undefined) data.icon = input.icon('icon', body.icon);
  return writeSite(ctx, siteId, (tx) => tx.siteSectionGroup.update({ where: { id }, data }));
}

/**
 * Deletes a section group. What it held (sections and groups) is not deleted: it takes the group's
 * place in the group's parent, in its order. 404 when the site has no such group.
 */
export async function deleteSectionGroup(ctx: Context, organizationId: string, siteId: string, id: string): Promise<boolean> {
  await requireSite(ctx, organizationId, siteId, 'write');
  return writeSite(ctx, siteId, async (tx, view) => {
    const group = view.group(id);
    if (!group) throw notFound('Site section group');
    const parent = group.parentId && view.group(group.parentId) ? group.parentId : null;
    const siblings = structureSiblings(view, parent);
    let index = siblings.findIndex((s) => s.id === id);
    siblings.splice(index, 1);
    for (const child of structureSiblings(view, id)) {
      const position = await positionAt(tx, siblings, index);
      await place(tx, child, parent, position);
      siblings.splice(index++, 0, { ...child, position });
    }
    await tx.siteSectionGroup.delete({ where: { id } });
    return true;
  });
}

/** Moves a section of the site to the end of a group (it stays where it is when already in it). */
export async function addSectionToGroup(ctx: Context, organizationId: string, siteId: string, id: string, body: { sectionId: string }) {
  await requireSectionGroup(ctx, organizationId, siteId, id, 'write');
  return writeSite(ctx, siteId, async (tx, view) => {
    const group = view.group(id);
    if (!group) throw notFound('Site section group');
    const section = view.section(body.sectionId);
    if (!section) throw badRequest('sectionId', 'is not a section of this site');
    if (section.sectionGroupId !== id) {
      const position = await positionAtEnd(tx, structureSiblings(view, id, section.id));
      await tx.siteSection.update({ where: { id: section.id }, data: { sectionGroupId: id, position } });
    }
    return group;
  });
}

/**
 * Takes a section out of a group: it goes to the group's parent, right after the group. False when
 * the section is not in that group (both still there: it is already out); 404 when either is missing.
 */
export async function removeSectionFromGroup(
  ctx: Context,
  organizationId: string,
  siteId: string,
  id: string,
  sectionId: string,
): Promise<boolean> {
  await requireSite(ctx, organizationId, siteId, 'write');
  return writeSite(ctx, siteId, async (tx, view) => {
    const group = view.group(id);
    const section = view.section(sectionId);
    if (!group) throw notFound('Site section group');
    if (!section) throw notFound('Site section');
    if (section.sectionGroupId !== id) return false;
    const parent = group.parentId && view.group(group.parentId) ? group.parentId : null;
    const siblings = structureSiblings(view, parent);
    const position = await positionAt(tx, siblings, siblings.findIndex((s) => s.id === id) + 1);
    await tx.siteSection.update({ where: { id: sectionId }, data: { sectionGroupId: parent, position } });
    return true;
  });
}

/** Levels of groups in a group's subtree, itself included (1 for a group holding no group). */
function height(view: SiteView, id: string, seen = new Set<string>()): number {
  seen.add(id);
  const below = view.children(id).filter((n) => !isSection(n) && !seen.has(n.id));
  return 1 + Math.max(0, ...below.map((g) => height(view, g.id, seen)));
}

export interface GroupPosition {
  before?: { type: string; id: string } | null;
  after?: { type: string; id: string } | null;
}

/**
 * Moves a group (with everything in it) before or after a section or another group (joining its
 * parent), or without a position to the end of the site's root. 400 when the position points at
 * the group itself, inside it, at nothing of this site, or would nest groups deeper than
 * MAX_GROUP_DEPTH; 404 when the site has no such group.
 */
export async function moveSectionGroup(
  ctx: Context,
  organizationId: string,
  siteId: string,
  id: string,
  body: { position?: GroupPosition | null },
) {
  await requireSite(ctx, organizationId, siteId, 'write');
  const target = input.pointer(body.position, ['site-section', 'site-section-group', 'site-external-link'], 'id');
  return writeSite(ctx, siteId, async (tx, view) => {
    const group = view.group(id);
    if (!group) throw notFound('Site section group');
    let parent: string | null = null;
    let anchorId: string | null = null;
    if (target) {
      if (target.id === id) throw badRequest(target.field, 'cannot be the group being moved');
      const anchor =
        target.type === 'site-section'
          ? view.section(target.id)
          : target.type === 'site-external-link'
            ? view.link(target.id)
            : view.group(target.id);
      if (!anchor)
        throw badRequest(
          target.field,
          `is not a ${target.type === 'site-section' ? 'section' : target.type === 'site-external-link' ? 'external link' : 'section group'} of this site`,
        );
      const anchorParent = 'parentId' in anchor ? anchor.parentId : anchor.sectionGroupId;
      parent = anchorParent && view.group(anchorParent) ? anchorParent : null;
      for (let up = parent; up; up = view.group(up)?.parentId ?? null) {
        if (up === id) throw badRequest(target.field, 'is inside the group being moved');
      }
      if ((parent ? view.depthOf(parent) : 0) + height(view, id) > MAX_GROUP_DEPTH) {
        throw badRequest(target.field, `section groups nest at most ${MAX_GROUP_DEPTH} levels deep`);
      }
      anchorId = anchor.id;
    }
    const siblings = structureSiblings(view, parent, id);
    const index = anchorId ? siblings.findIndex((s) => s.id === anchorId) + (target!.after ? 1 : 0) : siblings.length;
    const position = await positionAt(tx, siblings, index);
    return tx.siteSectionGroup.update({ where: { id }, data: { parentId: parent, position } });
  });
}
