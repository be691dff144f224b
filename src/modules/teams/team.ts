import { builder } from '../../graphql/builder.js';
import { registerNode } from '../../graphql/node.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import type { Member } from '../../generated/prisma/client.js';
import { OrganizationType, MemberType } from '../orgs/index.js';
import { memberTeamCount, teamLoaders } from './loaders.js';
import {
  createTeam,
  deleteTeam,
  getTeam,
  listTeamMembers,
  listTeams,
  removeTeamMember,
  setTeamMember,
  TEAM_ROLES,
  teamPermissions,
  updateTeam,
  updateTeamMembers,
} from './service.js';

export const TeamMemberRoleEnum = builder.enumType('TeamMemberRole', {
  description: 'owner: manages the team’s members; member: is in the team',
  values: TEAM_ROLES,
});

const TeamPermissions = builder.objectRef<{ admin: boolean; view: boolean }>('TeamPermissions').implement({
  fields: (t) => ({
    admin: t.exposeBoolean('admin', { description: 'Can the caller manage the team' }),
    view: t.exposeBoolean('view', { description: 'Can the caller see the team and list its members' }),
  }),
});

// Teams are built on organizations' members, so the count of a member's teams is added here onto
// orgs' Member type (orgs does not know about teams).
builder.objectField(MemberType, 'teams', (t) =>
  t.int({
    description: 'Teams of the organization the member is in',
    resolve: (m, _a, ctx) => memberTeamCount(ctx, m.organizationId, m.userId),
  }),
);

