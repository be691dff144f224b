/**
 * The top self-time functions of a CPU profile (a .cpuprofile of bench/load.ts's BENCH_PROFILE_ROWS=1,
 * or node --cpu-prof), then self time by package: `npx tsx bench/profile-top.ts FILE [N]`.
 * Percentages are of the busy time (idle left out), so two profiles of different lengths compare.
 */
import fs from 'node:fs';

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}
const [file, count = '30'] = process.argv.slice(2);
const profile = JSON.parse(fs.readFileSync(file!, 'utf8')) as Profile;
const timeOf = new Map<number, number>();
profile.samples.forEach((id, i) => timeOf.set(id, (timeOf.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const self = new Map<string, number>();
let busy = 0;
let idle = 0;
for (const node of profile.nodes) {
  const t = timeOf.get(node.id) ?? 0;
  const f = node.callFrame;
  if (f.functionName === '(idle)') {
    idle += t;
    continue;
  }
  busy += t;
  const where = f.url.replace(/.*node_modules\//, '').replace(/.*\/src\//, 'src/');
  const key = `${f.functionName || '(anonymous)'} ${where}${where ? `:${f.lineNumber + 1}` : ''}`;
  self.set(key, (self.get(key) ?? 0) + t);
}
const pct = (t: number) => `${((100 * t) / busy).toFixed(1).padStart(5)}%`;
console.log(`busy ${(busy / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms`);
for (const [key, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(count))) console.log(pct(t), key);
const packages = new Map<string, number>();
for (const [key, t] of self) {
  const where = key.split(' ')[1] ?? '';
  const name = where.startsWith('src/')
    ? 'lectern (src)'
    : (/^(@[^/]+\/[^/]+|[^/:]+)\//.exec(where)?.[1] ?? (where.startsWith('node:') ? 'node' : key.split(' ')[0]!));
  packages.set(name, (packages.get(name) ?? 0) + t);
}
console.log('--- self time by package');
for (const [name, t] of [...packages].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(pct(t), name);
