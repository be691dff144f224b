import type { Services } from '../../context.js';
import { settings } from '../../config.js';
import { enqueueJob, type JobDefinition } from '../../jobs/queue.js';
import { exportToGit } from './export.js';
import { GitError } from './git.js';
import { importFromGit } from './import.js';
import { SyncBusy, withSpaceSyncLock } from './lock.js';
import { recordOutcome } from './status.js';

/**
 * The jobs that do a space's Git sync on the queue (src/jobs/queue.ts), queued by requests.ts (and
 * webhook.ts), each under the space's sync lock (lock.ts), its outcome recorded (status.ts):
 * - `git-sync.import`: Git → Lectern (import.ts).
 * - `git-sync.export`: Lectern → Git (export.ts).
 * - `git-sync.poll`: per connection, every `pollSeconds`: an import when the branch has a new commit.
 */
export const IMPORT_JOB = 'git-sync.import';
export const EXPORT_JOB = 'git-sync.export';
export const POLL_JOB = 'git-sync.poll';

const describe = (error: unknown) => (error instanceof GitError ? error.message : error instanceof Error ? error.message : String(error));

/** How long a job waits for another process's sync of the same space before it re-queues itself. */
const REQUEUE_MS = 5_000;

/**
 * A sync job's work under the space's sync lock (lock.ts), its outcome recorded. When another
 * process holds the lock, the job is queued again a little later (`requeue`; the poll job just
 * skips its turn: the next poll comes anyway) and nothing is recorded.
 */
async function runRecorded(
  services: Services,
  spaceId: string,
  direction: 'import' | 'export',
  work: () => Promise<unknown>,
  requeue?: { kind: string; payload: unknown },
) {
  const startedAt = new Date();
  try {
    await withSpaceSyncLock(services, spaceId, work, { waitMs: settings().git.lockWaitMs });
    await recordOutcome(services, spaceId, direction, { startedAt });
  } catch (error) {
    if (error instanceof SyncBusy) {
      if (requeue)
        await enqueueJob(services.db.prisma, requeue.kind, requeue.payload, {
          runAfter: new Date(Date.now() + REQUEUE_MS),
          maxAttempts: 2,
        });
      return;
    }
    // A Git problem is a result the user acts on (recorded, not retried); anything else is retried by the queue.
    if (error instanceof GitError || (error as Error)?.name === 'IsolatedTaskError' || (error as Error)?.name === 'IsolateLimitError') {
      await recordOutcome(services, spaceId, direction, { startedAt, error: describe(error) });
      return;
    }
    throw error;
  }
}

export const gitSyncJobs: JobDefinition[] = [
  {
    kind: IMPORT_JOB,
    handler: (payload: { spaceId: string; userId?: string; force?: boolean }, services) =>
      runRecorded(
        services,
        payload.spaceId,
        'import',
        () => importFromGit(services, payload.spaceId, { force: payload.force, userId: payload.userId }),
        { kind: IMPORT_JOB, payload },
      ),
    abandoned: (payload: { spaceId: string }, services, message) =>
      recordOutcome(services, payload.spaceId, 'import', { startedAt: new Date(), error: message }),
  },
  {
    kind: EXPORT_JOB,
    handler: (payload: { spaceId: string; userId?: string; message?: string }, services) =>
      runRecorded(
        services,
        payload.spaceId,
        'export',
        () => exportToGit(services, payload.spaceId, { message: payload.message, userId: payload.userId }),
        { kind: EXPORT_JOB, payload },
      ),
    abandoned: (payload: { spaceId: string }, services, message) =>
      recordOutcome(services, payload.spaceId, 'export', { startedAt: new Date(), error: message }),
  },
  {
    kind: POLL_JOB,
    handler: async (payload: { spaceId: string }, services) => {
      const conn = await services.db.prisma.gitSyncConnection.findUnique({ where: { spaceId: payload.spaceId } });
      if (!conn || conn.pollSeconds <= 0) return; // disconnected, or polling turned off: the chain ends
      await runRecorded(services, payload.spaceId, 'import', () => importFromGit(services, payload.spaceId));
      await enqueueJob(
        services.db.prisma,
        POLL_JOB,
        { spaceId: payload.spaceId },
        { runAfter: new Date(Date.now() + conn.pollSeconds * 1000) },
      );
    },
  },
];
