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
  };
}
