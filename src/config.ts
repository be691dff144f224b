import path from 'node:path';
import { dbPoolSize } from './db/pool.js';

/** The translator of translation runs (a LibreTranslate-compatible server; src/modules/translations/translator.ts). */
export interface TranslatorConfig {
  url: string;
  apiKey?: string;
  timeoutMs: number;
}

/** The conversation analyser (src/modules/conversations/analyser.ts): the built-in one, or an OpenAI-compatible model. */
export type AnalyserConfig = { kind: 'builtin' } | { kind: 'openai'; url: string; model: string; apiKey?: string; timeoutMs?: number };

/** Settings read from the environment, once. */
export interface Config extends Settings {
  host: string;
  port: number;
  publicUrl: string;
  databaseUrl?: string;
  dataDir: string;
  /** How long a deleted space can be restored. */
  spaceRetentionMs: number;
  /** Audit events older than this many days are pruned (LECTERN_AUDIT_RETENTION_DAYS, default 365). */
  auditRetentionDays?: number;
  /** Requests per token per window (LECTERN_RATE_LIMIT per minute; 0 turns limiting off). */
  rateLimit: { limit: number; windowSeconds: number };
  /** Largest request body accepted (LECTERN_MAX_BODY_BYTES); larger ones get 413. */
  maxBodyBytes: number;
  /**
   * Per client address, per minute, in this process (src/http/throttle.ts): requests without a valid
   * token (LECTERN_ANON_RATE_LIMIT, default 300) and failed authentications (LECTERN_AUTH_FAILURE_LIMIT,
   * default 30). 0 turns one off; LECTERN_RATE_LIMIT=0 turns every limit off.
   */
  addressLimits: { anonymous: number; authFailures: number };
  /** Use the last X-Forwarded-For hop as the client address (LECTERN_TRUST_PROXY=1, behind one reverse proxy). */
  trustProxy: boolean;
  /** Origins a browser page may call /v1 and /graphql from (LECTERN_CORS_ORIGINS, comma-separated, or `*`); none by default. */
  corsOrigins: string[];
  /** GraphiQL in browsers (LECTERN_GRAPHIQL=0 turns it off, e.g. in production). */
  graphiql: boolean;
  /** GraphQL introspection (LECTERN_INTROSPECTION=0 turns it off). */
  introspection: boolean;
  /** The translator of translation runs (LECTERN_TRANSLATOR_URL…); null when none is configured. */
  translator: TranslatorConfig | null;
  /** The conversation analyser (LECTERN_CONVERSATIONS_ANALYSER: builtin, the default, or openai). */
  conversationAnalyser: AnalyserConfig;
  /** LECTERN_SECRET_KEY: the master secret of src/secrets.ts; absent, one is made and kept in the database. */
  secretKey?: string;
  /** Database connections of this process (LECTERN_DB_POOL; see dbPoolSize). */
  dbPool: number;
  /** Requests of one organization served at once (LECTERN_TENANT_CONCURRENCY); the rest wait their turn. */
  tenantConcurrency: number;
  /** GET /metrics (src/ops/metrics.ts): with LECTERN_METRICS_TOKEN as a bearer token, or LECTERN_METRICS=open; else off. */
  metrics?: { token?: string; open: boolean };
  /** Heap growth past the live heap, in percent (LECTERN_HEAP_GROWTH_PERCENT; 0: V8's own), for `lectern serve` (src/ops/heap.ts). */
  heapGrowthPercent: number;
  /**
   * Browser sessions (people signed in to the app): ended after LECTERN_SESSION_IDLE_DAYS (default
   * 14) without a request, and LECTERN_SESSION_MAX_DAYS (default 90) after signing in in any case.
   */
  sessions: { idleDays: number; maxDays: number };
  /**
   * Sign-in attempts per 15 minutes (PostgreSQL-backed, shared by every process): per account
   * (LECTERN_SIGNIN_ACCOUNT_LIMIT, default 10) and per client address (LECTERN_SIGNIN_ADDRESS_LIMIT,
   * default 50); 0 turns one off.
   */
  signInLimits: { perAccount: number; perAddress: number };
  /** OpenID Connect sign-in (LECTERN_OIDC_ISSUER, _CLIENT_ID, _CLIENT_SECRET, _LABEL, _CREATE_USERS); null when not configured. */
  oidc: OidcConfig | null;
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  /** The button's label in the app ("Sign in with …"). */
  label: string;
  /** Create an account for a verified email that has none (else such a sign-in is refused). */
  createUsers: boolean;
}

