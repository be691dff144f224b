import type { Context } from '../../context.js';
import { requireSite } from '../../auth/permissions.js';
import { badRequest, notFound } from '../../errors.js';
import { Prisma, type SiteExternalLink } from '../../generated/prisma/client.js';
import { LANGUAGES } from '../../graphql/enums.js';
import { newId } from '../../ids.js';
import * as check from '../../validate.js';
import * as input from './input.js';
import { structureSiblings } from './section-service.js';
import { positionAt, positionAtEnd, writeSite } from './site-service.js';
import type { SiteView } from './structure.js';

/**
 * External links of a site's navigation (official addExternalLinkToSite, updateSiteExternalLinkById,
 * deleteSiteExternalLinkById; 0.202.0): a leaf that opens an absolute http(s) URL, at the root of a
 * sectioned site or in a section group, never in a section. They share their parent's one ordering
 * with its sections and groups (a new link goes to the end; sortSiteStructure moves them). A site
 * without sections has no place for them: 400. Draft links stay in the members' structure
 * (getSiteStructure) and are left out of the published one (getPublishedContentSite).
 */

type Tx = Prisma.TransactionClient;

// The official TranslationLanguage of 0.202.0 (the shared list predates `zh-tw`).
const LOCALES = new Set<string>([...LANGUAGES, 'zh-tw']);

export interface ExternalLinkInput {
  title?: string | null;
  localizedTitle?: unknown;
  description?: string | null;
  localizedDescription?: unknown;
  icon?: string | null;
  url?: string | null;
  parent?: string | null;
  draft?: boolean | null;
  condition?: string | null;
}

/** A `LocalizedString128`/`256`: `{ [locale]: text }` with known locales; null removes it (where allowed). */
function localized(field: string, value: unknown, max: number): Prisma.InputJsonValue | null | undefined {
  if (value === undefined || value === null) return value as null | undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw badRequest(field, 'must be an object of locale → text');
  for (const [locale, text] of Object.entries(value as Record<string, unknown>)) {
    if (!LOCALES.has(locale)) throw badRequest(`${field}.${locale}`, 'is not a known locale (TranslationLanguage)');
    if (typeof text !== 'string') throw badRequest(`${field}.${locale}`, 'must be a string');
    check.text(`${field}.${locale}`, text, { max });
  }
  return value as Prisma.InputJsonValue;
}

/** The fields of a body, checked; `undefined` leaves a field as it is. */
function fields(body: ExternalLinkInput, creating: boolean) {
  if (creating && body.title == null) throw badRequest('title', 'is required');
  if (creating && body.url == null) throw badRequest('url', 'is required');
  if (body.url === null) throw badRequest('url', 'cannot be null');
  if (body.draft === null) throw badRequest('draft', 'cannot be null');
  if (creating && body.localizedTitle === null) throw badRequest('localizedTitle', 'cannot be null');
  return {
    title: input.title('title', body.title, { min: 2, max: 128 }),
    localizedTitle: localized('localizedTitle', body.localizedTitle, 128),
    description: body.description == null ? body.description : check.text('description', body.description, { max: 256 }),
    localizedDescription: localized('localizedDescription', body.localizedDescription, 256),
    icon: input.icon('icon', body.icon),
    url: body.url === undefined ? undefined : check.url('url', body.url),
    draft: body.draft ?? undefined,
    condition: input.condition('condition', body.condition),
  };
}

/** The group a link goes into (null: the root); 400 naming `parent` when it is no group of this site. */
function parentOf(view: SiteView, parent: string | null): string | null {
  if (parent === null) return null;
  if (view.section(parent))
    throw badRequest('parent', 'is a section: external links go at the root or in a section group, never in a section');
  if (!view.group(parent)) throw badRequest('parent', 'is not a section group of this site');
  return parent;
}

