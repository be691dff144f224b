/**
 * `npm run build:server`: compiles src/ into dist/ (git-ignored), one JavaScript file per TypeScript
 * file, so `npm start` and the `lectern` command run plain JavaScript instead of loading tsx and an
 * esbuild service beside every server and CLI call. Tests and development keep running the sources
 * through tsx/vitest.
 *
 * dist/ sits at the same depth as src/, so the paths the code resolves from its own location
 * (`../../package.json`, `../../prisma/migrations`, `../../../web/dist`) point at the same files.
 * Each file is transpiled on its own (no bundle: the code reads files next to itself), then two
 * things TypeScript tolerates and Node's ESM loader does not are mended in the output:
 * - extensionless relative imports (Prisma's generated client writes `from './enums'`);
 * - worker task modules named by their source name (`new URL('./tasks.ts', import.meta.url)`).
 * dist/.built records when the build finished; bin/lectern.js runs dist/ only while no source is
 * newer than it.
 */
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const SRC = path.join(root, 'src');
const DIST = path.join(root, 'dist');

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

/** `./enums` → `./enums.js` (or `./models/index.js`) when that is what the source tree holds. */
export function withExtension(specifier: string, fromSourceFile: string): string {
  if (/\.(m?js|json|cjs)$/.test(specifier)) return specifier;
  const target = path.resolve(path.dirname(fromSourceFile), specifier);
  if (existsSync(`${target}.ts`)) return `${specifier}.js`;
  if (existsSync(path.join(target, 'index.ts'))) return `${specifier}/index.js`;
  if (specifier.endsWith('.ts') && existsSync(target)) return `${specifier.slice(0, -3)}.js`;
  return specifier;
}

const RELATIVE_IMPORT = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}\/[^"']+)\2/g;
const TASK_URL = /new URL\((["'])(\.{1,2}\/[^"']+)\.ts\1,\s*import\.meta\.url\)/g;

export function mendOutput(code: string, sourceFile: string): string {
  return code
    .replace(RELATIVE_IMPORT, (_m, lead: string, q: string, spec: string) => `${lead}${q}${withExtension(spec, sourceFile)}${q}`)
    .replace(TASK_URL, (_m, q: string, spec: string) => `new URL(${q}${spec}.js${q}, import.meta.url)`);
}

/** The Node the package supports (engines): an older target would drop `with { type: 'json' }`. */
export const TRANSPILE = { format: 'esm', platform: 'node', target: 'node20.19' } as const;

async function compile(file: string) {
  const relative = path.relative(SRC, file);
  const out = path.join(DIST, relative.replace(/\.ts$/, '.js'));
  await fs.mkdir(path.dirname(out), { recursive: true });
  if (!file.endsWith('.ts') || file.endsWith('.d.ts')) {
    if (!file.endsWith('.d.ts')) await fs.copyFile(file, out);
    return;
  }
  const result = await build({
    ...TRANSPILE,
    entryPoints: [file],
    write: false,
    bundle: false,
    // No source maps: Node would read them at every module load; the output keeps the sources'
    // names and order, so a stack trace is read against dist/ as it is.
    sourcemap: false,
    logLevel: 'error',
  });
  await fs.writeFile(out, mendOutput(result.outputFiles[0]!.text, file));
}

async function main() {
  const started = Date.now();
  await fs.rm(DIST, { recursive: true, force: true });
  const files = await filesUnder(SRC);
  // A few at a time: each call is a round trip to esbuild's one service process.
  for (let i = 0; i < files.length; i += 32) await Promise.all(files.slice(i, i + 32).map(compile));
  await fs.writeFile(path.join(DIST, '.built'), new Date().toISOString());
  console.log(`dist/: ${files.length} files from src/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) await main();
