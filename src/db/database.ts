import pg from 'pg';
import { processLog } from '../ops/log.js';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { settings } from '../config.js';
import { startEmbedded, type EmbeddedServer } from './embedded.js';

/** One database handle: the pg pool, the Prisma client on it, and a count of SQL statements. */
export interface Database {
  pool: pg.Pool;
  prisma: PrismaClient;
  /** SQL statements sent since start; tests read it around a request (N+1 guards, bench). */
  statements: { count: number };
  describe: string;
  close(): Promise<void>;
}

export type PoolTarget = Pick<pg.PoolConfig, 'host' | 'port' | 'user' | 'password' | 'database'>;

/** Discrete fields, never a connection string (node-postgres would let it override `database`). */
export function targetFromUrl(databaseUrl: string): PoolTarget {
  const url = new URL(databaseUrl);
  return {
    host: url.searchParams.get('host') ?? decodeURIComponent(url.hostname),
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username || 'postgres'),
    password: url.password ? decodeURIComponent(url.password) : undefined,
    database: decodeURIComponent(url.pathname.slice(1) || 'postgres'),
  };
}

export function embeddedTarget(server: EmbeddedServer, database = 'postgres'): PoolTarget {
  return { host: server.socketDir, port: server.port, user: 'postgres', database };
}

/** `max`: connections in the pool (LECTERN_DB_POOL, or sized for the machine: db/pool.ts defaultDbPoolSize). */
export function connect(target: PoolTarget, onClose: () => Promise<void> = async () => {}, opts: { max?: number } = {}): Database {
  // Fail fast instead of queueing forever: a new connection the server does not accept within 3 s
  // means it is away (503); a request that waited 3 s for a pooled connection meets a busy server
  // (429 with Retry-After). errors.ts tells the two apart.
  const pool = new pg.Pool({ ...target, max: opts.max ?? settings().dbPool, connectionTimeoutMillis: 3000 });
  const statements = { count: 0 };
  // An idle connection can be closed by the server (restart, failover, DROP … FORCE): the pool
  // replaces it; without this listener the error would crash the process.
  let closing = false;
  pool.on('error', (error) => {
    if (!closing) processLog().warn(`database connection lost: ${error.message}`);
  });
  // Count every statement sent on any pooled connection (Prisma and raw queries alike).
  pool.on('connect', (client) => {
    // A connection checked out but between statements (inside a transaction, say) when the server
    // ends it has no query to fail: the error is emitted on the client, and unheard it would crash
    // the process. Its next statement fails instead (answered 503), and the pool drops it.
    client.on('error', (error) => {
      if (!closing) processLog().warn(`database connection lost: ${error.message}`);
    });
    releaseWhenConnectionEnds(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
      statements.count++;
      return query(...args);
    };
  });
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    pool,
    prisma,
    statements,
    describe: target.host?.startsWith('/')
      ? `embedded PostgreSQL (socket in ${target.host})`
      : `PostgreSQL at ${target.host}:${target.port}/${target.database}`,
    async close() {
      closing = true;
      await prisma.$disconnect();
      await pool.end();
      await onClose();
    },
  };
}

/**
 * Gives a checked-out connection back to the pool (as broken) when its connection ends, and makes
 * a later release by its holder a no-op. Why: when the server goes away inside a Prisma
 * transaction, Prisma's transaction manager sends ROLLBACK, which fails, and never calls the
 * adapter's release (client-engine-runtime #closeTransaction): each outage leaked one connection
 * for good, until the pool was exhausted and `pool.end()` waited forever.
 */
function releaseWhenConnectionEnds(client: pg.PoolClient) {
  let release: ((err?: Error | boolean) => void) | undefined;
  let checkedOut = false;
  const releaseOnce = (err?: Error | boolean) => {
    if (!checkedOut) return;
    checkedOut = false;
    release!(err);
  };
  // pg-pool assigns `client.release` on every checkout.
  Object.defineProperty(client, 'release', {
    configurable: true,
    get: () => releaseOnce,
    set: (fn: (err?: Error | boolean) => void) => {
      release = fn;
      checkedOut = true;
    },
  });
  client.once('end', () => releaseOnce(new Error('connection ended')));
}

/** Opens the configured database: DATABASE_URL when set, else the embedded server in dataDir. */
export async function openDatabase(opts: {
  databaseUrl?: string;
  dataDir: string;
  role: 'server' | 'cli';
  log?: (m: string) => void;
  progress?: (m: string) => void;
}): Promise<Database> {
  // A CLI command runs a few statements one after another: a small pool leaves the server's
  // connections to the server.
  const { dbPool } = settings();
  const max = opts.role === 'cli' ? Math.min(4, dbPool) : dbPool;
  if (opts.databaseUrl) return connect(targetFromUrl(opts.databaseUrl), undefined, { max });
  const server = await startEmbedded(opts.dataDir, opts.role, opts.log, opts.progress ?? (() => {}));
  return connect(embeddedTarget(server), () => server.stop(), { max });
}
