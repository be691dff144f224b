/**
 * This process's write epoch: a counter bumped after every write made through this process — every
 * GraphQL mutation (REST writes run theirs: the one wrapper of Mutation fields, src/modules/audit/
 * record.ts) and every background job run here (src/jobs/queue.ts). Caches of database reads that
 * may lag another process a little but must never lag this one keep the epoch they read at and drop
 * their entry once it moved (the reader's site state, src/modules/reader/find-site.ts).
 *
 * Bumped after the write, also a failed one (part of it may have committed): a spurious bump costs
 * a cache a re-read, a missed one would show stale content. In memory only: other processes see
 * the write through the caches' own time limits.
 */
let epoch = 0;

/** The current epoch: read it BEFORE the statement whose result is kept. */
export const writeEpoch = () => epoch;

/** Marks that a write happened in this process (after it committed, or failed). */
export function noteWrite(): void {
  epoch++;
}
