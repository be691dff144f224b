import { builder } from '../../graphql/builder.js';
import { SiteRef } from './refs.js';
import {
  deleteSiteSpaceCustomization,
  getSiteCustomization,
  overrideSiteSpaceCustomization,
  updateSiteCustomization,
} from './customization-service.js';

/**
 * Site customization in GraphQL: the official SiteCustomizationSettings document as JSON (its ~70
 * nested component types are checked against the official schema, not spelled out as GraphQL types).
 */
builder.objectField(SiteRef, 'customization', (t) =>
  t.field({
    type: 'JSON',
    description:
      "The site's effective customization (official SiteCustomizationSettings): the defaults with the stored settings over them; with `siteSpace`, that site space's override over those",
    args: { siteSpace: t.arg.id({ required: false, description: 'A site space of the site' }) },
    resolve: (site, args, ctx) =>
      getSiteCustomization(ctx, site.organizationId, site.id, args.siteSpace == null ? undefined : String(args.siteSpace)),
  }),
);

const siteArgs = (t: { arg: { id: (o: { required: true }) => any } }) => ({
  organizationId: t.arg.id({ required: true }),
  siteId: t.arg.id({ required: true }),
});

builder.mutationFields((t) => ({
  updateSiteCustomization: t.field({
    type: 'JSON',
    description:
      "Replaces the site's customization (official SiteCustomizationSettingsInput; what it leaves out reverts to the defaults); answers the effective settings",
    args: { ...siteArgs(t), input: t.arg({ type: 'JSON', required: true }) },
    resolve: (_r, args, ctx) => updateSiteCustomization(ctx, String(args.organizationId), String(args.siteId), args.input),
  }),
  overrideSiteSpaceCustomization: t.field({
    type: 'JSON',
    description:
      "Merges into a site space's customization override (null clears one setting's override); answers the site space's effective settings",
    args: { ...siteArgs(t), siteSpaceId: t.arg.id({ required: true }), input: t.arg({ type: 'JSON', required: true }) },
    resolve: (_r, args, ctx) =>
      overrideSiteSpaceCustomization(ctx, String(args.organizationId), String(args.siteId), String(args.siteSpaceId), args.input),
  }),
  deleteSiteSpaceCustomization: t.boolean({
    description: "Removes a site space's customization override; false when it had none",
    args: { ...siteArgs(t), siteSpaceId: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) =>
      deleteSiteSpaceCustomization(ctx, String(args.organizationId), String(args.siteId), String(args.siteSpaceId)),
  }),
}));