export async function addExternalLink(
  ctx: Context,
  organizationId: string,
  siteId: string,
  body: ExternalLinkInput,
): Promise<SiteExternalLink> {
  await requireSite(ctx, organizationId, siteId, 'write');
  const f = fields(body, true);
  return writeSite(ctx, siteId, async (tx, view) => {
    if (!view.sectioned)
      throw badRequest(
        'parent',
        'external links need a site with sections (this site shows its site spaces at its root): add a section first',
      );
    const parent = parentOf(view, body.parent ?? null);
    return tx.siteExternalLink.create({
      data: {
        id: newId(),
        siteId,
        sectionGroupId: parent,
        title: f.title!,
        localizedTitle: f.localizedTitle ?? undefined,
        description: f.description ?? null,
        localizedDescription: f.localizedDescription ?? undefined,
        icon: f.icon ?? null,
        url: f.url!,
        draft: f.draft ?? false,
        condition: f.condition ?? null,
        position: await positionAtEnd(tx, structureSiblings(view, parent)),
      },
    });
  });
}

/** A link of a site in the path (404 when the site has no such link). */
function linkIn(view: SiteView, id: string): SiteExternalLink {
  const link = view.link(id);
  if (!link) throw notFound('Site external link');
  return link;
}

/** Updates a link; a changed `parent` (a group, or null: the root) puts it at the end of its new parent. */
export async function updateExternalLink(
  ctx: Context,
  organizationId: string,
  siteId: string,
  id: string,
  body: ExternalLinkInput,
): Promise<SiteExternalLink> {
  await requireSite(ctx, organizationId, siteId, 'write');
  const f = fields(body, false);
  return writeSite(ctx, siteId, async (tx, view) => {
    const link = linkIn(view, id);
    const data: Prisma.SiteExternalLinkUncheckedUpdateInput = {};
    if (f.title !== undefined) data.title = f.title;
    // A nullable JSON column is cleared with DbNull.
    if (f.localizedTitle !== undefined) data.localizedTitle = f.localizedTitle ?? Prisma.DbNull;
    if (f.description !== undefined) data.description = f.description;
    if (f.localizedDescription !== undefined) data.localizedDescription = f.localizedDescription ?? Prisma.DbNull;
    if (f.icon !== undefined) data.icon = f.icon;
    if (f.url !== undefined) data.url = f.url;
    if (f.draft !== undefined) data.draft = f.draft;
    if (f.condition !== undefined) data.condition = f.condition;
    if (body.parent !== undefined) {
      const parent = parentOf(view, body.parent);
      const current = link.sectionGroupId && view.group(link.sectionGroupId) ? link.sectionGroupId : null;
      if (parent !== current) {
        data.sectionGroupId = parent;
        data.position = await positionAtEnd(tx, structureSiblings(view, parent, id));
      }
    }
    return tx.siteExternalLink.update({ where: { id }, data });
  });
}

/** Deletes a link (true: 205); 404 when the site has no such link. */
export async function deleteExternalLink(ctx: Context, organizationId: string, siteId: string, id: string): Promise<boolean> {
  await requireSite(ctx, organizationId, siteId, 'write');
  return writeSite(ctx, siteId, async (tx, view) => {
    if (!view.link(id)) throw notFound('Site external link');
    await tx.siteExternalLink.delete({ where: { id } });
    return true;
  });
}

export interface LinkPosition {
  before?: { type: string; id: string } | null;
  after?: { type: string; id: string } | null;
}

/**
 * Moves a link before or after a section, a group or another link (joining its parent), or without
 * a position to the end of the site's root (sortSiteStructure). 400 naming the position's field for
 * an anchor that is the link itself or nothing of this site; 404 when the site has no such link.
 */
export async function moveExternalLink(
  ctx: Context,
  organizationId: string,
  siteId: string,
  id: string,
  body: { position?: LinkPosition | null },
): Promise<SiteExternalLink> {
  await requireSite(ctx, organizationId, siteId, 'write');
  const target = input.pointer(body.position, ['site-section', 'site-section-group', 'site-external-link'], 'id');
  return writeSite(ctx, siteId, async (tx: Tx, view) => {
    linkIn(view, id);
    let parent: string | null = null;
    let anchorId: string | null = null;
    if (target) {
      if (target.id === id) throw badRequest(target.field, 'cannot be the external link being moved');
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
      anchorId = anchor.id;
    }
    const siblings = structureSiblings(view, parent, id);
    const index = anchorId ? siblings.findIndex((s) => s.id === anchorId) + (target!.after ? 1 : 0) : siblings.length;
    const position = await positionAt(tx, siblings, index);
    return tx.siteExternalLink.update({ where: { id }, data: { sectionGroupId: parent, position } });
  });
}
