import path from 'node:path';

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
  };
}
