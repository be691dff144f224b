import path from 'node:path';
import { z } from 'zod';
import { defaultDbPoolSize } from './db/pool.js';

/**
 * Every setting Lectern reads from the environment, as one zod schema: each variable with its
 * parser, its default and its description. docs/running.md's settings table is printed from it
 * (scripts/print-settings.ts) and a test fails when that table is stale. A bad value stops the
 * start with a message naming the variable.
 */

const ON = ['1', 'true', 'yes', 'on'];
const OFF = ['0', 'false', 'no', 'off'];

const flag = () =>
  z
    .string()
    .trim()
    .toLowerCase()
    .refine((v) => ON.includes(v) || OFF.includes(v), 'must be 1 or 0 (also true/false, yes/no, on/off)')
    .transform((v) => ON.includes(v));

const whole = (min: number, max: number) =>
  z
    .string()
    .trim()
    .refine((v) => /^\d+$/.test(v) && Number(v) >= min && Number(v) <= max, `must be a whole number from ${min} to ${max}`)
    .transform(Number);

const text = () => z.string().trim();

const httpUrl = () =>
  z
    .string()
    .trim()
    .refine((v) => /^https?:\/\/[^/]/.test(v) && URL.canParse(v), 'must be an http(s) URL');

interface Doc {
  /** What the setting does, one Markdown paragraph for the settings table. */
  description: string;
  /** The default as the table shows it, when the schema's own default says it badly (or there is none). */
  shown?: string;
  /** Never echoed in an error message. */
  secret?: boolean;
}

const doc = <T extends z.ZodType>(schema: T, meta: Doc): T => schema.meta({ ...meta });

const MiB = 1024 * 1024;

