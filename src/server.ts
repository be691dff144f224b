import http from 'node:http';
import { createServerAdapter } from '@whatwg-node/server';
import { serverKeys } from './secrets.js';
import { createApp } from './app.js';
import { isKnownMethod, methodNotAllowed } from './http/request-line.js';
import { startWorker } from './jobs/queue.js';
import { purgeRateLimitWindows } from './auth/authenticate.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { migrate } from './db/migrate.js';
import { purgeDeletedSpaces } from './modules/spaces/index.js';
import { createUrls } from './urls.js';
import { redactPath } from './http/redact.js';

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
  // The server key is made (or read) now: a bad LECTERN_SECRET_KEY stops the start with its message.
  await serverKeys(services);
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

  const adapter = createServerAdapter<{ req?: http.IncomingMessage }>(async (request: Request, context) => {
    const t0 = performance.now();
    // The socket's address keys the per-address throttles (the app never sees the socket otherwise).
    const forwardedFor = context.req?.headers['x-forwarded-for'];
    const response = await app.fetch(request, { address: context.req?.socket.remoteAddress, forwardedFor: Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor });
    // Method, path and status only: never headers (they carry tokens) nor query strings.
    log(`${request.method} ${redactPath(new URL(request.url).pathname)} ${response.status} ${(performance.now() - t0).toFixed(1)}ms`);
    return response;
  });
  const server = http.createServer((req, res) => {
    // TRACE, TRACK and CONNECT cannot even be made into a fetch Request (it throws, and was a 500
    // with a logged stack): any method the app does not serve is answered 405 here.
    if (!isKnownMethod(req.method)) {
      const refused = methodNotAllowed(req.method ?? '', app.allowFor((req.url ?? '/').split('?')[0]!));
      res.writeHead(refused.status, { ...Object.fromEntries(refused.headers), connection: 'close' });
      void refused.text().then((body) => res.end(body));
      log(`${String(req.method).slice(0, 20)} ${redactPath((req.url ?? '').split('?')[0]!)} 405`);
      return;
    }
    void adapter(req, res);
  });
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
