import type { Services } from '../context.js';
import { processLog } from '../ops/log.js';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { newId } from '../ids.js';
import { noteWrite } from '../write-epoch.js';

/**
 * The background job queue, in PostgreSQL (table "Job"). A job is claimed with
 * `FOR UPDATE SKIP LOCKED`, so with several Lectern processes on one database each job runs once;
 * a job left `running` by a process that died is taken up again after `STALE_MS`; a failed job is
 * retried with backoff up to its `maxAttempts`. Handlers are registered by kind from the module
 * registry's list (src/modules/index.ts), before a worker starts.
 *
 * Every claim counts as an attempt, also one a process died in: a job that killed its process
 * `maxAttempts` times is not taken up again (it would take down the next process too) but marked
 * failed ("interrupted N times; giving up"), and its kind's `abandoned` hook records the failure on
 * the job's object (e.g. the OpenAPI version it was processing), so nothing stays "in progress".
 */
export type JobHandler = (payload: any, services: Services, job: { id: string; attempts: number }) => Promise<void>;
/** Records on the job's own object that it was given up (the message says why). */
export type AbandonedHook = (payload: any, services: Services, message: string) => Promise<void>;

const handlers = new Map<string, JobHandler>();
const abandonedHooks = new Map<string, AbandonedHook>();
export const STALE_MS = 5 * 60_000;

/** A module's kind of job: what runs it, and what records that it was given up. */
export interface JobDefinition {
  kind: string;
  handler: JobHandler;
  abandoned?: AbandonedHook;
}

export function registerJobHandler(kind: string, handler: JobHandler, opts: { abandoned?: AbandonedHook } = {}) {
  handlers.set(kind, handler);
  if (opts.abandoned) abandonedHooks.set(kind, opts.abandoned);
}

/** Registers the modules' job kinds (the registry's list; registering one again replaces it). */
export function registerJobHandlers(jobs: readonly JobDefinition[]) {
  for (const job of jobs) registerJobHandler(job.kind, job.handler, { abandoned: job.abandoned });
}

type Db = Pick<PrismaClient, 'job'> | Prisma.TransactionClient;

/** Queues a job (inside the caller's transaction when given one, so it exists only if the write commits). */
export async function enqueueJob(
  db: Db,
  kind: string,
  payload: unknown,
  opts: { runAfter?: Date; maxAttempts?: number } = {},
): Promise<string> {
  const id = newId();
  await db.job.create({
    data: {
      id,
      kind,
      payload: payload as Prisma.InputJsonValue,
      runAfter: opts.runAfter ?? new Date(),
      maxAttempts: opts.maxAttempts ?? 3,
    },
  });
  return id;
}

interface ClaimedJob {
  id: string;
  kind: string;
  payload: unknown;
  attempts: number;
  maxAttempts: number;
}

async function claim(services: Services, kinds: string[]): Promise<ClaimedJob | null> {
  const { rows } = await services.db.pool.query<ClaimedJob>(
    `UPDATE "Job" SET status = 'running', "lockedAt" = now(), attempts = attempts + 1, "updatedAt" = now()
     WHERE id = (
       SELECT id FROM "Job"
       WHERE kind = ANY($1) AND "runAfter" <= now()
         AND (status = 'pending' OR (status = 'running' AND "lockedAt" < now() - make_interval(secs => $2) AND attempts < "maxAttempts"))
       ORDER BY "runAfter", "createdAt" FOR UPDATE SKIP LOCKED LIMIT 1
     )
     RETURNING id, kind, payload, attempts, "maxAttempts"`,
    [kinds, STALE_MS / 1000],
  );
  return rows[0] ?? null;
}

/** Stale running jobs that used up their attempts: failed, and their objects told (see above). */
async function abandonStale(services: Services, kinds: string[]): Promise<void> {
  const { rows } = await services.db.pool.query<{ id: string; kind: string; payload: unknown; attempts: number }>(
    `UPDATE "Job" SET status = 'failed', "lockedAt" = NULL, "updatedAt" = now(),
       "lastError" = 'interrupted ' || attempts || ' time' || CASE WHEN attempts = 1 THEN '' ELSE 's' END || '; giving up (the process running it stopped each time, e.g. it ran out of memory or was killed)'
     WHERE id IN (
       SELECT id FROM "Job"
       WHERE kind = ANY($1) AND status = 'running' AND "lockedAt" < now() - make_interval(secs => $2) AND attempts >= "maxAttempts"
       FOR UPDATE SKIP LOCKED
     )
     RETURNING id, kind, payload, attempts`,
    [kinds, STALE_MS / 1000],
  );
  for (const job of rows) {
    const hook = abandonedHooks.get(job.kind);
    if (!hook) continue;
    const message = `interrupted ${job.attempts} time${job.attempts === 1 ? '' : 's'}; giving up`;
    try {
      await hook(job.payload, services, message);
    } catch (error) {
      // The job is failed either way; the object's own state is best effort.
      processLog().fault(`job ${job.kind}: recording the abandoned job failed`, error);
    }
  }
}

async function finish(services: Services, job: ClaimedJob, error?: unknown) {
  if (!error) {
    await services.db.pool.query(
      `UPDATE "Job" SET status = 'done', "lockedAt" = NULL, "lastError" = NULL, "updatedAt" = now() WHERE id = $1`,
      [job.id],
    );
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  const retry = job.attempts < job.maxAttempts;
  await services.db.pool.query(
    `UPDATE "Job" SET status = $2, "lockedAt" = NULL, "lastError" = $3, "runAfter" = now() + make_interval(secs => $4), "updatedAt" = now() WHERE id = $1`,
    [job.id, retry ? 'pending' : 'failed', message.slice(0, 2000), retry ? 2 ** job.attempts : 0],
  );
}

/** Runs one due job, if any; true when one ran. */
export async function runOneJob(services: Services, kinds = [...handlers.keys()]): Promise<boolean> {
  await abandonStale(services, kinds);
  const job = await claim(services, kinds);
  if (!job) return false;
  const handler = handlers.get(job.kind);
  try {
    if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
    await handler(job.payload, services, { id: job.id, attempts: job.attempts });
    await finish(services, job);
  } catch (error) {
    await finish(services, job, error);
  } finally {
    noteWrite(); // what the job wrote is seen at once by this process's caches (src/write-epoch.ts)
  }
  return true;
}

/** Runs due jobs until none is left (tests, and the CLI). Returns how many ran. */
export async function drainJobs(services: Services, kinds?: string[]): Promise<number> {
  let ran = 0;
  while (await runOneJob(services, kinds)) ran++;
  return ran;
}

/** The in-process worker of a server: polls for due jobs; `stop()` waits for the running one. */
export function startWorker(services: Services, opts: { pollMs?: number; log?: (line: string) => void } = {}) {
  const pollMs = opts.pollMs ?? 500;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = (async () => {
      try {
        while (!stopped && (await runOneJob(services))) {
          // keep going while there is work
        }
      } catch (error) {
        opts.log?.(`job worker: ${error instanceof Error ? error.message : error}`);
      }
      if (!stopped) timer = setTimeout(tick, pollMs);
    })();
  };
  tick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
