// The invites' GraphQL schema: invite links, invitations by email, and (account-invitation.ts)
// invitations of existing accounts.
import { builder, type Model } from '../../graphql/builder.js';
import { RoleEnum } from '../../graphql/enums.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { OrganizationType } from '../orgs/index.js';
import { SpaceType } from '../spaces/index.js';
import { CollectionType } from '../collections/index.js';
import { accessRows } from '../../auth/access-rows.js';
// Invitations of existing accounts, which they accept themselves (Lectern's addition).
import './account-invitation.js';
import {
  createInviteLink,
  deleteInviteLink,
  getInviteLink,
  inviteLinkId,
  inviteRedundant,
  inviteUsers,
  joinWithInviteLink,
  listInviteLinks,
  updateInviteLink,
} from './service.js';

const scoped = (i: Model<'InviteLink'>) => Boolean(i.spaceId || i.collectionId);

/** An invite link: to the organization (the official InviteLinkToOrganization), or to one space or collection (InviteLinkToSpace/ToCollection). */
export const InviteLinkType = builder.objectRef<Model<'InviteLink'>>('InviteLink').implement({
  fields: (t) => ({
    object: t.string({ resolve: () => 'invite' }),
    id: t.id({ description: 'The invite’s secret: whoever holds it can join', resolve: (i, _a, ctx) => inviteLinkId(ctx, i) }),
    role: t.field({
      type: RoleEnum,
      nullable: true,
      extensions: { restKeepNull: true },
      description: 'The role in the organization who joins gets (null: guest; always null for an invite to a space or collection)',
      resolve: (i) => (scoped(i) ? null : i.role),
    }),
    level: t.field({
      type: RoleEnum,
      nullable: true,
      description: 'An invite to a space or collection: the role there of who joins (a guest of the organization)',
      resolve: (i) => (scoped(i) ? i.role : null),
    }),
    space: t.field({
      type: SpaceType,
      nullable: true,
      resolve: (i, _a, ctx) => (i.spaceId ? accessRows(ctx).space.load(i.spaceId) : null),
    }),
    collection: t.field({
      type: CollectionType,
      nullable: true,
      resolve: (i, _a, ctx) => (i.collectionId ? accessRows(ctx).collection.load(i.collectionId) : null),
    }),
    redundant: t.boolean({
      description: 'Whether the caller already has everything the invite gives',
      resolve: (i, _a, ctx) => inviteRedundant(ctx, i),
    }),
  }),
});

const InviteLinkList = listOf('InviteLink', InviteLinkType);

builder.objectFields(OrganizationType, (t) => ({
  invites: t.field({ type: InviteLinkList, args: pageArgs(t), resolve: (org, args, ctx) => listInviteLinks(ctx, org.id, args) }),
  invite: t.field({
    type: InviteLinkType,
    args: { id: t.arg.id({ required: true }) },
    resolve: (org, { id }, ctx) => getInviteLink(ctx, org.id, String(id)),
  }),
}));

const InviteLinkInput = builder.inputType('InviteLinkInput', {
  description:
    'An invite to the organization with `role` (null: guest), or to one space (`space`) or collection (`collection`) with `level`: who joins is a guest with that role there',
  fields: (t) => ({
    role: t.field({ type: RoleEnum }),
    level: t.field({ type: RoleEnum }),
    space: t.id(),
    collection: t.id(),
  }),
});

const UpdateInviteLinkInput = builder.inputType('UpdateInviteLinkInput', {
  fields: (t) => ({ role: t.field({ type: RoleEnum }), level: t.field({ type: RoleEnum }) }),
});

const InviteeInput = builder.inputType('InviteeInput', {
  description: 'Someone to invite (official: an email, or { email, role })',
  fields: (t) => ({
    email: t.string({ required: true }),
    role: t.field({
      type: RoleEnum,
      description: 'Their role (null: a guest); absent: the input’s role, else the organization’s default role',
    }),
  }),
});

const InviteUsersInput = builder.inputType('InviteUsersInput', {
  fields: (t) => ({
    emails: t.field({ type: [InviteeInput], required: true, description: 'At least 1 and at most 100' }),
    role: t.field({
      type: RoleEnum,
      description: 'Role of the entries without one (absent: the organization’s default role; null: guest)',
    }),
    sso: t.boolean({ description: 'Add the new members as SSO members' }),
  }),
});

const InviteUsersResult = builder.objectRef<{ users: string[]; invited: number }>('InviteUsersResult').implement({
  fields: (t) => ({
    users: t.exposeStringList('users', { description: 'Ids of the users added to the organization' }),
    invited: t.exposeInt('invited', { description: 'How many users were added' }),
  }),
});

const inviteArgs = (t: { arg: { id: (o: { required: true }) => any } }) => ({
  organizationId: t.arg.id({ required: true }),
  inviteId: t.arg.id({ required: true }),
});

const ids = (id: string | number | null | undefined) => (id == null ? id : String(id));

builder.mutationFields((t) => ({
  createInviteLink: t.field({
    type: InviteLinkType,
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: InviteLinkInput, required: true }) },
    resolve: (_r, { organizationId, input }, ctx) =>
      createInviteLink(ctx, String(organizationId), { ...input, space: ids(input.space), collection: ids(input.collection) }),
  }),
  updateInviteLink: t.field({
    type: InviteLinkType,
    args: { ...inviteArgs(t), input: t.arg({ type: UpdateInviteLinkInput, required: true }) },
    resolve: (_r, args, ctx) => updateInviteLink(ctx, String(args.organizationId), String(args.inviteId), args.input),
  }),
  deleteInviteLink: t.boolean({
    description: 'Delete an invite link; NOT_FOUND when there is none',
    args: inviteArgs(t),
    resolve: (_r, args, ctx) => deleteInviteLink(ctx, String(args.organizationId), String(args.inviteId)),
  }),
  joinOrganizationWithInvite: t.boolean({
    description: 'Join an organization through one of its invite links',
    args: inviteArgs(t),
    resolve: (_r, args, ctx) => joinWithInviteLink(ctx, String(args.organizationId), String(args.inviteId)),
  }),
  inviteUsersToOrganization: t.field({
    type: InviteUsersResult,
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: InviteUsersInput, required: true }) },
    // An entry without a role is a plain email to the service: it takes the default role.
    resolve: (_r, { organizationId, input }, ctx) =>
      inviteUsers(ctx, String(organizationId), {
        ...input,
        emails: input.emails.map((e) => ('role' in e ? { email: e.email, role: e.role } : e.email)),
      }),
  }),
}));
