import { createHash } from 'node:crypto';
import type { Context } from '../../context.js';
import { requireOrg, requireSpace, spacePermissions, spaceRole } from '../../auth/permissions.js';
import type { RoleName } from '../../auth/roles.js';
import { badRequest, conflict, forbidden, notFound } from '../../errors.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { enqueueJob } from '../../jobs/queue.js';
import { paginate, paginateArray, type PageArgs } from '../../pagination.js';
import * as check from '../../validate.js';
import { getChangeRequest } from '../change-requests/index.js';
import { ANALYSE_JOB } from './analysis-job.js';
import { clusterLoaders } from './loaders.js';

/**
 * Conversations ingested for analysis, the issues found in them and the clusters grouping those.
 *
 * Who may do what (organization roles):
 * - read conversations, issues and clusters: members with a role (guests, who only see what is
 *   shared with them, do not see support conversations);
 * - ingest conversations and mute clusters: admins (the organization's `ingestConversations`
 *   permission);
 * - link a change request to a cluster: whoever may change that change request (its author or the
 *   space's editors), for a cluster of the space's organization.
 *
 * A conversation's `source` (the official ConversationSource) comes from `metadata.attributes.source`:
 * `email`, or the name of the channel it came from (`intercom`, `zendesk`, …), recorded as
 * `integration:<name>:<organization id>`; without it, `integration:api:<organization id>`.
 * The `id` given is relative to that source: ingesting the same source and id again updates the
 * conversation (its analysis runs again when its content changed) and never duplicates it.
 */
export const READ_ROLE: RoleName = 'read';
export const ADMIN_ROLE: RoleName = 'admin';
export const MAX_CONVERSATIONS_PER_REQUEST = 1000;
export const PART_ROLES = ['user', 'assistant', 'team-member'] as const;
const SOURCE_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;

export interface ConversationInput {
  id: string;
  subject?: string | null;
  metadata?: { url?: string | null; attributes?: unknown; createdAt?: Date | null } | null;
  parts: { type: string; role: string; body: string }[];
}

/** Reads one conversation of the body; `at` prefixes the field names in errors (`conversations[2]`, or nothing for a single one). */
function readConversation(organizationId: string, input: ConversationInput, at: string) {
  const f = (name: string) => (at ? `${at}.${name}` : name);
  const externalId = check.text(f('id'), input.id, { min: 1, max: 255 });
  const subject = input.subject == null ? null : check.text(f('subject'), input.subject, { max: 512 });
  const url = input.metadata?.url == null ? null : check.url(f('metadata.url'), input.metadata.url);
  const attributes: Record<string, string> = {};
  if (input.metadata?.attributes != null) {
    const raw = check.object(f('metadata.attributes'), input.metadata.attributes);
    for (const [key, value] of Object.entries(raw)) {
      if (typeof value !== 'string') throw badRequest(f(`metadata.attributes.${key}`), 'must be a string');
      attributes[check.text(f('metadata.attributes'), key, { min: 1, max: 100 })] = check.text(f(`metadata.attributes.${key}`), value, {
        max: 2000,
      });
    }
  }
  let source = `integration:api:${organizationId}`;
  if (attributes.source !== undefined) {
    const name = attributes.source.trim().toLowerCase();
    if (name === 'email') source = 'email';
    else if (SOURCE_NAME.test(name)) source = `integration:${name}:${organizationId}`;
    else throw badRequest(f('metadata.attributes.source'), 'must be email or a channel name (letters, digits, . _ -)');
  }
  if (input.parts.length > 500) throw badRequest(f('parts'), 'at most 500 parts');
  const parts = input.parts.map((p, j) => ({
    type: p.type,
    role: p.role,
    body: check.text(f(`parts[${j}].body`), p.body, { max: 100_000 }),
  }));
  const contentHash = createHash('sha256').update(JSON.stringify({ subject, parts })).digest('hex');
  return { externalId, subject, url, attributes, source, parts, contentHash, createdAt: input.metadata?.createdAt ?? null };
}

