import type { RestRoute } from '../../rest/route.js';

const FIELDS = /* GraphQL */ `fragment AgentInstructionsFields on AgentInstructions { object instructions updatedAt updatedBy urls { location } }`;

export const agentInstructionsRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/orgs/:organizationId/agent-instructions',
    operationId: 'getOrganizationAgentInstructions',
    document: `query AgentInstructions($organizationId: ID!) { organization(id: $organizationId) { agentInstructions { ...AgentInstructionsFields } } } ${FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId }),
    result: (data) => data.organization.agentInstructions,
  },
  {
    method: 'PUT',
    path: '/orgs/:organizationId/agent-instructions',
    operationId: 'updateOrganizationAgentInstructions',
    document: `mutation UpdateAgentInstructions($organizationId: ID!, $input: UpdateAgentInstructionsInput!) {
      updateAgentInstructions(organizationId: $organizationId, input: $input) { ...AgentInstructionsFields }
    } ${FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, input: req.body }),
    result: (data) => data.updateAgentInstructions,
  },
];
