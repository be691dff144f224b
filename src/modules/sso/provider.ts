import { builder, type Model } from '../../graphql/builder.js';
import { RoleEnum } from '../../graphql/enums.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { OrganizationType } from '../orgs/index.js';
import { teamLoaders, TeamType } from '../teams/index.js';
import {
  createSamlProvider,
  deleteSamlProvider,
  getSamlProvider,
  listSamlProviders,
  listSsoLogins,
  updateSamlProvider,
} from './service.js';

export const SamlProviderStatusEnum = builder.enumType('SamlProviderStatus', {
  description: 'active: can sign people in; pending: not fully configured',
  values: ['active', 'pending'] as const,
});

const SamlServiceType = builder.objectRef<{ acsURL: string; startURL: string; entityID: string }>('SamlService').implement({
  description: 'Lectern’s side (the service provider) of a SAML provider: what to configure in the identity provider',
  fields: (t) => ({
    acsURL: t.exposeString('acsURL', { description: 'Assertion Consumer Service URL (HTTP-POST binding)' }),
    startURL: t.exposeString('startURL', { description: 'Where a sign-in starts (redirects to the identity provider)' }),
    entityID: t.exposeString('entityID', { description: 'The service provider’s entity id (also its metadata URL)' }),
  }),
});

export const SamlProviderType = builder.objectRef<Model<'SamlProvider'>>('SamlProvider').implement({
  fields: (t) => ({
    object: t.string({ resolve: () => 'saml-provider' }),
    id: t.exposeID('id'),
    label: t.exposeString('label'),
    ssoURL: t.exposeString('ssoURL'),
    entityID: t.exposeString('entityID'),
    certificate: t.exposeString('certificate'),
    defaultTeam: t.field({
      type: TeamType,
      nullable: true,
      resolve: (p, _a, ctx) => (p.defaultTeamId ? teamLoaders(ctx).team.load(p.defaultTeamId) : null),
    }),
    defaultRole: t.field({ type: RoleEnum, nullable: true, extensions: { restKeepNull: true }, resolve: (p) => p.defaultRole }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    status: t.field({
      type: SamlProviderStatusEnum,
      resolve: (p) => (p.entityID && p.certificate && p.ssoURL ? 'active' : 'pending'),
    }),
    service: t.field({ type: SamlServiceType, resolve: (p, _a, ctx) => ctx.urls.samlService(p.id) }),
    urls: t.field({
      type: builder
        .objectRef<{ location: string }>('SamlProviderUrls')
        .implement({ fields: (u) => ({ location: u.exposeString('location') }) }),
      resolve: (p, _a, ctx) => ctx.urls.samlProvider(p.organizationId, p.id),
    }),
  }),
});

const SamlProviderList = listOf('SamlProvider', SamlProviderType);

const SsoLoginType = builder.objectRef<{ id: string; label: string; startURL: string }>('SsoLogin').implement({
  fields: (t) => ({ id: t.exposeID('id'), label: t.exposeString('label'), startURL: t.exposeString('startURL') }),
});

const SsoLoginList = builder.objectRef<{ items: { id: string; label: string; startURL: string }[] }>('SsoLoginList').implement({
  fields: (t) => ({ items: t.field({ type: [SsoLoginType], resolve: (l) => l.items }) }),
});

builder.objectFields(OrganizationType, (t) => ({
  samlProviders: t.field({ type: SamlProviderList, args: pageArgs(t), resolve: (org, args, ctx) => listSamlProviders(ctx, org.id, args) }),
  samlProvider: t.field({
    type: SamlProviderType,
    args: { id: t.arg.id({ required: true }) },
    resolve: (org, { id }, ctx) => getSamlProvider(ctx, org.id, String(id)),
  }),
}));

builder.queryField('ssoLogins', (t) =>
  t.field({
    type: SsoLoginList,
    description: 'Where the members of an organization sign in (open to members single sign-on holds back)',
    args: { organizationId: t.arg.id({ required: true }) },
    resolve: async (_r, { organizationId }, ctx) => ({ items: await listSsoLogins(ctx, String(organizationId)) }),
  }),
);

const fields = (t: any, required: boolean) => ({
  label: t.string({ required }),
  entityID: t.string({ required, description: 'The identity provider’s entity id (Issuer of its assertions)' }),
  certificate: t.string({ required, description: 'The identity provider’s signing certificate, PEM' }),
  ssoURL: t.string({ required, description: 'The identity provider’s single sign-on URL' }),
  defaultTeam: t.id({ description: 'Team that people signing in for the first time join' }),
  defaultRole: t.field({
    type: RoleEnum,
    description: 'Role of newcomers (null: guest; absent on create: the organization’s default role)',
  }),
});

const CreateSamlProviderInput = builder.inputType('CreateSamlProviderInput', { fields: (t) => fields(t, false) });
const UpdateSamlProviderInput = builder.inputType('UpdateSamlProviderInput', { fields: (t) => fields(t, false) });

type ProviderArgs = { defaultTeam?: string | number | null } & Record<string, unknown>;
const input = (i: ProviderArgs) => ({
  ...i,
  defaultTeam: i.defaultTeam == null ? (i.defaultTeam as null | undefined) : String(i.defaultTeam),
});

builder.mutationFields((t) => ({
  createSamlProvider: t.field({
    type: SamlProviderType,
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: CreateSamlProviderInput, required: true }) },
    resolve: (_r, args, ctx) => createSamlProvider(ctx, String(args.organizationId), input(args.input as ProviderArgs)),
  }),
  updateSamlProvider: t.field({
    type: SamlProviderType,
    args: {
      organizationId: t.arg.id({ required: true }),
      providerId: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateSamlProviderInput, required: true }),
    },
    resolve: (_r, args, ctx) =>
      updateSamlProvider(ctx, String(args.organizationId), String(args.providerId), input(args.input as ProviderArgs)),
  }),
  deleteSamlProvider: t.boolean({
    description: 'Delete a SAML provider; NOT_FOUND when there is none',
    args: { organizationId: t.arg.id({ required: true }), providerId: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => deleteSamlProvider(ctx, String(args.organizationId), String(args.providerId)),
  }),
}));
