import { builder } from '../../graphql/builder.js';
import { addExternalLink, deleteExternalLink, updateExternalLink, type ExternalLinkInput } from './external-link-service.js';
import { SiteExternalLinkRef } from './refs.js';

/** A site's external navigation links (official SiteExternalLink; rules in external-link-service.ts). */
SiteExternalLinkRef.implement({
  description: "An external link in a sectioned site's navigation: at the root or in a section group",
  fields: (t) => ({
    object: t.string({ resolve: () => 'site-external-link' }),
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    localizedTitle: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Free-form: a map keyed by locale, { [locale]: title }: overrides for other languages',
      resolve: (l) => l.localizedTitle,
    }),
    description: t.exposeString('description', { nullable: true }),
    localizedDescription: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Free-form: a map keyed by locale, { [locale]: description }',
      resolve: (l) => l.localizedDescription,
    }),
    icon: t.exposeString('icon', { nullable: true }),
    url: t.exposeString('url', { description: 'The absolute http(s) URL it opens' }),
    sectionGroup: t.exposeID('sectionGroupId', { nullable: true, description: 'The group holding it; null at the root' }),
    draft: t.exposeBoolean('draft', { description: 'Draft links are left out of the published structure' }),
    condition: t.exposeString('condition', {
      nullable: true,
      description: 'Adaptive condition: visitors for whom it does not hold do not see the link',
    }),
  }),
});

const fields = (t: any, creating: boolean) => ({
  title: t.string({ required: creating, description: '2..128 characters' }),
  localizedTitle: t.field({ type: 'JSON', description: 'Free-form: a map keyed by locale, { [locale]: title }' }),
  description: t.string({ description: 'At most 256 characters; null removes it' }),
  localizedDescription: t.field({ type: 'JSON', description: 'Free-form: a map keyed by locale, { [locale]: description }' }),
  icon: t.string(),
  url: t.string({ required: creating, description: 'Absolute http(s) URL' }),
  parent: t.id({
    description: creating ? "Section group to put it in; default: the site's root" : 'Section group to move it into; null: the site root',
  }),
  draft: t.boolean(),
  condition: t.string(),
});
const AddSiteExternalLinkInput = builder.inputType('AddSiteExternalLinkInput', { fields: (t) => fields(t, true) });
const UpdateSiteExternalLinkInput = builder.inputType('UpdateSiteExternalLinkInput', { fields: (t) => fields(t, false) });

const site = (t: any) => ({ organizationId: t.arg.id({ required: true }), siteId: t.arg.id({ required: true }) });
const str = (v: unknown) => (v == null ? (v as null | undefined) : String(v));

builder.mutationFields((t) => ({
  addSiteExternalLink: t.field({
    type: SiteExternalLinkRef,
    description: "Add an external link at the end of the site's root or of a section group (official addExternalLinkToSite)",
    args: { ...site(t), input: t.arg({ type: AddSiteExternalLinkInput, required: true }) },
    resolve: (_r, { organizationId, siteId, input }, ctx) =>
      addExternalLink(ctx, String(organizationId), String(siteId), { ...(input as ExternalLinkInput), parent: str(input.parent) }),
  }),
  updateSiteExternalLink: t.field({
    type: SiteExternalLinkRef,
    description: 'Update an external link (official updateSiteExternalLinkById); a new parent puts it at the end there',
    args: { ...site(t), id: t.arg.id({ required: true }), input: t.arg({ type: UpdateSiteExternalLinkInput, required: true }) },
    resolve: (_r, { organizationId, siteId, id, input }, ctx) =>
      updateExternalLink(ctx, String(organizationId), String(siteId), String(id), {
        ...(input as ExternalLinkInput),
        parent: str(input.parent),
      }),
  }),
  deleteSiteExternalLink: t.boolean({
    description: 'Delete an external link (official deleteSiteExternalLinkById); NOT_FOUND when the site has no such link',
    args: { ...site(t), id: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => deleteExternalLink(ctx, String(args.organizationId), String(args.siteId), String(args.id)),
  }),
}));
