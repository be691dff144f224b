import { builder } from '../../graphql/builder.js';
import { MergeRulesInput, MergeRulesUnion, storedMergeRules } from './merge-rules.js';
import { registerNode } from '../../graphql/node.js';
import { BillingProductEnum, OrganizationTypeEnum, RoleEnum } from '../../graphql/enums.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { orgRole, organizationPermissions, requireOrg } from '../../auth/permissions.js';
import { joinOrganization, listOrganizations, updateOrganization } from './service.js';

const OrganizationUrls = builder.objectRef<{ location: string; app: string; logo?: string }>('OrganizationUrls').implement({
  fields: (t) => ({
    location: t.exposeString('location'),
    app: t.exposeString('app'),
    logo: t.exposeString('logo', { nullable: true }),
  }),
});

const OrganizationDefaultContent = builder.objectRef<{ type: string; site: string }>('OrganizationDefaultContent').implement({
  description: 'What the organization opens on: a site',
  fields: (t) => ({ type: t.exposeString('type', { description: 'Always site' }), site: t.exposeString('site') }),
});

const OrganizationTrial = builder.objectRef<{ status: string; count: number }>('OrganizationTrial').implement({
  fields: (t) => ({ status: t.exposeString('status'), count: t.exposeInt('count') }),
});

const OrganizationPermissions = builder.objectRef<ReturnType<typeof organizationPermissions>>('OrganizationPermissions').implement({
  fields: (t) => ({
    view: t.exposeBoolean('view'),
    access: t.exposeBoolean('access', { description: 'Can reach the organization in the application: every member' }),
    admin: t.exposeBoolean('admin'),
    ownTeam: t.exposeBoolean('ownTeam'),
    createContent: t.exposeBoolean('createContent'),
    createOpenAPISpec: t.exposeBoolean('createOpenAPISpec'),
    ingestConversations: t.exposeBoolean('ingestConversations'),
    viewBilling: t.exposeBoolean('viewBilling'),
    listMembers: t.exposeBoolean('listMembers'),
    listTeams: t.exposeBoolean('listTeams'),
    listIntegrations: t.exposeBoolean('listIntegrations'),
    listInstallations: t.exposeBoolean('listInstallations'),
    installIntegration: t.exposeBoolean('installIntegration'),
  }),
});

export const OrganizationType = builder.prismaObject('Organization', {
  fields: (t) => ({
    object: t.string({ resolve: () => 'organization' }),
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    emailDomains: t.exposeStringList('emailDomains'),
    hostname: t.exposeString('hostname', { nullable: true }),
    type: t.field({ type: OrganizationTypeEnum, resolve: (o) => o.type as 'business' }),
    useCase: t.exposeString('useCase', { nullable: true }),
    communityType: t.exposeString('communityType', { nullable: true }),
    defaultRole: t.field({ type: RoleEnum, nullable: true, extensions: { restKeepNull: true }, resolve: (o) => o.defaultRole }),
    defaultContent: t.field({
      type: OrganizationDefaultContent,
      nullable: true,
      resolve: (o) => o.defaultContent as { type: string; site: string } | null,
    }),
    sso: t.exposeBoolean('sso'),
    ai: t.exposeBoolean('ai'),
    inviteLinks: t.exposeBoolean('inviteLinks'),
    plan: t.field({ type: BillingProductEnum, resolve: (o) => o.plan as 'free' }),
    mergeRules: t.field({
      type: MergeRulesUnion,
      complexity: { field: 1, multiplier: 0 },
      description: 'Part of the organization’s row: its selection costs one field',
      resolve: (o) => storedMergeRules(o.mergeRules),
    }),
    customHostname: t.exposeString('customHostname', { nullable: true }),
    // Self-hosted: there is no billing, so no trial applies.
    trial: t.field({ type: OrganizationTrial, resolve: () => ({ status: 'notapplicable', count: 0 }) }),
    urls: t.field({
      type: OrganizationUrls,
      resolve: (o, _a, ctx) => ({ ...ctx.urls.organization(o.id), ...(o.logo ? { logo: o.logo } : {}) }),
    }),
    permissions: t.field({
      type: OrganizationPermissions,
      resolve: async (o, _a, ctx) => organizationPermissions(await orgRole(ctx, o.id)),
    }),
  }),
});

export const OrganizationList = listOf('Organization', OrganizationType);

builder.queryFields((t) => ({
  organizations: t.field({
    type: OrganizationList,
    description: 'Organizations the caller is a member of',
    args: pageArgs(t),
    resolve: (_r, args, ctx) => listOrganizations(ctx, args),
  }),
  organization: t.field({
    type: OrganizationType,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => requireOrg(ctx, String(id)),
  }),
}));
registerNode(OrganizationType, { args: ['id'], keys: (o) => [o.id], load: (ctx, [id]) => requireOrg(ctx, id!) });

const DefaultContentTypeEnum = builder.enumType('OrganizationDefaultContentType', {
  description: 'What an organization opens on: a site (the one kind the official OrganizationDefaultContent has)',
  values: ['site'] as const,
});

const OrganizationDefaultContentInput = builder.inputType('OrganizationDefaultContentInput', {
  description: 'Official SitePointer: { type: site, site }',
  fields: (t) => ({
    type: t.field({ type: DefaultContentTypeEnum, required: true }),
    site: t.string({ required: true, description: 'Site id' }),
  }),
});

const UpdateOrganizationInput = builder.inputType('UpdateOrganizationInput', {
  fields: (t) => ({
    title: t.string(),
    emailDomains: t.stringList(),
    hostname: t.string(),
    defaultRole: t.field({ type: RoleEnum }),
    defaultContent: t.field({ type: OrganizationDefaultContentInput, description: 'null: none' }),
    logo: t.string(),
    sso: t.boolean(),
    ai: t.boolean(),
    inviteLinks: t.boolean(),
    mergeRules: t.field({ type: MergeRulesInput }),
  }),
});

builder.mutationFields((t) => ({
  updateOrganization: t.field({
    type: OrganizationType,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateOrganizationInput, required: true }) },
    resolve: (_r, { id, input }, ctx) => updateOrganization(ctx, String(id), input),
  }),
  joinOrganization: t.boolean({
    description: 'Join an organization that allows the email domain of your verified email',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => joinOrganization(ctx, String(id)),
  }),
}));