const server = {
  PORT: doc(whole(0, 65535).default(8080), { description: 'TCP port the server listens on (`0`: any free port).' }),
  HOST: doc(text().default('127.0.0.1'), { description: 'Address the server listens on; `0.0.0.0` listens on every interface.' }),
  DATABASE_URL: doc(
    text()
      .refine((v) => /^postgres(ql)?:\/\//.test(v), 'must be a postgres:// URL')
      .optional(),
    {
      description:
        'A PostgreSQL 13+ server (`postgres://user:pass@host:5432/db`); absent, the embedded PostgreSQL under the data directory.',
      shown: 'embedded',
      secret: true,
    },
  ),
  LECTERN_DATA_DIR: doc(text().default('data'), {
    description: 'The embedded database, backups and other local state.',
    shown: '`./data`',
  }),
  LECTERN_PUBLIC_URL: doc(httpUrl().optional(), {
    description: 'Base of the absolute `urls` in responses (behind a proxy: `https://docs.example.com`).',
    shown: '`http://HOST:PORT`',
  }),
  LECTERN_APP_DIST: doc(text().optional(), { description: 'The built app served at `/app`.', shown: '`web/dist`' }),
  LOG_FORMAT: doc(z.enum(['json', 'text'], { error: 'must be json or text' }).optional(), {
    description: '`json` (one JSON line per event) or `text` (one readable line).',
    shown: 'text on a terminal, else json',
  }),
  LECTERN_GRAPHIQL: doc(flag().default(true), {
    description: 'GraphiQL in browsers on `GET /graphql` (`0` turns it off, e.g. in production).',
  }),
  LECTERN_INTROSPECTION: doc(flag().default(true), { description: 'GraphQL introspection (`0` turns it off).' }),
  LECTERN_METRICS_TOKEN: doc(text().optional(), {
    description: '`GET /metrics` answers with this bearer token.',
    shown: 'none (off)',
    secret: true,
  }),
  LECTERN_METRICS: doc(z.enum(['open', 'off'], { error: 'must be open or off' }).default('off'), {
    description: '`open`: `GET /metrics` answers anyone (keep the port on a private network).',
  }),
  LECTERN_HEAP_GROWTH_PERCENT: doc(whole(0, 1000).default(20), {
    description:
      "How far the JavaScript heap of `lectern serve` may grow past what survived the last full collection before the next one (`0`: V8's own factor, up to 4× on a machine with memory to spare); measured on the one-site GraphQL query at 4 connections: 20 holds the server near 300 MB against 620–860 MB, for about the same requests per second (the 10 MB whole-organization answer, which allocates several times the live heap, pays in collections: 1.8 instead of 3.0 req/s; raise it where such answers matter more than memory), and `npm start`'s `node --max-semi-space-size=8` (a young generation of 8 MB semi-spaces instead of 16) near 260–280 MB (`bench/front-end.ts`; run `lectern serve` with the same flag outside npm).",
  }),
  LECTERN_SECRET_KEY: doc(text().min(32, 'must be at least 32 characters (e.g. openssl rand -base64 32)').optional(), {
    description:
      'Master secret for file-URL signatures and for sealing share-link keys and invite codes; set it so a copy of the database alone reveals nothing; keep it stable.',
    shown: 'made on first start, kept in the database',
    secret: true,
  }),
  LECTERN_DB_POOL: doc(whole(2, 1000).optional(), {
    description: "Database connections of this process; keep processes × pool under the server's `max_connections`.",
    shown: '4 per core, 10..40',
  }),
  LECTERN_TENANT_CONCURRENCY: doc(whole(1, 1000).optional(), {
    description: 'Requests of one organization served at once; up to 20× that wait at most 10 s, the rest get 429 with `Retry-After`.',
    shown: 'a third of the pool',
  }),
  LECTERN_AUDIT_RETENTION_DAYS: doc(whole(1, 36500).default(365), { description: 'Audit events older than this many days are pruned.' }),
  LECTERN_READER_CACHE_MB: doc(whole(0, 1_000_000).default(128), { description: "Memory of the published pages' answer cache." }),
  LECTERN_DNS_SERVER: doc(
    text()
      .refine((v) => /^[^\s:]+:\d+$|^\[[0-9a-f:.]+\]:\d+$/i.test(v), 'must be host:port')
      .optional(),
    { description: '`host:port` of the DNS server asked for custom-hostname proofs.', shown: 'system resolver' },
  ),
};

const limits = {
  LECTERN_RATE_LIMIT: doc(whole(0, 1_000_000_000).default(1200), {
    description:
      "Requests per minute **per user** (all of a user's tokens, SSO tokens included) over a sliding 60 s window; 429 with `Retry-After` and `X-RateLimit-Limit/Remaining/Reset`; counted in PostgreSQL (in the authentication statement) so processes share it; `0` turns off every rate limit.",
  }),
  LECTERN_ANON_RATE_LIMIT: doc(whole(0, 1_000_000_000).default(300), {
    description:
      'Requests per minute per client address without a valid token (`/files`, `/exports` (a PDF costs 10), `/sso`, `/openapi`, `/readyz`, GraphiQL, 401s); a token bucket in process memory; `0` turns it off.',
  }),
  LECTERN_AUTH_FAILURE_LIMIT: doc(whole(0, 1_000_000_000).default(30), {
    description: 'Failed authentications per minute per address; past it, 429 before the database is asked; `0` turns it off.',
  }),
  LECTERN_TRUST_PROXY: doc(flag().default(false), {
    description: 'Take the client address from the last `X-Forwarded-For` hop (behind one reverse proxy).',
  }),
  LECTERN_MAX_BODY_BYTES: doc(whole(1, Number.MAX_SAFE_INTEGER).default(80 * MiB), {
    description:
      'Request bodies of authenticated callers, enforced while streaming (413 as soon as it is passed); bodies without a valid token are never read; `/sso` takes at most 256 KB. The write path takes up to 50 files of 1 MB (base64) in one batch.',
    shown: '80 MiB',
  }),
  LECTERN_CORS_ORIGINS: doc(text().default(''), {
    description: 'Comma-separated origins (or `*`) allowed cross-origin on `/v1` and `/graphql`; never with credentials.',
    shown: 'none',
  }),
  LECTERN_SESSION_IDLE_DAYS: doc(whole(1, 3650).default(14), {
    description: 'A browser session ends after this many days without a request.',
  }),
  LECTERN_SESSION_MAX_DAYS: doc(whole(1, 3650).default(90), {
    description: 'A browser session ends this many days after signing in in any case.',
  }),
  LECTERN_SIGNIN_ACCOUNT_LIMIT: doc(whole(0, 100_000).default(10), {
    description: 'Sign-in attempts per 15 minutes per account (in PostgreSQL, shared by every process); `0` turns it off.',
  }),
  LECTERN_SIGNIN_ADDRESS_LIMIT: doc(whole(0, 100_000).default(50), {
    description: 'Sign-in attempts per 15 minutes per client address; `0` turns it off.',
  }),
};

const outbound = {
  LECTERN_ALLOW_PRIVATE_NETWORK: doc(flag().default(false), {
    description:
      'Fetches on behalf of users (OpenAPI URLs, files by URL, Git remotes, OpenID Connect) may reach private, loopback and link-local addresses (e.g. an intranet).',
  }),
  LECTERN_OPENAPI_ALLOW_PRIVATE: doc(flag().default(false), {
    description: 'Another name of `LECTERN_ALLOW_PRIVATE_NETWORK`: private addresses are allowed when either is on.',
  }),
  LECTERN_OPENAPI_FETCH_TIMEOUT_MS: doc(whole(1, 86_400_000).default(15_000), {
    description: 'Time limit of one outbound fetch (an OpenAPI file, a file by URL, an OpenID Connect request).',
  }),
  LECTERN_OPENAPI_TOTAL_TIMEOUT_MS: doc(whole(1, 86_400_000).default(120_000), {
    description: "Time limit of fetching one OpenAPI spec version's files, below the job queue's stale-job delay.",
  }),
  LECTERN_OPENAPI_MAX_BYTES: doc(whole(1, Number.MAX_SAFE_INTEGER).default(10 * MiB), {
    description: 'Size of one fetched file after decompression (OpenAPI files, OpenID Connect answers).',
    shown: '10 MiB',
  }),
  LECTERN_OPENAPI_MAX_FILES: doc(whole(1, 100_000).default(50), { description: 'Files one OpenAPI spec may pull in through `$ref`s.' }),
  LECTERN_OPENAPI_MAX_FILESYSTEM_BYTES: doc(whole(1, Number.MAX_SAFE_INTEGER).default(32 * MiB), {
    description:
      "An OpenAPI spec's files once parsed, YAML aliases expanded (one file may also expand to at most max(1 MB, 8 × its size)).",
    shown: '32 MiB',
  }),
  LECTERN_OPENAPI_MEMORY_MB: doc(whole(16, 1_000_000).default(512), {
    description: 'Heap of the worker thread processing one OpenAPI version.',
  }),
  LECTERN_OPENAPI_PROCESS_TIMEOUT_MS: doc(whole(1, 86_400_000).default(60_000), {
    description: 'Wall clock of that worker thread for parsing and validating, added to the fetch budget.',
  }),
  LECTERN_GIT_TIMEOUT_MS: doc(whole(1, 86_400_000).default(60_000), { description: 'Time limit of one git command.' }),
  LECTERN_GIT_MAX_BYTES: doc(whole(1, Number.MAX_SAFE_INTEGER).default(64 * MiB), {
    description: 'What one git command may read from a remote.',
    shown: '64 MiB',
  }),
  LECTERN_GIT_MAX_FILES: doc(whole(1, 10_000_000).default(20_000), { description: 'Files of a repository folder Git sync reads.' }),
  LECTERN_GIT_LOCAL_ROOT: doc(text().optional(), {
    description: 'Local paths below this directory may be Git remotes.',
    shown: 'none (no local remotes)',
  }),
  LECTERN_GIT_LOCK_WAIT_MS: doc(whole(0, 86_400_000).default(2_000), {
    description: 'How long a sync waits for another sync of the same space to finish (`0`: never waits).',
  }),
  PATH: doc(text().default('/usr/bin:/bin'), { description: 'Where `git` and `ssh` are found.', shown: '`/usr/bin:/bin`' }),
  LECTERN_UPLOAD_MAX_BYTES: doc(whole(1, Number.MAX_SAFE_INTEGER).default(64 * MiB), {
    description: 'One upload to Lectern’s storage (import archives).',
    shown: '64 MiB',
  }),
  LECTERN_IMPORT_MAX_FILES: doc(whole(1, 10_000_000).default(10_000), { description: 'Files of one imported archive.' }),
  LECTERN_IMPORT_MAX_UNPACKED_BYTES: doc(whole(1, Number.MAX_SAFE_INTEGER).default(256 * MiB), {
    description: 'What one imported archive unpacks to.',
    shown: '256 MiB',
  }),
  LECTERN_IMPORT_MAX_FILE_BYTES: doc(whole(1, Number.MAX_SAFE_INTEGER).default(32 * MiB), {
    description: 'One file of an imported archive, unpacked.',
    shown: '32 MiB',
  }),
  LECTERN_IMPORT_MAX_RATIO: doc(whole(1, 1_000_000).default(200), {
    description: 'Unpacked size over packed size of an imported archive.',
  }),
};

const services = {
  LECTERN_TRANSLATOR_URL: doc(httpUrl().optional(), {
    description: 'A LibreTranslate-compatible server for translation runs.',
    shown: 'none (translations off)',
  }),
  LECTERN_TRANSLATOR_API_KEY: doc(text().optional(), { description: "The translator's API key.", shown: 'none', secret: true }),
  LECTERN_TRANSLATOR_TIMEOUT_MS: doc(whole(1, 86_400_000).default(60_000), { description: 'Time limit of one request to the translator.' }),
  LECTERN_CONVERSATIONS_ANALYSER: doc(z.enum(['builtin', 'openai'], { error: 'must be builtin or openai' }).default('builtin'), {
    description: 'The conversation analyser: the built-in one, or an OpenAI-compatible model.',
  }),
  LECTERN_ANALYSER_URL: doc(httpUrl().default('https://api.openai.com/v1'), { description: 'The OpenAI-compatible API of the analyser.' }),
  LECTERN_ANALYSER_MODEL: doc(text().default('gpt-4o-mini'), { description: 'The model the analyser asks.' }),
  LECTERN_ANALYSER_API_KEY: doc(text().optional(), { description: "The analyser's API key.", shown: 'none', secret: true }),
  LECTERN_OIDC_ISSUER: doc(httpUrl().optional(), {
    description: 'OpenID Connect sign-in: the provider (set with `LECTERN_OIDC_CLIENT_ID`).',
    shown: 'none (off)',
  }),
  LECTERN_OIDC_CLIENT_ID: doc(text().optional(), { description: "Lectern's client id at the OpenID provider.", shown: 'none' }),
  LECTERN_OIDC_CLIENT_SECRET: doc(text().optional(), {
    description: "Lectern's client secret at the OpenID provider (absent: a public client with PKCE).",
    shown: 'none',
    secret: true,
  }),
  LECTERN_OIDC_LABEL: doc(text().default('Single sign-on'), { description: 'The sign-in button\'s label in the app ("Sign in with …").' }),
  LECTERN_OIDC_CREATE_USERS: doc(flag().default(false), {
    description: 'Create an account for a verified email that has none (else such a sign-in is refused).',
  }),
};

export const settingsSchema = z.object({ ...server, ...limits, ...outbound, ...services });
export type Environment = z.output<typeof settingsSchema>;

/** The translator of translation runs (a LibreTranslate-compatible server; src/modules/translations/translator.ts). */
export interface TranslatorConfig {
  url: string;
  apiKey?: string;
  timeoutMs: number;
}

/** The conversation analyser (src/modules/conversations/analyser.ts): the built-in one, or an OpenAI-compatible model. */
export type AnalyserConfig = { kind: 'builtin' } | { kind: 'openai'; url: string; model: string; apiKey?: string; timeoutMs?: number };

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  /** The button's label in the app ("Sign in with …"). */
  label: string;
  /** Create an account for a verified email that has none (else such a sign-in is refused). */
  createUsers: boolean;
}

