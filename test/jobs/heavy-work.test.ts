import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeIsolates, IsolatedTaskError, IsolateLimitError, runIsolated } from '../../src/jobs/isolate.js';
import { drainJobs, enqueueJob, registerJobHandler, STALE_MS } from '../../src/jobs/queue.js';
import { ANALYSE_JOB } from '../../src/modules/conversations/analysis-job.js';
import { OPENAPI_JOB } from '../../src/modules/openapi/jobs.js';
import { createUrls } from '../../src/urls.js';
import { BASE, setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { describeHealth, serveOnLoopback, whileProbing } from '../support/stall.js';

/**
 * Heavy work off the request loop: OpenAPI processing, conversation analysis and PDF
 * rendering run in worker threads with memory and time limits (src/jobs/isolate.ts), so the event
 * loop stays free while they run (test/support/stall.ts: measured against the work, not a clock); YAML aliases are bounded by what they expand to;
 * a job whose process died under it too often is given up, not taken up forever.
 */
let h: Harness;
let owner: TestUser & { orgId: string };
let server: { url: string; close(): Promise<void> };
const services = () => ({ db: h.db, config: h.config, urls: createUrls(BASE) });
const TASKS = new URL('../support/isolate-tasks.ts', import.meta.url);

beforeAll(async () => {
  h = await setupHarness();
  owner = await h.owner('Heavy Org');
  server = await serveOnLoopback(h.app);
});
afterAll(async () => {
  await server.close();
  await closeIsolates();
});

/** ~17 KB of YAML whose aliases (an anchor of anchors: "billion laughs") expand to ~14 MB of JSON. */
function aliasBomb(): string {
  const lines = [
    'openapi: 3.0.3',
    'info: { title: Aliased, version: "1" }',
    'paths: {}',
    'components:',
    '  schemas:',
    '    Base: &base',
    '      type: object',
    '      properties:',
  ];
  for (let i = 0; i < 140; i++) lines.push(`        p${i}: { type: string, description: ${'lorem ipsum '.repeat(6)}}`);
  lines.push('    Mid: &mid', '      type: object', '      properties:');
  for (let i = 0; i < 30; i++) lines.push(`        m${i}: *base`);
  lines.push('x-copies:');
  for (let i = 0; i < 30; i++) lines.push(`  c${i}: *mid`);
  return `${lines.join('\n')}\n`;
}

describe('OpenAPI YAML aliases', () => {
  it('a 17 KB YAML whose aliases expand to megabytes fails with PARSE_ERROR saying so; the event loop stays free', async () => {
    const text = aliasBomb();
    expect(text.length).toBeGreaterThan(16_000);
    expect(text.length).toBeLessThan(18_000);
    // Its own slug (a re-run of the file must not meet the last one's).
    const slug = `aliased-${Math.random().toString(36).slice(2, 8)}`;
    const created = await h.call('POST', `/v1/orgs/${owner.orgId}/openapi`, { token: owner.token, body: { slug, source: { text } } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    const { health } = await whileProbing(server.url, () => drainJobs(services(), [OPENAPI_JOB]));
    expect(health.failures).toBe(0);
    expect(health.free, describeHealth(health)).toBe(true);

    const spec = (await h.call('GET', `/v1/orgs/${owner.orgId}/openapi/${slug}`, { token: owner.token })).body;
    expect(spec).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'PARSE_ERROR' });
    expect(spec.lastProcessedErrors[0].message).toMatch(
      /expands to more than 1 MB \(from 17 KB written\) once its YAML aliases are expanded/,
    );
    const version = await h.db.prisma.openAPISpecVersion.findFirstOrThrow({ where: { spec: { slug } } });
    expect(version).toMatchObject({ state: 'failed', filesystem: null });
  });

  it('aliases that only repeat a little are read as before; a recursive alias is refused', async () => {
    const text =
      'openapi: 3.0.3\ninfo: { title: Small, version: "1" }\npaths:\n  /a:\n    get: &op\n      responses: { "200": { description: ok } }\n  /b:\n    get: *op\n';
    await h.call('POST', `/v1/orgs/${owner.orgId}/openapi`, { token: owner.token, body: { slug: 'small-aliases', source: { text } } });
    const recursive = 'openapi: 3.0.3\ninfo: { title: Loop, version: "1" }\npaths: {}\nx-loop: &loop\n  again: *loop\n';
    await h.call('POST', `/v1/orgs/${owner.orgId}/openapi`, {
      token: owner.token,
      body: { slug: 'recursive', source: { text: recursive } },
    });
    await drainJobs(services(), [OPENAPI_JOB]);
    const small = (await h.call('GET', `/v1/orgs/${owner.orgId}/openapi/small-aliases/versions/latest/content`, { token: owner.token }))
      .body;
    const entry = Object.values<any>(small.filesystem.files)[0].specification;
    expect(entry.paths['/b'].get).toEqual(entry.paths['/a'].get);
    const loop = (await h.call('GET', `/v1/orgs/${owner.orgId}/openapi/recursive`, { token: owner.token })).body;
    expect(loop.lastProcessedErrors[0].message).toMatch(/alias inside its own anchor/);
  });

  it('bounds the stored filesystem (LECTERN_OPENAPI_MAX_FILESYSTEM_BYTES)', async () => {
    process.env.LECTERN_OPENAPI_MAX_FILESYSTEM_BYTES = '20000';
    try {
      const text = JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'Padded', version: '1' },
        paths: {},
        'x-padding': 'x'.repeat(30_000),
      });
      await h.call('POST', `/v1/orgs/${owner.orgId}/openapi`, { token: owner.token, body: { slug: 'padded', source: { text } } });
      await drainJobs(services(), [OPENAPI_JOB]);
    } finally {
      delete process.env.LECTERN_OPENAPI_MAX_FILESYSTEM_BYTES;
    }
    const spec = (await h.call('GET', `/v1/orgs/${owner.orgId}/openapi/padded`, { token: owner.token })).body;
    expect(spec.lastProcessErrorCode).toBe('PARSE_ERROR');
    expect(spec.lastProcessedErrors[0].message).toMatch(/larger than 20 KB once its YAML aliases are expanded|more than 20 KB together/);
  });

  it('processing over its time limit fails with an actionable error, recorded on the version', async () => {
    process.env.LECTERN_OPENAPI_TOTAL_TIMEOUT_MS = '1';
    process.env.LECTERN_OPENAPI_PROCESS_TIMEOUT_MS = '1';
    try {
      const text = JSON.stringify({ openapi: '3.0.3', info: { title: 'Slow', version: '1' }, paths: {} });
      await h.call('POST', `/v1/orgs/${owner.orgId}/openapi`, { token: owner.token, body: { slug: 'timed-out', source: { text } } });
      await drainJobs(services(), [OPENAPI_JOB]);
    } finally {
      delete process.env.LECTERN_OPENAPI_TOTAL_TIMEOUT_MS;
      delete process.env.LECTERN_OPENAPI_PROCESS_TIMEOUT_MS;
    }
    const spec = (await h.call('GET', `/v1/orgs/${owner.orgId}/openapi/timed-out`, { token: owner.token })).body;
    expect(spec).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'PARSE_ERROR' });
    expect(spec.lastProcessedErrors).toEqual([
      {
        message: expect.stringMatching(
          /^OpenAPI processing took longer than 0 s \(Lectern allows 512 MB of memory and 0 s per version\): the spec is too large or too deeply aliased/,
        ),
        code: 'RESOURCE_LIMIT',
      },
    ]);
  });
});

