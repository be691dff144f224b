import { beforeAll, describe, expect, it } from 'vitest';
import { drainJobs, enqueueJob, registerJobHandler, runOneJob, startWorker } from '../../src/jobs/queue.js';
import { createUrls } from '../../src/urls.js';
import { setupHarness, type Harness } from '../support/harness.js';

let h: Harness;
const seen: string[] = [];
beforeAll(async () => {
  h = await setupHarness();
  registerJobHandler('test.echo', async (payload: { value: string }) => {
    seen.push(payload.value);
  });
  let failures = 0;
  registerJobHandler('test.flaky', async () => {
    if (failures++ < 1) throw new Error('first attempt fails');
  });
  registerJobHandler('test.broken', async () => {
    throw new Error('always fails');
  });
});
const services = () => ({ db: h.db, config: h.config, urls: createUrls('http://lectern.test') });

describe('job queue', () => {
  it('runs each job once, in order, even with two workers competing', async () => {
    for (let i = 0; i < 20; i++) await enqueueJob(h.db.prisma, 'test.echo', { value: `v${i}` });
    const ran = await Promise.all([drainJobs(services(), ['test.echo']), drainJobs(services(), ['test.echo'])]);
    expect(ran[0]! + ran[1]!).toBe(20);
    expect([...seen].sort()).toEqual(Array.from({ length: 20 }, (_, i) => `v${i}`).sort());
    expect(await h.db.prisma.job.count({ where: { kind: 'test.echo', status: 'done' } })).toBe(20);
  });

  it('retries a failing job with backoff and gives up after maxAttempts', async () => {
    const flaky = await enqueueJob(h.db.prisma, 'test.flaky', {});
    const broken = await enqueueJob(h.db.prisma, 'test.broken', {}, { maxAttempts: 2 });
    await runOneJob(services(), ['test.flaky']);
    expect(await h.db.prisma.job.findUnique({ where: { id: flaky } })).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastError: 'first attempt fails',
    });
    await h.db.prisma.job.updateMany({ data: { runAfter: new Date(0) }, where: { id: { in: [flaky, broken] } } });
    await runOneJob(services(), ['test.flaky']);
    expect(await h.db.prisma.job.findUnique({ where: { id: flaky } })).toMatchObject({ status: 'done', attempts: 2 });
    for (let i = 0; i < 2; i++) {
      await runOneJob(services(), ['test.broken']);
      await h.db.prisma.job.updateMany({ data: { runAfter: new Date(0) }, where: { id: broken, status: 'pending' } });
    }
    expect(await h.db.prisma.job.findUnique({ where: { id: broken } })).toMatchObject({
      status: 'failed',
      attempts: 2,
      lastError: 'always fails',
    });
  });

  it('takes up a job left running by a process that died', async () => {
    const id = await enqueueJob(h.db.prisma, 'test.echo', { value: 'orphan' });
    await h.db.prisma.job.update({ where: { id }, data: { status: 'running', lockedAt: new Date(Date.now() - 10 * 60_000), attempts: 1 } });
    expect(await drainJobs(services(), ['test.echo'])).toBe(1);
    expect(seen).toContain('orphan');
  });

  it('the server worker picks up new jobs by itself', async () => {
    const worker = startWorker(services(), { pollMs: 20 });
    const id = await enqueueJob(h.db.prisma, 'test.echo', { value: 'background' });
    for (let i = 0; i < 100 && (await h.db.prisma.job.findUnique({ where: { id } }))!.status !== 'done'; i++)
      await new Promise((r) => setTimeout(r, 20));
    await worker.stop();
    expect(seen).toContain('background');
  });
});
