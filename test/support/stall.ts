import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { createServerAdapter } from '@whatwg-node/server';
import type { App } from '../../src/app.js';
import { markdownProcessor } from '../../src/document/index.js';

/**
 * "One request must not stall everyone": the app on a real HTTP server on loopback, the event loop's
 * longest block while a piece of work runs (measured against the work's own duration and a reference
 * taken on this machine: see HealthReport), and a probe asking /healthz from another thread.
 */
export async function serveOnLoopback(app: Pick<App, 'fetch'>): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(createServerAdapter((request: Request) => app.fetch(request)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// Plain JavaScript (no TypeScript loader in a worker): /healthz asked one request at a time, 10 ms apart.
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let stopped = false, count = 0, failures = 0;
const once = () => new Promise((resolve) => {
  const req = http.get(workerData.url + '/healthz', { agent }, (res) => {
    res.resume();
    res.on('end', () => { if (res.statusCode !== 200) failures++; resolve(); });
  });
  req.on('error', () => { failures++; resolve(); });
});
parentPort.on('message', () => { stopped = true; });
(async () => {
  parentPort.postMessage({ ready: true });
  while (!stopped) {
    await once();
    count++;
    await new Promise((r) => setTimeout(r, 10));
  }
  agent.destroy();
  parentPort.postMessage({ count, failures });
})();
`;

/**
 * What "the work did not stall everyone" is measured against, so that no test compares a duration
 * with a number of milliseconds (that measures the machine, not the code: a loaded 2-core machine
 * took 209 ms where a quiet one takes 20):
 *
 * - the event loop's longest block while the work ran, from `perf_hooks.monitorEventLoopDelay` on
 *   this thread (the app under test serves from this thread's loop);
 * - the work's own duration: work done in one blocking piece blocks the loop for about all of it;
 * - a reference measured on this machine, now: parsing 64 KB of Markdown on this thread (what a
 *   request that parses a large page inline costs the loop, a quarter of the smallest such page the
 *   tests send). A slower or busier machine makes the reference and the work slower alike.
 *
 * The loop was blocked when its longest block is both longer than the reference and more than half
 * of the work's duration. A probe on another thread asks /healthz meanwhile (every answer must be 200).
 */
export interface HealthReport {
  /** How long the work took, ms. */
  workMs: number;
  /** The event loop's longest block while the work ran, ms. */
  longestBlockMs: number;
  /** Parsing 64 KB of Markdown on this thread, on this machine, now (the shortest of three), ms. */
  referenceMs: number;
  /** Whether the loop stayed free (see above). */
  free: boolean;
  /** /healthz answers the probe got, and how many were not 200. */
  count: number;
  failures: number;
}

const RESOLUTION_MS = 5;
let reference: number | undefined;
/**
 * The reference block (see HealthReport), measured once per test file: twice the shortest of three
 * parses of 32 KB (parsing is linear in the text). The parser is called directly, so the parse
 * counter that tests read (markdownParseCount) is not moved by the measuring.
 */
export function referenceBlockMs(): number {
  reference ??= measureReference();
  return reference;
}

function measureReference(): number {
  const paragraph = 'Lorem ipsum dolor sit amet, **consectetur** adipiscing elit, [sed do](https://example.com) `eiusmod` tempor.\n\n';
  const text = paragraph.repeat(Math.ceil(32_768 / paragraph.length));
  const runs = [0, 1, 2].map(() => {
    const t0 = performance.now();
    markdownProcessor.parse(text);
    return performance.now() - t0;
  });
  return 2 * Math.min(...runs);
}

/** A readable account of a report, for assertion messages. */
export const describeHealth = (h: HealthReport) =>
  `the loop's longest block was ${h.longestBlockMs.toFixed(0)} ms during ${h.workMs.toFixed(0)} ms of work (reference: ${h.referenceMs.toFixed(0)} ms to parse 64 KB of Markdown here)`;

/** Starts probing `url`/healthz from another thread; `stop()` answers how many answers and failures. */
export async function probeHealth(url: string): Promise<{ stop(): Promise<{ count: number; failures: number }> }> {
  const worker = new Worker(PROBE, { eval: true, workerData: { url } });
  const messages: Array<(m: any) => void> = [];
  worker.on('message', (m) => messages.shift()?.(m));
  const next = () => new Promise<any>((resolve) => messages.push(resolve));
  await next(); // ready
  return {
    async stop() {
      const report = next();
      worker.postMessage('stop');
      const result = (await report) as { count: number; failures: number };
      await worker.terminate();
      return result;
    },
  };
}

/**
 * Runs `work` while the event loop's delay is recorded and a probe asks /healthz, and returns both:
 * tests assert the work was refused (or done) as it should AND `health.free` (describeHealth says why not).
 */
export async function whileProbing<T>(url: string, work: () => Promise<T>): Promise<{ result: T; health: HealthReport }> {
  const referenceMs = referenceBlockMs();
  const probe = await probeHealth(url);
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  // The histogram records the time between two firings of its timer: it needs one firing before the work.
  await new Promise((resolve) => setTimeout(resolve, 2 * RESOLUTION_MS));
  const t0 = performance.now();
  let result: T;
  try {
    result = await work();
  } catch (error) {
    delay.disable();
    await probe.stop();
    throw error;
  }
  const workMs = performance.now() - t0;
  // One more turn of the loop: the histogram's timer records a block when it next fires, after it.
  await new Promise((resolve) => setTimeout(resolve, 2 * RESOLUTION_MS));
  delay.disable();
  // The histogram records the intervals of its own timer: what exceeds the timer's period is a block.
  const longestBlockMs = delay.count ? Math.max(0, delay.max / 1e6 - RESOLUTION_MS) : 0;
  const answers = await probe.stop();
  // A block past the file's reference is weighed against the machine as it is now too: a neighbour's
  // load (another test file, a browser) that began after the reference slows this thread's
  // descheduled turns and the reference alike.
  const referenceNowMs = longestBlockMs > referenceMs ? Math.max(referenceMs, measureReference()) : referenceMs;
  const free = !(longestBlockMs > referenceNowMs && longestBlockMs > workMs / 2);
  return { result, health: { workMs, longestBlockMs, referenceMs: referenceNowMs, free, ...answers } };
}
