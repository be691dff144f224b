import type { Services } from '../../context.js';

/**
 * The per-space sync lock: a PostgreSQL session-level advisory lock, so that two Lectern processes
 * (or two workers of one) never import into or export from one space at the same time — a Git
 * import, a Git export and an archive import (src/modules/imports) all take it.
 *
 * Why an advisory lock rather than a row lock: the work holds it for minutes (clone, parse in a
 * worker thread, push), across several transactions; a row lock would need one transaction open
 * that long. The lock lives on one pooled connection held for the duration (taken with
 * `pg_try_advisory_lock`, never waiting inside the database); if the process dies, PostgreSQL ends
 * its session and the lock goes with it, so nothing is left locked. The key is a 64-bit hash of
 * `lectern:space-sync:<spaceId>` (a collision only makes two spaces wait for each other).
 *
 * Not re-entrant across calls: the work inside must not take it again (the jobs take it once, at the top).
 */
export class SyncBusy extends Error {
  constructor(readonly spaceId: string) {
    super(`another import or export of this space is running; this one runs when it ends`);
    this.name = 'SyncBusy';
  }
}

const KEY = (spaceId: string) => `lectern:space-sync:${spaceId}`;

/**
 * Runs `work` holding the space's sync lock. When another process holds it: waits up to `waitMs`
 * (polling every 200 ms), then throws SyncBusy (the jobs re-queue themselves on it).
 */
export async function withSpaceSyncLock<T>(
  services: Services,
  spaceId: string,
  work: () => Promise<T>,
  opts: { waitMs?: number } = {},
): Promise<T> {
  const client = await services.db.pool.connect();
  let locked = false;
  try {
    const deadline = Date.now() + (opts.waitMs ?? 0);
    for (;;) {
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked', [
        KEY(spaceId),
      ]);
      locked = rows[0]!.locked;
      if (locked) break;
      if (Date.now() >= deadline) throw new SyncBusy(spaceId);
      await new Promise((done) => setTimeout(done, 200));
    }
    return await work();
  } finally {
    let broken = false;
    if (locked) {
      try {
        await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [KEY(spaceId)]);
      } catch {
        broken = true; // a connection that failed to unlock is closed, which ends the lock with its session
      }
    }
    client.release(broken);
  }
}

/** Whether some session holds the space's sync lock (tests and status). */
export async function spaceSyncLocked(services: Services, spaceId: string): Promise<boolean> {
  const { rows } = await services.db.pool.query<{ held: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted
       AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($1, 0)) AS held`,
    [KEY(spaceId)],
  );
  return rows[0]!.held;
}