/** Settings of the outbound fetches, Git, imports, the reader cache and the log (part of Config). */
export interface Settings {
  /** Fetches on behalf of users may reach private addresses (LECTERN_ALLOW_PRIVATE_NETWORK or LECTERN_OPENAPI_ALLOW_PRIVATE). */
  allowPrivateNetwork: boolean;
  dnsServer?: string;
  openapi: {
    timeoutMs: number;
    totalTimeoutMs: number;
    maxBytes: number;
    maxFiles: number;
    maxFilesystemBytes: number;
    memoryMb: number;
    processTimeoutMs: number;
  };
  /** `path` is the PATH git runs with. */
  git: { timeoutMs: number; maxBytes: number; maxFiles: number; localRoot?: string; lockWaitMs: number; path: string };
  imports: { uploadMaxBytes: number; maxFiles: number; maxBytes: number; maxFileBytes: number; maxRatio: number };
  readerCacheMb: number;
  appDist?: string;
  logFormat?: 'json' | 'text';
}

/** The settings, shaped for their users (each variable is described in settingsSchema). */
export interface Config extends Settings {
  host: string;
  port: number;
  publicUrl: string;
  databaseUrl?: string;
  dataDir: string;
  /** How long a deleted space can be restored. */
  spaceRetentionMs: number;
  auditRetentionDays?: number;
  /** Requests per token per window (0 turns limiting off). */
  rateLimit: { limit: number; windowSeconds: number };
  maxBodyBytes: number;
  /** Per client address, per minute, in this process (src/http/throttle.ts); 0 turns one off. */
  addressLimits: { anonymous: number; authFailures: number };
  trustProxy: boolean;
  corsOrigins: string[];
  graphiql: boolean;
  introspection: boolean;
  /** null when no translator is configured. */
  translator: TranslatorConfig | null;
  conversationAnalyser: AnalyserConfig;
  secretKey?: string;
  dbPool: number;
  tenantConcurrency: number;
  /** GET /metrics (src/ops/metrics.ts): with the token as a bearer token, or open to anyone; else off. */
  metrics?: { token?: string; open: boolean };
  heapGrowthPercent: number;
  sessions: { idleDays: number; maxDays: number };
  signInLimits: { perAccount: number; perAddress: number };
  /** null when OpenID Connect is not configured. */
  oidc: OidcConfig | null;
}