describe('stale jobs', () => {
  it('a job left running at its attempt cap is not taken up again: failed, and its OpenAPI version says so', async () => {
    const created = await h.call('POST', `/v1/orgs/${owner.orgId}/openapi`, {
      token: owner.token,
      body: { slug: 'crashed', source: { text: '{"openapi":"3.0.3"}' } },
    });
    const job = await h.db.prisma.job.findFirstOrThrow({
      where: { kind: OPENAPI_JOB, payload: { path: ['versionId'], equals: created.body.lastVersion } },
    });
    // As a process killed while working on it, for the third time, leaves it.
    const stale = new Date(Date.now() - STALE_MS - 60_000);
    await h.db.prisma.job.update({ where: { id: job.id }, data: { status: 'running', lockedAt: stale, attempts: 3, maxAttempts: 3 } });
    await h.db.prisma.openAPISpecVersion.update({ where: { id: created.body.lastVersion }, data: { state: 'progress' } });

    expect(await drainJobs(services(), [OPENAPI_JOB])).toBe(0);
    expect(await h.db.prisma.job.findUniqueOrThrow({ where: { id: job.id } })).toMatchObject({
      status: 'failed',
      attempts: 3,
      lastError: expect.stringMatching(/^interrupted 3 times; giving up/),
    });
    const spec = (await h.call('GET', `/v1/orgs/${owner.orgId}/openapi/crashed`, { token: owner.token })).body;
    expect(spec).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'PARSE_ERROR' });
    expect(spec.lastProcessedErrors[0]).toEqual({
      message: expect.stringMatching(/gave up \(interrupted 3 times; giving up\)/),
      code: 'INTERRUPTED',
    });
    expect(await h.db.prisma.openAPISpecVersion.findUniqueOrThrow({ where: { id: created.body.lastVersion } })).toMatchObject({
      state: 'failed',
    });
    // And it stays given up.
    expect(await drainJobs(services(), [OPENAPI_JOB])).toBe(0);
  });

  it('below the cap a stale job is taken up again (a process died once)', async () => {
    const ran: string[] = [];
    registerJobHandler('test.heavy.stale', async (payload: { value: string }) => void ran.push(payload.value));
    const id = await enqueueJob(h.db.prisma, 'test.heavy.stale', { value: 'again' });
    await h.db.prisma.job.update({
      where: { id },
      data: { status: 'running', lockedAt: new Date(Date.now() - STALE_MS - 60_000), attempts: 2, maxAttempts: 3 },
    });
    expect(await drainJobs(services(), ['test.heavy.stale'])).toBe(1);
    expect(ran).toEqual(['again']);
    expect(await h.db.prisma.job.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'done', attempts: 3 });
  });
});

