import type { Context } from '../../context.js';
import { accessRows } from '../../auth/access-rows.js';
import { notFound } from '../../errors.js';
import type { Site } from '../../generated/prisma/client.js';
import { registerNode } from '../../graphql/node.js';
import { siteLoaders } from './loaders.js';
import { SiteSectionGroupRef, SiteSectionRef, SiteShareLinkRef, SiteSpaceRef } from './refs.js';
import { getSite } from './site-service.js';
import { siteView } from './structure.js';

/**
 * Global ids of what a site holds: sections, section groups, site spaces and share links.
 *
 * Decision: each is named by its site and its own id (`SiteSection:<siteId>:<id>`): the rows hold
 * their site, not its organization. They are read through the site's lists (`site(...) { sections
 * | sectionGroups | siteSpaces | shareLinks }`), so a node is answered exactly when its site is
 * (getSite: members of the site's organization) and the site's structure holds it — a site space
 * of a deleted space is left out of the structure, so it answers null as it is missing from the
 * list. A site that does not exist and one the caller may not read both answer null. Everything
 * comes through the per-request loaders of the site structure: constant statements for any number.
 */
async function readableSite(ctx: Context, siteId: string): Promise<Site> {
  const row = await accessRows(ctx).site.load(siteId);
  if (!row) throw notFound('Site');
  return getSite(ctx, row.organizationId, row.id);
}

registerNode(SiteSectionRef, {
  args: ['siteId', 'id'],
  keys: (s) => [s.siteId, s.id],
  load: async (ctx, [siteId, id]) => (await siteView(ctx, await readableSite(ctx, siteId!))).section(id!) ?? null,
});

registerNode(SiteSectionGroupRef, {
  args: ['siteId', 'id'],
  keys: (g) => [g.siteId, g.id],
  load: async (ctx, [siteId, id]) => (await siteView(ctx, await readableSite(ctx, siteId!))).group(id!) ?? null,
});

registerNode(SiteSpaceRef, {
  args: ['siteId', 'id'],
  keys: (ss) => [ss.siteId, ss.id],
  load: async (ctx, [siteId, id]) => (await siteView(ctx, await readableSite(ctx, siteId!))).siteSpace(id!) ?? null,
});

registerNode(SiteShareLinkRef, {
  args: ['siteId', 'id'],
  keys: (link) => [link.siteId, link.id],
  load: async (ctx, [siteId, id]) => {
    const site = await readableSite(ctx, siteId!);
    return (await siteLoaders(ctx).siteShareLinks.load(site.id)).find((link) => link.id === id) ?? null;
  },
});
