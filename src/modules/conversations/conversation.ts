import { FREE_DOC } from '../../graphql/free-form.js';
import { builder, type Model } from '../../graphql/builder.js';
import { restEnum } from '../../graphql/enums.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import type { Conversation, ConversationIssue } from '../../generated/prisma/client.js';
import { documentFromMarkdown } from '../../document/index.js';
import { ChangeRequestType } from '../change-requests/index.js';
import { OrganizationType } from '../orgs/index.js';
import { IMPACTS } from './extract.js';
import { clusterLoaders, type ClusterTasks } from './loaders.js';
import {
  CLUSTER_ORDER_BY,
  CLUSTER_STATUSES,
  getCluster,
  getConversation,
  getIssue,
  ingestConversations,
  linkChangeRequestToCluster,
  listClusters,
  listConversations,
  listIssues,
  PART_ROLES,
  updateCluster,
} from './service.js';
import './analysis-job.js';

export const ImpactEnum = restEnum(
  'ConversationImpact',
  IMPACTS,
  'low: minor friction; medium: noticeable friction or partial blocking with workarounds; high: fully or near-fully blocking, severe regression, repeated failures or risk of data loss',
);
const PartRoleEnum = restEnum(
  'ConversationPartRole',
  PART_ROLES,
  'Who wrote a message: the customer (user), an assistant, or a team member',
);
const PartTypeEnum = restEnum('ConversationPartType', ['message'] as const);
const ClusterOrderEnum = restEnum('ConversationsIssuesClusterOrder', ['asc', 'desc'] as const);
const ClusterOrderByEnum = restEnum('ConversationsIssuesClusterOrderBy', CLUSTER_ORDER_BY);
const ClusterStatusEnum = restEnum('ConversationsIssuesClusterStatus', CLUSTER_STATUSES);

const LocationUrls = builder
  .objectRef<{ location: string }>('ConversationLocationUrls')
  .implement({ fields: (t) => ({ location: t.exposeString('location') }) });

