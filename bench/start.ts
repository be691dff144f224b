/**
 * `tsx bench/start.ts`: how long `lectern --help` and a server start take from the compiled build
 * (dist/, what `npm start` and the `lectern` command run) and from the sources through tsx (what
 * they ran before the build existed), side by side and interleaved so a busy machine slows both
 * alike. The server start is warm: the embedded database's folder exists and nothing is left to
 * migrate (the first, cold start is made before measuring and not counted). Run `npm run build:server` first.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const ROUNDS = Number(process.argv[2] ?? 5);
const MODES = {
  compiled: [path.join(root, 'dist/cli.js')],
  'tsx (sources)': ['--import', 'tsx', path.join(root, 'src/cli.ts')],
} as const;
type Mode = keyof typeof MODES;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function timed(mode: Mode, args: string[], env: NodeJS.ProcessEnv, until?: (child: ChildProcess) => Promise<void>) {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [...MODES[mode], ...args], { cwd: root, env: { ...process.env, ...env }, stdio: 'ignore' });
  const done = until ? until(child) : new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return done.then(() => Number(process.hrtime.bigint() - started) / 1e6);
}

async function answering(port: number, child: ChildProcess) {
  for (;;) {
    if (child.exitCode !== null) throw new Error('the server exited before answering');
    const ok = await fetch(`http://127.0.0.1:${port}/v1/`).then(
      () => true,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function serveOnce(mode: Mode, dataDir: string) {
  const port = await freePort();
  let child!: ChildProcess;
  const ms = await timed(mode, ['serve'], { PORT: String(port), LECTERN_DATA_DIR: dataDir, NODE_ENV: 'production' }, (c) => {
    child = c;
    return answering(port, c);
  });
  await new Promise<void>((resolve) => {
    child.on('exit', () => resolve());
    child.kill('SIGINT');
  });
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  if (!existsSync(path.join(root, 'dist/cli.js'))) throw new Error('no dist/: run `npm run build:server` first');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'lectern-start-bench-'));
  const results: Record<string, number[]> = {};
  const add = (key: string, ms: number) => (results[key] ??= []).push(ms);
  try {
    await serveOnce('compiled', dataDir); // creates the database and migrates: not counted
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of Object.keys(MODES) as Mode[]) {
        add(`${mode}: lectern --help`, await timed(mode, ['--help'], {}));
        add(`${mode}: serve until /v1/ answers`, await serveOnce(mode, dataDir));
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`| what | median of ${ROUNDS} (ms) | min | max |\n|---|---:|---:|---:|`);
  for (const [key, xs] of Object.entries(results).sort()) {
    console.log(`| ${key} | ${median(xs).toFixed(0)} | ${Math.min(...xs).toFixed(0)} | ${Math.max(...xs).toFixed(0)} |`);
  }
}

await main();
