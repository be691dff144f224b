import { ROLES } from '../../auth/roles.js';
import { builder, type Model } from '../../graphql/builder.js';
import { RoleEnum } from '../../graphql/enums.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { UserType, userLoaders } from '../users/index.js';
import { OrganizationType } from './organization.js';
import { getMember, listMembers, removeMember, updateMemberRole } from './member-service.js';
import { orgLoaders } from './loaders.js';
import { MemberListOrderEnum, MemberSortEnum } from './member-lists.js';

export const MemberType = builder.objectRef<Model<'Member'>>('Member').implement({
  fields: (t) => ({
    object: t.string({ resolve: () => 'member' }),
    id: t.exposeID('userId'),
    role: t.field({ type: RoleEnum, nullable: true, extensions: { restKeepNull: true }, resolve: (m) => m.role }),
    user: t.field({ type: UserType, resolve: async (m, _a, ctx) => (await userLoaders(ctx).user.load(m.userId))! }),
    disabled: t.exposeBoolean('disabled'),
    joinedAt: t.expose('joinedAt', { type: 'DateTime' }),
    lastSeenAt: t.expose('lastSeenAt', { type: 'DateTime', nullable: true }),
    sso: t.exposeBoolean('sso'),
    spaces: t.int({
      description: 'Live spaces of the organization this member reaches through their role (guests: none)',
      resolve: (m, _a, ctx) => (m.role == null ? 0 : orgLoaders(ctx).organizationSpaceCount.load(m.organizationId)),
    }),
  }),
});

const MemberList = listOf('Member', MemberType);

/** The member list's role filter: a role, or `guest` for members without one (as GitBook's `role=guest`). */
export const MemberRoleFilterEnum = builder.enumType('MemberRoleFilter', {
  description: 'A role, or guest for the members without a role',
  values: [...ROLES, 'guest'] as const,
});

builder.objectField(OrganizationType, 'members', (t) =>
  t.field({
    type: MemberList,
    args: {
      ...pageArgs(t),
      role: t.arg({ type: MemberRoleFilterEnum, required: false }),
      search: t.arg.string({ required: false, description: 'Only members whose display name or email contains this (case-insensitive)' }),
      sort: t.arg({ type: MemberSortEnum, required: false }),
      order: t.arg({ type: MemberListOrderEnum, required: false }),
    },
    resolve: (org, args, ctx) => listMembers(ctx, org.id, args),
  }),
);

builder.objectField(OrganizationType, 'member', (t) =>
  t.field({
    type: MemberType,
    args: { userId: t.arg.id({ required: true }) },
    resolve: (org, { userId }, ctx) => getMember(ctx, org.id, String(userId)),
  }),
);

builder.mutationFields((t) => ({
  updateMember: t.field({
    type: MemberType,
    args: {
      organizationId: t.arg.id({ required: true }),
      userId: t.arg.id({ required: true }),
      role: t.arg({ type: RoleEnum, required: false, description: 'null makes the member a guest' }),
    },
    resolve: (_r, args, ctx) => updateMemberRole(ctx, String(args.organizationId), String(args.userId), args.role),
  }),
  removeMember: t.boolean({
    description: 'Remove a member; NOT_FOUND when they are not one',
    args: { organizationId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => removeMember(ctx, String(args.organizationId), String(args.userId)),
  }),
}));
