/**
 * The import graph of src/, measured from the import statements (parsed with the TypeScript
 * compiler, not matched with regexes), and the ratchet that keeps the house in shape:
 *
 *   (a) imports from a MECHANISM into src/modules/ — any file under src/ that is not under
 *       src/modules/ is a mechanism, except the entry points src/server.ts, src/app.ts, src/cli.ts,
 *       which sit on top of everything and may wire modules in. Files directly in src/modules/
 *       (not in a module folder, e.g. the registry src/modules/index.ts) also sit on top: they are
 *       where the module lists live, so they may import every module; a mechanism importing them
 *       counts as an upward import like any other.
 *   (b) pairs of module folders (src/modules/<a>/ ↔ src/modules/<b>/) importing each other directly.
 *   (c) module folders standing on a circle of any length (strongly connected components of the
 *       folder graph); a pair from (b) is the shortest such circle.
 *   (d) imports of another module's internals: a module folder, or an entry point, importing a file
 *       of a module folder other than its face, src/modules/<m>/index.ts (counted whether or not
 *       the module has an index.ts yet). The registry is exempt: it wires each module's routes,
 *       Pothos type files and jobs, which are not part of any face.
 *
 * What counts as an import: `import … from`, `import '…'`, `import type …` (a type-only import still
 * couples the importer to the other folder's shape, so it counts), `export … from`, `import('…')`
 * with a literal argument, `import('…').T` in a type, `import x = require('…')`, a module
 * augmentation `declare module '…'`, and
 * `new URL('./file.ts', import.meta.url)` pointing at a source file (how worker-thread tasks are
 * loaded — a real dependency the import statements do not show). Only relative specifiers are
 * followed; packages and `node:` builtins are outside the graph. src/generated/ is ignored.
 * An "import" is one distinct (importing file → imported file) edge: two statements of the same
 * file naming the same target (say `import type` and `import`) are one edge.
 *
 * Usage: tsx scripts/import-graph.ts [--check | --update] [--root <dir>] [--baseline <file>]
 *   (no flag)  print the report
 *   --check    exit 1 if a ratcheted number grew above the baseline (printing the new edges);
 *              if one shrank, pass and ask for the baseline to be lowered
 *   --update   rewrite the baseline with today's numbers
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

export type Layer = 'entry' | 'registry' | 'module' | 'mechanism';

export interface Edge {
  from: string; // path relative to the root (e.g. src/rest/routes.ts), always with '/'
  to: string;
}

export interface Report {
  files: number;
  edges: Edge[];
  mechanismIntoModules: Edge[];
  entryIntoModules: Edge[]; // allowed, listed so the figure can be compared with a count that includes them
  mutualModulePairs: [string, string][];
  moduleCircles: string[][]; // strongly connected components of size ≥ 2, each sorted
  modulesInCircles: number;
  internalReaches: Edge[]; // (d)
  unresolved: Edge[]; // relative specifiers that name no file (printed so a move cannot hide edges)
}

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs'];
const ENTRY_POINTS = new Set(['src/server.ts', 'src/app.ts', 'src/cli.ts']);
const IGNORED = 'src/generated/';

const toPosix = (p: string) => p.split(path.sep).join('/');

/** A module's face: src/modules/<m>/index.ts (or .js, …), what other modules may import. */
const isFace = (rel: string) => /^src\/modules\/[^/]+\/index\.[cm]?[jt]sx?$/.test(rel);

function listSources(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) listSources(full, out);
    else if (SOURCE_EXTENSIONS.some((ext) => entry.name.endsWith(ext))) out.push(full);
  }
  return out;
}

/** The layer of a path relative to the root, and the module folder when it is in one. */
export function classify(rel: string): { layer: Layer; module?: string } {
  if (ENTRY_POINTS.has(rel)) return { layer: 'entry' };
  const m = /^src\/modules\/([^/]+)(\/.*)?$/.exec(rel);
  if (m) return m[2] ? { layer: 'module', module: m[1] } : { layer: 'registry' };
  return { layer: 'mechanism' };
}

const isFile = (p: string) => {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
};

/**
 * A relative specifier to a file, the way the bundler resolution of tsconfig.json does it: a `.js`
 * written for a `.ts` file, an extensionless path, a folder with an index file. Unresolvable ones
 * come back as the literal path so a file in the middle of a move still counts by its folder.
 */
function resolve(fromFile: string, spec: string): { file: string; resolved: boolean } {
  const base = path.resolve(path.dirname(fromFile), spec);
  const candidates = [base];
  const ext = path.extname(base);
  const swap: Record<string, string[]> = { '.js': ['.ts', '.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'], '.jsx': ['.tsx'] };
  for (const alt of swap[ext] ?? []) candidates.push(base.slice(0, -ext.length) + alt);
  for (const e of SOURCE_EXTENSIONS) candidates.push(base + e);
  for (const e of SOURCE_EXTENSIONS) candidates.push(path.join(base, `index${e}`));
  const hit = candidates.find(isFile);
  return hit ? { file: hit, resolved: true } : { file: base, resolved: false };
}