describe('isolated tasks', () => {
  it('run TypeScript in a worker thread, reused warm; over the time or memory limit they fail with IsolateLimitError', async () => {
    expect(await runIsolated(TASKS, 'echo', { value: 'x' }, { timeoutMs: 10_000, memoryMb: 64 })).toEqual({ value: 'x', typescript: true });
    // Reused warm: the next task of the same kind runs on the same thread, not a new one.
    const thread = await runIsolated<number>(TASKS, 'whichThread', {}, { timeoutMs: 10_000, memoryMb: 64 });
    expect(thread).toBeGreaterThan(0);
    expect(await runIsolated<number>(TASKS, 'whichThread', {}, { timeoutMs: 10_000, memoryMb: 64 })).toBe(thread);

    const spin = runIsolated(TASKS, 'spin', {}, { timeoutMs: 300, memoryMb: 64 });
    await expect(spin).rejects.toBeInstanceOf(IsolateLimitError);
    await expect(spin).rejects.toThrow('took longer than 0.3 s');
    const hog = runIsolated(TASKS, 'hog', {}, { timeoutMs: 20_000, memoryMb: 48 });
    await expect(hog).rejects.toThrow('needed more than 48 MB of memory');
    const fails = runIsolated(TASKS, 'fails', {}, { timeoutMs: 10_000, memoryMb: 64 });
    await expect(fails).rejects.toBeInstanceOf(IsolatedTaskError);
    await expect(fails).rejects.toThrow('task failed on purpose');
    // The pool recovers: a fresh thread for the next task.
    expect(await runIsolated(TASKS, 'echo', { value: 'z' }, { timeoutMs: 10_000, memoryMb: 64 })).toEqual({ value: 'z', typescript: true });
  });
});

interface FixtureConversation {
  id: string;
  subject: string;
  parts: { role: string; body: string }[];
}

