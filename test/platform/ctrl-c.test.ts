import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { envWithoutDatabase, startChildServer, type ChildServer } from '../support/child-server.js';

/**
 * Ctrl-C in a terminal: the terminal sends SIGINT to its foreground process group. `lectern serve`
 * runs here as the leader of a group of its own, as a shell would start it, on a fresh embedded
 * PostgreSQL; the signal goes to the whole group. PostgreSQL is in a group of its own, so Lectern
 * alone gets it and stops everything in order: it exits 0, no PostgreSQL process is left, and the
 * log says nothing of a lost connection or of PostgreSQL exiting unexpectedly. SIGTERM (a service
 * manager's stop, sent to the process) ends the same way.
 */
const tempDirs: string[] = [];
afterAll(() => tempDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** Every process on the machine: its id, its parent's and its process group's. */
function processes(): { pid: number; ppid: number; pgid: number }[] {
  const lines = execFileSync('ps', ['-eo', 'pid=,ppid=,pgid='], { encoding: 'utf8' }).trim().split('\n');
  return lines.map((l) => {
    const [pid, ppid, pgid] = l.trim().split(/\s+/).map(Number) as [number, number, number];
    return { pid, ppid, pgid };
  });
}

const NOISE = /database connection lost|exited unexpectedly|restarting it|restarted/i;

describe('stopping lectern serve on the embedded PostgreSQL', () => {
  let server: ChildServer | undefined;
  afterAll(() => {
    // Only when an assertion failed midway: leave nothing running.
    if (server && server.child.exitCode === null) process.kill(-server.child.pid!, 'SIGKILL');
  });

  it.each([
    ['SIGINT to the process group (Ctrl-C in a terminal)', 'SIGINT', true],
    ['SIGTERM to the process', 'SIGTERM', false],
  ] as const)(
    '%s: exits 0, stops PostgreSQL, logs no lost connection',
    async (_name, signal, toGroup) => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lc-'));
      fs.chmodSync(dataDir, 0o755);
      tempDirs.push(dataDir);
      server = await startChildServer({ ...envWithoutDatabase(), LECTERN_DATA_DIR: dataDir }, { detached: true });
      const lectern = server.child.pid!;

      // Connections in the pool and a LISTEN connection, as a server that has served has.
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      const postmaster = Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
      const before = processes();
      expect(before.find((p) => p.pid === lectern)?.pgid).toBe(lectern);
      // PostgreSQL leads a group of its own, not Lectern's (its own children make their own, too).
      expect(before.find((p) => p.pid === postmaster)?.pgid).toBe(postmaster);
      const postgres = before.filter((p) => p.pid === postmaster || p.ppid === postmaster).map((p) => p.pid);
      expect(postgres.length).toBeGreaterThan(1);

      if (toGroup) process.kill(-lectern, signal);
      else process.kill(lectern, signal);
      expect(await server.exited).toBe(0);

      const left = processes().filter((p) => postgres.includes(p.pid) || p.pgid === lectern);
      expect(left).toEqual([]);
      expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
      const log = server.output();
      expect(log).toContain(`${signal}: finishing in-flight requests, then stopping`);
      expect(log.split('\n').filter((line) => NOISE.test(line))).toEqual([]);
    },
    300_000,
  );
});