/** Every specifier a file names, in the forms listed at the top. */
export function specifiersOf(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const specs: string[] = [];
  const literal = (node: ts.Node | undefined) => {
    if (node && ts.isStringLiteralLike(node)) specs.push(node.text);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) literal(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      literal(node.moduleReference.expression);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) literal(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) literal(node.argument.literal);
    // `declare module '../context.js' { … }` augments another file: as much coupling as an import.
    else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) literal(node.name);
    else if (
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'URL' &&
      node.arguments?.length === 2 &&
      ts.isStringLiteralLike(node.arguments[0]!) &&
      node.arguments[1]!.getText(source) === 'import.meta.url' &&
      node.arguments[0].text.startsWith('.')
    ) {
      // Only a URL naming a source file is a dependency (not, say, a data file next to the code).
      const spec = node.arguments[0].text;
      if (SOURCE_EXTENSIONS.some((ext) => spec.endsWith(ext))) specs.push(spec);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specs;
}

/** Tarjan's strongly connected components over the module folder graph. */
function circles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const strong = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) strong(v);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The graph of `<root>/src`. */
export function analyse(root: string): Report {
  const srcDir = path.join(root, 'src');
  const rel = (p: string) => toPosix(path.relative(root, p));
  const files = listSources(srcDir).filter((f) => !rel(f).startsWith(IGNORED));
  const seen = new Set<string>();
  const edges: Edge[] = [];
  const unresolved: Edge[] = [];
  for (const file of files) {
    for (const spec of specifiersOf(file, fs.readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(file, spec);
      const edge = { from: rel(file), to: rel(target.file) };
      if (edge.from === edge.to || edge.to.startsWith('..') || edge.to.startsWith(IGNORED)) continue;
      const key = `${edge.from} → ${edge.to}`;
      if (seen.has(key)) continue;
      seen.add(key);
      edges.push(edge);
      if (!target.resolved) unresolved.push(edge);
    }
  }
  edges.sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));

  const mechanismIntoModules: Edge[] = [];
  const entryIntoModules: Edge[] = [];
  const internalReaches: Edge[] = [];
  const folderGraph = new Map<string, Set<string>>();
  for (const edge of edges) {
    const from = classify(edge.from);
    const to = classify(edge.to);
    const upward = to.layer === 'module' || to.layer === 'registry';
    if (from.layer === 'mechanism' && upward) mechanismIntoModules.push(edge);
    if (from.layer === 'entry' && upward) entryIntoModules.push(edge);
    if (from.layer === 'module' && to.layer === 'module' && from.module !== to.module) {
      if (!folderGraph.has(from.module!)) folderGraph.set(from.module!, new Set());
      folderGraph.get(from.module!)!.add(to.module!);
    }
    const crossing = (from.layer === 'module' && from.module !== to.module) || from.layer === 'entry';
    if (crossing && to.layer === 'module' && !isFace(edge.to)) internalReaches.push(edge);
  }
  const mutualModulePairs: [string, string][] = [];
  for (const [a, targets] of folderGraph) for (const b of targets) if (a < b && folderGraph.get(b)?.has(a)) mutualModulePairs.push([a, b]);
  mutualModulePairs.sort((x, y) => x.join().localeCompare(y.join()));
  const moduleCircles = circles(folderGraph);

  return {
    files: files.length,
    edges,
    mechanismIntoModules,
    entryIntoModules,
    mutualModulePairs,
    moduleCircles,
    modulesInCircles: moduleCircles.reduce((n, c) => n + c.length, 0),
    internalReaches,
    unresolved,
  };
}

// ---- baseline (the ratchet) -------------------------------------------------------------------

export interface Baseline {
  mechanismIntoModules: number;
  mutualModulePairs: number;
  modulesInCircles: number;
  internalReaches: number;
  // The lists behind the numbers, so a failing check can name what is new.
  edges: string[];
  pairs: string[];
  circles: string[];
  internals: string[];
}

const edgeKey = (e: Edge) => `${e.from} → ${e.to}`;
const RATCHETED = ['mechanismIntoModules', 'mutualModulePairs', 'modulesInCircles', 'internalReaches'] as const;
const LISTS = { edges: 'edge', pairs: 'pair', circles: 'circle', internals: 'internal import' } as const;

export function toBaseline(r: Report): Baseline {
  return {
    mechanismIntoModules: r.mechanismIntoModules.length,
    mutualModulePairs: r.mutualModulePairs.length,
    modulesInCircles: r.modulesInCircles,
    internalReaches: r.internalReaches.length,
    edges: r.mechanismIntoModules.map(edgeKey),
    pairs: r.mutualModulePairs.map((p) => p.join(' ↔ ')),
    circles: r.moduleCircles.map((c) => c.join(' → ')),
    internals: r.internalReaches.map(edgeKey),
  };
}

