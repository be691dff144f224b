import type { Context } from '../../context.js';
import { badRequest } from '../../errors.js';
import type { Site, SiteSection, SiteSpace } from '../../generated/prisma/client.js';
import { perRequest } from '../../loaders.js';
import { hashSecret } from '../../secrets.js';
import type { SiteView } from './structure.js';
import { siteLoaders } from './loaders.js';
import { accessRows } from '../../auth/access-rows.js';

/**
 * Published URLs of a site and of its sections and site spaces. The default section lives at the
 * site's root and the default site space at its section's root; the others under their `path`.
 * When a request presented a valid share key for a share-link site, the URLs carry it.
 */
const shareKeys = perRequest((_ctx: Context) => new Map<string, string>());

/** Whether `key` is the key of one of the site's active share links. */
export async function isActiveShareKey(ctx: Context, siteId: string, key: string): Promise<boolean> {
  const links = await siteLoaders(ctx).siteShareLinks.load(siteId);
  const hash = hashSecret(key); // only keys' hashes are stored (src/modules/sites/share-link-service.ts)
  return links.some((link) => link.active && link.keyHash === hash);
}

/**
 * A `shareKey` argument: absent is fine; given, it must be the key of an active share link of the
 * site (400 otherwise), and this request's published URLs of the site then carry it.
 */
export async function acceptShareKey(ctx: Context, site: Site, key: string | null | undefined) {
  if (key == null) return;
  if (!(await isActiveShareKey(ctx, site.id, key))) throw badRequest('shareKey', 'is not the key of an active share link of this site');
  shareKeys(ctx).set(site.id, key);
}

export async function publishedUrl(ctx: Context, site: Site, path: string[] = []): Promise<string | null> {
  if (!site.published) return null;
  const org = await accessRows(ctx).organization.load(site.organizationId);
  const shareKey = site.visibility === 'share-link' ? shareKeys(ctx).get(site.id) : undefined;
  return ctx.urls.publishedSite(site, org?.hostname ?? null, { path, shareKey });
}

export const sectionPath = (view: SiteView, section: SiteSection | undefined): string[] =>
  !section || view.defaultSectionId === section.id ? [] : [section.path];

export const siteSpacePath = (view: SiteView, siteSpace: SiteSpace): string[] => [
  ...(siteSpace.sectionId ? sectionPath(view, view.section(siteSpace.sectionId)) : []),
  ...(view.defaultSiteSpaceIn(siteSpace.sectionId) === siteSpace.id ? [] : [siteSpace.path]),
];
