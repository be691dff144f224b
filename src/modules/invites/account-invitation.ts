import { builder, type Model } from '../../graphql/builder.js';
import { RoleEnum } from '../../graphql/enums.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { acceptInvitation, declineInvitation, listMyInvitations } from './account-invitations.js';

/** An invitation of the caller's account to an organization (Lectern's addition: see ./account-invitations.ts). */
export const OrganizationInvitationType = builder.objectRef<Model<'OrganizationInvitation'>>('OrganizationInvitation').implement({
  fields: (t) => ({
    object: t.string({ resolve: () => 'organization-invitation' }),
    id: t.exposeID('id'),
    organization: t.exposeID('organizationId', { description: 'The organization it invites to' }),
    role: t.field({
      type: RoleEnum,
      nullable: true,
      extensions: { restKeepNull: true },
      resolve: (i) => i.role,
      description: 'The role a newcomer gets (null: guest); a member keeps theirs',
    }),
    sso: t.exposeBoolean('sso'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const OrganizationInvitationList = listOf('OrganizationInvitation', OrganizationInvitationType);

builder.queryField('invitations', (t) =>
  t.field({
    type: OrganizationInvitationList,
    description:
      "The caller's pending invitations to organizations (accepting one is the account's consent to join and to the organization's single sign-on)",
    args: pageArgs(t),
    resolve: (_r, args, ctx) => listMyInvitations(ctx, args),
  }),
);

builder.mutationFields((t) => ({
  acceptOrganizationInvitation: t.boolean({
    description: "Accept the caller's invitation to an organization: join it (a member keeps their role) and consent to its single sign-on",
    args: { organizationId: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => acceptInvitation(ctx, String(args.organizationId)),
  }),
  declineOrganizationInvitation: t.boolean({
    description: "Decline (delete) the caller's invitation to an organization; NOT_FOUND when there is none",
    args: { organizationId: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => declineInvitation(ctx, String(args.organizationId)),
  }),
}));