/** Grown numbers fail; shrunk ones pass with a request to lower the baseline. */
export function compare(current: Baseline, baseline: Baseline): { ok: boolean; lines: string[] } {
  const lines: string[] = [];
  let ok = true;
  for (const key of RATCHETED) {
    const now = current[key];
    // A baseline written before a number was ratcheted holds none of it.
    const then = baseline[key] ?? 0;
    if (now > then) {
      ok = false;
      lines.push(`FAIL ${key}: ${now}, above the baseline ${then}`);
    } else if (now < then) {
      lines.push(`${key}: ${now}, below the baseline ${then}: lower the baseline (npm run import-graph -- --update) and commit it`);
    } else lines.push(`ok ${key}: ${now} (baseline ${then})`);
  }
  // Named even when the count held (one edge gone, another come): a moved file shows up here too.
  for (const [list, name] of Object.entries(LISTS) as [keyof typeof LISTS, string][])
    for (const item of current[list].filter((x) => !(baseline[list] ?? []).includes(x))) lines.push(`  new ${name}: ${item}`);
  return { ok, lines };
}

// ---- printing and the command line -----------------------------------------------------------

const folderOf = (p: string) => {
  const c = classify(p);
  if (c.layer === 'module') return `modules/${c.module}`;
  const parts = p.replace(/^src\//, '').split('/');
  return parts.length > 1 ? `${parts[0]!}/` : parts[0]!;
};

export function format(r: Report): string {
  const out: string[] = [];
  out.push(`import graph of src/: ${r.files} files, ${r.edges.length} internal import edges`);
  out.push('');
  out.push(`(a) imports from a mechanism into src/modules/: ${r.mechanismIntoModules.length}`);
  const byFolder = new Map<string, Edge[]>();
  for (const e of r.mechanismIntoModules) byFolder.set(folderOf(e.from), [...(byFolder.get(folderOf(e.from)) ?? []), e]);
  for (const [folder, list] of [...byFolder].sort((x, y) => y[1].length - x[1].length || x[0].localeCompare(y[0]))) {
    const targets = [...new Set(list.map((e) => folderOf(e.to).replace(/^modules\//, '')))];
    out.push(`  ${String(list.length).padStart(3)} from ${folder} into ${targets.length} module(s): ${targets.join(', ')}`);
    for (const e of list) out.push(`        ${edgeKey(e)}`);
  }
  out.push('');
  out.push(`(b) module folder pairs importing each other: ${r.mutualModulePairs.length}`);
  for (const [a, b] of r.mutualModulePairs) {
    const between = (x: string, y: string) =>
      r.edges.filter((e) => classify(e.from).module === x && classify(e.to).module === y).map(edgeKey);
    out.push(`    ${a} ↔ ${b}`);
    for (const e of [...between(a, b), ...between(b, a)]) out.push(`        ${e}`);
  }
  out.push('');
  out.push(`(c) module folders on a circle: ${r.modulesInCircles}`);
  for (const c of r.moduleCircles) {
    out.push(`    ${c.join(', ')}`);
    // The folder edges inside the circle: removing enough of them is what breaks it.
    const inside = new Set<string>();
    for (const e of r.edges) {
      const [a, b] = [classify(e.from).module, classify(e.to).module];
      if (a && b && a !== b && c.includes(a) && c.includes(b)) inside.add(`${a} → ${b}`);
    }
    out.push(`        ${[...inside].sort().join('; ')}`);
  }
  out.push('');
  out.push(`(d) imports of another module's internals (not its index.ts) from a module or an entry point: ${r.internalReaches.length}`);
  for (const e of r.internalReaches) out.push(`    ${edgeKey(e)}`);
  out.push('');
  out.push(`(info, not ratcheted) imports from the entry points (allowed): ${r.entryIntoModules.length}`);
  for (const e of r.entryIntoModules) out.push(`    ${edgeKey(e)}`);
  if (r.unresolved.length) {
    out.push('');
    out.push(`warning: ${r.unresolved.length} relative imports name no file (counted by their path):`);
    for (const e of r.unresolved) out.push(`    ${edgeKey(e)}`);
  }
  return out.join('\n');
}

function main(argv: string[]): number {
  const arg = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const here = path.dirname(fileURLToPath(import.meta.url));
  const root = path.resolve(arg('--root') ?? path.join(here, '..'));
  // The baseline stays beside the script even for another --root (say, an exported commit's tree).
  const baselineFile = path.resolve(arg('--baseline') ?? path.join(here, 'import-graph.baseline.json'));
  const report = analyse(root);
  console.log(format(report));
  const current = toBaseline(report);
  if (argv.includes('--update')) {
    fs.writeFileSync(baselineFile, `${JSON.stringify(current, null, 2)}\n`);
    console.log(`\nbaseline written: ${path.relative(process.cwd(), baselineFile)}`);
    return 0;
  }
  if (argv.includes('--check')) {
    if (!fs.existsSync(baselineFile)) {
      console.log(`\nFAIL no baseline at ${baselineFile} (write one with --update)`);
      return 1;
    }
    const result = compare(current, JSON.parse(fs.readFileSync(baselineFile, 'utf8')) as Baseline);
    console.log('\ncheck against the baseline:');
    for (const line of result.lines) console.log(line);
    return result.ok ? 0 : 1;
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
