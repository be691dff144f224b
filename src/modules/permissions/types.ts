import { builder } from '../../graphql/builder.js';
import { RoleEnum } from '../../graphql/enums.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import type { RoleName } from '../../auth/roles.js';
import type { Team, User } from '../../generated/prisma/client.js';
import { TeamType } from '../teams/index.js';
import { UserType } from '../users/index.js';
import {
  aggregate,
  inviteToResource,
  listTeamGrants,
  listUserGrants,
  removeGrant,
  setGrant,
  siteAggregate,
  type GrantKind,
  type Resource,
} from './service.js';

/** Grants in GraphQL: the same operations as REST (./routes.ts), as root fields and mutations. */

const UserPermission = builder.objectRef<{ permission: RoleName | null; user: User }>('UserContentPermission').implement({
  description: 'A user’s role on a space, collection or site',
  fields: (t) => ({
    permission: t.field({ type: RoleEnum, nullable: true, extensions: { restKeepNull: true }, resolve: (p) => p.permission }),
    user: t.field({ type: UserType, resolve: (p) => p.user }),
  }),
});

const TeamPermission = builder.objectRef<{ permission: RoleName; team: Team }>('TeamContentPermission').implement({
  description: 'A team’s role on a space, collection or site',
  fields: (t) => ({
    permission: t.field({ type: RoleEnum, resolve: (p) => p.permission }),
    team: t.field({ type: TeamType, resolve: (p) => p.team }),
  }),
});

const SiteOrigin = builder.objectRef<Record<string, string>>('UserSitePermissionOrigin').implement({
  fields: (t) => ({
    type: t.string({ resolve: (o) => o.type! }),
    organization: t.string({ nullable: true, resolve: (o) => o.organization ?? null }),
    site: t.string({ nullable: true, resolve: (o) => o.site ?? null }),
    reason: t.string({ nullable: true, resolve: (o) => o.reason ?? null }),
    team: t.string({ nullable: true, resolve: (o) => o.team ?? null }),
  }),
});

type SitePerm = { permission: RoleName | null; user: User; origin: Record<string, string>; disabled: boolean; lastSeenAt: Date | null };
const UserSitePermission = builder.objectRef<SitePerm>('UserSitePermission').implement({
  description: 'A member’s role on a site and where it comes from',
  fields: (t) => ({
    permission: t.field({ type: RoleEnum, nullable: true, extensions: { restKeepNull: true }, resolve: (p) => p.permission }),
    user: t.field({ type: UserType, resolve: (p) => p.user }),
    origin: t.field({ type: SiteOrigin, resolve: (p) => p.origin }),
    disabled: t.exposeBoolean('disabled'),
    lastSeenAt: t.field({ type: 'DateTime', nullable: true, resolve: (p) => p.lastSeenAt }),
  }),
});

const UserPermissionList = listOf('UserContentPermission', UserPermission);
const TeamPermissionList = listOf('TeamContentPermission', TeamPermission);
const UserSitePermissionList = listOf('UserSitePermission', UserSitePermission);

const GrantInput = builder.inputType('GrantInput', {
  fields: (t) => ({ role: t.field({ type: RoleEnum, description: 'The role; null (spaces and collections) removes the grant' }) }),
});

const InviteToContentInput = builder.inputType('InviteToContentInput', {
  fields: (t) => ({
    role: t.field({ type: RoleEnum }),
    users: t.idList({ description: 'Members of the organization (guests included)' }),
    teams: t.idList({ description: 'Teams of the organization' }),
    // Lectern addition (not in the official InviteUsersAndTeams): see inviteToResource.
    emails: t.stringList({
      description:
        'Lectern addition: people by email. A member gets the grant; an account that is not a member an invitation (a guest) carrying it, applied when it accepts; an email without an account a new account, a guest with the grant. Nothing is mailed.',
    }),
  }),
});

const KINDS: { kind: GrantKind; Name: string; arg: string }[] = [
  { kind: 'space', Name: 'Space', arg: 'spaceId' },
  { kind: 'collection', Name: 'Collection', arg: 'collectionId' },
  { kind: 'site', Name: 'Site', arg: 'siteId' },
];

