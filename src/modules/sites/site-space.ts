import { canReadSpace } from '../../auth/permissions.js';
import type { Context } from '../../context.js';
import type { Space } from '../../generated/prisma/client.js';
import { builder } from '../../graphql/builder.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { paginateArray } from '../../pagination.js';
import { SpaceType, spaceLoaders } from '../spaces/index.js';
import { acceptShareKey, publishedUrl, siteSpacePath } from './links.js';
import { SiteRef, SiteSpaceRef } from './refs.js';
import { addSiteSpace, deleteSiteSpace, moveSiteSpace, updateSiteSpace } from './site-space-service.js';
import { requireSiteMember } from './site-service.js';
import { siteView, siteViewById } from './structure.js';
import { accessRows } from '../../auth/access-rows.js';

/**
 * A space as a site shows it to someone who cannot read the space itself (a reader kept out of a
 * private space, a share-link holder): a site shows what it publishes, not the private metadata of
 * the space behind it. The official SiteSpace requires a whole Space, so the fields it requires
 * keep their shape with nothing private in them. The counts are read through a loader keyed by
 * space id: this request's answer for this space is set to zeros (the caller cannot read the space
 * anywhere else in the request either, so nothing else reads the real counts here).
 */
export function publishedOnly(ctx: Context, space: Space): Space {
  spaceLoaders(ctx)
    .spaceCounts.clear(space.id)
    .prime(space.id, { comments: 0, changeRequests: 0, changeRequestsOpen: 0, changeRequestsDraft: 0 });
  return {
    ...space,
    revisionId: '',
    defaultLevel: null,
    parentId: null,
    mergeRules: { type: 'inherit' },
    gitSync: null,
    visitorAuth: null,
  };
}

const SiteSpaceUrls = builder.objectRef<{ published: string | null }>('SiteSpaceUrls').implement({
  fields: (t) => ({ published: t.exposeString('published', { nullable: true, description: 'Only while the site is published' }) }),
});

SiteSpaceRef.implement({
  description: 'A space linked into a site (a variant of its section, or a root site space of a site without sections)',
  fields: (t) => ({
    object: t.string({ resolve: () => 'site-space' }),
    id: t.exposeID('id'),
    path: t.exposeString('path'),
    section: t.exposeID('sectionId', {
      nullable: true,
      description: 'The section it belongs to; null at the root of a site without sections',
    }),
    space: t.field({
      type: SpaceType,
      description:
        'The linked space: all of it for whoever can read the space; for anyone else only what the site publishes of it (id, title, emoji, organization, visibility, dates), its revision blank, its counts 0, no levels, no permissions',
      resolve: async (ss, _a, ctx) => {
        const space = (await accessRows(ctx).space.load(ss.spaceId))!;
        return (await canReadSpace(ctx, space)) ? space : publishedOnly(ctx, space);
      },
    }),
    title: t.string({
      description: "The space's title",
      resolve: async (ss, _a, ctx) => (await accessRows(ctx).space.load(ss.spaceId))?.title ?? '',
    }),
    default: t.boolean({
      description: 'Whether it is the default site space of its section (or of the root)',
      resolve: async (ss, _a, ctx) => (await siteViewById(ctx, ss.siteId)).defaultSiteSpaceIn(ss.sectionId) === ss.id,
    }),
    condition: t.exposeString('condition', { nullable: true }),
    hidden: t.exposeBoolean('hidden', { description: 'When true it is left out of the site navigation' }),
    // Lectern has no draft site structure: adding, changing or removing a site space is live at once (GitBook keeps unpublished ones as drafts).
    draft: t.boolean({ description: 'Always false: site spaces are live as soon as they are added', resolve: () => false }),
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
      const all =
        args.default == null
          ? view.siteSpaces
          : view.siteSpaces.filter((ss) => (view.defaultSiteSpaceIn(ss.sectionId) === ss.id) === args.default);
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
    args: {
      organizationId: t.arg.id({ required: true }),
      siteId: t.arg.id({ required: true }),
      input: t.arg({ type: AddSiteSpaceInput, required: true }),
    },
    resolve: (_r, { organizationId, siteId, input }, ctx) =>
      addSiteSpace(ctx, String(organizationId), String(siteId), {
        spaceId: String(input.spaceId),
        sectionId: input.sectionId == null ? null : String(input.sectionId),
      }),
  }),
  updateSiteSpace: t.field({
    type: SiteSpaceRef,
    args: { ...ids(t), input: t.arg({ type: UpdateSiteSpaceInput, required: true }) },
    resolve: (_r, { organizationId, siteId, id, input }, ctx) =>
      updateSiteSpace(ctx, String(organizationId), String(siteId), String(id), {
        ...input,
        spaceId: input.spaceId == null ? input.spaceId : String(input.spaceId),
      }),
  }),
  deleteSiteSpace: t.boolean({
    description: 'Remove a site space; NOT_FOUND when there is no such site space',
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
