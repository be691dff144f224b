import { builder } from '../../graphql/builder.js';
import { restEnum } from '../../graphql/enums.js';
import type { Site, SiteExternalLink, SiteSection, SiteSectionGroup, SiteShareLink, SiteSpace } from '../../generated/prisma/client.js';
import { isExternalLink, isSection, isSiteSpace } from './structure.js';

/** The site domain's GraphQL types, declared first so each type file can point at the others. */
export const SiteRef = builder.objectRef<Site>('Site');
export const SiteSectionRef = builder.objectRef<SiteSection>('SiteSection');
export const SiteSectionGroupRef = builder.objectRef<SiteSectionGroup>('SiteSectionGroup');
export const SiteSpaceRef = builder.objectRef<SiteSpace>('SiteSpace');
export const SiteShareLinkRef = builder.objectRef<SiteShareLink>('SiteShareLink');
export const SiteExternalLinkRef = builder.objectRef<SiteExternalLink>('SiteExternalLink');

export const SITE_TYPES = ['basic', 'premium', 'ultimate', 'sponsored', 'legacy-basic', 'legacy-premium'] as const;
export const SiteTypeEnum = restEnum('SiteType', SITE_TYPES, 'The type (plan) of a site');
export const SiteVisibilityEnum = restEnum(
  'SiteVisibility',
  ['public', 'unlisted', 'share-link', 'visitor-auth'] as const,
  'Who can read a published site',
);
export const SiteAgentsContextEnum = restEnum(
  'SiteAgentsContext',
  ['included', 'excluded'] as const,
  'Whether AI agents may read the site',
);
export const SiteStructureTypeEnum = restEnum('SiteStructureType', ['sections', 'siteSpaces'] as const);

/** An item of a site's structure or of a group's children. */
export const SiteStructureItem = builder.unionType('SiteStructureItem', {
  types: [SiteSectionRef, SiteSectionGroupRef, SiteSpaceRef, SiteExternalLinkRef],
  resolveType: (item) =>
    isSiteSpace(item) ? SiteSpaceRef : isExternalLink(item) ? SiteExternalLinkRef : isSection(item) ? SiteSectionRef : SiteSectionGroupRef,
});

/** A child of a section group: a section, a group or an external link. */
export const SiteSectionGroupChild = builder.unionType('SiteSectionGroupChild', {
  types: [SiteSectionRef, SiteSectionGroupRef, SiteExternalLinkRef],
  resolveType: (item) => (isExternalLink(item) ? SiteExternalLinkRef : isSection(item) ? SiteSectionRef : SiteSectionGroupRef),
});

/**
 * Estimated sizes of the structural lists, for the query-complexity limit: a section holds one to
 * a few variants, a group a few children. (Paginated lists count their page size, so a full page of
 * 1000 sections with their site spaces and spaces stays within the limit.)
 */
export const FEW = { field: 1, multiplier: 2 };
