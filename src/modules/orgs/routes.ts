import { deletedStatus, LIST_FIELDS, listVariables, type RestRoute } from '../../rest/route.js';
import { USER_FIELDS } from '../users/index.js';
import { restBodyValue } from '../../rest/typed-body.js';
import { MERGE_RULES_SELECTION, restMergeRulesBody } from './merge-rules.js';
import { defaultContentOf } from './service.js';

/**
 * An update body with `defaultContent` as OrganizationDefaultContentInput takes it: checked (other
 * keys dropped, as the service stores it), or refused with the service's 400 when the input type
 * cannot hold it (src/rest/typed-body.ts).
 */
function restDefaultContentBody(body: Record<string, unknown>): Record<string, unknown> {
  if (!('defaultContent' in body)) return body;
  return { ...body, defaultContent: restBodyValue(body.defaultContent, 'OrganizationDefaultContentInput', defaultContentOf) };
}

export const ORGANIZATION_FIELDS = /* GraphQL */ `
fragment OrganizationFields on Organization {
  object id title createdAt emailDomains hostname type useCase communityType defaultRole defaultContent { type site }
  sso ai inviteLinks plan mergeRules ${MERGE_RULES_SELECTION} customHostname trial { status count } urls { location app logo }
  permissions { view access admin ownTeam createContent createOpenAPISpec ingestConversations viewBilling listMembers listTeams listIntegrations listInstallations installIntegration }
}`;

export const MEMBER_FIELDS = /* GraphQL */ `
fragment MemberFields on Member { object id role user { ...UserFields } disabled joinedAt lastSeenAt sso spaces teams sites }
${USER_FIELDS}`;

const orgId = (req: { params: Record<string, string> }) => ({ organizationId: req.params.organizationId });

export const organizationRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/orgs',
    operationId: 'listOrganizationsForAuthenticatedUser',
    document: `query Orgs($page: String, $limit: Int) { organizations(page: $page, limit: $limit) { items { ...OrganizationFields } ${LIST_FIELDS} } } ${ORGANIZATION_FIELDS}`,
    variables: listVariables,
    result: (data) => data.organizations,
  },
  {
    method: 'GET',
    path: '/orgs/:organizationId',
    operationId: 'getOrganizationById',
    document: `query Org($id: ID!) { organization(id: $id) { ...OrganizationFields } } ${ORGANIZATION_FIELDS}`,
    variables: (req) => ({ id: req.params.organizationId }),
    result: (data) => data.organization,
  },
  {
    method: 'PATCH',
    path: '/orgs/:organizationId',
    operationId: 'updateOrganizationById',
    document: `mutation UpdateOrg($id: ID!, $input: UpdateOrganizationInput!) { updateOrganization(id: $id, input: $input) { ...OrganizationFields } } ${ORGANIZATION_FIELDS}`,
    variables: (req) => ({
      id: req.params.organizationId,
      input: restDefaultContentBody(restMergeRulesBody(req.body, { allowInherit: false })),
    }),
    result: (data) => data.updateOrganization,
  },
  {
    method: 'POST',
    path: '/orgs/:organizationId/join',
    operationId: 'joinOrganization',
    document: `mutation JoinOrg($id: ID!) { joinOrganization(id: $id) }`,
    variables: (req) => ({ id: req.params.organizationId }),
    result: () => undefined,
    status: 204,
  },
  {
    method: 'GET',
    path: '/orgs/:organizationId/members',
    operationId: 'listMembersInOrganizationById',
    document: `query Members($organizationId: ID!, $page: String, $limit: Int, $role: MemberRoleFilter, $search: String, $sort: MemberListSort, $order: MemberListOrder) {
      organization(id: $organizationId) { members(page: $page, limit: $limit, role: $role, search: $search, sort: $sort, order: $order) { items { ...MemberFields } ${LIST_FIELDS} } }
    } ${MEMBER_FIELDS}`,
    variables: (req) => ({
      ...orgId(req),
      ...listVariables(req),
      role: req.query.role || undefined,
      search: req.query.search || undefined,
      sort: req.query.sort || undefined,
      order: req.query.order || undefined,
    }),
    result: (data) => data.organization.members,
  },
  {
    method: 'GET',
    path: '/orgs/:organizationId/members/:userId',
    operationId: 'getMemberInOrganizationById',
    document: `query Member($organizationId: ID!, $userId: ID!) { organization(id: $organizationId) { member(userId: $userId) { ...MemberFields } } } ${MEMBER_FIELDS}`,
    variables: (req) => ({ ...orgId(req), userId: req.params.userId }),
    result: (data) => data.organization.member,
  },
  {
    method: 'PATCH',
    path: '/orgs/:organizationId/members/:userId',
    operationId: 'updateMemberInOrganizationById',
    document: `mutation UpdateMember($organizationId: ID!, $userId: ID!, $role: Role) { updateMember(organizationId: $organizationId, userId: $userId, role: $role) { ...MemberFields } } ${MEMBER_FIELDS}`,
    variables: (req) => ({ ...orgId(req), userId: req.params.userId, ...('role' in req.body ? { role: req.body.role } : {}) }),
    result: (data) => data.updateMember,
  },
  {
    method: 'DELETE',
    path: '/orgs/:organizationId/members/:userId',
    operationId: 'removeMemberFromOrganizationById',
    document: `mutation RemoveMember($organizationId: ID!, $userId: ID!) { removeMember(organizationId: $organizationId, userId: $userId) }`,
    variables: (req) => ({ ...orgId(req), userId: req.params.userId }),
    result: () => undefined,
    status: (data) => deletedStatus(data.removeMember),
  },
];
