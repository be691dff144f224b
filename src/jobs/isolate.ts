import { Worker, SHARE_ENV } from 'node:worker_threads';

/**
 * Heavy CPU work (parsing and validating OpenAPI documents, analysing conversations, segmenting
 * pages for translation, rendering PDFs) runs here, in worker threads, never on the event loop that
 * answers requests: one tenant's huge document must not stall everyone else's requests.
 *
 * `runIsolated(taskModule, exportName, input, { timeoutMs, memoryMb })` calls `exportName` of the
 * module at `taskModule` (a file URL; TypeScript is fine) in a worker thread whose V8 heap is capped
 * at `memoryMb` (resourceLimits) and which is terminated after `timeoutMs`; either limit rejects
 * with an `IsolateLimitError`, and the thread is thrown away. Input and result cross by structured
 * clone: plain data only; database access stays on the main thread (load rows, run pure work here,
 * write the result there).
 *
 * Starting a thread costs its module graph's loading (tsx + the task's libraries; measured on 2
 * busy cores: 320–500 ms for an empty task, 450–880 ms for OpenAPI processing or PDF rendering; a
 * warm thread answers in under a millisecond), so threads are kept warm and reused, per task module and
 * memory limit: up to `MAX_THREADS` at once per pool (more callers wait their turn), an idle thread
 * lives `IDLE_MS` and never keeps the process alive. This module imports no domain module: tasks
 * name their own files.
 */
export interface IsolateOptions {
  timeoutMs: number;
  memoryMb: number;
}

/** The task went over its time or memory limit; the thread was discarded. */
export class IsolateLimitError extends Error {
  constructor(
    readonly limit: 'time' | 'memory',
    readonly options: IsolateOptions,
  ) {
    super(limit === 'time' ? `took longer than ${formatSeconds(options.timeoutMs)}` : `needed more than ${options.memoryMb} MB of memory`);
    this.name = 'IsolateLimitError';
  }
}

/** The task threw: its error's name and message (the stack stays in `taskStack`, for logs only). */
export class IsolatedTaskError extends Error {
  constructor(
    readonly taskName: string,
    message: string,
    readonly taskStack?: string,
  ) {
    super(message);
    this.name = 'IsolatedTaskError';
  }
}

const formatSeconds = (ms: number) => `${(ms / 1000).toLocaleString('en', { maximumFractionDigits: 1 })} s`;

const MAX_THREADS = 2;
const IDLE_MS = 5 * 60_000;
const BOOTSTRAP = new URL('./isolate-worker.mjs', import.meta.url);

interface Pending {
  id: number;
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  options: IsolateOptions;
  timedOut: boolean;
}

interface Thread {
  worker: Worker;
  ready: Promise<void>;
  current: Pending | null;
  idle: boolean;
  idleTimer?: NodeJS.Timeout;
  gone: boolean;
}

interface Pool {
  module: string;
  memoryMb: number;
  threads: Set<Thread>;
  waiting: Array<() => void>;
}

const pools = new Map<string, Pool>();
let nextId = 1;

