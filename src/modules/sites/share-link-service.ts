import type { Context } from '../../context.js';
import { canWriteSites, requireSite } from '../../auth/permissions.js';
import { badRequest, notFound } from '../../errors.js';
import type { Prisma, Site, SiteShareLink } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { hashSecret, serverKeys } from '../../secrets.js';
import { paginateArray, type PageArgs } from '../../pagination.js';
import * as check from '../../validate.js';
import { invalidateSite } from './structure.js';
import { siteLoaders } from './loaders.js';
import { accessRows } from '../../auth/access-rows.js';

/**
 * Share links open a `share-link` site to whoever holds their key. The key is 32 random base62
 * characters (~190 bits, from the CSPRNG), distinct from the link's id, and only an active link's
 * key opens the site. Keys appear only in `urls.published`, shown to those who may change the site.
 * At rest a key is only its SHA-256 (`keyHash`, what a presented key is matched against) and a copy
 * sealed with the server key (`keySealed`, src/secrets.ts) for `urls.published`, which the official
 * API shows on every read of a link. Links made before keys were sealed have no sealed copy: they
 * keep working, but their URL is not shown again (`published` is optional in the official schema).
 */
const KEY_LENGTH = 32;
const sealContext = (linkId: string) => `share-link\n${linkId}`;

export async function listShareLinks(ctx: Context, site: Site, args: PageArgs) {
  await requireSite(ctx, site.organizationId, site.id);
  return paginateArray(args, await siteLoaders(ctx).siteShareLinks.load(site.id));
}

export async function createShareLink(
  ctx: Context,
  organizationId: string,
  siteId: string,
  body: { name: string },
): Promise<SiteShareLink> {
  await requireSite(ctx, organizationId, siteId, 'write');
  const name = check.text('name', body.name, { max: 50 });
  const id = newId();
  const key = newId(KEY_LENGTH);
  const keys = await serverKeys(ctx);
  const link = await ctx.prisma.siteShareLink.create({
    data: { id, siteId, keyHash: hashSecret(key), keySealed: keys.seal(sealContext(id), key), name },
  });
  invalidateSite(ctx, siteId);
  return link;
}

export async function updateShareLink(
  ctx: Context,
  organizationId: string,
  siteId: string,
  id: string,
  body: { active?: boolean | null; name?: string | null },
) {
  await requireSite(ctx, organizationId, siteId, 'write');
  if (body.active === undefined && body.name === undefined) throw badRequest('body', 'give active or name');
  const data: Prisma.SiteShareLinkUpdateInput = {};
  if (body.active !== undefined) {
    if (body.active === null) throw badRequest('active', 'cannot be null');
    data.active = body.active;
  }
  if (body.name !== undefined) {
    if (body.name === null) throw badRequest('name', 'cannot be null');
    data.name = check.text('name', body.name, { max: 50 });
  }
  const { count } = await ctx.prisma.siteShareLink.updateMany({ where: { id, siteId }, data });
  invalidateSite(ctx, siteId);
  if (!count) throw notFound('Share link');
  return ctx.prisma.siteShareLink.findUniqueOrThrow({ where: { id } });
}

/** Deletes a share link (its key stops working at once); 404 when the site has no such link. */
export async function deleteShareLink(ctx: Context, organizationId: string, siteId: string, id: string): Promise<boolean> {
  await requireSite(ctx, organizationId, siteId, 'write');
  const { count } = await ctx.prisma.siteShareLink.deleteMany({ where: { id, siteId } });
  invalidateSite(ctx, siteId);
  if (!count) throw notFound('Share link');
  return true;
}

/** A share link's published URL (it carries the key): only for callers who may change the site. */
export async function shareLinkUrl(ctx: Context, link: SiteShareLink): Promise<string | null> {
  const site = await accessRows(ctx).site.load(link.siteId);
  if (!site || !(await canWriteSites(ctx, site.organizationId))) return null;
  const key = (await serverKeys(ctx)).open(sealContext(link.id), link.keySealed);
  if (!key) return null;
  const org = await accessRows(ctx).organization.load(site.organizationId);
  return ctx.urls.publishedSite(site, org?.hostname ?? null, { shareKey: key });
}
