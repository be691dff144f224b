import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainJobs } from '../../src/jobs/queue.js';
import { ANALYSE_JOB } from '../../src/modules/conversations/analysis-job.js';
import { conversationRoutes } from '../../src/modules/conversations/routes.js';
import { createUrls } from '../../src/urls.js';
import { newId } from '../../src/ids.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { BASE, setupHarness, type Harness, type TestUser } from '../support/harness.js';

/**
 * Conversations: ingestion (one or many, idempotent by source and id), background analysis into
 * issues and issue clusters (TF-IDF clustering, measured on the shipped support corpus), the list
 * and read routes, muting a cluster, linking a change request to a cluster. Each route three ways:
 * it works (official schema), bad input is refused and changes nothing, callers without rights are
 * refused.
 */
type Owner = TestUser & { orgId: string };

interface FixtureConversation {
  id: string;
  source: string;
  daysAgo: number;
  themes: string[];
  impacts: string[];
  subject: string;
  parts: { role: string; body: string }[];
}
const corpus = JSON.parse(fs.readFileSync(new URL('../fixtures/support-conversations.json', import.meta.url), 'utf8')) as {
  conversations: FixtureConversation[];
};
const DAY = 24 * 60 * 60 * 1000;

let h: Harness;
let owner: Owner;
let reader: TestUser;
let creator: TestUser;
let guest: TestUser;
let outsider: TestUser;
const services = () => ({ db: h.db, config: h.config, urls: createUrls(BASE) });
const analyse = (s = services()) => drainJobs(s, [ANALYSE_JOB]);

/** The fixture as API input, dated relative to now. */
function asInput(c: FixtureConversation, now = Date.now()) {
  return {
    id: c.id,
    subject: c.subject,
    metadata: {
      url: `https://support.example.com/${c.source}/${c.id}`,
      attributes: { source: c.source, plan: 'pro' },
      createdAt: new Date(now - c.daysAgo * DAY).toISOString(),
    },
    parts: c.parts.map((p) => ({ type: 'message', role: p.role, body: p.body })),
  };
}

beforeAll(async () => {
  h = await setupHarness();
  ({ owner, reader, creator, guest, outsider } = await h.world('Support Org'));
});

const path = (suffix: string, org: Owner = owner) => `/v1/orgs/${org.orgId}${suffix}`;

async function ingest(conversations: unknown, org: Owner = owner) {
  const res = await h.rest('ingestConversation', 'POST', path('/conversations', org), { token: org.token, body: conversations });
  expect(res.status, JSON.stringify(res.body)).toBe(204);
}

/** Every item of a list route (following `next`). */
async function all(operationId: string, p: string, token = owner.token): Promise<any[]> {
  const items: any[] = [];
  let page: string | undefined;
  do {
    const sep = p.includes('?') ? '&' : '?';
    const res = await h.rest(operationId, 'GET', `${p}${sep}limit=1000${page ? `&page=${page}` : ''}`, { token });
    expect(res.status).toBe(200);
    items.push(...res.body.items);
    page = res.body.next?.page;
  } while (page);
  return items;
}

/** Issues of an organization with their fixture labels: conversation external id, index, theme. */
async function labelledIssues(org: Owner) {
  const issues = await all('listConversationsIssues', path('/conversations-issues', org), org.token);
  const rows = await h.db.prisma.conversationIssue.findMany({ where: { organizationId: org.orgId }, include: { conversation: true } });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return issues.map(({ issue }) => {
    const row = byId.get(issue.id)!;
    const fixture = corpus.conversations.find((c) => c.id === row.conversation.externalId);
    return {
      issue,
      key: `${row.conversation.externalId}#${row.index}`,
      theme: fixture?.themes[row.index],
      expectedImpact: fixture?.impacts[row.index],
    };
  });
}

/** Purity (each cluster's majority theme) and inverse purity (each theme's largest cluster). */
function purity(items: { theme: string | undefined; cluster: string }[]) {
  const majority = (groups: Map<string, string[]>) =>
    [...groups.values()].reduce((n, g) => n + Math.max(...[...new Set(g)].map((x) => g.filter((y) => y === x).length)), 0);
  const byCluster = new Map<string, string[]>();
  const byTheme = new Map<string, string[]>();
  for (const i of items) {
    byCluster.set(i.cluster, [...(byCluster.get(i.cluster) ?? []), String(i.theme)]);
    byTheme.set(String(i.theme), [...(byTheme.get(String(i.theme)) ?? []), i.cluster]);
  }
  return {
    purity: majority(byCluster) / items.length,
    inversePurity: majority(byTheme) / items.length,
    clusters: byCluster.size,
    themes: byTheme.size,
  };
}

