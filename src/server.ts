import http from 'node:http';
import { createServerAdapter } from '@whatwg-node/server';
import { createApp } from './app.js';
import { startWorker } from './jobs/queue.js';
import { purgeRateLimitWindows } from './auth/authenticate.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { migrate } from './db/migrate.js';
import { purgeDeletedSpaces } from './modules/spaces/service.js';
import { createUrls } from './urls.js';

const PURGE_EVERY_MS = 60 * 60 * 1000;

export interface RunningServer {
  url: string;
  db: Database;
  close(): Promise<void>;
}

/** Opens the database, applies pending migrations, and serves HTTP until `close()`. */
export async function startServer(config: Config, opts: { db?: Database; log?: (line: string) => void; worker?: boolean } = {}): Promise<RunningServer> {
  const log = opts.log ?? (() => {});
  const started = Date.now();
  const db = opts.db ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, role: 'server' }));
  const { applied } = await migrate(db.pool);
  log(`database: ${db.describe}; migrations applied: ${applied.length ? applied.join(', ') : 'none pending'} (${Date.now() - started} ms)`);

  const services = { db, config, urls: createUrls(config.publicUrl) };
  const app = createApp(services);
  // Background jobs run in every server process; the queue makes sure each runs once.
  const worker = opts.worker === false ? null : startWorker(services, { log });

  // Deleted spaces are removed for good after the retention period: a scheduled purge, run by every
  // process (the delete is idempotent, so several processes on one database are harmless).
  const purge = () =>
    purgeRateLimitWindows(db, config.rateLimit.windowSeconds)
      .then(() => purgeDeletedSpaces(db.prisma, config.spaceRetentionMs))
      .then((n) => n && log(`purged ${n} space(s) deleted more than 7 days ago`))
      .catch((e) => log(`purge failed: ${e instanceof Error ? e.message : e}`));
  await purge();
  const purgeTimer = setInterval(purge, PURGE_EVERY_MS);
  purgeTimer.unref();

  const adapter = createServerAdapter(async (request: Request) => {
    const t0 = performance.now();
    const response = await app.fetch(request);
    // Method, path and status only: never headers (they carry tokens) nor query strings.
    log(`${request.method} ${new URL(request.url).pathname} ${response.status} ${(performance.now() - t0).toFixed(1)}ms`);
    return response;
  });
  const server = http.createServer(adapter);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host}:${port}`;

  let closing: Promise<void> | null = null;
  return {
    url,
    db,
    close: () =>
      (closing ??= (async () => {
        clearInterval(purgeTimer);
        await worker?.stop();
        // Stop accepting; in-flight requests finish; idle keep-alive sockets are closed.
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        if (!opts.db) await db.close();
      })()),
  };
}
