import { deletedStatus, LIST_FIELDS, listVariables, type RestRequest, type RestRoute } from '../../rest/route.js';
import { TEAM_FIELDS } from '../teams/index.js';
import { USER_FIELDS } from '../users/index.js';

/** Grants of users and teams on spaces, collections and sites, as the official operations. */

const KINDS = [
  {
    Name: 'Space',
    base: '/spaces/:spaceId/permissions',
    resource: '$spaceId: ID!',
    pass: 'spaceId: $spaceId',
    params: (r: RestRequest) => ({ spaceId: r.params.spaceId }),
  },
  {
    Name: 'Collection',
    base: '/collections/:collectionId/permissions',
    resource: '$collectionId: ID!',
    pass: 'collectionId: $collectionId',
    params: (r: RestRequest) => ({ collectionId: r.params.collectionId }),
  },
  {
    Name: 'Site',
    base: '/orgs/:organizationId/sites/:siteId/permissions',
    resource: '$organizationId: ID!, $siteId: ID!',
    pass: 'organizationId: $organizationId, siteId: $siteId',
    params: (r: RestRequest) => ({ organizationId: r.params.organizationId, siteId: r.params.siteId }),
  },
] as const;

export const permissionRoutes: RestRoute[] = KINDS.flatMap(({ Name, base, resource, pass, params }): RestRoute[] => [
  {
    method: 'GET',
    path: `${base}/users`,
    operationId: `listUserPermissionsIn${Name}`,
    document: `query UserPermissionsIn${Name}(${resource}, $page: String, $limit: Int) {
      userPermissionsIn${Name}(${pass}, page: $page, limit: $limit) { items { permission user { ...UserFields } } ${LIST_FIELDS} }
    } ${USER_FIELDS}`,
    variables: (req) => ({ ...params(req), ...listVariables(req) }),
    result: (data) => data[`userPermissionsIn${Name}`],
  },
  {
    method: 'GET',
    path: `${base}/teams`,
    operationId: `listTeamPermissionsIn${Name}`,
    document: `query TeamPermissionsIn${Name}(${resource}, $page: String, $limit: Int) {
      teamPermissionsIn${Name}(${pass}, page: $page, limit: $limit) { items { permission team { ...TeamFields } } ${LIST_FIELDS} }
    } ${TEAM_FIELDS}`,
    variables: (req) => ({ ...params(req), ...listVariables(req) }),
    result: (data) => data[`teamPermissionsIn${Name}`],
  },
  Name === 'Site'
    ? {
        method: 'GET',
        path: `${base}/aggregate`,
        operationId: 'listPermissionsAggregateInSite',
        document: `query PermissionsAggregateInSite(${resource}, $page: String, $limit: Int, $role: String, $search: String, $team: ID, $order: String, $sort: String) {
          permissionsAggregateInSite(${pass}, page: $page, limit: $limit, role: $role, search: $search, team: $team, order: $order, sort: $sort) {
            items { permission user { ...UserFields } origin { type organization site reason team } disabled lastSeenAt } ${LIST_FIELDS}
          }
        } ${USER_FIELDS}`,
        variables: (req) => ({
          ...params(req),
          ...listVariables(req),
          role: req.query.role || undefined,
          search: req.query.search || undefined,
          team: req.query.team || undefined,
          order: req.query.order || undefined,
          sort: req.query.sort || undefined,
        }),
        result: (data) => data.permissionsAggregateInSite,
      }
    : {
        method: 'GET',
        path: `${base}/aggregate`,
        operationId: `listPermissionsAggregateIn${Name}`,
        document: `query PermissionsAggregateIn${Name}(${resource}, $page: String, $limit: Int, $role: Role) {
          permissionsAggregateIn${Name}(${pass}, page: $page, limit: $limit, role: $role) { items { permission user { ...UserFields } } ${LIST_FIELDS} }
        } ${USER_FIELDS}`,
        variables: (req) => ({ ...params(req), ...listVariables(req), role: req.query.role || undefined }),
        result: (data) => data[`permissionsAggregateIn${Name}`],
      },
  {
    method: 'PATCH',
    path: `${base}/users/:userId`,
    operationId: `updateUserPermissionIn${Name}`,
    document: `mutation UpdateUserPermissionIn${Name}(${resource}, $userId: ID!, $input: GrantInput!) { updateUserPermissionIn${Name}(${pass}, userId: $userId, input: $input) }`,
    variables: (req) => ({ ...params(req), userId: req.params.userId, input: req.body }),
    result: () => undefined,
    status: 204,
  },
  {
    method: 'DELETE',
    path: `${base}/users/:userId`,
    operationId: Name === 'Site' ? 'removeUserFromSite' : `removeUserFrom${Name}`,
    document: `mutation RemoveUserFrom${Name}(${resource}, $userId: ID!) { removeUserFrom${Name}(${pass}, userId: $userId) }`,
    variables: (req) => ({ ...params(req), userId: req.params.userId }),
    result: () => undefined,
    status: (data) => deletedStatus(data[`removeUserFrom${Name}`]),
  },
  {
    method: 'PATCH',
    path: `${base}/teams/:teamId`,
    operationId: `updateTeamPermissionIn${Name}`,
    document: `mutation UpdateTeamPermissionIn${Name}(${resource}, $teamId: ID!, $input: GrantInput!) { updateTeamPermissionIn${Name}(${pass}, teamId: $teamId, input: $input) }`,
    variables: (req) => ({ ...params(req), teamId: req.params.teamId, input: req.body }),
    result: () => undefined,
    status: 204,
  },
  {
    method: 'DELETE',
    path: `${base}/teams/:teamId`,
    operationId: `removeTeamFrom${Name}`,
    document: `mutation RemoveTeamFrom${Name}(${resource}, $teamId: ID!) { removeTeamFrom${Name}(${pass}, teamId: $teamId) }`,
    variables: (req) => ({ ...params(req), teamId: req.params.teamId }),
    result: () => undefined,
    status: (data) => deletedStatus(data[`removeTeamFrom${Name}`]),
  },
  {
    method: 'POST',
    path: base,
    operationId: `inviteTo${Name}`,
    document: `mutation InviteTo${Name}(${resource}, $input: InviteToContentInput!) { inviteTo${Name}(${pass}, input: $input) }`,
    variables: (req) => ({ ...params(req), input: req.body }),
    result: () => undefined,
    status: 204,
  },
]);
