import { deletedStatus, LIST_FIELDS, listVariables, type RestRequest, type RestRoute } from '../../rest/route.js';
import { SPACE_FIELDS } from '../spaces/index.js';
import { COLLECTION_FIELDS } from '../collections/index.js';
import { fitsInput } from '../../rest/typed-body.js';
import { invitee } from './service.js';

/**
 * The official invite body with `emails` as InviteeInput entries: an email is `{ email }`, an
 * entry `{ email, role }` as it is. An entry the input cannot hold (an object without a role,
 * which a plain `{ email }` would change into a default-role invitee, a number, an unknown key…)
 * gets the service's own 400 here (src/rest/typed-body.ts).
 */
function restInviteBody(body: RestRequest['body']): RestRequest['body'] {
  if (body.emails === undefined || body.emails === null) return body;
  // GraphQL took a lone email as a list of one.
  const emails = (Array.isArray(body.emails) ? body.emails : [body.emails]).map((entry: unknown, i: number) => {
    if (typeof entry === 'string' || entry === null) return entry === null ? entry : { email: entry };
    if (typeof entry === 'object' && !Array.isArray(entry) && 'role' in entry && fitsInput(entry, 'InviteeInput')) return entry;
    invitee(entry, i, null);
    return entry;
  });
  return { ...body, emails };
}

const INVITE_FIELDS = /* GraphQL */ `fragment InviteLinkFields on InviteLink {
  object id role level redundant space { ...SpaceFields } collection { ...CollectionFields }
} ${SPACE_FIELDS} ${COLLECTION_FIELDS}`;

/**
 * One invite link as the official OrganizationInviteLink (a oneOf): a link to a space or collection
 * carries `level` and its `space` or `collection`, and no `role`. In the list (whose official items
 * are InviteLinkToOrganization) such a link keeps `role: null`: who joins through it is a guest.
 */
const oneInvite = (invite: Record<string, unknown>) => {
  if (invite.level === undefined) return invite;
  const { role: _, ...scoped } = invite;
  return scoped;
};

const ids = (req: RestRequest) => ({ organizationId: req.params.organizationId, inviteId: req.params.inviteId });

export const inviteRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/orgs/:organizationId/link-invites',
    operationId: 'listOrganizationInviteLinks',
    document: `query InviteLinks($organizationId: ID!, $page: String, $limit: Int) {
      organization(id: $organizationId) { invites(page: $page, limit: $limit) { items { ...InviteLinkFields } ${LIST_FIELDS} } }
    } ${INVITE_FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, ...listVariables(req) }),
    result: (data) => data.organization.invites,
  },
  {
    method: 'POST',
    path: '/orgs/:organizationId/link-invites',
    operationId: 'createOrganizationInvite',
    document: `mutation CreateInviteLink($organizationId: ID!, $input: InviteLinkInput!) {
      createInviteLink(organizationId: $organizationId, input: $input) { ...InviteLinkFields }
    } ${INVITE_FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, input: req.body }),
    result: (data) => oneInvite(data.createInviteLink),
    status: 201,
  },
  {
    method: 'GET',
    path: '/orgs/:organizationId/link-invites/:inviteId',
    operationId: 'getOrganizationInviteLink',
    document: `query InviteLink($organizationId: ID!, $inviteId: ID!) {
      organization(id: $organizationId) { invite(id: $inviteId) { ...InviteLinkFields } }
    } ${INVITE_FIELDS}`,
    variables: ids,
    result: (data) => oneInvite(data.organization.invite),
  },
  {
    method: 'PATCH',
    path: '/orgs/:organizationId/link-invites/:inviteId',
    operationId: 'updateOrganizationInviteById',
    document: `mutation UpdateInviteLink($organizationId: ID!, $inviteId: ID!, $input: UpdateInviteLinkInput!) {
      updateInviteLink(organizationId: $organizationId, inviteId: $inviteId, input: $input) { ...InviteLinkFields }
    } ${INVITE_FIELDS}`,
    variables: (req) => ({ ...ids(req), input: req.body }),
    result: (data) => oneInvite(data.updateInviteLink),
  },
  {
    method: 'DELETE',
    path: '/orgs/:organizationId/link-invites/:inviteId',
    operationId: 'deleteOrganizationInviteById',
    document: `mutation DeleteInvite($organizationId: ID!, $inviteId: ID!) { deleteInviteLink(organizationId: $organizationId, inviteId: $inviteId) }`,
    variables: ids,
    result: () => undefined,
    status: (data) => deletedStatus(data.deleteInviteLink),
  },
  {
    method: 'POST',
    path: '/orgs/:organizationId/invites/:inviteId',
    operationId: 'joinOrganizationWithInvite',
    document: `mutation JoinWithInvite($organizationId: ID!, $inviteId: ID!) { joinOrganizationWithInvite(organizationId: $organizationId, inviteId: $inviteId) }`,
    variables: ids,
    result: () => ({}),
  },
  {
    method: 'POST',
    path: '/orgs/:organizationId/invites',
    operationId: 'inviteUsersToOrganization',
    document: `mutation InviteUsers($organizationId: ID!, $input: InviteUsersInput!) {
      inviteUsersToOrganization(organizationId: $organizationId, input: $input) { users invited }
    }`,
    variables: (req) => ({ organizationId: req.params.organizationId, input: restInviteBody(req.body) }),
    result: (data) => data.inviteUsersToOrganization,
  },
  // Lectern's additions: an existing account invited by email joins only when it accepts, signed in
  // as itself (the official API has no operation for that: GitBook's invitee follows a link in a mail).
  {
    method: 'GET',
    path: '/user/invitations',
    operationId: 'lectern:listInvitationsForAuthenticatedUser',
    document: `query MyInvitations($page: String, $limit: Int) {
      invitations(page: $page, limit: $limit) { items { object id organization role sso createdAt } ${LIST_FIELDS} }
    }`,
    variables: (req) => listVariables(req),
    result: (data) => data.invitations,
  },
  {
    method: 'POST',
    path: '/orgs/:organizationId/invitation/accept',
    operationId: 'lectern:acceptOrganizationInvitation',
    document: `mutation AcceptInvitation($organizationId: ID!) { acceptOrganizationInvitation(organizationId: $organizationId) }`,
    variables: (req) => ({ organizationId: req.params.organizationId }),
    result: () => undefined,
    status: 204,
  },
  {
    method: 'DELETE',
    path: '/orgs/:organizationId/invitation',
    operationId: 'lectern:declineOrganizationInvitation',
    document: `mutation DeclineInvitation($organizationId: ID!) { declineOrganizationInvitation(organizationId: $organizationId) }`,
    variables: (req) => ({ organizationId: req.params.organizationId }),
    result: () => undefined,
    status: (data) => deletedStatus(data.declineOrganizationInvitation),
  },
];
