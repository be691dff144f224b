import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { embeddedTarget, targetFromUrl, type PoolTarget } from '../../src/db/database.js';
import { startEmbedded } from '../../src/db/embedded.js';
import { migrate } from '../../src/db/migrate.js';

/**
 * One PostgreSQL server for the run — the embedded one (fresh, in a temporary directory) by
 * default, or the server at DATABASE_URL — and on it a freshly migrated template database that
 * every test file copies (CREATE DATABASE … TEMPLATE). Nothing from an earlier run is reused.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    dbServer: PoolTarget;
    templateDatabase: string;
  }
}

export default async function setup(project: TestProject) {
  let server: PoolTarget;
  let stopEmbedded: (() => Promise<void>) | undefined;
  let dataDir: string | undefined;
  if (process.env.DATABASE_URL) {
    server = { ...targetFromUrl(process.env.DATABASE_URL), database: 'postgres' };
  } else {
    // Short path: the socket path must stay under the 107-byte limit.
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lt-'));
    fs.chmodSync(dataDir, 0o755);
    const embedded = await startEmbedded(dataDir, 'test');
    server = embeddedTarget(embedded);
    stopEmbedded = () => embedded.stop();
  }

  const template = `lectern_tpl_${process.pid}_${Date.now()}`;
  const admin = new pg.Client(server);
  await admin.connect();
  await admin.query(`CREATE DATABASE "${template}"`);
  const pool = new pg.Pool({ ...server, database: template });
  await migrate(pool);
  await pool.end();

  project.provide('dbServer', server);
  project.provide('templateDatabase', template);

  return async () => {
    // The embedded server's data directory is removed whole below; dropping its ~130 databases one
    // by one first (each DROP DATABASE waits for a checkpoint) took minutes. A shared server keeps
    // no database of this run.
    if (!stopEmbedded) await dropRunDatabases(admin, template);
    await admin.end();
    await stopEmbedded?.();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  };
}

async function dropRunDatabases(admin: pg.Client, template: string) {
  const leftovers = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`, [
    template,
    `${template.replace('tpl', 'test')}%`,
  ]);
  for (const { datname } of leftovers.rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
}
