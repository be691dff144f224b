import { deletedStatus, LIST_FIELDS, listVariables, type RestRequest, type RestRoute } from '../../rest/route.js';
import { MEMBER_FIELDS } from '../orgs/index.js';
import { membershipRoles } from './service.js';

export const TEAM_FIELDS = /* GraphQL */ `
fragment TeamFields on Team { object id title members spaces createdAt permissions { admin view } }`;

const ids = (req: RestRequest) => ({ organizationId: req.params.organizationId, teamId: req.params.teamId });

export const teamRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/orgs/:organizationId/teams',
    operationId: 'listTeamsInOrganizationById',
    document: `query Teams($organizationId: ID!, $page: String, $limit: Int, $owner: ID, $title: String) {
      organization(id: $organizationId) { teams(page: $page, limit: $limit, owner: $owner, title: $title) { items { ...TeamFields } ${LIST_FIELDS} } }
    } ${TEAM_FIELDS}`,
    variables: (req) => ({
      organizationId: req.params.organizationId,
      ...listVariables(req),
      owner: req.query.owner || undefined,
      title: req.query.title || undefined,
    }),
    result: (data) => data.organization.teams,
  },
  {
    method: 'PUT',
    path: '/orgs/:organizationId/teams',
    operationId: 'createOrganizationTeam',
    document: `mutation CreateTeam($organizationId: ID!, $input: CreateTeamInput!) { createTeam(organizationId: $organizationId, input: $input) { ...TeamFields } } ${TEAM_FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, input: req.body }),
    result: (data) => data.createTeam,
    status: 201,
  },
  {
    method: 'GET',
    path: '/orgs/:organizationId/teams/:teamId',
    operationId: 'getTeamInOrganizationById',
    document: `query Team($organizationId: ID!, $teamId: ID!) { organization(id: $organizationId) { team(id: $teamId) { ...TeamFields } } } ${TEAM_FIELDS}`,
    variables: ids,
    result: (data) => data.organization.team,
  },
  {
    method: 'PATCH',
    path: '/orgs/:organizationId/teams/:teamId',
    operationId: 'updateTeamInOrganizationById',
    document: `mutation UpdateTeam($organizationId: ID!, $teamId: ID!, $input: UpdateTeamInput!) {
      updateTeam(organizationId: $organizationId, teamId: $teamId, input: $input) { ...TeamFields }
    } ${TEAM_FIELDS}`,
    variables: (req) => ({ ...ids(req), input: req.body }),
    result: (data) => data.updateTeam,
  },
  {
    method: 'DELETE',
    path: '/orgs/:organizationId/teams/:teamId',
    operationId: 'removeTeamFromOrganizationById',
    document: `mutation DeleteTeam($organizationId: ID!, $teamId: ID!) { deleteTeam(organizationId: $organizationId, teamId: $teamId) }`,
    variables: ids,
    result: () => undefined,
    status: (data) => deletedStatus(data.deleteTeam),
  },
  {
    method: 'GET',
    path: '/orgs/:organizationId/teams/:teamId/members',
    operationId: 'listTeamMembersInOrganizationById',
    document: `query TeamMembers($organizationId: ID!, $teamId: ID!, $page: String, $limit: Int) {
      organization(id: $organizationId) { team(id: $teamId) { memberships(page: $page, limit: $limit) {
        items { organization { ...MemberFields } team { role } permissions { view } } ${LIST_FIELDS}
      } } }
    } ${MEMBER_FIELDS}`,
    variables: (req) => ({ ...ids(req), ...listVariables(req) }),
    result: (data) => data.organization.team.memberships,
  },
  {
    method: 'PUT',
    path: '/orgs/:organizationId/teams/:teamId/members',
    operationId: 'updateMembersInOrganizationTeam',
    document: `mutation UpdateTeamMembers($organizationId: ID!, $teamId: ID!, $input: UpdateTeamMembersInput!) {
      updateTeamMembers(organizationId: $organizationId, teamId: $teamId, input: $input)
    }`,
    // The official map of roles by user id becomes TeamMembershipInput entries once checked (the
    // service's check: its 400 as ever, other keys of an entry ignored).
    variables: (req) => ({
      ...ids(req),
      input:
        req.body.memberships == null
          ? req.body
          : { ...req.body, memberships: [...membershipRoles(req.body.memberships)].map(([user, role]) => ({ user, role })) },
    }),
    result: () => undefined,
    status: 204,
  },
  {
    method: 'PUT',
    path: '/orgs/:organizationId/teams/:teamId/members/:userId',
    operationId: 'addMemberToOrganizationTeamById',
    document: `mutation SetTeamMember($organizationId: ID!, $teamId: ID!, $userId: ID!, $input: SetTeamMemberInput) {
      setTeamMember(organizationId: $organizationId, teamId: $teamId, userId: $userId, input: $input)
    }`,
    variables: (req) => ({ ...ids(req), userId: req.params.userId, input: req.body }),
    result: () => undefined,
    status: 204,
  },
  {
    method: 'DELETE',
    path: '/orgs/:organizationId/teams/:teamId/members/:userId',
    operationId: 'deleteMemberFromOrganizationTeamById',
    document: `mutation RemoveTeamMember($organizationId: ID!, $teamId: ID!, $userId: ID!) {
      removeTeamMember(organizationId: $organizationId, teamId: $teamId, userId: $userId)
    }`,
    variables: (req) => ({ ...ids(req), userId: req.params.userId }),
    result: () => undefined,
    status: (data) => deletedStatus(data.removeTeamMember),
  },
];
