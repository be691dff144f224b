import { builder } from '../../graphql/builder.js';
import { registerNode } from '../../graphql/node.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { MemberType, OrganizationType } from '../orgs/index.js';
import { publishedUrl } from './links.js';
import { SiteAgentsContextEnum, SiteRef, SiteTypeEnum, SiteVisibilityEnum } from './refs.js';
import { createSite, deleteSite, getSite, listSites, setPublished, updateSite } from './site-service.js';
import { siteView } from './structure.js';
import { accessRows } from '../../auth/access-rows.js';
import { orgRole, sitePermissions } from '../../auth/permissions.js';
import { DefaultLevelEnum } from '../../graphql/enums.js';
import { siteLoaders } from './loaders.js';

const SiteUrls = builder.objectRef<{ location: string; app: string; preview: string; published: string | null }>('SiteUrls').implement({
  fields: (t) => ({
    location: t.exposeString('location'),
    app: t.exposeString('app'),
    preview: t.exposeString('preview', { description: 'The site as it would be published, in the application (published or not)' }),
    published: t.exposeString('published', { nullable: true, description: 'Only while the site is published' }),
  }),
});

const SiteProxy = builder.objectRef<{ origin: string; target: string }>('SiteProxy').implement({
  fields: (t) => ({
    origin: t.exposeString('origin', { description: 'Where the site is served, e.g. example.com/docs' }),
    target: t.exposeString('target', { description: 'Where requests to the origin are proxied: the site on this server' }),
  }),
});

const SitePermissions = builder.objectRef<ReturnType<typeof sitePermissions>>('SitePermissions').implement({
  fields: (t) => ({
    view: t.exposeBoolean('view'),
    access: t.exposeBoolean('access'),
    edit: t.exposeBoolean('edit'),
    create: t.exposeBoolean('create'),
    admin: t.exposeBoolean('admin'),
    installIntegration: t.exposeBoolean('installIntegration'),
    viewAdaptiveSchema: t.exposeBoolean('viewAdaptiveSchema'),
    editAdaptiveSchema: t.exposeBoolean('editAdaptiveSchema'),
  }),
});

const SiteAdaptiveContent = builder.objectRef<{ enabled: boolean }>('SiteAdaptiveContent').implement({
  fields: (t) => ({ enabled: t.exposeBoolean('enabled') }),
});

