import { builder } from '../../graphql/builder.js';
import { SiteRef } from './refs.js';
import { fromGraphQLInput, OUTPUT_SHAPE, OVERRIDE_SHAPE, PUT_SHAPE, toGraphQL } from './customization-model.js';
import { SiteCustomizationInput, SiteCustomizationOverrideInput, SiteCustomizationType } from './customization-types.js';
import {
  deleteSiteSpaceCustomization,
  getSiteCustomization,
  overrideSiteSpaceCustomization,
  updateSiteCustomization,
} from './customization-service.js';

/**
 * Site customization in GraphQL, typed after the official SiteCustomizationSettings
 * (customization-types.ts); the services keep working on official JSON, converted both ways by
 * customization-model.ts.
 */
/** A customization read (official JSON) as the GraphQL type's value. */
const answer = (settings: unknown) => toGraphQL(OUTPUT_SHAPE, settings) as Record<string, unknown>;

builder.objectField(SiteRef, 'customization', (t) =>
  t.field({
    type: SiteCustomizationType,
    description:
      "The site's effective customization (official SiteCustomizationSettings): the defaults with the stored settings over them; with `siteSpace`, that site space's override over those",
    args: { siteSpace: t.arg.id({ required: false, description: 'A site space of the site' }) },
    resolve: async (site, args, ctx) =>
      answer(await getSiteCustomization(ctx, site.organizationId, site.id, args.siteSpace == null ? undefined : String(args.siteSpace))),
  }),
);

const siteArgs = (t: { arg: { id: (o: { required: true }) => any } }) => ({
  organizationId: t.arg.id({ required: true }),
  siteId: t.arg.id({ required: true }),
});

builder.mutationFields((t) => ({
  updateSiteCustomization: t.field({
    type: SiteCustomizationType,
    description:
      "Replaces the site's customization (official SiteCustomizationSettingsInput; what it leaves out reverts to the defaults); answers the effective settings",
    args: { ...siteArgs(t), input: t.arg({ type: SiteCustomizationInput, required: true }) },
    resolve: async (_r, args, ctx) =>
      answer(await updateSiteCustomization(ctx, String(args.organizationId), String(args.siteId), fromGraphQLInput(PUT_SHAPE, args.input))),
  }),
  overrideSiteSpaceCustomization: t.field({
    type: SiteCustomizationType,
    description:
      "Merges into a site space's customization override (null clears one setting's override); answers the site space's effective settings",
    args: {
      ...siteArgs(t),
      siteSpaceId: t.arg.id({ required: true }),
      input: t.arg({ type: SiteCustomizationOverrideInput, required: true }),
    },
    resolve: async (_r, args, ctx) =>
      answer(
        await overrideSiteSpaceCustomization(
          ctx,
          String(args.organizationId),
          String(args.siteId),
          String(args.siteSpaceId),
          fromGraphQLInput(OVERRIDE_SHAPE, args.input),
        ),
      ),
  }),
  deleteSiteSpaceCustomization: t.boolean({
    description: "Removes a site space's customization override; false when it had none",
    args: { ...siteArgs(t), siteSpaceId: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) =>
      deleteSiteSpaceCustomization(ctx, String(args.organizationId), String(args.siteId), String(args.siteSpaceId)),
  }),
}));
