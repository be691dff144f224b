import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { redactPath } from './http/redact.js';
import { requestId, tagRequest, type Logger } from './ops/log.js';
import { Metrics, metricsResponse, routeTemplates } from './ops/metrics.js';

const PURGE_EVERY_MS = 60 * 60 * 1000;

export interface RunningServer {
  url: string;
  db: Database;
  close(): Promise<void>;
}

/** The message of a failed listen: names the setting to change (PORT, HOST). */
export function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  const where = `${host}:${port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return new Error(`Port ${port} (${where}) is already in use: stop the other process, or set PORT to a free port (PORT=0 picks one)`);
    case 'EACCES':
      return new Error(`Listening on ${where} is not permitted: set PORT to 1024 or above (or run behind a reverse proxy)`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new Error(`HOST ${host} is not an address of this machine: set HOST to one (127.0.0.1, or 0.0.0.0 for every interface)`);
    default:
      return new Error(`Could not listen on ${where}: ${error.message}`);
  }
}

type ServerOptions = { db?: Database; log?: (line: string) => void; logger?: Logger; worker?: boolean };

/** The server that answers while the app starts: 503 with Retry-After (GET /healthz: 200 "starting"). */
async function bindPort(config: Config) {
  let serve: http.RequestListener | null = null;
  const server = http.createServer((req, res) => {
    if (serve) return serve(req, res);
    const live = (req.url ?? '').split('?')[0] === '/healthz';
    res.writeHead(live ? 200 : 503, { 'content-type': 'application/json', ...(live ? {} : { 'retry-after': '1' }) });
    res.end(
      live ? '{"status":"starting"}' : '{"error":{"code":503,"message":"Lectern is starting (database, migrations); retry in a moment"}}',
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(listenError(error, config.host, config.port)));
    server.listen(config.port, config.host, () => resolve());
  });
  return { server, serveWith: (listener: http.RequestListener) => (serve = listener) };
}

/**
 * Binds the port, then opens the database, applies pending migrations, and serves HTTP until
 * `close()`. The port comes first: a clash fails before any database is started. Until the app is
 * ready, requests are answered 503 with Retry-After (GET /healthz: 200 "starting"). Any failure
 * during the start closes the port and stops the database it started: nothing is left running.
 */
export async function startServer(config: Config, opts: ServerOptions = {}): Promise<RunningServer> {
  const { server, serveWith } = await bindPort(config);
  const started: { db?: Database } = { db: opts.db };
  try {
    return await startApp(config, opts, server, serveWith, started);
  } catch (error) {
    server.close();
    server.closeAllConnections();
    if (started.db && !opts.db) await started.db.close().catch(() => {});
    throw error;
  }
}

/** The application's modules, loaded after the port is bound: a clash is reported in a fraction of a second. */
async function loadApplication() {
  const [
    { createServerAdapter },
    { serverKeys },
    { createApp },
    { isKnownMethod, methodNotAllowed },
    { startWorker },
    { purgeRateLimitWindows },
    { openDatabase },
    { migrate },
    { purgeDeletedSpaces },
    { createUrls },
    { stopLive },
  ] = await Promise.all([
    import('@whatwg-node/server'),
    import('./secrets.js'),
    import('./app.js'),
    import('./http/request-line.js'),
    import('./jobs/queue.js'),
    import('./auth/authenticate.js'),
    import('./db/database.js'),
    import('./db/migrate.js'),
    import('./modules/spaces/index.js'),
    import('./urls.js'),
    import('./live/listener.js'),
  ]);
  return {
    createServerAdapter,
    serverKeys,
    createApp,
    isKnownMethod,
    methodNotAllowed,
    startWorker,
    purgeRateLimitWindows,
    openDatabase,
    migrate,
    purgeDeletedSpaces,
    createUrls,
    stopLive,
  };
}

type Application = Awaited<ReturnType<typeof loadApplication>>;
type App = ReturnType<Application['createApp']>;

/** The database (`started.db`, or opened now: kept in `started` so a failed start can stop it), migrated. */
async function openMigrated(config: Config, mods: Application, started: { db?: Database }, log: (line: string) => void) {
  if (!started.db) {
    log(
      config.databaseUrl
        ? 'connecting to the database of DATABASE_URL'
        : `starting the embedded PostgreSQL (data directory ${config.dataDir})`,
    );
    started.db = await mods.openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, role: 'server', progress: log });
  }
  const db = started.db;
  const t0 = Date.now();
  log('applying pending database migrations');
  const { applied } = await mods.migrate(db.pool);
  log(
    `database: ${db.describe}; migrations applied: ${applied.length ? `${applied.length} (${applied.at(-1)})` : 'none pending'} (${Date.now() - t0} ms)`,
  );
  return db;
}

/**
 * Deleted spaces are removed for good after the retention period: a scheduled purge, run by every
 * process (the delete is idempotent, so several processes on one database are harmless). Runs once
 * now, then every hour; returns the timer.
 */
async function schedulePurges(config: Config, mods: Application, database: Database, log: (line: string) => void) {
  const purge = () =>
    mods
      .purgeRateLimitWindows(database, config.rateLimit.windowSeconds)
      .then(() => mods.purgeDeletedSpaces(database.prisma, config.spaceRetentionMs))
      .then((n) => n && log(`purged ${n} space(s) deleted more than 7 days ago`))
      // Audit events past their retention: a job on the queue (src/modules/audit/retention.ts).
      .then(() => import('./modules/audit/index.js').then(({ scheduleAuditPrune }) => scheduleAuditPrune(database.prisma)))
      // Browser sessions, password links and OIDC sign-ins that ended a while ago.
      .then(() => import('./modules/sessions/index.js').then(({ purgeEndedSessions }) => purgeEndedSessions({ db: database, config })))
      .catch((e) => log(`purge failed: ${e instanceof Error ? e.message : e}`));
  await purge();
  const purgeTimer = setInterval(purge, PURGE_EVERY_MS);
  purgeTimer.unref();
  return purgeTimer;
}

/** The fetch side of the server: /metrics, else the app; each request timed, counted and logged, with its id. */
function requestHandler(
  config: Config,
  mods: Application,
  parts: { app: App; metrics: Metrics; database: Database },
  opts: ServerOptions,
  log: (line: string) => void,
) {
  const { app, metrics, database } = parts;
  const template = routeTemplates(app.routes);
  return mods.createServerAdapter<{ req?: http.IncomingMessage }>(async (request: Request, context) => {
    const t0 = performance.now();
    const id = requestId(request.headers.get('x-request-id'), randomUUID);
    const { pathname } = new URL(request.url);
    // The socket's address keys the per-address throttles (the app never sees the socket otherwise).
    const forwardedFor = context.req?.headers['x-forwarded-for'];
    const response =
      pathname === '/metrics' && request.method === 'GET'
        ? await metricsResponse(request, metrics, database.pool, config.metrics ?? { open: false })
        : await (tagRequest(request, id),
          app.fetch(request, {
            address: context.req?.socket.remoteAddress,
            forwardedFor: Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor,
          }));
    const ms = performance.now() - t0;
    const route = template(request.method, pathname, response.status);
    metrics.observe(request.method, route, response.status, ms / 1000);
    try {
      response.headers.set('x-request-id', id);
    } catch {
      // immutable headers (a fetched response): answered without the id
    }
    // Method, route, redacted path and status only: never headers (they carry tokens) nor query strings.
    if (opts.logger)
      opts.logger.request({ requestId: id, method: request.method, route, path: redactPath(pathname), status: response.status, ms });
    else log(`${request.method} ${redactPath(pathname)} ${response.status} ${ms.toFixed(1)}ms`);
    return response;
  });
}

async function startApp(
  config: Config,
  opts: ServerOptions,
  server: http.Server,
  serveWith: (listener: http.RequestListener) => void,
  started: { db?: Database },
): Promise<RunningServer> {
  const log = opts.log ?? (() => {});
  const mods = await loadApplication();
  const database = await openMigrated(config, mods, started, log);
  const services = { db: database, config, urls: mods.createUrls(config.publicUrl) };
  // The server key is made (or read) now: a bad LECTERN_SECRET_KEY stops the start with its message.
  await mods.serverKeys(services);
  const metrics = new Metrics();
  const app = mods.createApp(services, {
    onOperation: (type, name, persisted) => metrics.operation(type, name, persisted),
    onRefusal: (limiter) => metrics.refused(limiter),
  });
  // Background jobs run in every server process; the queue makes sure each runs once.
  const worker = opts.worker === false ? null : mods.startWorker(services, { log });
  const purgeTimer = await schedulePurges(config, mods, database, log);
  const adapter = requestHandler(config, mods, { app, metrics, database }, opts, log);
  serveWith((req, res) => {
    // TRACE, TRACK and CONNECT cannot even be made into a fetch Request (it throws, and was a 500
    // with a logged stack): any method the app does not serve is answered 405 here.
    if (!mods.isKnownMethod(req.method)) {
      const refused = mods.methodNotAllowed(req.method ?? '', app.allowFor((req.url ?? '/').split('?')[0]!));
      res.writeHead(refused.status, { ...Object.fromEntries(refused.headers), connection: 'close' });
      void refused.text().then((body) => res.end(body));
      log(`${String(req.method).slice(0, 20)} ${redactPath((req.url ?? '').split('?')[0]!)} 405`);
      return;
    }
    void adapter(req, res);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;

  let closing: Promise<void> | null = null;
  return {
    url: `http://${config.host}:${port}`,
    db: database,
    close: () =>
      (closing ??= (async () => {
        clearInterval(purgeTimer);
        // In order, so nothing loses its database under it: HTTP stops accepting (in-flight
        // requests finish, idle keep-alive sockets close); live subscriptions end (their clients
        // subscribe again elsewhere; an open event stream would hold the drain forever) with the
        // LISTEN connection; the background jobs stop (a running one finishes); then the pool
        // ends, and last the embedded PostgreSQL stops (database.close).
        const drained = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await mods.stopLive(database);
        await drained;
        await worker?.stop();
        if (!opts.db) await database.close();
      })()),
  };
}
