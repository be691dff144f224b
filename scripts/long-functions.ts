/**
 * Functions in src/ longer than a number of lines, longest first, found with the TypeScript
 * compiler's syntax tree (so a brace inside a string or a template does not fool the count).
 *
 * Counted: function declarations, function expressions, arrow functions, methods, constructors
 * and accessors. A function's length runs from its first token (after comments) to its last line,
 * both included; a nested function is counted on its own and inside its parent. src/generated/
 * is skipped.
 *
 * Usage: tsx scripts/long-functions.ts [--over N] [--top K] [--root <dir>]
 *   --over N   list functions longer than N lines (default 120)
 *   --top K    print only the K longest
 * Exits 1 when any function is longer than N.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

export interface LongFunction {
  file: string; // relative to the root, with '/'
  line: number; // 1-based line of the function's first token
  name: string;
  lines: number;
}

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts'];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'generated' && entry.name !== 'node_modules') out.push(...sourceFiles(full));
    } else if (SOURCE_EXTENSIONS.some((ext) => entry.name.endsWith(ext)) && !entry.name.endsWith('.d.ts')) {
      out.push(full);
    }
  }
  return out;
}

type FunctionNode = ts.FunctionLikeDeclaration;

function isCountedFunction(node: ts.Node): node is FunctionNode {
  return (
    (ts.isFunctionDeclaration(node) ||
      ts.isFunctionExpression(node) ||
      ts.isArrowFunction(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isSetAccessorDeclaration(node)) &&
    node.body !== undefined
  );
}

function nameText(name: ts.Node | undefined, source: ts.SourceFile): string | undefined {
  if (!name) return undefined;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) {
    return name.text;
  }
  return name.getText(source);
}

/** A readable name: the declared one, else what the function is assigned to or passed as. */
function functionName(node: FunctionNode, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const own = nameText(node.name, source);
  if (own) return own;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return nameText(parent.name, source) ?? '(anonymous)';
  }
  if (ts.isCallExpression(parent)) {
    const callee = parent.expression.getText(source);
    return `(callback of ${callee.length > 40 ? `${callee.slice(0, 40)}…` : callee})`;
  }
  return '(anonymous)';
}

export function functionsOf(text: string, file: string): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (isCountedFunction(node)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file, line: first + 1, name: functionName(node, source), lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every function under root/src longer than `over` lines, longest first. */
export function longFunctions(root: string, over: number): LongFunction[] {
  const all: LongFunction[] = [];
  for (const full of sourceFiles(path.join(root, 'src'))) {
    const rel = path.relative(root, full).split(path.sep).join('/');
    all.push(...functionsOf(fs.readFileSync(full, 'utf8'), rel));
  }
  return all.filter((f) => f.lines > over).sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
}

function main(argv: string[]): number {
  const arg = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const here = path.dirname(fileURLToPath(import.meta.url));
  const root = path.resolve(arg('--root') ?? path.join(here, '..'));
  const over = Number(arg('--over') ?? 120);
  const top = arg('--top') === undefined ? Number.POSITIVE_INFINITY : Number(arg('--top'));
  const found = longFunctions(root, over);
  for (const f of found.slice(0, top)) console.log(`${String(f.lines).padStart(5)}  ${f.file}:${f.line}  ${f.name}`);
  console.log(`${found.length} function(s) longer than ${over} lines`);
  return found.length > 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
