import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { inject } from 'vitest';
import type { Harness } from './harness.js';

/**
 * `lectern serve` as a real child process, for the tests that need one (several processes on one
 * database, the CLI, signals). It is ready when it logs its "listening on URL" line, which it writes
 * only once the database answered and the port is bound. There is no start-up deadline of its own:
 * on a busy machine a start takes what it takes, and the calling hook's or test's timeout (set
 * generously there) bounds it; an exit before that line fails at once with the output so far.
 */
export const BIN = path.resolve(import.meta.dirname, '../../bin/lectern.js');
export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ChildServer {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote so far, stdout and stderr interleaved. */
  output(): string;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  exited: Promise<number | string>;
}

/** The environment without DATABASE_URL (for a server on its own embedded database). */
export function envWithoutDatabase(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  return env;
}

/** A URL for the harness's database that another process can use (a socket directory goes in `host`). */
export async function databaseUrl(h: Harness): Promise<string> {
  const server = inject('dbServer');
  const database = (await h.db.pool.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db;
  if (server.host!.startsWith('/')) return `postgres://postgres@localhost:${server.port}/${database}?host=${server.host}`;
  const user = encodeURIComponent(server.user ?? 'postgres');
  const password = server.password ? `:${encodeURIComponent(String(server.password))}` : '';
  return `postgres://${user}${password}@${server.host}:${server.port}/${database}`;
}

/**
 * A loopback port free right now, for a child whose public URL (the default `http://HOST:PORT`) must
 * name its real port: with PORT=0 the links it builds would say port 0.
 */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export async function startChildServer(env: NodeJS.ProcessEnv, opts: Pick<SpawnOptions, 'detached'> = {}): Promise<ChildServer> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: ROOT,
    env: { PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.detached,
  });
  let output = '';
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.stderr!.on('data', (chunk) => (output += chunk));
    void exited.then((code) => reject(new Error(`lectern serve exited (${code}) before listening:\n${output}`)));
  });
  return { url, child, output: () => output, exited };
}

/** SIGTERM, then the exit code once the process is gone. */
export async function stopChildServer(server: ChildServer | undefined): Promise<number | string | undefined> {
  if (!server) return undefined;
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
  return server.exited;
}
