/**
 * The CPU-heavy parts of conversation analysis, run in a worker thread through src/jobs/isolate.ts
 * (analysis-job.ts keeps the database work): the built-in issue extraction, turning issues into what is
 * stored (rich-text details, term counts), and clustering every issue of an organization with the
 * description of each cluster. Plain data in, plain data out.
 */
import { newId } from '../../ids.js';
import { documentFromMarkdown } from '../../document/index.js';
import { clusterItems, medoid, tfidfVectors, topTerms, type ClusteringOptions, type TermCounts } from './clustering.js';
import { extractIssues, IMPACTS, shorten, type ConversationText, type ExtractedIssue, type Impact } from './extract.js';
import { termCounts, terms as textTerms } from './text.js';

export interface PreparedIssue {
  title: string;
  summary: string;
  /** The details as a rich-text document. */
  details: unknown;
  impact: Impact;
  terms: TermCounts;
}

const prepare = (issue: ExtractedIssue): PreparedIssue => ({
  title: issue.title,
  summary: issue.summary,
  details: documentFromMarkdown(issue.details),
  impact: issue.impact,
  terms: termCounts(issue.text),
});

/** The built-in extraction (./extract.ts) of each conversation, ready to store. */
export function extractConversations(input: { conversations: ConversationText[] }): PreparedIssue[][] {
  return input.conversations.map((c) => extractIssues(c).map(prepare));
}

/** Issues extracted elsewhere (a model), ready to store. */
export function prepareIssues(input: { issues: ExtractedIssue[][] }): PreparedIssue[][] {
  return input.issues.map((list) => list.map(prepare));
}

export interface IssueToCluster {
  id: string;
  clusterId: string | null;
  terms: TermCounts;
  title: string;
  summary: string;
  impact: string;
  conversationId: string;
}

export interface ClusterDescription {
  label: string;
  summary: string;
  impact: Impact;
  issueCount: number;
  conversationCount: number;
}

/** Clusters every issue (in processing order; see clustering.ts) and describes each cluster. */
export function clusterIssues(input: { issues: IssueToCluster[]; options: ClusteringOptions }): {
  assignment: [string, string][];
  clusters: [string, ClusterDescription][];
} {
  const { issues } = input;
  const assignment = clusterItems(
    issues.map((i) => ({ id: i.id, terms: i.terms, cluster: i.clusterId })),
    input.options,
    () => newId(),
  );
  const vectors = tfidfVectors(issues.map((i) => ({ id: i.id, terms: i.terms })));
  const members = new Map<string, IssueToCluster[]>();
  for (const issue of issues) {
    const id = assignment.get(issue.id)!;
    let list = members.get(id);
    if (!list) members.set(id, (list = []));
    list.push(issue);
  }
  return { assignment: [...assignment], clusters: [...members].map(([id, list]) => [id, describeCluster(list, vectors)]) };
}

/** What a cluster says about itself: computed from its issues, deterministically. */
function describeCluster(list: IssueToCluster[], vectors: ReturnType<typeof tfidfVectors>): ClusterDescription {
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