export const TeamType = builder.prismaObject('Team', {
  fields: (t) => ({
    object: t.string({ resolve: () => 'team' }),
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    members: t.int({
      description: 'Members of the team',
      resolve: async (team, _a, ctx) => (await teamLoaders(ctx).counts.load(team.id)).members,
    }),
    spaces: t.int({
      description: 'Live spaces the team has access to',
      resolve: async (team, _a, ctx) => (await teamLoaders(ctx).counts.load(team.id)).spaces,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    permissions: t.field({ type: TeamPermissions, resolve: (team, _a, ctx) => teamPermissions(ctx, team) }),
  }),
});

const TeamList = listOf('Team', TeamType);

type Membership = { role: string; member: Member };

export const TeamMemberInfo = builder.objectRef<{ role: string }>('TeamMemberInfo').implement({
  fields: (t) => ({ role: t.field({ type: TeamMemberRoleEnum, resolve: (m) => m.role as 'owner' }) }),
});

const TeamMembershipPermissions = builder.objectRef<{ view: boolean }>('TeamMembershipPermissions').implement({
  fields: (t) => ({ view: t.exposeBoolean('view') }),
});

/** A member of a team: `organization` is their organization membership, `team` their place in the team. */
export const TeamMembershipType = builder.objectRef<Membership>('TeamMembership').implement({
  fields: (t) => ({
    organization: t.field({ type: MemberType, resolve: (m) => m.member }),
    team: t.field({ type: TeamMemberInfo, resolve: (m) => ({ role: m.role }) }),
    // Listed only to callers who can see the team, who can see each of its members.
    permissions: t.field({ type: TeamMembershipPermissions, resolve: () => ({ view: true }) }),
  }),
});

const TeamMembershipList = listOf('TeamMembership', TeamMembershipType);

builder.objectField(TeamType, 'memberships', (t) =>
  t.field({
    type: TeamMembershipList,
    description: 'The team’s members',
    args: pageArgs(t),
    resolve: (team, args, ctx) => listTeamMembers(ctx, team.organizationId, team.id, args),
  }),
);

builder.objectFields(OrganizationType, (t) => ({
  teams: t.field({
    type: TeamList,
    args: {
      ...pageArgs(t),
      owner: t.arg.id({ required: false, description: 'A member id: only the teams that member can manage' }),
      title: t.arg.string({ required: false, description: 'Only teams whose title contains this (case-insensitive)' }),
    },
    resolve: (org, args, ctx) => listTeams(ctx, org.id, { ...args, owner: args.owner == null ? null : String(args.owner) }),
  }),
  team: t.field({
    type: TeamType,
    args: { id: t.arg.id({ required: true }) },
    resolve: (org, { id }, ctx) => getTeam(ctx, org.id, String(id)),
  }),
}));
// As `organization(id:) { team(id:) }` (getTeam checks the organization first, as that field does).
registerNode(TeamType, {
  args: ['organizationId', 'id'],
  keys: (team) => [team.organizationId, team.id],
  load: (ctx, [orgId, id]) => getTeam(ctx, orgId!, id!),
});

const CreateTeamInput = builder.inputType('CreateTeamInput', {
  fields: (t) => ({
    title: t.string({ description: 'Required, 1..64 characters' }),
    members: t.idList({ description: 'User ids of organization members to put in the team' }),
  }),
});

const UpdateTeamInput = builder.inputType('UpdateTeamInput', {
  fields: (t) => ({ title: t.string({ description: 'Required, 1..64 characters' }) }),
});

const TeamMembershipInput = builder.inputType('TeamMembershipInput', {
  fields: (t) => ({
    user: t.string({ required: true, description: 'User id' }),
    role: t.field({ type: TeamMemberRoleEnum, required: true }),
  }),
});

const UpdateTeamMembersInput = builder.inputType('UpdateTeamMembersInput', {
  fields: (t) => ({
    add: t.stringList({ description: 'Users to add, by id or email' }),
    remove: t.stringList({ description: 'Users to remove, by id or email (wins over add)' }),
    memberships: t.field({
      type: [TeamMembershipInput],
      description: 'Roles by user (official: a map from user id to { role }); adds the user when not in the team',
    }),
  }),
});

const SetTeamMemberInput = builder.inputType('SetTeamMemberInput', {
  fields: (t) => ({
    role: t.field({ type: TeamMemberRoleEnum, description: 'absent: member for a new team member, unchanged otherwise' }),
  }),
});

const teamArgs = (t: { arg: { id: (o: { required: true }) => any } }) => ({
  organizationId: t.arg.id({ required: true }),
  teamId: t.arg.id({ required: true }),
});

builder.mutationFields((t) => ({
  createTeam: t.field({
    type: TeamType,
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: CreateTeamInput, required: true }) },
    resolve: (_r, { organizationId, input }, ctx) =>
      createTeam(ctx, String(organizationId), { title: input.title, members: input.members?.map(String) }),
  }),
  updateTeam: t.field({
    type: TeamType,
    args: { ...teamArgs(t), input: t.arg({ type: UpdateTeamInput, required: true }) },
    resolve: (_r, args, ctx) => updateTeam(ctx, String(args.organizationId), String(args.teamId), args.input),
  }),
  deleteTeam: t.boolean({
    description: 'Delete a team; NOT_FOUND when there is none the caller sees',
    args: teamArgs(t),
    resolve: (_r, args, ctx) => deleteTeam(ctx, String(args.organizationId), String(args.teamId)),
  }),
  updateTeamMembers: t.boolean({
    args: { ...teamArgs(t), input: t.arg({ type: UpdateTeamMembersInput, required: true }) },
    resolve: (_r, args, ctx) =>
      updateTeamMembers(ctx, String(args.organizationId), String(args.teamId), {
        ...args.input,
        memberships: args.input.memberships && Object.fromEntries(args.input.memberships.map((m) => [m.user, { role: m.role }])),
      }),
  }),
  setTeamMember: t.boolean({
    description: 'Add a member of the organization to the team, or change their role',
    args: { ...teamArgs(t), userId: t.arg.id({ required: true }), input: t.arg({ type: SetTeamMemberInput, required: false }) },
    resolve: (_r, args, ctx) => setTeamMember(ctx, String(args.organizationId), String(args.teamId), String(args.userId), args.input?.role),
  }),
  removeTeamMember: t.boolean({
    description:
      'Remove a user from the team; false when a member of the organization was not in it, NOT_FOUND for someone who is no member',
    args: { ...teamArgs(t), userId: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => removeTeamMember(ctx, String(args.organizationId), String(args.teamId), String(args.userId)),
  }),
}));
