import { createHash } from 'node:crypto';
import type { Services } from '../../context.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { IsolateLimitError, runIsolated } from '../../jobs/isolate.js';
import type { JobDefinition } from '../../jobs/queue.js';
import { groupBy } from '../../loaders.js';
import { analyserFor, type ConversationAnalyser } from './analyser.js';
import type { TermCounts } from './clustering.js';
import { impactRank, type ExtractedIssue, type Impact } from './extract.js';
import type { ClusterDescription, PreparedIssue } from './tasks.js';

/**
 * Background analysis of an organization's conversations (job `conversations.analyse`, queued by
 * ingestion in the same transaction). A run takes the conversations whose content changed since
 * they were last analysed (`analysedHash` ≠ `contentHash`), in a deterministic order, extracts their
 * issues with the configured analyser, replaces their previous issues, and then re-clusters every
 * issue of the organization (clusters keep their ids; see clustering.ts). Runs of one organization
 * are serialised by a transaction-level advisory lock, so two workers cannot interleave.
 *
 * The CPU work (extraction, clustering: 22 s for 1,000 conversations, all on the event loop before)
 * runs in a worker thread (./tasks.ts) with a memory and a time limit per step; this file reads
 * and writes the database, in set-based statements (Prisma's createMany of a batch's issues took
 * ~300 ms of the event loop). A step over its limits fails the job with a message saying which.
 */
export const ANALYSE_JOB = 'conversations.analyse';
const BATCH = 200;
const TASKS = new URL('./tasks.ts', import.meta.url);
// Per step (a batch's extraction, or one clustering of every issue of the organization).
const LIMITS = { timeoutMs: 120_000, memoryMb: 512 };

async function isolated<T>(task: string, input: unknown): Promise<T> {
  try {
    return await runIsolated<T>(TASKS, task, input, LIMITS);
  } catch (error) {
    if (error instanceof IsolateLimitError) {
      throw new Error(
        `Conversation analysis (${task === 'clusterIssues' ? 'clustering the issues' : 'extracting issues'}) ${error.message} (the limits are ${LIMITS.memoryMb} MB and ${LIMITS.timeoutMs / 1000} s per step): the organization has too many issues to analyse at once`,
      );
    }
    throw error;
  }
}

type Tx = Prisma.TransactionClient;

/** The job kind, listed in the module registry (src/modules/index.ts). */
export const analyseJob: JobDefinition = {
  kind: ANALYSE_JOB,
  handler: async (payload: { organizationId: string }, services) => {
    await analyseOrganization(services, payload.organizationId);
  },
};

/**
 * The order issues are clustered in: by conversation date, then by a hash of the conversation's
 * source and id, then by place in the conversation. Fixed-width parts of digits and hex letters
 * only, so every database collation sorts these keys the same way.
 */
const orderKey = (c: { createdAt: Date; source: string; externalId: string }, index: number) =>
  `${c.createdAt.toISOString()}${createHash('sha256').update(`${c.source}\u0000${c.externalId}`).digest('hex')}${String(index).padStart(4, '0')}`;

