import { builder } from '../../graphql/builder.js';
import { adaptiveSchemaOf, getAdaptiveSchema, setAdaptiveSchema, templateConditions, type AdaptiveSchemaView } from './adaptive-service.js';
import { SiteRef } from './refs.js';
import { requireSiteMember } from './site-service.js';

export const SiteAdaptiveSchemaType = builder.objectRef<AdaptiveSchemaView>('SiteAdaptiveSchema').implement({
  description: 'The JSON Schema of the claims a visitor of an adaptive-content site brings',
  fields: (t) => ({
    object: t.string({ resolve: () => 'site-adaptive-schema' }),
    jsonSchema: t.field({ type: 'JSON', description: 'Free-form: a JSON Schema, itself a JSON document', resolve: (s) => s.jsonSchema }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const TemplateCondition = builder.objectRef<{ description: string; condition: string }>('SiteAdaptiveTemplateCondition').implement({
  fields: (t) => ({ description: t.exposeString('description'), condition: t.exposeString('condition') }),
});

builder.objectFields(SiteRef, (t) => ({
  adaptiveSchema: t.field({
    type: SiteAdaptiveSchemaType,
    nullable: true,
    description: 'Null when none was set',
    resolve: async (site, _a, ctx) => adaptiveSchemaOf(await requireSiteMember(ctx, site)),
  }),
  adaptiveTemplateConditions: t.field({
    type: [TemplateCondition],
    description: 'Conditions suggested from the adaptive schema, one per claim',
    resolve: async (site, _a, ctx) => templateConditions(await requireSiteMember(ctx, site)),
  }),
}));

builder.queryField('siteAdaptiveSchema', (t) =>
  t.field({
    type: SiteAdaptiveSchemaType,
    description: "A site's adaptive schema (an error when none was set)",
    args: { organizationId: t.arg.id({ required: true }), siteId: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => getAdaptiveSchema(ctx, String(args.organizationId), String(args.siteId)),
  }),
);

const UpdateSiteAdaptiveSchemaInput = builder.inputType('UpdateSiteAdaptiveSchemaInput', {
  fields: (t) => ({
    jsonSchema: t.field({
      type: 'JSON',
      required: true,
      description: 'Free-form: a JSON Schema (draft-07) of boolean claims, itself a JSON document',
    }),
  }),
});

builder.mutationField('updateSiteAdaptiveSchema', (t) =>
  t.field({
    type: SiteAdaptiveSchemaType,
    args: {
      organizationId: t.arg.id({ required: true }),
      siteId: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateSiteAdaptiveSchemaInput, required: true }),
    },
    resolve: (_r, { organizationId, siteId, input }, ctx) =>
      setAdaptiveSchema(ctx, String(organizationId), String(siteId), input.jsonSchema),
  }),
);
