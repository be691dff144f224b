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
export interface Config {
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
  const dbPool = dbPoolSize(env);
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
      ? { url: env.LECTERN_TRANSLATOR_URL, apiKey: env.LECTERN_TRANSLATOR_API_KEY || undefined, timeoutMs: Number(env.LECTERN_TRANSLATOR_TIMEOUT_MS || 60_000) }
      : null,
    conversationAnalyser:
      env.LECTERN_CONVERSATIONS_ANALYSER === 'openai'
        ? { kind: 'openai', url: env.LECTERN_ANALYSER_URL || 'https://api.openai.com/v1', model: env.LECTERN_ANALYSER_MODEL || 'gpt-4o-mini', apiKey: env.LECTERN_ANALYSER_API_KEY || undefined }
        : { kind: 'builtin' },
    secretKey: env.LECTERN_SECRET_KEY || undefined,
    dbPool,
    // A third of the pool by default: one organization's burst never takes every connection, nor most
    // of the event loop (measured: 100 writers of one organization kept another's read median at
    // 1.5× idle with a third, 2.8× with half, and the writers' throughput was the same).
    tenantConcurrency: wholeNumber(env, 'LECTERN_TENANT_CONCURRENCY', 1, 1000) ?? Math.max(1, Math.floor(dbPool / 3)),
    metrics: { token: env.LECTERN_METRICS_TOKEN || undefined, open: env.LECTERN_METRICS === 'open' },
    heapGrowthPercent: wholeNumber(env, 'LECTERN_HEAP_GROWTH_PERCENT', 0, 1000) ?? 20,
    sessions: { idleDays: wholeNumber(env, 'LECTERN_SESSION_IDLE_DAYS', 1, 3650) ?? 14, maxDays: wholeNumber(env, 'LECTERN_SESSION_MAX_DAYS', 1, 3650) ?? 90 },
    signInLimits: { perAccount: wholeNumber(env, 'LECTERN_SIGNIN_ACCOUNT_LIMIT', 0, 100_000) ?? 10, perAddress: wholeNumber(env, 'LECTERN_SIGNIN_ADDRESS_LIMIT', 0, 100_000) ?? 50 },
    oidc: readOidc(env),
  };
}