/** A setting with a value Lectern cannot use: the message names the variable (and the value, unless secret). */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Input = Partial<Record<keyof Environment, string>>;

/** The schema's variables that are set in `env` (an empty value counts as unset, as shells often leave them). */
function pick(env: NodeJS.ProcessEnv): Input {
  const input: Input = {};
  for (const name of Object.keys(settingsSchema.shape) as (keyof Environment)[]) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') input[name] = value;
  }
  return input;
}

/** Whether a variable's value must never appear in a message. */
export function isSecret(name: string): boolean {
  const schema = settingsSchema.shape[name as keyof Environment] as z.ZodType | undefined;
  return !!(schema?.meta() as Doc | undefined)?.secret;
}

function parse(input: Input): Environment {
  const result = settingsSchema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = String(issue.path[0]) as keyof Environment;
    const got = isSecret(name) ? '' : ` (got "${input[name]}")`;
    return `${name} ${issue.message}${got}`;
  });
  throw new ConfigError(problems.join('; '));
}

function oidc(env: Environment): OidcConfig | null {
  if (!env.LECTERN_OIDC_ISSUER && !env.LECTERN_OIDC_CLIENT_ID) return null;
  if (!env.LECTERN_OIDC_ISSUER || !env.LECTERN_OIDC_CLIENT_ID)
    throw new ConfigError('LECTERN_OIDC_ISSUER and LECTERN_OIDC_CLIENT_ID must be set together');
  return {
    issuer: env.LECTERN_OIDC_ISSUER,
    clientId: env.LECTERN_OIDC_CLIENT_ID,
    clientSecret: env.LECTERN_OIDC_CLIENT_SECRET,
    label: env.LECTERN_OIDC_LABEL,
    createUsers: env.LECTERN_OIDC_CREATE_USERS,
  };
}

