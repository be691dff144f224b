import type { Context } from '../../context.js';
import { inSiteScope, orgRole, publishedSiteAudience } from '../../auth/permissions.js';
import { notFound } from '../../errors.js';
import type { Site } from '../../generated/prisma/client.js';
import { acceptShareKey, isActiveShareKey } from './links.js';
import { accessRows } from '../../auth/access-rows.js';

/**
 * A site's published profile, for whoever its visibility lets in (see `publishedSiteAudience`):
 * 404 for an unpublished site and for a caller who may not see it, exactly as for a missing site.
 * A share key that opens the site rides along in the profile's published URLs.
 */
export async function publishedSite(
  ctx: Context,
  organizationId: string,
  siteId: string,
  shareKey: string | null | undefined,
): Promise<Site> {
  const site = await accessRows(ctx).site.load(siteId);
  if (!site || site.organizationId !== organizationId) throw notFound('Site');
  const member = (await orgRole(ctx, organizationId)) !== undefined;
  const activeShareKey = shareKey != null && (await isActiveShareKey(ctx, siteId, shareKey));
  // A site token of this site (a URL lookup's apiToken) reads it as its audience did when the token
  // was issued; a site token reads no other site, public ones included.
  const scoped = inSiteScope(ctx, site) && site.published;
  if (ctx.session.siteScope && !scoped) throw notFound('Site');
  if (!scoped && !publishedSiteAudience(site, { member, activeShareKey })) throw notFound('Site');
  if (activeShareKey) await acceptShareKey(ctx, site, shareKey);
  return site;
}

/**
 * The default customization of a site — values of the official `SiteCustomizationSettings` —
 * titled after the site. What a site or site space shows is these with its stored settings laid
 * over them (customization-service.ts).
 */
export function defaultCustomization(title: string) {
  const color = (light: string, dark: string) => ({ light, dark });
  const codeTheme = { light: 'default-light', dark: 'default-dark' };
  const pdf = { enabled: true };
  const pageActions = { externalAI: true, markdown: true, mcp: true };
  return {
    title,
    styling: {
      theme: 'clean',
      primaryColor: color('#346DDB', '#346DDB'),
      infoColor: color('#787878', '#787878'),
      successColor: color('#00C950', '#00C950'),
      warningColor: color('#FE9A00', '#FE9A00'),
      dangerColor: color('#FB2C36', '#FB2C36'),
      corners: 'rounded',
      depth: 'subtle',
      links: 'default',
      font: 'Inter',
      monospaceFont: 'IBMPlexMono',
      background: 'plain',
      icons: 'regular',
      sidebar: { background: 'default', list: 'default' },
      search: 'subtle',
      codeTheme: { default: codeTheme, openapi: codeTheme },
    },
    internationalization: { locale: 'en' },
    favicon: {},
    header: { preset: 'default', links: [] },
    footer: { groups: [] },
    themes: { default: 'light', toggeable: true },
    pdf,
    feedback: { enabled: false },
    ai: { mode: 'search' },
    advancedCustomization: { enabled: true },
    git: { showEditLink: false },
    // 0.146.0's switches and 0.202.0's ordered list say the same: the list holds the actions switched on.
    pageActions: {
      ...pageActions,
      items: [
        ...(pageActions.externalAI ? ['external-ai'] : []),
        ...(pageActions.markdown ? ['markdown'] : []),
        ...(pageActions.mcp ? ['mcp'] : []),
        ...(pdf.enabled ? ['pdf'] : []),
      ],
    },
    externalLinks: { target: 'self' },
    pagination: { enabled: true },
    trademark: { enabled: true },
    privacyPolicy: {},
    socialPreview: {},
    insights: { trackingCookie: true },
    socialAccounts: [],
  };
}
