import path from 'node:path';
import type { AnalyserConfig } from './modules/conversations/analyser.js';
import type { TranslatorConfig } from './modules/translations/translator.js';

/** Settings read from the environment, once. */
export interface Config {
  host: string;
  port: number;
  publicUrl: string;
  databaseUrl?: string;
  dataDir: string;
  /** How long a deleted space can be restored. */
  spaceRetentionMs: number;
  /** Requests per token per window (LECTERN_RATE_LIMIT per minute; 0 turns limiting off). */
  rateLimit: { limit: number; windowSeconds: number };
  /** Largest request body accepted (LECTERN_MAX_BODY_BYTES); larger ones get 413. */
  maxBodyBytes: number;
  /** GraphiQL in browsers (LECTERN_GRAPHIQL=0 turns it off, e.g. in production). */
  graphiql: boolean;
  /** GraphQL introspection (LECTERN_INTROSPECTION=0 turns it off). */
  introspection: boolean;
  /** The translator of translation runs (LECTERN_TRANSLATOR_URL…); null when none is configured. */
  translator: TranslatorConfig | null;
  /** The conversation analyser (LECTERN_CONVERSATIONS_ANALYSER: builtin, the default, or openai). */
  conversationAnalyser: AnalyserConfig;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const port = Number(env.PORT || 8080);
  return {
    host,
    port,
    publicUrl: (env.LECTERN_PUBLIC_URL || `http://${host}:${port}`).replace(/\/+$/, ''),
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: path.resolve(env.LECTERN_DATA_DIR || 'data'),
    spaceRetentionMs: 7 * 24 * 60 * 60 * 1000,
    rateLimit: { limit: Number(env.LECTERN_RATE_LIMIT ?? 1200), windowSeconds: 60 },
    // The write path takes up to 50 files of 1 MB (base64) in one batch.
    maxBodyBytes: Number(env.LECTERN_MAX_BODY_BYTES ?? 80 * 1024 * 1024),
    graphiql: env.LECTERN_GRAPHIQL !== '0',
    introspection: env.LECTERN_INTROSPECTION !== '0',
    translator: env.LECTERN_TRANSLATOR_URL
      ? { url: env.LECTERN_TRANSLATOR_URL, apiKey: env.LECTERN_TRANSLATOR_API_KEY || undefined, timeoutMs: Number(env.LECTERN_TRANSLATOR_TIMEOUT_MS || 60_000) }
      : null,
    conversationAnalyser:
      env.LECTERN_CONVERSATIONS_ANALYSER === 'openai'
        ? { kind: 'openai', url: env.LECTERN_ANALYSER_URL || 'https://api.openai.com/v1', model: env.LECTERN_ANALYSER_MODEL || 'gpt-4o-mini', apiKey: env.LECTERN_ANALYSER_API_KEY || undefined }
        : { kind: 'builtin' },
  };
}
