import { createHash } from 'node:crypto';
import { documentFromMarkdown } from '../content/markdown.js';
import type { Services } from '../../context.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { registerJobHandler } from '../../jobs/queue.js';
import { groupBy } from '../../loaders.js';
import { analyserFor, type ConversationAnalyser } from './analyser.js';
import { medoid, tfidfVectors, topTerms, type TermCounts } from './clustering.js';
import { impactRank, IMPACTS, shorten, type ExtractedIssue, type Impact } from './extract.js';
import { termCounts, terms as textTerms } from './text.js';

/**
 * Background analysis of an organization's conversations (job `conversations.analyse`, queued by
 * ingestion in the same transaction). A run takes the conversations whose content changed since
 * they were last analysed (`analysedHash` ≠ `contentHash`), in a deterministic order, extracts their
 * issues with the configured analyser, replaces their previous issues, and then re-clusters every
 * issue of the organization (clusters keep their ids; see clustering.ts). Runs of one organization
 * are serialised by a transaction-level advisory lock, so two workers cannot interleave.
 */
export const ANALYSE_JOB = 'conversations.analyse';
const BATCH = 200;

type Tx = Prisma.TransactionClient;

registerJobHandler(ANALYSE_JOB, async (payload: { organizationId: string }, services) => {
  await analyseOrganization(services, payload.organizationId);
});

/**
 * The order issues are clustered in: by conversation date, then by a hash of the conversation's
 * source and id, then by place in the conversation. Fixed-width parts of digits and hex letters
 * only, so every database collation sorts these keys the same way.
 */
const orderKey = (c: { createdAt: Date; source: string; externalId: string }, index: number) =>
  `${c.createdAt.toISOString()}${createHash('sha256').update(`${c.source}\u0000${c.externalId}`).digest('hex')}${String(index).padStart(4, '0')}`;

/** Analyses what is pending for one organization; answers how many conversations were analysed. */
export async function analyseOrganization(services: Services, organizationId: string, analyser: ConversationAnalyser = analyserFor(services.config)): Promise<number> {
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
    const extracted = new Map<string, ExtractedIssue[]>();
    for (const c of conversations) {
      extracted.set(c.id, await analyser.extractIssues({ subject: c.subject, parts: c.parts as { type: string; role: string; body: string }[] }));
    }
    await prisma.$transaction(
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`conversations:${organizationId}`}))`;
        // A conversation ingested again meanwhile stays pending for the next round.
        const current = await tx.conversation.findMany({ where: { id: { in: conversations.map((c) => c.id) } }, select: { id: true, contentHash: true } });
        const unchanged = new Set(current.filter((c) => conversations.find((x) => x.id === c.id)?.contentHash === c.contentHash).map((c) => c.id));
        const now = new Date();
        const done = conversations.filter((c) => unchanged.has(c.id));
        await tx.conversationIssue.deleteMany({ where: { conversationId: { in: done.map((c) => c.id) } } });
        const rows: Prisma.ConversationIssueCreateManyInput[] = [];
        for (const c of done) {
          const issues = extracted.get(c.id)!;
          issues.forEach((issue, index) =>
            rows.push({
              id: newId(),
              organizationId,
              conversationId: c.id,
              index,
              title: issue.title,
              summary: issue.summary,
              details: documentFromMarkdown(issue.details) as unknown as Prisma.InputJsonValue,
              impact: issue.impact,
              terms: termCounts(issue.text),
              orderKey: orderKey(c, index),
              createdAt: c.createdAt,
              ingestedAt: c.ingestedAt,
            }),
          );
          const top = issues.reduce<Impact | null>((max, i) => (impactRank(i.impact) > impactRank(max) ? i.impact : max), null);
          await tx.conversation.update({ where: { id: c.id }, data: { analysedHash: c.contentHash, processedAt: now, impact: top } });
        }
        if (rows.length) await tx.conversationIssue.createMany({ data: rows });
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
  const assignment = analyser.cluster(
    issues.map((i) => ({ id: i.id, terms: i.terms as TermCounts, cluster: i.clusterId })),
    () => newId(),
  );
  const existing = await tx.conversationsIssuesCluster.findMany({ where: { organizationId } });
  const vectors = tfidfVectors(issues.map((i) => ({ id: i.id, terms: i.terms as TermCounts })));
  const members = groupBy(issues, (i) => assignment.get(i.id)!);

  // Issues that changed cluster, written per target cluster.
  for (const [clusterId, list] of members) {
    const moved = list.filter((i) => i.clusterId !== clusterId).map((i) => i.id);
    if (!moved.length) continue;
    if (!existing.some((c) => c.id === clusterId)) {
      await tx.conversationsIssuesCluster.create({ data: { id: clusterId, organizationId, label: '', summary: '', icon: ICONS.low, impact: 'low' } });
    }
    await tx.conversationIssue.updateMany({ where: { id: { in: moved } }, data: { clusterId } });
  }

  for (const [clusterId, list] of members) {
    const described = describeCluster(list, vectors);
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

/** What a cluster says about itself: computed from its issues, deterministically. */
function describeCluster(list: { id: string; title: string; summary: string; impact: string; conversationId: string; terms: unknown }[], vectors: ReturnType<typeof tfidfVectors>) {
  const ids = list.map((i) => i.id);
  const central = list.find((i) => i.id === medoid(ids, vectors))!;
  const keywords = topTerms(ids, vectors, 5).map((stem) => surfaceForm(stem, list));
  // The cluster's impact: the highest impact reported by at least a quarter of its issues (so one
  // outlier does not make a cluster high), and at least the most common one.
  const counts = IMPACTS.map((impact) => list.filter((i) => i.impact === impact).length);
  let impact: Impact = 'low';
  IMPACTS.forEach((level, rank) => {
    if (counts[rank]! > 0 && counts[rank]! * 4 >= list.length) impact = level;
  });
  const conversations = new Set(list.map((i) => i.conversationId)).size;
  const examples = list
    .filter((i) => i.id !== central.id)
    .slice(0, 2)
    .map((i) => `“${shorten(i.title, 80)}”`);
  const summary = [
    `${list.length} issue${list.length === 1 ? '' : 's'} reported in ${conversations} conversation${conversations === 1 ? '' : 's'}: ${shorten(central.summary, 280)}`,
    keywords.length ? `Recurring terms: ${keywords.join(', ')}.` : '',
    examples.length ? `Also reported as ${examples.join(' and ')}.` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return { label: shorten(central.title, 120), summary, impact, issueCount: list.length, conversationCount: conversations };
}

/** The word of the cluster's issues a stem came from most often ("export" for `export`). */
function surfaceForm(stemmed: string, list: { title: string; summary: string }[]): string {
  const counts = new Map<string, number>();
  for (const issue of list) {
    for (const word of `${issue.title} ${issue.summary}`.toLowerCase().match(/[a-z0-9][a-z0-9'-]*/g) ?? []) {
      const t = textTerms(word);
      if (t.length === 1 && t[0] === stemmed) counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? stemmed;
}
