import type pg from 'pg';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics through prom-client, in a registry of this server's own (never the library's
 * global one: two servers in one process — the tests — keep apart). Each process of a deployment
 * serves its own, and Prometheus sums them. Labels are bounded: routes are patterns
 * (`/v1/spaces/:id`), never raw paths; GraphQL operations are named only when the request used a
 * persisted query (APQ: a document the clients ship, so a known set), else "anonymous", and at most
 * MAX_OPERATION_NAMES names per process (then "other"); rate-limit refusals by limiter (a fixed set).
 *
 * Served at GET /metrics when LECTERN_METRICS_TOKEN is set (then `Authorization: Bearer <it>` is
 * required) or LECTERN_METRICS=open (anyone who reaches the port: keep it on a private network);
 * otherwise /metrics is 404.
 */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const MAX_OPERATION_NAMES = 200;

/** The limiters whose refusals (429) are counted: src/app.ts names them. */
export type Limiter = 'address' | 'auth-failures' | 'user' | 'tenant' | 'database-busy';

/** Route patterns: the REST routes' paths, and fixed prefixes for everything else. */
export function routeTemplates(rest: { method: string; path: string }[]) {
  const patterns = rest.map((r) => ({
    method: r.method,
    path: `/v1${r.path}`,
    regex: new RegExp(`^/v1${r.path.replace(/:[^/]+/g, '[^/]+')}/?$`),
  }));
  const fixed = new Set(['/', '/graphql', '/healthz', '/readyz', '/metrics']);
  return (method: string, pathname: string, status: number): string => {
    if (fixed.has(pathname)) return pathname;
    if (pathname.startsWith('/v1/')) {
      if (status === 401 || status === 404) return status === 401 ? '/v1/* (unauthenticated)' : '/v1/* (no route)';
      return (
        patterns.find((p) => p.method === method && p.regex.test(pathname))?.path ??
        patterns.find((p) => p.regex.test(pathname))?.path ??
        '/v1/*'
      );
    }
    if (status === 404) return '(no route)';
    // Module routes (/files, /exports, /sso, /openapi, published sites…): their first segment.
    const first = pathname.split('/')[1];
    return first && /^[a-z][a-z0-9._-]{0,30}$/i.test(first) ? `/${first}/*` : '(other)';
  };
}

export class Metrics {
  readonly registry = new Registry();
  private readonly started = Date.now();
  private readonly requests = new Counter({
    name: 'lectern_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly durations = new Histogram({
    name: 'lectern_http_request_duration_seconds',
    help: 'Time to answer an HTTP request (until the response headers), by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: BUCKETS,
    registers: [this.registry],
  });
  private readonly operations = new Counter({
    name: 'lectern_graphql_operations_total',
    help: 'GraphQL operations executed on /graphql, by type and name (named only for persisted queries, else "anonymous").',
    labelNames: ['type', 'name'] as const,
    registers: [this.registry],
  });
  private readonly refusals = new Counter({
    name: 'lectern_rate_limit_refusals_total',
    help: 'Requests refused with 429, by limiter (address, auth-failures, user, tenant, database-busy).',
    labelNames: ['limiter'] as const,
    registers: [this.registry],
  });
  private readonly names = new Set<string>();
  private pool: pg.Pool | null = null;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    const self = this;
    new Gauge({
      name: 'lectern_db_pool_connections',
      help: 'Database connections of this process, by state.',
      labelNames: ['state'] as const,
      registers,
      collect() {
        if (!self.pool) return;
        this.set({ state: 'total' }, self.pool.totalCount);
        this.set({ state: 'idle' }, self.pool.idleCount);
      },
    });
    new Gauge({
      name: 'lectern_db_pool_waiting',
      help: 'Requests waiting for a database connection in this process.',
      registers,
      collect() {
        if (self.pool) this.set(self.pool.waitingCount);
      },
    });
    const database = new Gauge({ name: 'lectern_database_up', help: 'Whether the database answered the last scrape.', registers });
    new Gauge({
      name: 'lectern_jobs',
      help: 'Background jobs by status (pending: the queue depth; failed: gave up after their attempts). Shared by every process.',
      labelNames: ['status'] as const,
      registers,
      async collect() {
        if (!self.pool) return;
        let jobs: { status: string; n: number }[] = [];
        try {
          jobs = (
            await self.pool.query<{ status: string; n: number }>(
              "SELECT status, count(*)::int AS n FROM \"Job\" WHERE status IN ('pending', 'running', 'failed') GROUP BY status",
            )
          ).rows;
          database.set(1);
        } catch {
          database.set(0);
        }
        for (const status of ['pending', 'running', 'failed']) this.set({ status }, jobs.find((j) => j.status === status)?.n ?? 0);
      },
    });
    new Gauge({
      name: 'nodejs_heap_used_bytes',
      help: 'V8 heap in use.',
      registers,
      collect() {
        this.set(process.memoryUsage().heapUsed);
      },
    });
    new Gauge({
      name: 'process_uptime_seconds',
      help: 'Seconds since this process started serving.',
      registers,
      collect() {
        this.set((Date.now() - self.started) / 1000);
      },
    });
  }

  observe(method: string, route: string, status: number, seconds: number) {
    this.requests.inc({ method, route, status: String(status) });
    this.durations.observe({ method, route }, seconds);
  }

  /** A 429 of one of the app's limiters. */
  refused(limiter: Limiter) {
    this.refusals.inc({ limiter });
  }

  /** A GraphQL operation: its name only when persisted (a known set), bounded in number. */
  operation(type: string, name: string | null | undefined, persisted: boolean) {
    let label = 'anonymous';
    if (persisted && name && /^[_A-Za-z][_0-9A-Za-z]{0,63}$/.test(name)) {
      if (this.names.has(name) || this.names.size < MAX_OPERATION_NAMES) this.names.add(name), (label = name);
      else label = 'other';
    }
    this.operations.inc({ type, name: label });
  }

  /** The exposition text: requests, latencies, operations, refusals, the pool, the job queue and the process. */
  async render(pool: pg.Pool): Promise<string> {
    this.pool = pool;
    return this.registry.metrics();
  }
}

/** GET /metrics per the settings: the exposition, a 401 without the token, or a 404 when off. */
export async function metricsResponse(
  request: Request,
  metrics: Metrics,
  pool: pg.Pool,
  settings: { token?: string; open: boolean },
): Promise<Response> {
  const json = (status: number, message: string, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify({ error: { code: status, message } }), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });
  if (!settings.token && !settings.open)
    return json(404, 'Metrics are off: set LECTERN_METRICS_TOKEN (or LECTERN_METRICS=open) to serve them here');
  if (settings.token) {
    const { timingSafeEqual, createHash } = await import('node:crypto');
    const given = request.headers.get('authorization')?.match(/^Bearer\s+(\S+)\s*$/i)?.[1] ?? '';
    const digest = (s: string) => createHash('sha256').update(s).digest();
    if (!timingSafeEqual(digest(given), digest(settings.token)))
      return json(401, 'Send Authorization: Bearer <LECTERN_METRICS_TOKEN>', { 'www-authenticate': 'Bearer' });
  }
  return new Response(await metrics.render(pool), {
    headers: { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' },
  });
}