export const ConversationType = builder.objectRef<Model<'Conversation'>>('Conversation').implement({
  description: 'A support conversation ingested for analysis',
  fields: (t) => ({
    object: t.string({ resolve: () => 'conversation' }),
    id: t.exposeID('id'),
    externalId: t.exposeString('externalId', { description: 'The id its source gave it (the `id` it was ingested with)' }),
    subject: t.exposeString('subject', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    processedAt: t.expose('processedAt', { type: 'DateTime', nullable: true, description: 'When its latest content was analysed' }),
    source: t.exposeString('source', { description: '`email` or `integration:<channel>:<organization id>`' }),
    impact: t.field({
      type: ImpactEnum,
      nullable: true,
      description: 'The highest impact of its issues',
      resolve: (c) => c.impact as 'low' | null,
    }),
    urls: t.field({
      type: builder.objectRef<{ location: string; source?: string }>('ConversationUrls').implement({
        fields: (u) => ({
          location: u.exposeString('location'),
          source: u.exposeString('source', { nullable: true, description: 'Its URL in its source' }),
        }),
      }),
      resolve: (c, _a, ctx) => ({ ...ctx.urls.conversation(c.organizationId, c.id), ...(c.url ? { source: c.url } : {}) }),
    }),
  }),
});

const ConversationPartType = builder.objectRef<{ type: string; role: string; body: string }>('ConversationPart').implement({
  fields: (t) => ({
    type: t.field({ type: PartTypeEnum, resolve: (p) => p.type as 'message' }),
    role: t.field({ type: PartRoleEnum, resolve: (p) => p.role as 'user' }),
    body: t.exposeString('body', { description: 'Markdown or HTML' }),
  }),
});

const ConversationMetadataType = builder.objectRef<Conversation>('ConversationMetadata').implement({
  fields: (t) => ({
    url: t.exposeString('url', { nullable: true }),
    attributes: t.field({
      type: 'JSON',
      description: 'Free-form: string attributes named by the channel that sent the conversation',
      resolve: (c) => c.attributes,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const ConversationDetailType = builder.objectRef<Conversation>('ConversationDetail').implement({
  description: 'A conversation with its messages and metadata',
  fields: (t) => ({
    conversation: t.field({ type: ConversationType, resolve: (c) => c }),
    parts: t.field({ type: [ConversationPartType], resolve: (c) => c.parts as { type: string; role: string; body: string }[] }),
    metadata: t.field({ type: ConversationMetadataType, resolve: (c) => c }),
  }),
});

export const ConversationIssueType = builder.objectRef<Model<'ConversationIssue'>>('ConversationIssue').implement({
  description: 'A problem a conversation reports',
  fields: (t) => ({
    object: t.string({ resolve: () => 'conversation-issue' }),
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    summary: t.exposeString('summary', { description: 'Plain text' }),
    details: t.field({ type: 'JSON', description: `${FREE_DOC}The details`, resolve: (i) => i.details }),
    impact: t.field({ type: ImpactEnum, resolve: (i) => i.impact as 'low' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the conversation took place' }),
    ingestedAt: t.expose('ingestedAt', { type: 'DateTime' }),
    conversation: t.exposeString('conversationId', { description: 'Id of its conversation' }),
    cluster: t.exposeString('clusterId', { nullable: true, description: 'Id of its cluster' }),
    urls: t.field({ type: LocationUrls, resolve: (i, _a, ctx) => ctx.urls.conversationIssue(i.organizationId, i.id) }),
  }),
});

type IssueWithConversation = ConversationIssue & { conversation: Conversation };
const IssueEntryType = builder.objectRef<IssueWithConversation>('ConversationIssueEntry').implement({
  fields: (t) => ({
    issue: t.field({ type: ConversationIssueType, resolve: (i) => i }),
    conversation: t.field({ type: ConversationType, resolve: (i) => i.conversation }),
  }),
});

const ClusterStatsType = builder
  .objectRef<{ issues: number; conversations: number; tasks: ClusterTasks }>('ConversationsIssuesClusterStats')
  .implement({
    fields: (t) => ({
      issues: t.exposeInt('issues'),
      conversations: t.exposeInt('conversations'),
      tasksTotal: t.int({ description: 'Change requests linked to the cluster', resolve: (s) => s.tasks.tasksTotal }),
      tasksBacklog: t.int({ description: 'Linked change requests in draft', resolve: (s) => s.tasks.tasksBacklog }),
      tasksStarted: t.int({ description: 'Linked change requests open', resolve: (s) => s.tasks.tasksStarted }),
      tasksCompleted: t.int({ description: 'Linked change requests merged', resolve: (s) => s.tasks.tasksCompleted }),
      tasksCancelled: t.int({ description: 'Linked change requests archived', resolve: (s) => s.tasks.tasksCancelled }),
    }),
  });

const ClusterSourceType = builder.objectRef<{ source: string; issues: number }>('ConversationsIssuesClusterSource').implement({
  description: 'How many issues of a cluster came from one conversation source',
  fields: (t) => ({
    source: t.exposeString('source', { description: 'The official ConversationSource: email or integration:<channel>:<organization>' }),
    issues: t.exposeInt('issues'),
  }),
});
export const ClusterType = builder.objectRef<Model<'ConversationsIssuesCluster'>>('ConversationsIssuesCluster').implement({
  description: 'A group of similar conversation issues',
  fields: (t) => ({
    object: t.string({ resolve: () => 'issues-cluster' }),
    id: t.exposeID('id'),
    label: t.exposeString('label'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    icon: t.exposeString('icon'),
    summary: t.exposeString('summary', { description: 'Plain text (the official API’s string)' }),
    summaryDocument: t.field({
      type: 'JSON',
      description: `${FREE_DOC}The summary`,
      resolve: (c) => documentFromMarkdown(c.summary.replace(/([\\`*_[\]<>#|])/g, '\\$1')),
    }),
    muted: t.exposeBoolean('muted', { description: 'Muted for change-request creation' }),
    impact: t.field({ type: ImpactEnum, resolve: (c) => c.impact as 'low' }),
    weeklyPulse: t.field({
      type: ['Int'],
      description: 'Issues per week over the past 13 weeks, oldest first (the last entry: the past 7 days)',
      resolve: (c, _a, ctx) => clusterLoaders(ctx).weeklyPulse.load(c.id),
    }),
    sources: t.field({
      type: [ClusterSourceType],
      description: 'Issues per conversation source, by source (REST: a map from source to count)',
      resolve: async (c, _a, ctx) =>
        Object.entries(await clusterLoaders(ctx).sources.load(c.id)).map(([source, issues]) => ({ source, issues })),
    }),
    stats: t.field({
      type: ClusterStatsType,
      resolve: async (c, _a, ctx) => ({
        issues: c.issueCount,
        conversations: c.conversationCount,
        tasks: await clusterLoaders(ctx).tasks.load(c.id),
      }),
    }),
    urls: t.field({
      type: builder.objectRef<{ location: string; app: string }>('ConversationsIssuesClusterUrls').implement({
        fields: (u) => ({ location: u.exposeString('location'), app: u.exposeString('app') }),
      }),
      resolve: (c, _a, ctx) => ctx.urls.issuesCluster(c.organizationId, c.id),
    }),
  }),
});

const ConversationList = listOf('Conversation', ConversationType);
const IssueEntryList = listOf('ConversationIssueEntry', IssueEntryType);
const ClusterList = listOf('ConversationsIssuesCluster', ClusterType);

builder.objectFields(OrganizationType, (t) => ({
  conversations: t.field({
    type: ConversationList,
    description: 'Conversations ingested, newest first',
    args: { ...pageArgs(t), source: t.arg.string({ required: false, description: 'Only those of this source' }) },
    resolve: (org, args, ctx) => listConversations(ctx, org.id, args),
  }),
  conversation: t.field({
    type: ConversationDetailType,
    args: { id: t.arg.id({ required: true }) },
    resolve: (org, { id }, ctx) => getConversation(ctx, org.id, String(id)),
  }),
  conversationIssues: t.field({
    type: IssueEntryList,
    description: 'Issues found in conversations, newest conversation first',
    args: {
      ...pageArgs(t),
      cluster: t.arg.string({ required: false, description: 'Only those of this cluster' }),
      conversation: t.arg.string({ required: false, description: 'Only those of this conversation' }),
    },
    resolve: (org, args, ctx) => listIssues(ctx, org.id, args) as never,
  }),
  conversationIssue: t.field({
    type: IssueEntryType,
    args: { id: t.arg.id({ required: true }) },
    resolve: (org, { id }, ctx) => getIssue(ctx, org.id, String(id)),
  }),
  issuesClusters: t.field({
    type: ClusterList,
    args: {
      ...pageArgs(t),
      order: t.arg({ type: ClusterOrderEnum, required: false, description: 'desc (default) or asc' }),
      orderBy: t.arg({
        type: ClusterOrderByEnum,
        required: false,
        description: 'updatedAt (default), issues, conversations or a task count',
      }),
      status: t.arg({ type: ClusterStatusEnum, required: false }),
    },
    resolve: (org, args, ctx) => listClusters(ctx, org.id, args),
  }),
  issuesCluster: t.field({
    type: ClusterType,
    args: { id: t.arg.id({ required: true }) },
    resolve: (org, { id }, ctx) => getCluster(ctx, org.id, String(id)),
  }),
}));

const ConversationMetadataInput = builder.inputType('ConversationMetadataInput', {
  fields: (t) => ({
    url: t.string({ description: 'URL of the conversation in its source' }),
    attributes: t.field({
      type: 'JSON',
      description: 'Free-form: string attributes named by the channel; `source` names the channel (email, intercom, …)',
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When the conversation started (default: when first ingested)' }),
  }),
});

const ConversationPartInput = builder.inputType('ConversationPartInput', {
  fields: (t) => ({
    type: t.field({ type: PartTypeEnum, required: true }),
    role: t.field({ type: PartRoleEnum, required: true }),
    body: t.string({ required: true, description: 'Markdown or HTML' }),
  }),
});

const ConversationInputType = builder.inputType('ConversationInput', {
  fields: (t) => ({
    id: t.string({ required: true, description: 'Its id in its source (1..255 characters)' }),
    subject: t.string({ description: 'At most 512 characters' }),
    metadata: t.field({ type: ConversationMetadataInput }),
    parts: t.field({ type: [ConversationPartInput], required: true }),
  }),
});

const UpdateClusterInput = builder.inputType('UpdateConversationsIssuesClusterInput', {
  fields: (t) => ({ muted: t.boolean({ description: 'Mute the cluster for change-request creation' }) }),
});

builder.mutationFields((t) => ({
  ingestConversations: t.boolean({
    description: 'Ingest conversations (same source and id: updated); their analysis runs in the background',
    args: { organizationId: t.arg.id({ required: true }), conversations: t.arg({ type: [ConversationInputType], required: true }) },
    resolve: (_r, args, ctx) => ingestConversations(ctx, String(args.organizationId), args.conversations as never),
  }),
  updateIssuesCluster: t.field({
    type: ClusterType,
    args: {
      organizationId: t.arg.id({ required: true }),
      clusterId: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateClusterInput, required: true }),
    },
    resolve: (_r, args, ctx) => updateCluster(ctx, String(args.organizationId), String(args.clusterId), args.input),
  }),
  linkChangeRequestToIssuesCluster: t.field({
    type: ChangeRequestType,
    description: 'Associate a change request with an issues cluster of its organization (cluster null: remove the association)',
    args: {
      spaceId: t.arg.id({ required: true }),
      changeRequestId: t.arg.string({ required: true, description: 'Id or number' }),
      cluster: t.arg.id({ required: false }),
    },
    resolve: (_r, args, ctx) =>
      linkChangeRequestToCluster(ctx, String(args.spaceId), args.changeRequestId, args.cluster == null ? null : String(args.cluster)),
  }),
}));
