import { LIST_FIELDS, listVariables, type RestRequest, type RestRoute } from '../../rest/route.js';

export const CONVERSATION_FIELDS = /* GraphQL */ `
fragment ConversationFields on Conversation { object id subject createdAt processedAt source impact urls { location source } }`;

const ISSUE_FIELDS = /* GraphQL */ `
fragment ConversationIssueFields on ConversationIssue { object id title summary details impact createdAt ingestedAt conversation cluster urls { location } }`;

const CLUSTER_FIELDS = /* GraphQL */ `
fragment ClusterFields on ConversationsIssuesCluster {
  object id label createdAt updatedAt icon summary muted impact weeklyPulse sources { source issues }
  stats { issues conversations tasksTotal tasksBacklog tasksStarted tasksCompleted tasksCancelled }
  urls { location app }
}`;

/** A cluster as REST answers it: `sources` a map from source to its count of issues, in the listed order. */
const restCluster = (cluster: { sources: { source: string; issues: number }[] }) => ({
  ...cluster,
  sources: Object.fromEntries(cluster.sources.map((s) => [s.source, s.issues])),
});

const org = (req: RestRequest) => ({ organizationId: req.params.organizationId });

export const conversationRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/orgs/:organizationId/conversations',
    operationId: 'listConversations',
    document: `query Conversations($organizationId: ID!, $page: String, $limit: Int, $source: String) {
      organization(id: $organizationId) { conversations(page: $page, limit: $limit, source: $source) { items { ...ConversationFields } ${LIST_FIELDS} } }
    } ${CONVERSATION_FIELDS}`,
    variables: (req) => ({ ...org(req), ...listVariables(req), source: req.query.source || undefined }),
    result: (data) => data.organization.conversations,
  },
  {
    method: 'POST',
    path: '/orgs/:organizationId/conversations',
    operationId: 'ingestConversation',
    // The body is one ConversationInput or an array of them.
    acceptsArrayBody: true,
    document: `mutation IngestConversations($organizationId: ID!, $conversations: [ConversationInput!]!) {
      ingestConversations(organizationId: $organizationId, conversations: $conversations)
    }`,
    variables: (req) => ({ ...org(req), conversations: req.bodyList ?? [req.body] }),
    result: () => undefined,
    status: 204,
  },
  {
    method: 'GET',
    path: '/orgs/:organizationId/conversations/:conversationId',
    operationId: 'getConversationById',
    document: `query Conversation($organizationId: ID!, $id: ID!) {
      organization(id: $organizationId) { conversation(id: $id) {
        conversation { ...ConversationFields } parts { type role body } metadata { url attributes createdAt }
      } }
    } ${CONVERSATION_FIELDS}`,
    variables: (req) => ({ ...org(req), id: req.params.conversationId }),
    result: (data) => data.organization.conversation,
  },
  {
    method: 'GET',
    path: '/orgs/:organizationId/conversations-issues',
    operationId: 'listConversationsIssues',
    document: `query ConversationIssues($organizationId: ID!, $page: String, $limit: Int, $cluster: String, $conversation: String) {
      organization(id: $organizationId) { conversationIssues(page: $page, limit: $limit, cluster: $cluster, conversation: $conversation) {
        items { issue { ...ConversationIssueFields } conversation { ...ConversationFields } } ${LIST_FIELDS}
      } }
    } ${ISSUE_FIELDS} ${CONVERSATION_FIELDS}`,
    variables: (req) => ({
      ...org(req),
      ...listVariables(req),
      cluster: req.query.cluster || undefined,
      conversation: req.query.conversation || undefined,
    }),
    result: (data) => data.organization.conversationIssues,
  },
  {
    method: 'GET',
    path: '/orgs/:organizationId/conversations-issues/:issueId',
    operationId: 'getConversationIssueById',
    document: `query ConversationIssue($organizationId: ID!, $id: ID!) {
      organization(id: $organizationId) { conversationIssue(id: $id) { issue { ...ConversationIssueFields } conversation { ...ConversationFields } } }
    } ${ISSUE_FIELDS} ${CONVERSATION_FIELDS}`,
    variables: (req) => ({ ...org(req), id: req.params.issueId }),
    result: (data) => data.organization.conversationIssue,
  },
  {
    method: 'GET',
    path: '/orgs/:organizationId/conversations-clusters',
    operationId: 'listConversationsIssuesClusters',
    document: `query Clusters($organizationId: ID!, $page: String, $limit: Int, $order: ConversationsIssuesClusterOrder, $orderBy: ConversationsIssuesClusterOrderBy, $status: ConversationsIssuesClusterStatus) {
      organization(id: $organizationId) { issuesClusters(page: $page, limit: $limit, order: $order, orderBy: $orderBy, status: $status) { items { ...ClusterFields } ${LIST_FIELDS} } }
    } ${CLUSTER_FIELDS}`,
    variables: (req) => ({
      ...org(req),
      ...listVariables(req),
      order: req.query.order || undefined,
      orderBy: req.query.orderBy || undefined,
      status: req.query.status || undefined,
    }),
    result: (data) => ({ ...data.organization.issuesClusters, items: data.organization.issuesClusters.items.map(restCluster) }),
  },
  {
    method: 'GET',
    path: '/orgs/:organizationId/conversations-clusters/:clusterId',
    operationId: 'getConversationsIssuesCluster',
    document: `query Cluster($organizationId: ID!, $id: ID!) { organization(id: $organizationId) { issuesCluster(id: $id) { ...ClusterFields } } } ${CLUSTER_FIELDS}`,
    variables: (req) => ({ ...org(req), id: req.params.clusterId }),
    result: (data) => restCluster(data.organization.issuesCluster),
  },
  {
    // In the seed (PATCH with `muted`), not in the official description: a Lectern extension.
    method: 'PATCH',
    path: '/orgs/:organizationId/conversations-clusters/:clusterId',
    operationId: 'lectern:updateConversationsIssuesCluster',
    document: `mutation UpdateCluster($organizationId: ID!, $clusterId: ID!, $input: UpdateConversationsIssuesClusterInput!) {
      updateIssuesCluster(organizationId: $organizationId, clusterId: $clusterId, input: $input) { ...ClusterFields }
    } ${CLUSTER_FIELDS}`,
    variables: (req) => ({ ...org(req), clusterId: req.params.clusterId, input: req.body }),
    result: (data) => restCluster(data.updateIssuesCluster),
  },
];