function outboundSettings(env: Environment): Settings {
  return {
    // One switch under two names: either one on allows private addresses.
    allowPrivateNetwork: env.LECTERN_ALLOW_PRIVATE_NETWORK || env.LECTERN_OPENAPI_ALLOW_PRIVATE,
    dnsServer: env.LECTERN_DNS_SERVER,
    openapi: {
      timeoutMs: env.LECTERN_OPENAPI_FETCH_TIMEOUT_MS,
      totalTimeoutMs: env.LECTERN_OPENAPI_TOTAL_TIMEOUT_MS,
      maxBytes: env.LECTERN_OPENAPI_MAX_BYTES,
      maxFiles: env.LECTERN_OPENAPI_MAX_FILES,
      maxFilesystemBytes: env.LECTERN_OPENAPI_MAX_FILESYSTEM_BYTES,
      memoryMb: env.LECTERN_OPENAPI_MEMORY_MB,
      processTimeoutMs: env.LECTERN_OPENAPI_PROCESS_TIMEOUT_MS,
    },
    git: {
      timeoutMs: env.LECTERN_GIT_TIMEOUT_MS,
      maxBytes: env.LECTERN_GIT_MAX_BYTES,
      maxFiles: env.LECTERN_GIT_MAX_FILES,
      localRoot: env.LECTERN_GIT_LOCAL_ROOT,
      lockWaitMs: env.LECTERN_GIT_LOCK_WAIT_MS,
      path: env.PATH,
    },
    imports: {
      uploadMaxBytes: env.LECTERN_UPLOAD_MAX_BYTES,
      maxFiles: env.LECTERN_IMPORT_MAX_FILES,
      maxBytes: env.LECTERN_IMPORT_MAX_UNPACKED_BYTES,
      maxFileBytes: env.LECTERN_IMPORT_MAX_FILE_BYTES,
      maxRatio: env.LECTERN_IMPORT_MAX_RATIO,
    },
    readerCacheMb: env.LECTERN_READER_CACHE_MB,
    appDist: env.LECTERN_APP_DIST,
    logFormat: env.LOG_FORMAT,
  };
}