/** Ingests conversations (created, or updated by source and id); their analysis is queued. */
export async function ingestConversations(ctx: Context, organizationId: string, inputs: ConversationInput[]) {
  await requireOrg(ctx, organizationId, ADMIN_ROLE);
  if (!inputs.length) throw badRequest('conversations', 'must hold a conversation');
  if (inputs.length > MAX_CONVERSATIONS_PER_REQUEST)
    throw badRequest('conversations', `at most ${MAX_CONVERSATIONS_PER_REQUEST} conversations per request`);
  const read = inputs.map((input, i) => readConversation(organizationId, input, inputs.length === 1 ? '' : `conversations[${i}]`));
  // The same conversation twice in one request: the last one counts.
  const unique = [...new Map(read.map((c) => [`${c.source}\u0000${c.externalId}`, c])).values()];
  const now = new Date();
  await ctx.prisma.$transaction(
    async (tx) => {
      const existing = await tx.conversation.findMany({
        where: { organizationId, OR: unique.map((c) => ({ source: c.source, externalId: c.externalId })) },
      });
      const byKey = new Map(existing.map((c) => [`${c.source}\u0000${c.externalId}`, c]));
      const created: Prisma.ConversationCreateManyInput[] = [];
      let changed = false;
      for (const c of unique) {
        const data = {
          subject: c.subject,
          url: c.url,
          attributes: c.attributes,
          parts: c.parts,
          contentHash: c.contentHash,
        };
        const before = byKey.get(`${c.source}\u0000${c.externalId}`);
        if (!before) {
          created.push({
            id: newId(),
            organizationId,
            source: c.source,
            externalId: c.externalId,
            ...data,
            createdAt: c.createdAt ?? now,
            ingestedAt: now,
          });
          changed = true;
        } else {
          if (before.contentHash !== c.contentHash) changed = true;
          await tx.conversation.update({ where: { id: before.id }, data: { ...data, ...(c.createdAt ? { createdAt: c.createdAt } : {}) } });
        }
      }
      if (created.length) await tx.conversation.createMany({ data: created });
      // One analysis waiting per organization is enough: it takes whatever is pending when it runs.
      if (changed) {
        const waiting = await tx.job.count({ where: { kind: ANALYSE_JOB, status: 'pending', payload: { equals: { organizationId } } } });
        if (!waiting) await enqueueJob(tx, ANALYSE_JOB, { organizationId });
      }
    },
    { timeout: 60_000 },
  );
  return true;
}

export async function listConversations(ctx: Context, organizationId: string, args: PageArgs & { source?: string | null }) {
  await requireOrg(ctx, organizationId, READ_ROLE);
  const where: Prisma.ConversationWhereInput = { organizationId, ...(args.source ? { source: args.source } : {}) };
  return paginate(
    args,
    () => ctx.prisma.conversation.count({ where }),
    (w) => ctx.prisma.conversation.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], ...w }),
  );
}

export async function getConversation(ctx: Context, organizationId: string, id: string) {
  await requireOrg(ctx, organizationId, READ_ROLE);
  const conversation = await ctx.prisma.conversation.findFirst({ where: { id, organizationId } });
  if (!conversation) throw notFound('Conversation');
  return conversation;
}

export async function listIssues(
  ctx: Context,
  organizationId: string,
  args: PageArgs & { cluster?: string | null; conversation?: string | null },
) {
  await requireOrg(ctx, organizationId, READ_ROLE);
  const where: Prisma.ConversationIssueWhereInput = {
    organizationId,
    ...(args.cluster ? { clusterId: args.cluster } : {}),
    ...(args.conversation ? { conversationId: args.conversation } : {}),
  };
  return paginate(
    args,
    () => ctx.prisma.conversationIssue.count({ where }),
    (w) =>
      ctx.prisma.conversationIssue.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { orderKey: 'asc' }, { id: 'asc' }],
        include: { conversation: true },
        ...w,
      }),
  );
}

export async function getIssue(ctx: Context, organizationId: string, id: string) {
  await requireOrg(ctx, organizationId, READ_ROLE);
  const issue = await ctx.prisma.conversationIssue.findFirst({ where: { id, organizationId }, include: { conversation: true } });
  if (!issue) throw notFound('Conversation issue');
  return issue;
}