function readOidc(env: NodeJS.ProcessEnv): OidcConfig | null {
  const issuer = env.LECTERN_OIDC_ISSUER?.trim();
  const clientId = env.LECTERN_OIDC_CLIENT_ID?.trim();
  if (!issuer && !clientId) return null;
  if (!issuer || !clientId) throw new Error('LECTERN_OIDC_ISSUER and LECTERN_OIDC_CLIENT_ID must be set together');
  if (!/^https?:\/\//.test(issuer)) throw new Error(`LECTERN_OIDC_ISSUER must be an http(s) URL (got "${issuer}")`);
  return {
    issuer,
    clientId,
    clientSecret: env.LECTERN_OIDC_CLIENT_SECRET || undefined,
    label: env.LECTERN_OIDC_LABEL?.trim() || 'Single sign-on',
    createUsers: ['1', 'true', 'yes'].includes((env.LECTERN_OIDC_CREATE_USERS ?? '').toLowerCase()),
  };
}

function wholeNumber(env: NodeJS.ProcessEnv, name: string, min: number, max: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
  return n;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const port = Number(env.PORT || 8080);
  const dbPool = dbPoolSize(env.LECTERN_DB_POOL);
  return {
    host,
    port,
    publicUrl: (env.LECTERN_PUBLIC_URL || `http://${host}:${port}`).replace(/\/+$/, ''),
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: path.resolve(env.LECTERN_DATA_DIR || 'data'),
    spaceRetentionMs: 7 * 24 * 60 * 60 * 1000,
    auditRetentionDays: wholeNumber(env, 'LECTERN_AUDIT_RETENTION_DAYS', 1, 36500) ?? 365,
    rateLimit: { limit: Number(env.LECTERN_RATE_LIMIT ?? 1200), windowSeconds: 60 },
    // The write path takes up to 50 files of 1 MB (base64) in one batch.
    maxBodyBytes: Number(env.LECTERN_MAX_BODY_BYTES ?? 80 * 1024 * 1024),
    addressLimits: { anonymous: Number(env.LECTERN_ANON_RATE_LIMIT ?? 300), authFailures: Number(env.LECTERN_AUTH_FAILURE_LIMIT ?? 30) },
    trustProxy: env.LECTERN_TRUST_PROXY === '1',
    corsOrigins: (env.LECTERN_CORS_ORIGINS ?? '')
      .split(',')
      .map((o) => o.trim().replace(/\/+$/, ''))
      .filter(Boolean),
    graphiql: env.LECTERN_GRAPHIQL !== '0',
    introspection: env.LECTERN_INTROSPECTION !== '0',
    translator: env.LECTERN_TRANSLATOR_URL
      ? {
          url: env.LECTERN_TRANSLATOR_URL,
          apiKey: env.LECTERN_TRANSLATOR_API_KEY || undefined,
          timeoutMs: Number(env.LECTERN_TRANSLATOR_TIMEOUT_MS || 60_000),
        }
      : null,
    conversationAnalyser:
      env.LECTERN_CONVERSATIONS_ANALYSER === 'openai'
        ? {
            kind: 'openai',
            url: env.LECTERN_ANALYSER_URL || 'https://api.openai.com/v1',
            model: env.LECTERN_ANALYSER_MODEL || 'gpt-4o-mini',
            apiKey: env.LECTERN_ANALYSER_API_KEY || undefined,
          }
        : { kind: 'builtin' },
    secretKey: env.LECTERN_SECRET_KEY || undefined,
    dbPool,
    // A third of the pool by default: one organization's burst never takes every connection, nor most
    // of the event loop (measured: 100 writers of one organization kept another's read median at
    // 1.5× idle with a third, 2.8× with half, and the writers' throughput was the same).
    tenantConcurrency: wholeNumber(env, 'LECTERN_TENANT_CONCURRENCY', 1, 1000) ?? Math.max(1, Math.floor(dbPool / 3)),
    metrics: { token: env.LECTERN_METRICS_TOKEN || undefined, open: env.LECTERN_METRICS === 'open' },
    heapGrowthPercent: wholeNumber(env, 'LECTERN_HEAP_GROWTH_PERCENT', 0, 1000) ?? 20,
    sessions: {
      idleDays: wholeNumber(env, 'LECTERN_SESSION_IDLE_DAYS', 1, 3650) ?? 14,
      maxDays: wholeNumber(env, 'LECTERN_SESSION_MAX_DAYS', 1, 3650) ?? 90,
    },
    signInLimits: {
      perAccount: wholeNumber(env, 'LECTERN_SIGNIN_ACCOUNT_LIMIT', 0, 100_000) ?? 10,
      perAddress: wholeNumber(env, 'LECTERN_SIGNIN_ADDRESS_LIMIT', 0, 100_000) ?? 50,
    },
    oidc: readOidc(env),
    ...readSettings(env),
  };
}

/** Settings of the outbound fetches, Git, imports, the reader cache and the log (part of Config). */
export interface Settings {
  /** Outbound fetches (OpenAPI URLs, Git remotes) may reach private, loopback and link-local addresses (LECTERN_ALLOW_PRIVATE_NETWORK, or its old name LECTERN_OPENAPI_ALLOW_PRIVATE; 1/true/yes). */
  allowPrivateNetwork: boolean;
  /** DNS server of hostname checks, `host:port` (LECTERN_DNS_SERVER); the system resolver when absent. */
  dnsServer?: string;
  /** OpenAPI fetches: LECTERN_OPENAPI_FETCH_TIMEOUT_MS (15 s), _TOTAL_TIMEOUT_MS (120 s), _MAX_BYTES (10 MiB), _MAX_FILES (50), _MAX_FILESYSTEM_BYTES (32 MiB), _MEMORY_MB (512), _PROCESS_TIMEOUT_MS (60 s). */
  openapi: {
    timeoutMs: number;
    totalTimeoutMs: number;
    maxBytes: number;
    maxFiles: number;
    maxFilesystemBytes: number;
    memoryMb: number;
    processTimeoutMs: number;
  };
  /** Git sync: LECTERN_GIT_TIMEOUT_MS (60 s), _MAX_BYTES (64 MiB), _MAX_FILES (20,000), _LOCAL_ROOT (file remotes under it; none by default), _LOCK_WAIT_MS (2 s, 0 never waits); `path` is the PATH git runs with. */
  git: { timeoutMs: number; maxBytes: number; maxFiles: number; localRoot?: string; lockWaitMs: number; path: string };
  /** Imports: LECTERN_UPLOAD_MAX_BYTES (64 MiB), LECTERN_IMPORT_MAX_FILES (10,000), _MAX_UNPACKED_BYTES (256 MiB), _MAX_FILE_BYTES (32 MiB), _MAX_RATIO (200). */
  imports: { uploadMaxBytes: number; maxFiles: number; maxBytes: number; maxFileBytes: number; maxRatio: number };
  /** Memory of the published pages' answer cache (LECTERN_READER_CACHE_MB, default 128). */
  readerCacheMb: number;
  /** The built app served at /app (LECTERN_APP_DIST; web/dist by default). */
  appDist?: string;
  /** LOG_FORMAT: json or text; absent, text on a terminal and json otherwise. */
  logFormat?: 'json' | 'text';
}

const truthy = (raw: string | undefined) => ['1', 'true', 'yes'].includes((raw ?? '').trim().toLowerCase());
const positive = (raw: string | undefined, fallback: number) => {
  const n = Number(raw);
  return raw !== undefined && raw !== '' && Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
};
const nonNegative = (raw: string | undefined, fallback: number) => {
  const n = Number(raw);
  return raw !== undefined && raw !== '' && Number.isFinite(n) && n >= 0 ? Math.floor(n) : fallback;
};

export function readSettings(env: NodeJS.ProcessEnv): Settings {
  if (env.LOG_FORMAT && !['json', 'text'].includes(env.LOG_FORMAT))
    throw new Error(`LOG_FORMAT must be json or text (got "${env.LOG_FORMAT}")`);
  return {
    allowPrivateNetwork: truthy(env.LECTERN_ALLOW_PRIVATE_NETWORK) || truthy(env.LECTERN_OPENAPI_ALLOW_PRIVATE),
    dnsServer: env.LECTERN_DNS_SERVER?.trim() || undefined,
    openapi: {
      timeoutMs: positive(env.LECTERN_OPENAPI_FETCH_TIMEOUT_MS, 15_000),
      totalTimeoutMs: positive(env.LECTERN_OPENAPI_TOTAL_TIMEOUT_MS, 120_000),
      maxBytes: positive(env.LECTERN_OPENAPI_MAX_BYTES, 10 * 1024 * 1024),
      maxFiles: positive(env.LECTERN_OPENAPI_MAX_FILES, 50),
      maxFilesystemBytes: positive(env.LECTERN_OPENAPI_MAX_FILESYSTEM_BYTES, 32 * 1024 * 1024),
      memoryMb: positive(env.LECTERN_OPENAPI_MEMORY_MB, 512),
      processTimeoutMs: positive(env.LECTERN_OPENAPI_PROCESS_TIMEOUT_MS, 60_000),
    },
    git: {
      timeoutMs: positive(env.LECTERN_GIT_TIMEOUT_MS, 60_000),
      maxBytes: positive(env.LECTERN_GIT_MAX_BYTES, 64 * 1024 * 1024),
      maxFiles: positive(env.LECTERN_GIT_MAX_FILES, 20_000),
      localRoot: env.LECTERN_GIT_LOCAL_ROOT || undefined,
      lockWaitMs: nonNegative(env.LECTERN_GIT_LOCK_WAIT_MS, 2_000),
      path: env.PATH ?? '/usr/bin:/bin',
    },
    imports: {
      uploadMaxBytes: positive(env.LECTERN_UPLOAD_MAX_BYTES, 64 * 1024 * 1024),
      maxFiles: positive(env.LECTERN_IMPORT_MAX_FILES, 10_000),
      maxBytes: positive(env.LECTERN_IMPORT_MAX_UNPACKED_BYTES, 256 * 1024 * 1024),
      maxFileBytes: positive(env.LECTERN_IMPORT_MAX_FILE_BYTES, 32 * 1024 * 1024),
      maxRatio: positive(env.LECTERN_IMPORT_MAX_RATIO, 200),
    },
    readerCacheMb: nonNegative(env.LECTERN_READER_CACHE_MB, 128),
    appDist: env.LECTERN_APP_DIST || undefined,
    logFormat: env.LOG_FORMAT === 'json' || env.LOG_FORMAT === 'text' ? env.LOG_FORMAT : undefined,
  };
}

/**
 * The settings as the process's environment has them now. Parsed on every call (it is cheap), so the
 * environment stays the one source: a test or an embedding process that changes a variable is heeded
 * by the next fetch, import or Git run.
 */
export function settings(): Settings & { dbPool: number } {
  return { ...readSettings(process.env), dbPool: dbPoolSize(process.env.LECTERN_DB_POOL) };
}
