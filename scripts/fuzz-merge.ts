/**
 * `npm run fuzz:merge`: the model-based merge test (test/change-requests/merge-model.test.ts) over
 * many cases: MERGE_FUZZ_RUNS cases in all (default 5,000), split over MERGE_FUZZ_JOBS processes
 * (default 3), each with its own seed from MERGE_FUZZ_SEED (default: the time), on one database
 * server (DATABASE_URL, or an embedded one per process). Prints each job's seed and result; a
 * failing job prints fast-check's counterexample and the seed to replay it with. Each job writes
 * the number of cases it has run to $TMPDIR/lectern-fuzz-merge-<seed>.progress as it goes.
 */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';

const runs = Number(process.env.MERGE_FUZZ_RUNS ?? 5000);
const jobs = Math.max(1, Number(process.env.MERGE_FUZZ_JOBS ?? 3));
const seed = Number(process.env.MERGE_FUZZ_SEED ?? Date.now() % 1_000_000_000);

function job(index: number): Promise<{ seed: number; runs: number; ok: boolean; seconds: number }> {
  const share = Math.floor(runs / jobs) + (index < runs % jobs ? 1 : 0);
  const jobSeed = seed + index;
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('npx', ['vitest', 'run', 'test/change-requests/merge-model.test.ts'], {
      env: {
        ...process.env,
        MERGE_FUZZ_RUNS: String(share),
        MERGE_FUZZ_SEED: String(jobSeed),
        MERGE_FUZZ_PROGRESS: `${tmpdir()}/lectern-fuzz-merge-${jobSeed}.progress`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => {
      const seconds = Math.round((Date.now() - started) / 1000);
      if (code !== 0) process.stdout.write(`job ${index} (seed ${jobSeed}) failed:\n${output}\n`);
      resolve({ seed: jobSeed, runs: share, ok: code === 0, seconds });
    });
  });
}

const results = await Promise.all(Array.from({ length: jobs }, (_, i) => job(i)));
for (const r of results) console.log(`seed ${r.seed}: ${r.runs} cases ${r.ok ? 'clean' : 'FAILED'} in ${r.seconds} s`);
const clean = results.filter((r) => r.ok).reduce((n, r) => n + r.runs, 0);
console.log(`${clean} of ${runs} cases clean`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