function spawn(pool: Pool): Thread {
  const worker = new Worker(BOOTSTRAP, {
    workerData: { module: pool.module },
    // Settings read from the environment stay live (an operator's or a test's change applies).
    env: SHARE_ENV,
    resourceLimits: {
      maxOldGenerationSizeMb: pool.memoryMb,
      maxYoungGenerationSizeMb: Math.min(64, Math.max(8, Math.floor(pool.memoryMb / 8))),
    },
    stdout: false,
    stderr: false,
  });
  let lastError: (Error & { code?: string }) | undefined;
  let markReady!: () => void;
  let failStart!: (error: Error) => void;
  const thread: Thread = {
    worker,
    ready: new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failStart = reject;
    }),
    current: null,
    idle: false,
    gone: false,
  };
  thread.ready.catch(() => undefined);
  worker.on(
    'message',
    (message: { ready?: true; id?: number; ok?: boolean; value?: unknown; error?: { name: string; message: string; stack?: string } }) => {
      if (message.ready) return markReady();
      const pending = thread.current;
      if (!pending || pending.id !== message.id) return;
      clearTimeout(pending.timer);
      thread.current = null;
      if (message.ok) pending.resolve(message.value);
      else pending.reject(new IsolatedTaskError(message.error!.name, message.error!.message, message.error!.stack));
    },
  );
  worker.on('error', (error: Error & { code?: string }) => {
    lastError = error;
  });
  worker.on('exit', () => {
    thread.gone = true;
    clearTimeout(thread.idleTimer);
    pool.threads.delete(thread);
    const outOfMemory = lastError?.code === 'ERR_WORKER_OUT_OF_MEMORY';
    failStart(lastError ?? new Error('the worker thread exited while starting'));
    const pending = thread.current;
    if (pending) {
      thread.current = null;
      clearTimeout(pending.timer);
      if (pending.timedOut) pending.reject(new IsolateLimitError('time', pending.options));
      else if (outOfMemory) pending.reject(new IsolateLimitError('memory', pending.options));
      else
        pending.reject(
          new IsolatedTaskError(
            lastError?.name ?? 'Error',
            lastError?.message ?? 'the worker thread exited unexpectedly',
            lastError?.stack,
          ),
        );
    }
    pool.waiting.shift()?.();
  });
  pool.threads.add(thread);
  return thread;
}

async function acquire(pool: Pool): Promise<Thread> {
  for (;;) {
    const idle = [...pool.threads].find((t) => t.idle && !t.gone);
    if (idle) {
      idle.idle = false;
      clearTimeout(idle.idleTimer);
      return idle;
    }
    if (pool.threads.size < MAX_THREADS) return spawn(pool);
    await new Promise<void>((resolve) => pool.waiting.push(resolve));
  }
}

function release(pool: Pool, thread: Thread) {
  if (!thread.gone) {
    thread.idle = true;
    thread.worker.unref();
    thread.idleTimer = setTimeout(() => void thread.worker.terminate(), IDLE_MS);
    thread.idleTimer.unref();
  }
  pool.waiting.shift()?.();
}

function poolFor(module: URL | string, memoryMb: number): Pool {
  const href = String(module);
  const key = `${memoryMb}|${href}`;
  let pool = pools.get(key);
  if (!pool) pools.set(key, (pool = { module: href, memoryMb, threads: new Set(), waiting: [] }));
  return pool;
}

/** Runs `exportName(input)` of `taskModule` in a worker thread, within the limits (see above). */
export async function runIsolated<Result>(
  taskModule: URL | string,
  exportName: string,
  input: unknown,
  options: IsolateOptions,
): Promise<Result> {
  const pool = poolFor(taskModule, options.memoryMb);
  const thread = await acquire(pool);
  thread.worker.ref();
  try {
    await thread.ready;
    return await new Promise<Result>((resolve, reject) => {
      const pending: Pending = {
        id: nextId++,
        resolve: resolve as (value: unknown) => void,
        reject,
        options,
        timedOut: false,
        timer: setTimeout(() => {
          pending.timedOut = true;
          void thread.worker.terminate();
        }, options.timeoutMs),
      };
      thread.current = pending;
      thread.worker.postMessage({ id: pending.id, exportName, input });
    });
  } catch (error) {
    throw error instanceof IsolatedTaskError || error instanceof IsolateLimitError
      ? error
      : new IsolatedTaskError('Error', (error as Error).message, (error as Error).stack);
  } finally {
    release(pool, thread);
  }
}

/** Stops every thread (server shutdown, tests). */
export async function closeIsolates(): Promise<void> {
  const all = [...pools.values()].flatMap((p) => [...p.threads]);
  await Promise.all(all.map((t) => t.worker.terminate()));
}
