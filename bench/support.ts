import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { readConfig } from '../src/config.js';
import { connect, embeddedTarget, targetFromUrl, type Database, type PoolTarget } from '../src/db/database.js';
import { startEmbedded } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';

/**
 * A fresh, migrated database for one bench run: on the server at DATABASE_URL, else on an
 * embedded PostgreSQL started in a temporary directory. `close()` drops it (and stops the server).
 */
export interface BenchDatabase {
  db: Database;
  server: PoolTarget;
  database: string;
  mode: string;
  close(): Promise<void>;
}

export async function openBenchDatabase(name: string): Promise<BenchDatabase> {
  let server: PoolTarget;
  let stop = async () => {};
  let dataDir: string | undefined;
  if (process.env.DATABASE_URL) server = { ...targetFromUrl(process.env.DATABASE_URL), database: 'postgres' };
  else {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-'));
    fs.chmodSync(dataDir, 0o755);
    const embedded = await startEmbedded(dataDir, 'test');
    server = embeddedTarget(embedded);
    stop = () => embedded.stop();
  }
  const database = `lectern_bench_${name}_${process.pid}`;
  const admin = new pg.Client(server);
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"`);
  const db = connect({ ...server, database });
  await migrate(db.pool);
  return {
    db,
    server,
    database,
    mode: process.env.DATABASE_URL ? 'PostgreSQL at DATABASE_URL' : 'embedded PostgreSQL',
    async close() {
      await db.close();
      await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await admin.end();
      await stop();
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Server settings for a bench: rate limiting stays on (its counter is part of the cost) but never trips. */
export function benchConfig() {
  return { ...readConfig({}), rateLimit: { limit: 1_000_000_000, windowSeconds: 60 } };
}