function shape(env: Environment): Config {
  const dbPool = env.LECTERN_DB_POOL ?? defaultDbPoolSize();
  return {
    host: env.HOST,
    port: env.PORT,
    publicUrl: (env.LECTERN_PUBLIC_URL ?? `http://${env.HOST}:${env.PORT}`).replace(/\/+$/, ''),
    databaseUrl: env.DATABASE_URL,
    dataDir: path.resolve(env.LECTERN_DATA_DIR),
    spaceRetentionMs: 7 * 24 * 60 * 60 * 1000,
    auditRetentionDays: env.LECTERN_AUDIT_RETENTION_DAYS,
    rateLimit: { limit: env.LECTERN_RATE_LIMIT, windowSeconds: 60 },
    maxBodyBytes: env.LECTERN_MAX_BODY_BYTES,
    addressLimits: { anonymous: env.LECTERN_ANON_RATE_LIMIT, authFailures: env.LECTERN_AUTH_FAILURE_LIMIT },
    trustProxy: env.LECTERN_TRUST_PROXY,
    corsOrigins: env.LECTERN_CORS_ORIGINS.split(',')
      .map((o) => o.trim().replace(/\/+$/, ''))
      .filter(Boolean),
    graphiql: env.LECTERN_GRAPHIQL,
    introspection: env.LECTERN_INTROSPECTION,
    translator: env.LECTERN_TRANSLATOR_URL
      ? { url: env.LECTERN_TRANSLATOR_URL, apiKey: env.LECTERN_TRANSLATOR_API_KEY, timeoutMs: env.LECTERN_TRANSLATOR_TIMEOUT_MS }
      : null,
    conversationAnalyser:
      env.LECTERN_CONVERSATIONS_ANALYSER === 'openai'
        ? { kind: 'openai', url: env.LECTERN_ANALYSER_URL, model: env.LECTERN_ANALYSER_MODEL, apiKey: env.LECTERN_ANALYSER_API_KEY }
        : { kind: 'builtin' },
    secretKey: env.LECTERN_SECRET_KEY,
    dbPool,
    // A third of the pool by default: one organization's burst never takes every connection, nor most
    // of the event loop (measured: 100 writers of one organization kept another's read median at
    // 1.5× idle with a third, 2.8× with half, and the writers' throughput was the same).
    tenantConcurrency: env.LECTERN_TENANT_CONCURRENCY ?? Math.max(1, Math.floor(dbPool / 3)),
    metrics: { token: env.LECTERN_METRICS_TOKEN, open: env.LECTERN_METRICS === 'open' },
    heapGrowthPercent: env.LECTERN_HEAP_GROWTH_PERCENT,
    sessions: { idleDays: env.LECTERN_SESSION_IDLE_DAYS, maxDays: env.LECTERN_SESSION_MAX_DAYS },
    signInLimits: { perAccount: env.LECTERN_SIGNIN_ACCOUNT_LIMIT, perAddress: env.LECTERN_SIGNIN_ADDRESS_LIMIT },
    oidc: oidc(env),
    ...outboundSettings(env),
  };
}

/** The config of an environment: parsed by settingsSchema; throws a ConfigError naming each bad variable. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return shape(parse(pick(env)));
}

let current: { key: string; config: Config } | undefined;

/**
 * The config of the process's environment, parsed once and kept while the environment's settings
 * stay the same. The environment stays the one source: a test or an embedding process that changes
 * a variable is heeded by the next fetch, import or Git run (the new values are parsed then).
 */
export function settings(): Config {
  const input = pick(process.env);
  const key = JSON.stringify(input);
  if (current?.key !== key) current = { key, config: shape(parse(input)) };
  return current.config;
}
