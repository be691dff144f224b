import { builder } from '../../graphql/builder.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { paginateArray } from '../../pagination.js';
import { SpaceType } from '../spaces/space.js';
import { acceptShareKey, publishedUrl, siteSpacePath } from './links.js';
import { SiteRef, SiteSpaceRef } from './refs.js';
import { addSiteSpace, deleteSiteSpace, moveSiteSpace, updateSiteSpace } from './site-space-service.js';
import { requireSiteMember } from './site-service.js';
import { siteView, siteViewById } from './structure.js';

const SiteSpaceUrls = builder.objectRef<{ published: string | null }>('SiteSpaceUrls').implement({
  fields: (t) => ({ published: t.exposeString('published', { nullable: true, description: 'Only while the site is published' }) }),
});

SiteSpaceRef.implement({
  description: 'A space linked into a site (a variant of its section, or a root site space of a site without sections)',
  fields: (t) => ({
    object: t.string({ resolve: () => 'site-space' }),
    id: t.exposeID('id'),
    path: t.exposeString('path'),
    section: t.exposeID('sectionId', { nullable: true, description: 'The section it belongs to; null at the root of a site without sections' }),
    space: t.field({
      type: SpaceType,
      description: 'The linked space (the site publishes it: shown whatever the caller may do on it)',
      resolve: async (ss, _a, ctx) => (await ctx.loaders.space.load(ss.spaceId))!,
    }),
    title: t.string({ description: "The space's title", resolve: async (ss, _a, ctx) => (await ctx.loaders.space.load(ss.spaceId))?.title ?? '' }),
    default: t.boolean({
      description: 'Whether it is the default site space of its section (or of the root)',
      resolve: async (ss, _a, ctx) => (await siteViewById(ctx, ss.siteId)).defaultSiteSpaceIn(ss.sectionId) === ss.id,
    }),
    condition: t.exposeString('condition', { nullable: true }),
    hidden: t.exposeBoolean('hidden', { description: 'When true it is left out of the site navigation' }),
    hasAdvancedCustomizationFeature: t.boolean({ resolve: () => false }),
    urls: t.field({
      type: SiteSpaceUrls,
      resolve: async (ss, _a, ctx) => {
        const view = await siteViewById(ctx, ss.siteId);
        return { published: await publishedUrl(ctx, view.site, siteSpacePath(view, ss)) };
      },
    }),
  }),
});

export const SiteSpaceList = listOf('SiteSpace', SiteSpaceRef);

builder.objectField(SiteRef, 'siteSpaces', (t) =>
  t.field({
    type: SiteSpaceList,
    description: "The site's site spaces, in structure order",
    args: {
      ...pageArgs(t),
      shareKey: t.arg.string({ required: false, description: 'Key of an active share link: the published URLs carry it' }),
      default: t.arg.boolean({ required: false, description: 'true: only default site spaces; false: only the others' }),
    },
    resolve: async (site, args, ctx) => {
      await requireSiteMember(ctx, site);
      await acceptShareKey(ctx, site, args.shareKey);
      const view = await siteView(ctx, site);
      const all = args.default == null ? view.siteSpaces : view.siteSpaces.filter((ss) => (view.defaultSiteSpaceIn(ss.sectionId) === ss.id) === args.default);
      return paginateArray(args, all);
    },
  }),
);

const AddSiteSpaceInput = builder.inputType('AddSiteSpaceInput', {
  fields: (t) => ({
    spaceId: t.id({ required: true }),
    sectionId: t.id({ description: "Default: the site's default section, or its root when it has no sections" }),
  }),
});
const UpdateSiteSpaceInput = builder.inputType('UpdateSiteSpaceInput', {
  fields: (t) => ({
    path: t.string(),
    condition: t.string({ description: 'Unset keeps it, null removes it' }),
    spaceId: t.id(),
    hidden: t.boolean(),
  }),
});
const SiteSpacePointerInput = builder.inputType('SiteSpacePointerInput', {
  fields: (t) => ({ type: t.string({ required: true, description: '"site-space"' }), siteSpace: t.id({ required: true }) }),
});
const SiteSpacePositionInput = builder.inputType('SiteSpacePositionInput', {
  fields: (t) => ({ before: t.field({ type: SiteSpacePointerInput }), after: t.field({ type: SiteSpacePointerInput }) }),
});
const MoveSiteSpaceInput = builder.inputType('MoveSiteSpaceInput', {
  fields: (t) => ({ position: t.field({ type: SiteSpacePositionInput, description: 'Absent: the end of its section' }) }),
});

const ids = (t: { arg: { id: (o: { required: true }) => any } }) => ({
  organizationId: t.arg.id({ required: true }),
  siteId: t.arg.id({ required: true }),
  id: t.arg.id({ required: true }),
});

builder.mutationFields((t) => ({
  addSiteSpace: t.field({
    type: SiteSpaceRef,
    args: { organizationId: t.arg.id({ required: true }), siteId: t.arg.id({ required: true }), input: t.arg({ type: AddSiteSpaceInput, required: true }) },
    resolve: (_r, { organizationId, siteId, input }, ctx) =>
      addSiteSpace(ctx, String(organizationId), String(siteId), { spaceId: String(input.spaceId), sectionId: input.sectionId == null ? null : String(input.sectionId) }),
  }),
  updateSiteSpace: t.field({
    type: SiteSpaceRef,
    args: { ...ids(t), input: t.arg({ type: UpdateSiteSpaceInput, required: true }) },
    resolve: (_r, { organizationId, siteId, id, input }, ctx) =>
      updateSiteSpace(ctx, String(organizationId), String(siteId), String(id), { ...input, spaceId: input.spaceId == null ? input.spaceId : String(input.spaceId) }),
  }),
  deleteSiteSpace: t.boolean({
    description: 'Remove a site space; false when there was no such site space',
    args: ids(t),
    resolve: (_r, args, ctx) => deleteSiteSpace(ctx, String(args.organizationId), String(args.siteId), String(args.id)),
  }),
  moveSiteSpace: t.field({
    type: SiteSpaceRef,
    args: { ...ids(t), input: t.arg({ type: MoveSiteSpaceInput, required: false }) },
    resolve: (_r, { organizationId, siteId, id, input }, ctx) =>
      moveSiteSpace(ctx, String(organizationId), String(siteId), String(id), {
        position: input?.position && {
          before: input.position.before && { type: input.position.before.type, siteSpace: String(input.position.before.siteSpace) },
          after: input.position.after && { type: input.position.after.type, siteSpace: String(input.position.after.siteSpace) },
        },
      }),
  }),
}));
