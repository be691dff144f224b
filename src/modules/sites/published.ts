import type { Site } from '../../generated/prisma/client.js';
import { builder } from '../../graphql/builder.js';
import { acceptShareKey } from './links.js';
import { publishedSite } from './published-service.js';
import { siteCustomizations, type Customization } from './customization-service.js';
import { OUTPUT_SHAPE, toGraphQL } from './customization-model.js';
import { SiteCustomizationType } from './customization-types.js';
import { requireSiteMember } from './site-service.js';
import { SiteExternalLinkRef, SiteRef, SiteSectionGroupRef, SiteSectionRef, SiteStructureItem, SiteStructureTypeEnum } from './refs.js';
import { asPublished, publishedItems, siteView, siteViewById, type SiteView } from './structure.js';

/**
 * A site's structure: its sections and groups (`sections`) or, for a site without sections, its
 * root site spaces (`siteSpaces`).
 */
const SiteStructureType = builder.objectRef<SiteView>('SiteStructure').implement({
  fields: (t) => ({
    type: t.field({ type: SiteStructureTypeEnum, resolve: (view) => (view.sectioned ? 'sections' : 'siteSpaces') }),
    structure: t.field({
      type: [SiteStructureItem],
      description: 'The top level: sections, groups and external links, or the root site spaces',
      resolve: (view) => (view.sectioned ? view.items(null) : view.spacesIn(null)),
    }),
    sections: t.field({ type: [SiteSectionRef], description: 'Every section, depth first', resolve: (view) => view.sections }),
    groups: t.field({ type: [SiteSectionGroupRef], description: 'Every section group, depth first', resolve: (view) => view.groups }),
    externalLinks: t.field({
      type: [SiteExternalLinkRef],
      description: 'Every external link, depth first (a site without sections shows none)',
      resolve: (view) => (view.sectioned ? view.links : []),
    }),
  }),
});

builder.objectField(SiteSectionGroupRef, 'siteStructure', (t) =>
  t.field({
    type: SiteStructureType,
    description: "The structure of the group's site",
    resolve: (group, _a, ctx) => siteViewById(ctx, group.siteId),
  }),
);

builder.objectField(SiteRef, 'structure', (t) =>
  t.field({
    type: SiteStructureType,
    args: { shareKey: t.arg.string({ required: false, description: 'Key of an active share link: the published URLs carry it' }) },
    resolve: async (site, args, ctx) => {
      await requireSiteMember(ctx, site);
      await acceptShareKey(ctx, site, args.shareKey);
      return siteView(ctx, site);
    },
  }),
);

/** The structure as published: draft external links are not live (official addExternalLinkToSite), so visitors' answers leave them out. */
function withoutDrafts(view: SiteView): SiteView {
  return {
    ...view,
    links: view.links.filter((l) => !l.draft),
    groups: view.groups.map(asPublished),
    items: (groupId) => publishedItems(view.items(groupId)),
  };
}

const SiteScript = builder
  .objectRef<{ script: string; contentSecurityPolicy?: string; cookies: boolean }>('SiteIntegrationScript')
  .implement({
    fields: (t) => ({
      script: t.exposeString('script'),
      contentSecurityPolicy: t.exposeString('contentSecurityPolicy', { nullable: true }),
      cookies: t.exposeBoolean('cookies'),
    }),
  });

const SiteSpaceCustomization = builder.objectRef<{ siteSpaceId: string; customization: unknown }>('SiteSpaceCustomization').implement({
  description: "A site space's effective customization: the site's with the site space's override laid over it",
  fields: (t) => ({
    siteSpaceId: t.exposeID('siteSpaceId'),
    customization: t.field({ type: SiteCustomizationType as any, resolve: (s) => s.customization as any }),
  }),
});

const PublishedCustomizations = builder
  .objectRef<{ site: Customization; siteSpaces: Record<string, Customization> }>('PublishedSiteCustomizations')
  .implement({
    description: 'The effective customizations of a published site (stored settings over the defaults)',
    fields: (t) => ({
      site: t.field({ type: SiteCustomizationType as any, resolve: (c) => toGraphQL(OUTPUT_SHAPE, c.site) as any }),
      siteSpaces: t.field({
        type: [SiteSpaceCustomization],
        description: 'Each site space of the site, in the structure’s order (the official answer is a map keyed by site space id)',
        resolve: (c) =>
          Object.entries(c.siteSpaces).map(([siteSpaceId, customization]) => ({
            siteSpaceId,
            customization: toGraphQL(OUTPUT_SHAPE, customization),
          })),
      }),
    }),
  });

const PublishedContentSite = builder.objectRef<Site>('PublishedContentSite').implement({
  description: 'What a published site shows its visitors: the site, its structure, customizations and scripts',
  fields: (t) => ({
    object: t.string({ resolve: () => 'published-content-site' }),
    site: t.field({ type: SiteRef, resolve: (site) => site }),
    structure: t.field({
      type: SiteStructureType,
      description: 'The structure visitors see: draft external links left out',
      resolve: async (site, _a, ctx) => withoutDrafts(await siteView(ctx, site)),
    }),
    customizations: t.field({
      type: PublishedCustomizations,
      resolve: async (site, _a, ctx) => siteCustomizations(ctx, await siteView(ctx, site)),
    }),
    scripts: t.field({ type: [SiteScript], description: 'Integration scripts: none (no integrations on this server)', resolve: () => [] }),
  }),
});

builder.queryField('publishedSite', (t) =>
  t.field({
    type: PublishedContentSite,
    description: "A site's published profile, for the audience its visibility allows (members, anyone, or share-link key holders)",
    args: { organizationId: t.arg.id({ required: true }), id: t.arg.id({ required: true }), shareKey: t.arg.string({ required: false }) },
    resolve: (_r, args, ctx) => publishedSite(ctx, String(args.organizationId), String(args.id), args.shareKey),
  }),
);
