import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, type Database } from '../../src/db/database.js';
import { setupHarness, type Harness } from '../support/harness.js';

/**
 * A connection ended by the server while a Prisma transaction holds it: Prisma sends ROLLBACK,
 * which fails, and never releases the connection itself. The pool must get it back anyway, or
 * every outage costs a connection for good and closing the pool waits forever.
 */
let h: Harness;
let db: Database;
beforeAll(async () => {
  h = await setupHarness();
  const database = (await h.db.pool.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db;
  db = connect({ ...inject('dbServer'), database }, undefined, { max: 3 });
});
afterAll(() => db?.close());

describe('a connection lost inside a transaction', () => {
  it('goes back to the pool, and the pool still serves all its connections and closes', async () => {
    for (let round = 0; round < 4; round++) {
      const failed = await db.prisma
        .$transaction(async (tx) => {
          const [backend] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
          await h.db.pool.query('SELECT pg_terminate_backend($1)', [backend!.pid]);
          await tx.$queryRaw`SELECT 1`;
        })
        .then(
          () => false,
          () => true,
        );
      expect(failed).toBe(true);
    }
    // Four outages on a pool of three: a leaked connection would leave these waiting (and failing).
    await new Promise((r) => setTimeout(r, 50));
    expect(db.pool.totalCount).toBe(db.pool.idleCount);
    const counts = await Promise.all(
      [1, 2, 3].map(() =>
        db.prisma.$transaction(async (tx) => tx.$queryRaw<{ n: number }[]>`SELECT 1 AS n, pg_sleep(0.05)::text AS slept`),
      ),
    );
    expect(counts).toHaveLength(3);
    // A release by the holder after the pool took the connection back is a no-op, not a throw.
    const client = await db.pool.connect();
    client.release();
    expect(() => client.release()).not.toThrow();
  });
});