const resourceOf = (kind: GrantKind, args: Record<string, unknown>): Resource => ({
  kind,
  id: String(args[kind === 'space' ? 'spaceId' : kind === 'collection' ? 'collectionId' : 'siteId']),
  organizationId: args.organizationId == null ? undefined : String(args.organizationId),
});

const ids = (v: readonly (string | number)[] | null | undefined) => (v == null ? v : v.map(String));

for (const { kind, Name, arg } of KINDS) {
  const resourceArgs = (t: any) => ({
    ...(kind === 'site' ? { organizationId: t.arg.id({ required: true }) } : {}),
    [arg]: t.arg.id({ required: true }),
  });
  builder.queryFields((t) => ({
    [`userPermissionsIn${Name}`]: t.field({
      type: UserPermissionList,
      description: `Users granted a role on the ${kind} (list${kind === 'site' ? 'UserPermissionsInSite' : `UserPermissionsIn${Name}`})`,
      args: { ...resourceArgs(t), ...pageArgs(t) },
      resolve: (_r, args: any, ctx) => listUserGrants(ctx, resourceOf(kind, args), args),
    }),
    [`teamPermissionsIn${Name}`]: t.field({
      type: TeamPermissionList,
      description: `Teams granted a role on the ${kind}`,
      args: { ...resourceArgs(t), ...pageArgs(t) },
      resolve: (_r, args: any, ctx) => listTeamGrants(ctx, resourceOf(kind, args), args),
    }),
    [`permissionsAggregateIn${Name}`]:
      kind === 'site'
        ? t.field({
            type: UserSitePermissionList,
            description: 'Everyone who reads the site, with their role there and where it comes from',
            args: {
              ...resourceArgs(t),
              ...pageArgs(t),
              role: t.arg.string(),
              search: t.arg.string(),
              team: t.arg.id(),
              order: t.arg.string(),
              sort: t.arg.string(),
            },
            resolve: (_r, args: any, ctx) =>
              siteAggregate(ctx, resourceOf(kind, args), { ...args, team: args.team == null ? args.team : String(args.team) }),
          })
        : t.field({
            type: UserPermissionList,
            description: `Everyone who has access to the ${kind}, with their effective role`,
            args: { ...resourceArgs(t), ...pageArgs(t), role: t.arg({ type: RoleEnum }) },
            resolve: (_r, args: any, ctx) => aggregate(ctx, resourceOf(kind, args), args),
          }),
  }));
  builder.mutationFields((t) => ({
    [`updateUserPermissionIn${Name}`]: t.boolean({
      args: { ...resourceArgs(t), userId: t.arg.id({ required: true }), input: t.arg({ type: GrantInput, required: true }) },
      resolve: (_r, args: any, ctx) => setGrant(ctx, resourceOf(kind, args), 'user', String(args.userId), args.input),
    }),
    [`updateTeamPermissionIn${Name}`]: t.boolean({
      args: { ...resourceArgs(t), teamId: t.arg.id({ required: true }), input: t.arg({ type: GrantInput, required: true }) },
      resolve: (_r, args: any, ctx) => setGrant(ctx, resourceOf(kind, args), 'team', String(args.teamId), args.input),
    }),
    [`removeUserFrom${Name}`]: t.boolean({
      description: 'Removes the user’s grant; false when the member had none (NOT_FOUND for a user the organization does not have)',
      args: { ...resourceArgs(t), userId: t.arg.id({ required: true }) },
      resolve: (_r, args: any, ctx) => removeGrant(ctx, resourceOf(kind, args), 'user', String(args.userId)),
    }),
    [`removeTeamFrom${Name}`]: t.boolean({
      description: 'Removes the team’s grant; false when the team had none (NOT_FOUND for a team the organization does not have)',
      args: { ...resourceArgs(t), teamId: t.arg.id({ required: true }) },
      resolve: (_r, args: any, ctx) => removeGrant(ctx, resourceOf(kind, args), 'team', String(args.teamId)),
    }),
    [`inviteTo${Name}`]: t.boolean({
      args: { ...resourceArgs(t), input: t.arg({ type: InviteToContentInput, required: true }) },
      resolve: (_r, args: any, ctx) =>
        inviteToResource(ctx, resourceOf(kind, args), {
          ...args.input,
          users: ids(args.input.users),
          teams: ids(args.input.teams),
          emails: args.input.emails,
        }),
    }),
  }));
}