SiteRef.implement({
  description: 'A docs site of an organization',
  fields: (t) => ({
    object: t.string({ resolve: () => 'site' }),
    id: t.exposeID('id'),
    type: t.field({ type: SiteTypeEnum, resolve: (s) => s.type as 'basic' }),
    // GitBook applies a lower type than the chosen one to a site its plan no longer pays for
    // (frozen); a self-hosted server has no plans, so the chosen type is always the applied one.
    appliedType: t.field({ type: SiteTypeEnum, resolve: (s) => s.type as 'basic' }),
    // Sites have no default level of their own here: each member's organization role decides what
    // they may do with a site (sitePermissions), which is GitBook's `inherit`.
    defaultLevel: t.field({ type: DefaultLevelEnum, resolve: () => 'inherit' as const }),
    permissions: t.field({ type: SitePermissions, resolve: async (s, _a, ctx) => sitePermissions(await orgRole(ctx, s.organizationId)) }),
    title: t.exposeString('title'),
    hostname: t.exposeString('hostname', { nullable: true }),
    basename: t.exposeString('basename', { nullable: true }),
    proxy: t.field({
      type: SiteProxy,
      nullable: true,
      resolve: async (s, _a, ctx) => {
        if (!s.proxy) return null;
        const org = await accessRows(ctx).organization.load(s.organizationId);
        return { origin: s.proxy, target: ctx.urls.publishedSite({ ...s, proxy: null, hostname: null }, org?.hostname ?? null) };
      },
    }),
    visibility: t.field({ type: SiteVisibilityEnum, resolve: (s) => s.visibility as 'public' }),
    published: t.exposeBoolean('published'),
    siteSpaceCount: t.int({
      description: 'Number of site spaces (REST: `siteSpaces`)',
      resolve: async (s, _a, ctx) => (await siteView(ctx, s)).siteSpaces.length,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    adaptiveContent: t.field({ type: SiteAdaptiveContent, resolve: (s) => ({ enabled: s.adaptiveContent }) }),
    agentsContext: t.field({ type: SiteAgentsContextEnum, resolve: (s) => s.agentsContext as 'included' }),
    features: t.stringList({
      description: 'Premium features enabled on the site (official SiteFeature names): none on a self-hosted server',
      resolve: () => [],
    }),
    organization: t.exposeID('organizationId'),
    urls: t.field({
      type: SiteUrls,
      resolve: async (s, _a, ctx) => ({ ...ctx.urls.site(s.organizationId, s.id), published: await publishedUrl(ctx, s) }),
    }),
  }),
});

export const SiteList = listOf('Site', SiteRef);

builder.objectField(OrganizationType, 'sites', (t) =>
  t.field({
    type: SiteList,
    description: "The organization's docs sites, oldest first",
    args: {
      ...pageArgs(t),
      space: t.arg.id({ required: false, description: 'Only sites that contain this space' }),
      title: t.arg.string({ required: false, description: 'Only sites whose title contains this (case-insensitive)' }),
      published: t.arg.boolean({ required: false }),
      type: t.arg({ type: [SiteTypeEnum], required: false, description: 'Only sites of these types' }),
    },
    resolve: (org, args, ctx) => listSites(ctx, org.id, { ...args, space: args.space == null ? null : String(args.space) }),
  }),
);

// Every active member, guests included, reads every site of the organization (requireSite).
builder.objectField(MemberType, 'sites', (t) =>
  t.int({
    description: 'Sites of the organization this member reaches: all of them (none while disabled)',
    resolve: async (m, _a, ctx) => (m.disabled ? 0 : (await siteLoaders(ctx).organizationSites.load(m.organizationId)).length),
  }),
);

builder.queryField('site', (t) =>
  t.field({
    type: SiteRef,
    args: { organizationId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => getSite(ctx, String(args.organizationId), String(args.id)),
  }),
);
registerNode(SiteRef, {
  args: ['organizationId', 'id'],
  keys: (s) => [s.organizationId, s.id],
  load: (ctx, [orgId, id]) => getSite(ctx, orgId!, id!),
});

const CreateSiteInput = builder.inputType('CreateSiteInput', {
  fields: (t) => ({
    type: t.field({ type: SiteTypeEnum, description: 'Default basic' }),
    title: t.string({ description: '2..128 characters' }),
    visibility: t.field({ type: SiteVisibilityEnum, description: 'Default public' }),
    spaces: t.idList({ description: 'Spaces linked into the site, in order' }),
  }),
});

const SiteAdaptiveContentInput = builder.inputType('SiteAdaptiveContentInput', {
  fields: (t) => ({ enabled: t.boolean({ required: true }) }),
});

const UpdateSiteInput = builder.inputType('UpdateSiteInput', {
  fields: (t) => ({
    title: t.string(),
    visibility: t.field({ type: SiteVisibilityEnum }),
    basename: t.string(),
    hostname: t.string({ description: 'Custom hostname (not in the official body): unique across sites; null removes it' }),
    adaptiveContent: t.field({ type: SiteAdaptiveContentInput }),
    agentsContext: t.field({ type: SiteAgentsContextEnum }),
    defaultSiteSpace: t.id(),
    defaultSiteSection: t.id(),
    proxy: t.string({ description: 'host/path; null removes the proxy' }),
  }),
});

const siteArgs = (t: { arg: { id: (o: { required: true }) => any } }) => ({
  organizationId: t.arg.id({ required: true }),
  id: t.arg.id({ required: true }),
});

builder.mutationFields((t) => ({
  createSite: t.field({
    type: SiteRef,
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: CreateSiteInput, required: false }) },
    resolve: (_r, args, ctx) => createSite(ctx, String(args.organizationId), { ...args.input, spaces: args.input?.spaces?.map(String) }),
  }),
  updateSite: t.field({
    type: SiteRef,
    args: { ...siteArgs(t), input: t.arg({ type: UpdateSiteInput, required: true }) },
    resolve: (_r, { organizationId, id, input }, ctx) =>
      updateSite(ctx, String(organizationId), String(id), {
        ...input,
        defaultSiteSpace: input.defaultSiteSpace == null ? input.defaultSiteSpace : String(input.defaultSiteSpace),
        defaultSiteSection: input.defaultSiteSection == null ? input.defaultSiteSection : String(input.defaultSiteSection),
      }),
  }),
  deleteSite: t.boolean({
    description: 'Delete a site; NOT_FOUND when there is no such site',
    args: siteArgs(t),
    resolve: (_r, args, ctx) => deleteSite(ctx, String(args.organizationId), String(args.id)),
  }),
  publishSite: t.field({
    type: SiteRef,
    args: siteArgs(t),
    resolve: (_r, args, ctx) => setPublished(ctx, String(args.organizationId), String(args.id), true),
  }),
  unpublishSite: t.field({
    type: SiteRef,
    args: siteArgs(t),
    resolve: (_r, args, ctx) => setPublished(ctx, String(args.organizationId), String(args.id), false),
  }),
}));