export const CLUSTER_ORDER_BY = ['updatedAt', 'issues', 'conversations', 'tasksTotal', 'tasksBacklog', 'tasksStarted'] as const;
export type ClusterOrderBy = (typeof CLUSTER_ORDER_BY)[number];
export const CLUSTER_STATUSES = ['pending', 'analysing'] as const;

/**
 * Clusters, by `orderBy` (default updatedAt) in `order` (default desc), ties by id. Ordering by
 * task counts (change requests linked to the cluster) is computed over the organization's clusters.
 * `status`: clusters are written whole at the end of an analysis, so none is ever pending or being
 * analysed — that filter answers an empty list.
 */
export async function listClusters(
  ctx: Context,
  organizationId: string,
  args: PageArgs & { order?: 'asc' | 'desc' | null; orderBy?: ClusterOrderBy | null; status?: string | null },
) {
  await requireOrg(ctx, organizationId, READ_ROLE);
  const order = args.order ?? 'desc';
  const orderBy = args.orderBy ?? 'updatedAt';
  const where: Prisma.ConversationsIssuesClusterWhereInput = { organizationId, ...(args.status ? { id: { in: [] } } : {}) };
  if (orderBy === 'updatedAt' || orderBy === 'issues' || orderBy === 'conversations') {
    const column = { updatedAt: 'updatedAt', issues: 'issueCount', conversations: 'conversationCount' }[orderBy];
    return paginate(
      args,
      () => ctx.prisma.conversationsIssuesCluster.count({ where }),
      (w) => ctx.prisma.conversationsIssuesCluster.findMany({ where, orderBy: [{ [column]: order }, { id: 'asc' }], ...w }),
    );
  }
  const clusters = await ctx.prisma.conversationsIssuesCluster.findMany({ where, orderBy: { id: 'asc' } });
  const tasks = await Promise.all(clusters.map((c) => clusterLoaders(ctx).tasks.load(c.id)));
  const key = (i: number) => tasks[i]![orderBy];
  const sorted = clusters
    .map((c, i) => ({ c, i }))
    .sort((a, b) => (order === 'asc' ? key(a.i) - key(b.i) : key(b.i) - key(a.i)) || (a.c.id < b.c.id ? -1 : 1));
  return paginateArray(
    args,
    sorted.map((s) => s.c),
  );
}

export async function getCluster(ctx: Context, organizationId: string, id: string) {
  await requireOrg(ctx, organizationId, READ_ROLE);
  const cluster = await ctx.prisma.conversationsIssuesCluster.findFirst({ where: { id, organizationId } });
  if (!cluster) throw notFound('Conversations issues cluster');
  return cluster;
}

export async function updateCluster(ctx: Context, organizationId: string, id: string, input: { muted?: boolean | null }) {
  await getCluster(ctx, organizationId, id);
  await requireOrg(ctx, organizationId, ADMIN_ROLE);
  if (input.muted === null) throw badRequest('muted', 'must be true or false');
  if (input.muted === undefined) return getCluster(ctx, organizationId, id);
  return ctx.prisma.conversationsIssuesCluster.update({ where: { id }, data: { muted: input.muted } });
}

/**
 * Links a change request to an issues cluster of its space's organization (null unlinks). Allowed to
 * whoever may change the change request: its author, or the space's editors. A merged change
 * request cannot be changed any more.
 */
export async function linkChangeRequestToCluster(ctx: Context, spaceId: string, changeRequestId: string, clusterId: string | null) {
  const cr = await getChangeRequest(ctx, spaceId, changeRequestId);
  const space = await requireSpace(ctx, spaceId, 'read');
  if (cr.createdById !== ctx.caller.id && !spacePermissions(await spaceRole(ctx, space)).edit) {
    throw forbidden('Only its author or editors of the space can change a change request');
  }
  if (cr.status === 'merged') throw conflict('This change request is merged');
  if (clusterId !== null) {
    const cluster = await ctx.prisma.conversationsIssuesCluster.findFirst({
      where: { id: clusterId, organizationId: space.organizationId },
    });
    if (!cluster) throw badRequest('cluster', `"${clusterId}" is not an issues cluster of this space's organization`);
  }
  return ctx.prisma.changeRequest.update({ where: { id: cr.id }, data: { conversationsIssuesCluster: clusterId } });
}