describe('conversation analysis', () => {
  it('analyses 1,000 conversations while the event loop stays free', { timeout: 300_000 }, async () => {
    const corpus = JSON.parse(fs.readFileSync(new URL('../fixtures/support-conversations.json', import.meta.url), 'utf8')) as {
      conversations: FixtureConversation[];
    };
    const org = await h.owner('Busy Support');
    const now = Date.now();
    const conversations = Array.from({ length: 1000 }, (_, i) => {
      const c = corpus.conversations[i % corpus.conversations.length]!;
      return {
        id: `${c.id}-${i}`,
        subject: `${c.subject} (${i})`,
        metadata: { createdAt: new Date(now - i * 60_000).toISOString() },
        parts: c.parts.map((p, j) => ({
          type: 'message',
          role: p.role,
          body: j === 0 ? `${p.body} Ticket ${i}, workspace w${i % 37}.` : p.body,
        })),
      };
    });
    const ingested = await h.call('POST', `/v1/orgs/${org.orgId}/conversations`, { token: org.token, body: conversations });
    expect(ingested.status, JSON.stringify(ingested.body)).toBe(204);

    const { result, health } = await whileProbing(server.url, () => drainJobs(services(), [ANALYSE_JOB]));
    expect(result).toBe(1);
    expect(health.failures).toBe(0);
    expect(health.free, describeHealth(health)).toBe(true);
    expect(await h.db.prisma.conversation.count({ where: { organizationId: org.orgId, processedAt: null } })).toBe(0);
    expect(await h.db.prisma.conversationIssue.count({ where: { organizationId: org.orgId } })).toBeGreaterThan(900);
    expect(await h.db.prisma.conversationsIssuesCluster.count({ where: { organizationId: org.orgId } })).toBeGreaterThan(3);
  });
});

describe('PDF exports', () => {
  it('a deep document renders off the event loop (the loop stays free); HEAD does not render; a second GET is served from the cache', {
    timeout: 300_000,
  }, async () => {
    const space = (await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'Deep' } })).body;
    const cr = (await h.call('POST', `/v1/spaces/${space.id}/change-requests`, { token: owner.token, body: { subject: 'Deep lists' } }))
      .body;
    // Nested lists and quotes as deep as the Markdown limits allow, on many pages: seconds of layout.
    const deep = (depth: number) =>
      Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}- level ${i} ${'with some words to lay out '.repeat(3)}`).join('\n');
    const changes = Array.from({ length: 40 }, (_, i) => ({
      operation: 'insert_page',
      title: `Page ${i}`,
      document: { markdown: `# Page ${i}\n\n${deep(30)}\n\n${'> quoted text '.repeat(20)}\n` },
    }));
    const written = await h.call('POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/content`, {
      token: owner.token,
      body: { changes },
    });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    const { url } = (await h.call('GET', `/v1/spaces/${space.id}/change-requests/${cr.id}/pdf`, { token: owner.token })).body;
    const local = url.replace(BASE, server.url);

    const head = await whileProbing(server.url, async () => {
      const res = await fetch(local, { method: 'HEAD' });
      return { status: res.status, type: res.headers.get('content-type'), length: res.headers.get('content-length') };
    });
    // HEAD looked the export up without rendering it: the length of a PDF not rendered yet is unknown.
    expect(head.result).toMatchObject({ status: 200, type: 'application/pdf', length: null });
    expect(head.health.free, describeHealth(head.health)).toBe(true);

    const first = await whileProbing(server.url, async () => {
      const res = await fetch(local);
      return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
    });
    expect(first.result.status).toBe(200);
    expect(first.result.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(first.health.failures).toBe(0);
    expect(first.health.free, describeHealth(first.health)).toBe(true);

    // The rendering is kept: HEAD now knows its length, and a second GET sends the same bytes.
    expect((await fetch(local, { method: 'HEAD' })).headers.get('content-length')).toBe(String(first.result.bytes.length));
    const again = await fetch(local);
    const bytes = Buffer.from(await again.arrayBuffer());
    expect(bytes.equals(first.result.bytes)).toBe(true);
  });
});