/** Analyses what is pending for one organization; answers how many conversations were analysed. */
export async function analyseOrganization(
  services: Services,
  organizationId: string,
  analyser: ConversationAnalyser = analyserFor(services.config),
): Promise<number> {
  const prisma = services.db.prisma;
  let analysed = 0;
  for (;;) {
    const pending = await prisma.$queryRaw<{ id: string }[]>`
      SELECT id FROM "Conversation"
      WHERE "organizationId" = ${organizationId} AND "analysedHash" IS DISTINCT FROM "contentHash"
      ORDER BY "createdAt", source, "externalId" LIMIT ${BATCH}`;
    if (!pending.length) return analysed;
    const conversations = await prisma.conversation.findMany({ where: { id: { in: pending.map((p) => p.id) } } });
    // Extraction may call a model: outside any transaction.
    const texts = conversations.map((c) => ({ subject: c.subject, parts: c.parts as { type: string; role: string; body: string }[] }));
    let prepared: PreparedIssue[][];
    if (analyser.extractIssues) {
      const fromModel: ExtractedIssue[][] = [];
      for (const text of texts) fromModel.push(await analyser.extractIssues(text));
      prepared = await isolated<PreparedIssue[][]>('prepareIssues', { issues: fromModel });
    } else prepared = await isolated<PreparedIssue[][]>('extractConversations', { conversations: texts });
    const extracted = new Map(conversations.map((c, i) => [c.id, prepared[i]!]));
    await prisma.$transaction(
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`conversations:${organizationId}`}))`;
        // A conversation ingested again meanwhile stays pending for the next round.
        const current = await tx.conversation.findMany({
          where: { id: { in: conversations.map((c) => c.id) } },
          select: { id: true, contentHash: true },
        });
        const unchanged = new Set(
          current.filter((c) => conversations.find((x) => x.id === c.id)?.contentHash === c.contentHash).map((c) => c.id),
        );
        const now = new Date();
        const done = conversations.filter((c) => unchanged.has(c.id));
        await tx.conversationIssue.deleteMany({ where: { conversationId: { in: done.map((c) => c.id) } } });
        // Set-based writes: one statement for the batch's issues, one for its conversations.
        const rows = done.flatMap((c) =>
          extracted.get(c.id)!.map((issue, index) => ({
            id: newId(),
            organizationId,
            conversationId: c.id,
            index,
            title: issue.title,
            summary: issue.summary,
            details: issue.details,
            impact: issue.impact,
            terms: issue.terms,
            orderKey: orderKey(c, index),
            createdAt: c.createdAt.toISOString(),
            ingestedAt: c.ingestedAt.toISOString(),
          })),
        );
        if (rows.length) {
          await tx.$executeRaw`
            INSERT INTO "ConversationIssue" (id, "organizationId", "conversationId", "index", title, summary, details, impact, terms, "orderKey", "createdAt", "ingestedAt")
            SELECT id, "organizationId", "conversationId", "index", title, summary, details, impact, terms, "orderKey", "createdAt", "ingestedAt"
            FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(id text, "organizationId" text, "conversationId" text, "index" int, title text, summary text,
              details jsonb, impact text, terms jsonb, "orderKey" text, "createdAt" timestamp(3), "ingestedAt" timestamp(3))`;
        }
        const marks = done.map((c) => ({
          id: c.id,
          hash: c.contentHash,
          impact: extracted.get(c.id)!.reduce<Impact | null>((max, i) => (impactRank(i.impact) > impactRank(max) ? i.impact : max), null),
        }));
        if (marks.length) {
          await tx.$executeRaw`
            UPDATE "Conversation" AS c SET "analysedHash" = m.hash, "processedAt" = ${now}, impact = m.impact, "updatedAt" = ${now}
            FROM jsonb_to_recordset(${JSON.stringify(marks)}::jsonb) AS m(id text, hash text, impact text) WHERE c.id = m.id`;
        }
        await recluster(tx, organizationId, analyser);
        analysed += done.length;
      },
      { timeout: 120_000 },
    );
  }
}

const ICONS: Record<Impact, string> = { low: 'circle-info', medium: 'triangle-exclamation', high: 'circle-exclamation' };

/**
 * Re-clusters every issue of the organization and writes the clusters: new ones created, changed
 * ones updated (label, summary, impact, counts), empty ones deleted — change requests linked to a
 * cluster that disappeared follow its issues to the cluster most of them went to (or are unlinked).
 */
async function recluster(tx: Tx, organizationId: string, analyser: ConversationAnalyser) {
  const issues = await tx.conversationIssue.findMany({
    where: { organizationId },
    select: { id: true, clusterId: true, terms: true, title: true, summary: true, impact: true, conversationId: true },
    orderBy: [{ orderKey: 'asc' }, { id: 'asc' }],
  });
  const clustered = await isolated<{ assignment: [string, string][]; clusters: [string, ClusterDescription][] }>('clusterIssues', {
    issues: issues.map((i) => ({ ...i, terms: i.terms as TermCounts })),
    options: analyser.clustering,
  });
  const assignment = new Map(clustered.assignment);
  const descriptions = new Map(clustered.clusters);
  const existing = await tx.conversationsIssuesCluster.findMany({ where: { organizationId } });
  const members = groupBy(issues, (i) => assignment.get(i.id)!);

  // Issues that changed cluster, written per target cluster.
  for (const [clusterId, list] of members) {
    const moved = list.filter((i) => i.clusterId !== clusterId).map((i) => i.id);
    if (!moved.length) continue;
    if (!existing.some((c) => c.id === clusterId)) {
      await tx.conversationsIssuesCluster.create({
        data: { id: clusterId, organizationId, label: '', summary: '', icon: ICONS.low, impact: 'low' },
      });
    }
    await tx.conversationIssue.updateMany({ where: { id: { in: moved } }, data: { clusterId } });
  }

  for (const clusterId of members.keys()) {
    const described = descriptions.get(clusterId)!;
    const before = existing.find((c) => c.id === clusterId);
    if (
      before &&
      before.label === described.label &&
      before.summary === described.summary &&
      before.impact === described.impact &&
      before.issueCount === described.issueCount &&
      before.conversationCount === described.conversationCount
    ) {
      continue;
    }
    await tx.conversationsIssuesCluster.update({ where: { id: clusterId }, data: { ...described, icon: ICONS[described.impact] } });
  }

  const gone = existing.filter((c) => !members.has(c.id));
  for (const cluster of gone) {
    const went = issues.filter((i) => i.clusterId === cluster.id).map((i) => assignment.get(i.id)!);
    const counts = new Map<string, number>();
    for (const id of went) counts.set(id, (counts.get(id) ?? 0) + 1);
    const heir = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? null;
    await tx.changeRequest.updateMany({ where: { conversationsIssuesCluster: cluster.id }, data: { conversationsIssuesCluster: heir } });
  }
  if (gone.length) await tx.conversationsIssuesCluster.deleteMany({ where: { id: { in: gone.map((c) => c.id) } } });
}