describe('ingesting and analysing the support corpus', () => {
  it('ingests dozens of conversations in one request; analysis waits for the worker', async () => {
    const before = await h.db.prisma.job.count({ where: { kind: ANALYSE_JOB } });
    await ingest(corpus.conversations.map((c) => asInput(c)));
    const list = await h.rest('listConversations', 'GET', path('/conversations?limit=1000'), { token: owner.token });
    expect(list.body.count).toBe(corpus.conversations.length);
    // Not analysed yet: no processedAt, no issue, no cluster; one analysis job queued.
    expect(list.body.items.every((c: any) => c.processedAt === undefined && c.impact === undefined)).toBe(true);
    expect(
      (await h.rest('listConversationsIssuesClusters', 'GET', path('/conversations-clusters'), { token: owner.token })).body.count,
    ).toBe(0);
    expect(await h.db.prisma.job.count({ where: { kind: ANALYSE_JOB } })).toBe(before + 1);
    expect(await analyse()).toBe(1);
    const after = await h.rest('listConversations', 'GET', path('/conversations?limit=1000'), { token: owner.token });
    expect(after.body.items.every((c: any) => typeof c.processedAt === 'string')).toBe(true);
  });

  it('finds one issue per problem raised: none in thank-you notes, two where the customer raises two', async () => {
    const issues = await labelledIssues(owner);
    const expected = corpus.conversations.reduce((n, c) => n + c.themes.length, 0);
    expect(issues.length).toBe(expected);
    const perConversation = new Map<string, number>();
    for (const i of issues) perConversation.set(i.key.split('#')[0]!, (perConversation.get(i.key.split('#')[0]!) ?? 0) + 1);
    for (const c of corpus.conversations) expect(perConversation.get(c.id) ?? 0, c.id).toBe(c.themes.length);
    // Every issue has a title, a plain summary and rich-text details.
    for (const { issue } of issues) {
      expect(issue.title.length).toBeGreaterThan(3);
      expect(issue.summary.length).toBeGreaterThan(10);
      expect(issue.details).toMatchObject({ object: 'document', nodes: expect.any(Array) });
      expect(issue.details.nodes.length).toBeGreaterThan(0);
    }
  });

  it('clusters same-theme issues together (purity report)', async () => {
    const issues = await labelledIssues(owner);
    const report = purity(issues.map((i) => ({ theme: i.theme, cluster: i.issue.cluster })));
    console.log(
      `clustering of the support corpus: ${issues.length} issues, ${report.themes} themes → ${report.clusters} clusters; purity ${report.purity.toFixed(3)}, inverse purity ${report.inversePurity.toFixed(3)}`,
    );
    expect(report.purity).toBeGreaterThanOrEqual(0.9);
    expect(report.inversePurity).toBeGreaterThanOrEqual(0.8);
    // Not one cluster per issue, nor everything in one.
    expect(report.clusters).toBeGreaterThanOrEqual(report.themes);
    expect(report.clusters).toBeLessThanOrEqual(report.themes * 2);
  });

  it('rates impact by the definitions (accuracy report)', async () => {
    const issues = await labelledIssues(owner);
    const right = issues.filter((i) => i.issue.impact === i.expectedImpact).length;
    console.log(`impact of the support corpus: ${right}/${issues.length} as labelled (${((100 * right) / issues.length).toFixed(1)}%)`);
    expect(right / issues.length).toBeGreaterThanOrEqual(0.85);
    // A conversation's impact is the highest of its issues.
    const convs = await all('listConversations', path('/conversations'));
    const sso = convs.find((c) => c.subject === 'SSO broken and invoice question');
    expect(sso.impact).toBe('high');
    expect(convs.find((c) => c.subject === 'Thanks!').impact).toBeUndefined();
  });

  it('describes each cluster: label, summary, impact, sources, stats and a 13-week pulse that add up', async () => {
    const clusters = await all('listConversationsIssuesClusters', path('/conversations-clusters'));
    const issues = await labelledIssues(owner);
    const now = Date.now();
    for (const cluster of clusters) {
      const members = issues.filter((i) => i.issue.cluster === cluster.id);
      expect(cluster.stats.issues).toBe(members.length);
      expect(cluster.stats.conversations).toBe(new Set(members.map((m) => m.issue.conversation)).size);
      expect(Object.values(cluster.sources as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(members.length);
      for (const source of Object.keys(cluster.sources)) expect(source).toMatch(/^(email|integration:(zendesk|intercom):\w+)$/);
      // Week 12 is the last 7 days; the fixture dates every conversation within 13 weeks.
      const pulse = Array.from({ length: 13 }, () => 0);
      for (const m of members) {
        const fixture = corpus.conversations.find((c) => c.id === m.key.split('#')[0])!;
        pulse[12 - Math.floor((now - (now - fixture.daysAgo * DAY)) / (7 * DAY))]!++;
      }
      expect(cluster.weeklyPulse).toEqual(pulse);
      expect(cluster.label).toBe(members.find((m) => m.issue.title === cluster.label)?.issue.title);
      expect(cluster.summary).toContain(`${members.length} issue`);
      expect(['low', 'medium', 'high']).toContain(cluster.impact);
      expect(cluster.muted).toBe(false);
      expect(cluster.stats.tasksTotal).toBe(0);
    }
    const get = await h.rest('getConversationsIssuesCluster', 'GET', path(`/conversations-clusters/${clusters[0].id}`), {
      token: reader.token,
    });
    expect(get.body).toEqual(clusters[0]);
  });

  it('gives the same clusters for the same conversations, however they were batched', async () => {
    const first = await labelledIssues(owner);
    const partition = (items: { key: string; issue: any }[]) => {
      const groups = new Map<string, string[]>();
      for (const i of items) groups.set(i.issue.cluster, [...(groups.get(i.issue.cluster) ?? []), i.key]);
      return [...groups.values()].map((g) => g.sort().join(',')).sort();
    };
    // The same corpus, listed in another order, in a second organization.
    const twin = (await h.owner('Twin')) as Owner;
    await ingest(
      [...corpus.conversations].reverse().map((c) => asInput(c)),
      twin,
    );
    await analyse();
    expect(partition(await labelledIssues(twin))).toEqual(partition(first));
    // Ingested in three batches, analysed after each: clusters grow incrementally and stay as good.
    const batched = (await h.owner('Batched')) as Owner;
    const chunks = [corpus.conversations.slice(0, 20), corpus.conversations.slice(20, 45), corpus.conversations.slice(45)];
    for (const chunk of chunks) {
      await ingest(
        chunk.map((c) => asInput(c)),
        batched,
      );
      await analyse();
    }
    const report = purity((await labelledIssues(batched)).map((i) => ({ theme: i.theme, cluster: i.issue.cluster })));
    console.log(
      `clustering in three batches: ${report.clusters} clusters; purity ${report.purity.toFixed(3)}, inverse purity ${report.inversePurity.toFixed(3)}`,
    );
    expect(report.purity).toBeGreaterThanOrEqual(0.9);
    expect(report.inversePurity).toBeGreaterThanOrEqual(0.8);
  });
});

describe('POST /orgs/{id}/conversations', () => {
  it('ingesting the same id again updates the conversation, never duplicates it, and re-analyses it', async () => {
    const org = (await h.owner('Reingest')) as Owner;
    const conversation = {
      id: 'T-1',
      subject: 'Export question',
      parts: [{ type: 'message', role: 'user', body: 'How do I export a space as PDF?' }],
    };
    await ingest(conversation, org);
    await analyse();
    const [first] = await all('listConversations', path('/conversations', org), org.token);
    const issues1 = await all('listConversationsIssues', path(`/conversations-issues?conversation=${first.id}`, org), org.token);
    expect(issues1).toHaveLength(1);
    expect(issues1[0].issue.impact).toBe('low');

    // Same content again: nothing to analyse, nothing queued.
    const jobs = await h.db.prisma.job.count({ where: { kind: ANALYSE_JOB } });
    await ingest(conversation, org);
    expect(await h.db.prisma.job.count({ where: { kind: ANALYSE_JOB } })).toBe(jobs);

    // New content: same conversation, new analysis.
    await ingest(
      {
        ...conversation,
        parts: [
          ...conversation.parts,
          { type: 'message', role: 'user', body: 'Update: the PDF export now fails every time with an error, our whole team is blocked.' },
        ],
      },
      org,
    );
    const listed = await all('listConversations', path('/conversations', org), org.token);
    expect(listed).toHaveLength(1);
    expect(listed[0].id).toBe(first.id);
    await analyse();
    const issues2 = await all('listConversationsIssues', path(`/conversations-issues?conversation=${first.id}`, org), org.token);
    expect(issues2).toHaveLength(1);
    expect(issues2[0].issue.impact).toBe('high');
    expect(issues2[0].issue.id).not.toBe(issues1[0].issue.id);
    // The same id from another source is another conversation.
    await ingest({ ...conversation, metadata: { attributes: { source: 'email' } } }, org);
    expect(await all('listConversations', path('/conversations', org), org.token)).toHaveLength(2);
  });

  it('refuses bad input with 400 naming the field, and changes nothing', async () => {
    const count = () => h.db.prisma.conversation.count();
    const before = await count();
    const part = { type: 'message', role: 'user', body: 'It fails.' };
    const cases: [unknown, RegExp][] = [
      [{ parts: [part] }, /id/],
      [{ id: '', parts: [part] }, /^id:/],
      [{ id: 'x'.repeat(256), parts: [part] }, /^id:/],
      [{ id: 'a' }, /parts/],
      [{ id: 'a', parts: [{ ...part, role: 'robot' }] }, /role/],
      [{ id: 'a', parts: [{ ...part, type: 'note' }] }, /type/],
      [{ id: 'a', parts: [{ type: 'message', role: 'user' }] }, /body/],
      [{ id: 'a', subject: 's'.repeat(513), parts: [part] }, /^subject:/],
      [{ id: 'a', metadata: { url: 'not a url' }, parts: [part] }, /^metadata\.url:/],
      [{ id: 'a', metadata: { createdAt: 'yesterday' }, parts: [part] }, /createdAt/],
      [{ id: 'a', metadata: { attributes: { plan: 3 } }, parts: [part] }, /metadata\.attributes\.plan/],
      [{ id: 'a', metadata: { attributes: { source: 'integration:x:y' } }, parts: [part] }, /metadata\.attributes\.source/],
      [{ id: 'a', parts: [part], colour: 'red' }, /colour/],
      [[], /conversations/],
      [
        [
          { id: 'ok', parts: [part] },
          { id: 'b', parts: [{ ...part, role: 'robot' }] },
        ],
        /conversations\[1\]\.parts\[0\]\.role/,
      ],
      [['a string'], /body\[0\]/],
    ];
    for (const [body, message] of cases) {
      const res = await h.call('POST', path('/conversations'), { token: owner.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
    }
    const raw = await h.call('POST', path('/conversations'), { token: owner.token, rawBody: '"text"' });
    expect(raw.status).toBe(400);
    expect(await count()).toBe(before);
  });

  it('needs an admin: 401 without a token, 404 for outsiders, 403 for other members', async () => {
    const before = await h.db.prisma.conversation.count();
    const body = { id: 'R-1', parts: [{ type: 'message', role: 'user', body: 'The export fails.' }] };
    expect((await h.call('POST', path('/conversations'), { token: null, body })).status).toBe(401);
    expect((await h.call('POST', path('/conversations'), { token: outsider.token, body })).status).toBe(404);
    expect((await h.call('POST', `/v1/orgs/${newId()}/conversations`, { token: owner.token, body })).status).toBe(404);
    for (const member of [reader, creator, guest])
      expect((await h.call('POST', path('/conversations'), { token: member.token, body })).status).toBe(403);
    expect(await h.db.prisma.conversation.count()).toBe(before);
  });
});

describe('reading conversations, issues and clusters', () => {
  it('lists conversations newest first, filtered by source, page by page', async () => {
    const zendesk = `integration:zendesk:${owner.orgId}`;
    const filtered = await all('listConversations', path(`/conversations?source=${encodeURIComponent(zendesk)}`));
    expect(filtered.length).toBe(corpus.conversations.filter((c) => c.source === 'zendesk').length);
    expect(filtered.every((c) => c.source === zendesk)).toBe(true);
    expect((await all('listConversations', path('/conversations?source=email'))).length).toBe(
      corpus.conversations.filter((c) => c.source === 'email').length,
    );
    const page1 = await h.rest('listConversations', 'GET', path('/conversations?limit=10'), { token: reader.token });
    expect(page1.body.items).toHaveLength(10);
    expect(page1.body.count).toBe(corpus.conversations.length);
    const page2 = await h.rest('listConversations', 'GET', path(`/conversations?limit=10&page=${page1.body.next.page}`), {
      token: reader.token,
    });
    expect(page2.body.items[0].id).not.toBe(page1.body.items[0].id);
    const dates = [...page1.body.items, ...page2.body.items].map((c: any) => Date.parse(c.createdAt));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
    expect((await h.call('GET', path('/conversations?limit=0'), { token: owner.token })).status).toBe(400);
    expect((await h.call('GET', path('/conversations?page=nonsense'), { token: owner.token })).status).toBe(400);
  });

  it('gets one conversation with its parts and metadata', async () => {
    const [c] = await all('listConversations', path('/conversations?source=email'));
    const res = await h.rest('getConversationById', 'GET', path(`/conversations/${c.id}`), { token: reader.token });
    expect(res.status).toBe(200);
    const fixture = corpus.conversations.find((f) => f.subject === c.subject)!;
    expect(res.body.conversation).toEqual(c);
    expect(res.body.parts).toEqual(fixture.parts.map((p) => ({ type: 'message', role: p.role, body: p.body })));
    expect(res.body.metadata).toEqual({
      url: `https://support.example.com/email/${fixture.id}`,
      attributes: { source: 'email', plan: 'pro' },
      createdAt: c.createdAt,
    });
    expect(c.urls).toEqual({
      location: `${BASE}/v1/orgs/${owner.orgId}/conversations/${c.id}`,
      source: `https://support.example.com/email/${fixture.id}`,
    });
    const missing = await h.rest('getConversationById', 'GET', path(`/conversations/${newId()}`), { token: owner.token });
    expect(missing.status).toBe(404);
  });

  it('lists issues by cluster and by conversation, and gets one', async () => {
    const [cluster] = await all('listConversationsIssuesClusters', path('/conversations-clusters?orderBy=issues'));
    const inCluster = await all('listConversationsIssues', path(`/conversations-issues?cluster=${cluster.id}`));
    expect(inCluster).toHaveLength(cluster.stats.issues);
    expect(inCluster.every((i) => i.issue.cluster === cluster.id && i.conversation.id === i.issue.conversation)).toBe(true);
    const two = (await all('listConversations', path('/conversations'))).find((c) => c.subject === 'PDF export problem');
    const ofConversation = await all('listConversationsIssues', path(`/conversations-issues?conversation=${two.id}`));
    expect(ofConversation).toHaveLength(2);
    const one = await h.rest('getConversationIssueById', 'GET', path(`/conversations-issues/${ofConversation[0].issue.id}`), {
      token: reader.token,
    });
    expect(one.body).toEqual(ofConversation[0]);
    expect(one.body.issue.urls.location).toBe(`${BASE}/v1/orgs/${owner.orgId}/conversations-issues/${ofConversation[0].issue.id}`);
    expect((await h.rest('getConversationIssueById', 'GET', path(`/conversations-issues/${newId()}`), { token: owner.token })).status).toBe(
      404,
    );
    expect(await all('listConversationsIssues', path(`/conversations-issues?cluster=${newId()}`))).toEqual([]);
  });

  it('lists clusters by updatedAt, issues, conversations or tasks, in either order', async () => {
    const byUpdated = await all('listConversationsIssuesClusters', path('/conversations-clusters'));
    const updated = byUpdated.map((c) => Date.parse(c.updatedAt));
    expect(updated).toEqual([...updated].sort((a, b) => b - a));
    const byIssues = await all('listConversationsIssuesClusters', path('/conversations-clusters?orderBy=issues&order=desc'));
    expect(byIssues.map((c) => c.stats.issues)).toEqual(byIssues.map((c) => c.stats.issues).sort((a, b) => b - a));
    const asc = await all('listConversationsIssuesClusters', path('/conversations-clusters?orderBy=conversations&order=asc'));
    expect(asc.map((c) => c.stats.conversations)).toEqual(asc.map((c) => c.stats.conversations).sort((a, b) => a - b));
    const byTasks = await all('listConversationsIssuesClusters', path('/conversations-clusters?orderBy=tasksTotal'));
    expect(new Set(byTasks.map((c) => c.id))).toEqual(new Set(byUpdated.map((c) => c.id)));
    const paged = await h.rest('listConversationsIssuesClusters', 'GET', path('/conversations-clusters?orderBy=issues&limit=3'), {
      token: owner.token,
    });
    expect(paged.body.items.map((c: any) => c.id)).toEqual(byIssues.slice(0, 3).map((c) => c.id));
    expect(paged.body.next.page).toEqual(expect.any(String));
    // Clusters are written whole at the end of an analysis: none is pending or being analysed.
    expect(
      (await h.rest('listConversationsIssuesClusters', 'GET', path('/conversations-clusters?status=analysing'), { token: owner.token }))
        .body,
    ).toEqual({ items: [], count: 0 });
    for (const bad of ['order=sideways', 'orderBy=colour', 'status=done', 'limit=1001']) {
      const res = await h.call('GET', path(`/conversations-clusters?${bad}`), { token: owner.token });
      expect(res.status, bad).toBe(400);
      expect(res.body.error.message).toMatch(bad.split('=')[0]!);
    }
    const missing = await h.call('GET', path(`/conversations-clusters/${newId()}`), { token: owner.token });
    expect(missing.status).toBe(404);
  });

  it('refuses readers without rights: 401 without a token, 404 for outsiders and other organizations, 403 for guests', async () => {
    const [cluster] = await all('listConversationsIssuesClusters', path('/conversations-clusters'));
    const [conversation] = await all('listConversations', path('/conversations'));
    const [issue] = await all('listConversationsIssues', path('/conversations-issues'));
    const reads = [
      '/conversations',
      `/conversations/${conversation.id}`,
      '/conversations-issues',
      `/conversations-issues/${issue.issue.id}`,
      '/conversations-clusters',
      `/conversations-clusters/${cluster.id}`,
    ];
    const other = (await h.owner('Other')) as Owner;
    for (const p of reads) {
      expect((await h.call('GET', path(p), { token: null })).status, p).toBe(401);
      expect((await h.call('GET', path(p), { token: outsider.token })).status, p).toBe(404);
      expect((await h.call('GET', path(p), { token: guest.token })).status, p).toBe(403);
      expect((await h.call('GET', path(p), { token: creator.token })).status, p).toBe(200);
    }
    expect(
      (await h.rest('listConversationsIssuesClusters', 'GET', `/v1/orgs/${newId()}/conversations-clusters`, { token: owner.token })).status,
    ).toBe(404);
    for (const p of ['/conversations-issues?limit=1001', '/conversations-issues?page=x', '/conversations?limit=-1']) {
      const res = await h.call('GET', path(p), { token: owner.token });
      expect(res.status, p).toBe(400);
      expect(res.body.error.message).toMatch(/^(limit|page):/);
    }
    // Another organization's admin cannot reach these through their own organization.
    for (const p of reads.filter((r) => r.split('/').length > 2))
      expect((await h.call('GET', path(p, other), { token: other.token })).status, p).toBe(404);
  });
});

describe('PATCH /orgs/{id}/conversations-clusters/{clusterId}', () => {
  it('mutes and unmutes a cluster', async () => {
    const [cluster] = await all('listConversationsIssuesClusters', path('/conversations-clusters'));
    const res = await h.call('PATCH', path(`/conversations-clusters/${cluster.id}`), { token: owner.token, body: { muted: true } });
    expect(res.status).toBe(200);
    // Not in the official description: its body is the official cluster.
    assertMatchesSpec('getConversationsIssuesCluster', 200, res.body);
    expect(res.body).toMatchObject({ id: cluster.id, muted: true });
    expect(
      (await h.rest('getConversationsIssuesCluster', 'GET', path(`/conversations-clusters/${cluster.id}`), { token: owner.token })).body
        .muted,
    ).toBe(true);
    const back = await h.call('PATCH', path(`/conversations-clusters/${cluster.id}`), { token: owner.token, body: { muted: false } });
    expect(back.body.muted).toBe(false);
  });

  it('refuses bad input and callers without rights, changing nothing', async () => {
    const [cluster] = await all('listConversationsIssuesClusters', path('/conversations-clusters'));
    const p = path(`/conversations-clusters/${cluster.id}`);
    const row = () => h.db.prisma.conversationsIssuesCluster.findUniqueOrThrow({ where: { id: cluster.id } });
    const before = await row();
    for (const [body, field] of [
      [{ muted: 'yes' }, 'muted'],
      [{ muted: null }, 'muted'],
      [{ colour: 'red' }, 'colour'],
    ] as const) {
      const res = await h.call('PATCH', p, { token: owner.token, body });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toContain(field);
    }
    expect((await h.call('PATCH', p, { token: null, body: { muted: true } })).status).toBe(401);
    expect((await h.call('PATCH', p, { token: outsider.token, body: { muted: true } })).status).toBe(404);
    expect((await h.call('PATCH', path(`/conversations-clusters/${newId()}`), { token: owner.token, body: { muted: true } })).status).toBe(
      404,
    );
    for (const member of [reader, creator])
      expect((await h.call('PATCH', p, { token: member.token, body: { muted: true } })).status).toBe(403);
    expect((await h.call('PATCH', p, { token: guest.token, body: { muted: true } })).status).toBe(403);
    expect(await row()).toEqual(before);
  });
});

describe('change requests linked to a cluster', () => {
  const LINK = `mutation Link($spaceId: ID!, $cr: String!, $cluster: ID) {
    linkChangeRequestToIssuesCluster(spaceId: $spaceId, changeRequestId: $cr, cluster: $cluster) { id conversationsIssuesCluster }
  }`;

  it('links, filters, counts as a task, and unlinks', async () => {
    const [cluster] = await all('listConversationsIssuesClusters', path('/conversations-clusters'));
    const space = await h.call('POST', path('/spaces'), { token: owner.token, body: { title: 'Docs' } });
    const cr = await h.call('POST', `/v1/spaces/${space.body.id}/change-requests`, {
      token: owner.token,
      body: { subject: 'Fix SSO docs' },
    });
    const linked = await h.graphql(owner.token, LINK, { spaceId: space.body.id, cr: String(cr.body.number), cluster: cluster.id });
    expect(linked.body.errors).toBeUndefined();
    expect(linked.body.data.linkChangeRequestToIssuesCluster.conversationsIssuesCluster).toBe(cluster.id);
    const got = await h.rest('getChangeRequestById', 'GET', `/v1/spaces/${space.body.id}/change-requests/${cr.body.id}`, {
      token: owner.token,
    });
    expect(got.body.conversationsIssuesCluster).toBe(cluster.id);
    const filtered = await h.rest(
      'listChangeRequestsForSpace',
      'GET',
      `/v1/spaces/${space.body.id}/change-requests?conversationsIssuesCluster=${cluster.id}`,
      { token: owner.token },
    );
    expect(filtered.body.items.map((c: any) => c.id)).toEqual([cr.body.id]);
    const withTask = await h.rest('getConversationsIssuesCluster', 'GET', path(`/conversations-clusters/${cluster.id}`), {
      token: owner.token,
    });
    expect(withTask.body.stats).toMatchObject({ tasksTotal: 1, tasksStarted: 1, tasksBacklog: 0 });
    await h.call('PATCH', `/v1/spaces/${space.body.id}/change-requests/${cr.body.id}`, { token: owner.token, body: { status: 'draft' } });
    expect(
      (await h.rest('getConversationsIssuesCluster', 'GET', path(`/conversations-clusters/${cluster.id}`), { token: owner.token })).body
        .stats,
    ).toMatchObject({ tasksTotal: 1, tasksStarted: 0, tasksBacklog: 1 });
    const top = await all('listConversationsIssuesClusters', path('/conversations-clusters?orderBy=tasksTotal'));
    expect(top[0].id).toBe(cluster.id);

    const unlinked = await h.graphql(owner.token, LINK, { spaceId: space.body.id, cr: cr.body.id, cluster: null });
    expect(unlinked.body.data.linkChangeRequestToIssuesCluster.conversationsIssuesCluster).toBeNull();
    expect(
      (await h.rest('getConversationsIssuesCluster', 'GET', path(`/conversations-clusters/${cluster.id}`), { token: owner.token })).body
        .stats.tasksTotal,
    ).toBe(0);
  });

  it('refuses a cluster of another organization or none, and callers who cannot change the change request', async () => {
    const other = (await h.owner('Elsewhere')) as Owner;
    await ingest(
      { id: 'E-1', subject: 'Search broken', parts: [{ type: 'message', role: 'user', body: 'Search returns no results at all.' }] },
      other,
    );
    await analyse();
    const [foreign] = await all('listConversationsIssuesClusters', path('/conversations-clusters', other), other.token);
    const [cluster] = await all('listConversationsIssuesClusters', path('/conversations-clusters'));
    const space = await h.call('POST', path('/spaces'), { token: owner.token, body: { title: 'Guides' } });
    const cr = await h.call('POST', `/v1/spaces/${space.body.id}/change-requests`, { token: owner.token, body: { subject: 'Edits' } });
    const vars = { spaceId: space.body.id, cr: cr.body.id };
    for (const id of [foreign.id, newId()]) {
      const res = await h.graphql(owner.token, LINK, { ...vars, cluster: id });
      expect(res.body.errors[0].extensions.code).toBe('BAD_REQUEST');
      expect(res.body.errors[0].message).toMatch(/^cluster:/);
    }
    expect((await h.graphql(reader.token, LINK, { ...vars, cluster: cluster.id })).body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await h.graphql(outsider.token, LINK, { ...vars, cluster: cluster.id })).body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await h.db.prisma.changeRequest.findUniqueOrThrow({ where: { id: cr.body.id } })).conversationsIssuesCluster).toBeNull();
  });
});

describe('clusters as conversations keep arriving', () => {
  it('a new conversation on a known theme joins its cluster, which keeps its id and its change requests', async () => {
    const issues = await labelledIssues(owner);
    const ssoCluster = issues.find((i) => i.key === 'zd-1001#0')!.issue.cluster;
    const before = (
      await h.rest('getConversationsIssuesCluster', 'GET', path(`/conversations-clusters/${ssoCluster}`), { token: owner.token })
    ).body;
    const space = await h.call('POST', path('/spaces'), { token: owner.token, body: { title: 'SSO guide' } });
    const cr = await h.call('POST', `/v1/spaces/${space.body.id}/change-requests`, {
      token: owner.token,
      body: { subject: 'Document certificate rotation' },
    });
    await h.graphql(
      owner.token,
      `mutation { linkChangeRequestToIssuesCluster(spaceId: "${space.body.id}", changeRequestId: "${cr.body.id}", cluster: "${ssoCluster}") { id } }`,
    );
    await ingest({
      id: 'ic-9001',
      subject: 'Okta login broken after certificate change',
      metadata: { attributes: { source: 'intercom' } },
      parts: [
        {
          type: 'message',
          role: 'user',
          body: 'We rotated the SAML signing certificate in Okta and now SSO login fails with an invalid signature for our users.',
        },
      ],
    });
    await analyse();
    const after = (
      await h.rest('getConversationsIssuesCluster', 'GET', path(`/conversations-clusters/${ssoCluster}`), { token: owner.token })
    ).body;
    expect(after.stats).toMatchObject({ issues: before.stats.issues + 1, conversations: before.stats.conversations + 1, tasksTotal: 1 });
    expect(after.weeklyPulse[12]).toBe(before.weeklyPulse[12] + 1);
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
    expect((await h.db.prisma.changeRequest.findUniqueOrThrow({ where: { id: cr.body.id } })).conversationsIssuesCluster).toBe(ssoCluster);
    // The other clusters did not move.
    const others = (await labelledIssues(owner)).filter((i) => i.key !== 'ic-9001#0');
    expect(others.map((i) => [i.key, i.issue.cluster]).sort()).toEqual(issues.map((i) => [i.key, i.issue.cluster]).sort());
  });
});

describe('an LLM-backed analyser, chosen by configuration', () => {
  let server: http.Server;
  let url: string;
  const requests: any[] = [];
  beforeAll(async () => {
    // A local server speaking the OpenAI chat-completions protocol, answering deterministically.
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const parsed = JSON.parse(body);
        requests.push({ path: req.url, auth: req.headers.authorization, body: parsed });
        const transcript: string = parsed.messages[1].content;
        const subject = /^Subject: (.*)$/m.exec(transcript)?.[1] ?? 'Untitled';
        const issues = /thank/i.test(subject)
          ? []
          : [
              {
                title: `Model: ${subject}`,
                summary: `The customer reports: ${subject}.`,
                impact: /down|blocked/i.test(transcript) ? 'high' : 'medium',
              },
            ];
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: JSON.stringify({ issues }) } }] }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('extracts issues through the model API and clusters them', async () => {
    const org = (await h.owner('Model')) as Owner;
    await ingest(
      [
        {
          id: 'M-1',
          subject: 'Docs site is down',
          parts: [{ type: 'message', role: 'user', body: 'Our docs site is down, everyone is blocked.' }],
        },
        { id: 'M-2', subject: 'Thanks a lot', parts: [{ type: 'message', role: 'user', body: 'All good now.' }] },
      ],
      org,
    );
    const config = { ...h.config, conversationAnalyser: { kind: 'openai' as const, url, model: 'test-model', apiKey: 'secret' } };
    await analyse({ ...services(), config });
    expect(requests.length).toBe(2);
    expect(requests[0]).toMatchObject({
      path: '/v1/chat/completions',
      auth: 'Bearer secret',
      body: { model: 'test-model', temperature: 0 },
    });
    const issues = await all('listConversationsIssues', path('/conversations-issues', org), org.token);
    expect(issues.map((i) => [i.issue.title, i.issue.impact])).toEqual([['Model: Docs site is down', 'high']]);
    expect(issues[0].issue.cluster).toEqual(expect.any(String));
  });
});

describe('route coverage', () => {
  it('every official conversations operation was exercised', () => {
    const official = conversationRoutes.map((r) => r.operationId).filter((id) => !id.startsWith('lectern:'));
    expect(official.filter((id) => !h.coveredOperations.has(id))).toEqual([]);
  });
});
