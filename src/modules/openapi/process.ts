import YAML from 'yaml';
import { FetchFailure, fetchFile, openAPIFetchSettings, type OpenAPIFetchSettings } from './fetch.js';

/**
 * Turning a spec version's source into its `filesystem`: read the entry document (fetched from its
 * URL, or the text given), parse it (JSON or YAML), fetch and parse every external file its
 * `$ref`s name (recursively, with the fetch restrictions of fetch.ts), then validate the whole as
 * Swagger 2.0, OpenAPI 3.0 or OpenAPI 3.1 with @readme/openapi-parser.
 *
 * The `filesystem` (the version content's `filesystem`; the official schema only says "object"):
 * ```
 * { entrypoint: <uri of the entry document>,
 *   specification: 'openapi' | 'swagger', version: '3.1.0' | '2.0' | …, title, apiVersion,
 *   files: { <uri>: { format: 'json' | 'yaml', references: [<uri>…], specification: <the parsed document> } } }
 * ```
 * Documents are kept as written (their `$ref`s unchanged): a `$ref` of a file resolves against
 * that file's uri, and every file it can reach is in `files`.
 */
export type ErrorCode = 'FETCH_TIMEOUT' | 'FETCH_ERROR' | 'PARSE_ERROR';

export interface ProcessError {
  message: string;
  code?: string;
}

/**
 * Processing that ended with a result for the user (not a crash): recorded on the version and the
 * spec. `errorCount` is how many errors were found, before `errors` was cut to MAX_ERRORS.
 */
export class ProcessingFailure extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly errors: ProcessError[],
    readonly errorCount = errors.length,
  ) {
    super(errors.map((e) => e.message).join('\n'));
  }
}

const fail = (code: ErrorCode, message: string, detail?: string): never => {
  throw new ProcessingFailure(code, [{ message, ...(detail ? { code: detail } : {}) }]);
};

export interface FilesystemFile {
  format: 'json' | 'yaml';
  references: string[];
  specification: Record<string, unknown>;
}

export interface Filesystem {
  entrypoint: string;
  specification: 'openapi' | 'swagger';
  version: string;
  title: string | null;
  apiVersion: string | null;
  files: Record<string, FilesystemFile>;
}

export type Source = { url: string; text?: undefined } | { text: string; url?: undefined };

const MAX_ERRORS = 20;
const MAX_MESSAGE = 2000;
const EXTERNAL = 'x-lectern-external';

/**
 * YAML anchors and aliases let a few kilobytes stand for megabytes (each alias repeats what its
 * anchor holds, and anchors can hold aliases: "billion laughs"). What is bounded is the size the
 * document takes once its aliases are written out — what is stored, validated and served — not the
 * number of aliases: a file may expand to `EXPANSION` times its own size (at least `MIN_EXPANDED`
 * bytes), and the files of one spec together to `maxFilesystemBytes`.
 */
const EXPANSION = 8;
const MIN_EXPANDED = 1024 * 1024;

const formatBytes = (n: number) =>
  n >= 1024 * 1024 ? `${(n / 1024 / 1024).toLocaleString('en', { maximumFractionDigits: 1 })} MB` : `${Math.ceil(n / 1024)} KB`;

class TooLarge extends Error {}
class Recursive extends Error {}

/**
 * The length of `value` written as JSON (near enough: escapes are not counted), with aliases
 * (objects the parsed YAML shares between places) counted at every place they appear. Linear in
 * the parsed document, not in its expansion: each shared object is measured once. Throws TooLarge
 * past `limit`, Recursive for an alias inside its own anchor.
 */
function expandedSize(value: unknown, limit: number): number {
  const measured = new Map<object, number>();
  const open = new Set<object>();
  let total = 0;
  const add = (n: number) => {
    total += n;
    if (total > limit) throw new TooLarge();
    return n;
  };
  const walk = (node: unknown): number => {
    if (node === null || node === undefined) return add(4);
    if (typeof node === 'string') return add(node.length + 2);
    if (typeof node !== 'object') return add(String(node).length);
    const known = measured.get(node);
    if (known !== undefined) return add(known);
    if (open.has(node)) throw new Recursive();
    open.add(node);
    const before = total;
    const entries: [string | null, unknown][] = Array.isArray(node) ? node.map((v) => [null, v]) : Object.entries(node);
    add(2 + Math.max(0, entries.length - 1));
    for (const [key, child] of entries) {
      if (key !== null) add(key.length + 3);
      walk(child);
    }
    open.delete(node);
    const size = total - before;
    measured.set(node, size);
    return size;
  };
  walk(value);
  return total;
}

/** Parses one file: JSON when it looks like JSON, YAML otherwise (YAML is a superset of JSON). */
export function parseDocument(
  text: string,
  where: string,
  maxExpandedBytes = Infinity,
): { format: 'json' | 'yaml'; document: Record<string, unknown>; size: number } {
  const trimmed = text.trim();
  if (!trimmed) fail('PARSE_ERROR', `${where} is empty: it should hold an OpenAPI or Swagger description in JSON or YAML`);
  let format: 'json' | 'yaml' = 'yaml';
  let value: unknown;
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    format = 'json';
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      fail('PARSE_ERROR', `${where} is not valid JSON: ${(error as Error).message}`);
    }
  } else {
    const docs = YAML.parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true });
    const list = Array.isArray(docs) ? docs : [docs];
    if (list.length > 1)
      fail(
        'PARSE_ERROR',
        `${where} holds ${list.length} YAML documents: an OpenAPI description is a single document (remove the extra "---")`,
      );
    const doc = list[0];
    const problems = doc?.errors ?? [];
    if (problems.length) {
      throw new ProcessingFailure(
        'PARSE_ERROR',
        problems.slice(0, MAX_ERRORS).map((e) => ({
          message: `${where} is not valid YAML${e.linePos?.[0] ? ` (line ${e.linePos[0].line}, column ${e.linePos[0].col})` : ''}: ${e.message.split('\n')[0]}`,
          code: e.code,
        })),
        problems.length,
      );
    }
    try {
      // Aliases become shared objects here (nothing is copied yet); their expansion is measured below.
      value = doc!.toJS({ maxAliasCount: -1 });
    } catch (error) {
      fail('PARSE_ERROR', `${where} could not be read as YAML: ${(error as Error).message}`);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(
      'PARSE_ERROR',
      `${where} is not an OpenAPI description: its top level should be an object (with "openapi" or "swagger", "info" and "paths")`,
    );
  }
  const written = Buffer.byteLength(text);
  const limit = Math.min(maxExpandedBytes, Math.max(MIN_EXPANDED, EXPANSION * written));
  let size: number;
  try {
    size = expandedSize(value, limit);
  } catch (error) {
    if (error instanceof Recursive)
      fail(
        'PARSE_ERROR',
        `${where} has a YAML alias inside its own anchor (a recursive structure), which JSON cannot hold: use a $ref instead`,
      );
    if (error instanceof TooLarge) {
      fail(
        'PARSE_ERROR',
        limit === maxExpandedBytes && limit < Math.max(MIN_EXPANDED, EXPANSION * written)
          ? `${where} is larger than ${formatBytes(limit)} once its YAML aliases are expanded, more than Lectern keeps for one spec: split it or reduce repetition`
          : `${where} expands to more than ${formatBytes(limit)} (from ${formatBytes(written)} written) once its YAML aliases are expanded: anchors and aliases may repeat parts of a description, not multiply it; share schemas with $ref to components instead`,
      );
    }
    if (error instanceof RangeError) fail('PARSE_ERROR', `${where} is nested too deeply to be read`);
    throw error;
  }
  // What is stored is JSON (YAML can hold values JSON cannot, e.g. .inf: they become null).
  return { format, document: JSON.parse(JSON.stringify(value)) as Record<string, unknown>, size };
}

/** Which description a document is, or a PARSE_ERROR saying what is supported. */
export function describeKind(document: Record<string, unknown>, where: string): { specification: 'openapi' | 'swagger'; version: string } {
  const { openapi, swagger } = document;
  if (swagger !== undefined) {
    if (String(swagger) === '2' || String(swagger) === '2.0') return { specification: 'swagger', version: '2.0' };
    fail(
      'PARSE_ERROR',
      `${where} declares swagger: ${JSON.stringify(swagger)}; only Swagger 2.0 is supported (swagger: "2.0"), or OpenAPI 3.0 and 3.1`,
    );
  }
  if (openapi !== undefined) {
    const version = String(openapi);
    if (/^3\.[01](\.\d+)?(-.+)?$/.test(version)) return { specification: 'openapi', version };
    fail(
      'PARSE_ERROR',
      `${where} declares openapi: ${JSON.stringify(openapi)}; the supported versions are OpenAPI 3.0 and 3.1, and Swagger 2.0`,
    );
  }
  return fail(
    'PARSE_ERROR',
    `${where} is not an OpenAPI or Swagger description: it has neither an "openapi" (3.0, 3.1) nor a "swagger" ("2.0") field at the top level`,
  );
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every `$ref` string of a document, with the JSON pointer where it appears. */
function refsOf(node: unknown, at = '#', out: { ref: string; at: string }[] = []) {
  if (Array.isArray(node)) node.forEach((v, i) => refsOf(v, `${at}/${i}`, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push({ ref: v, at });
      else refsOf(v, `${at}/${escapePointer(k)}`, out);
    }
  }
  return out;
}

const splitRef = (ref: string) => {
  const i = ref.indexOf('#');
  return i < 0 ? { path: ref, hash: '' } : { path: ref.slice(0, i), hash: ref.slice(i) };
};

/** The uri a non-local `$ref` names (without its fragment), or a failure the user can act on. */
function targetOf(ref: string, base: string | null, at: string, where: string): string {
  const { path } = splitRef(ref);
  let target: URL;
  try {
    target = base ? new URL(path, base) : new URL(path);
  } catch {
    return fail(
      'FETCH_ERROR',
      base
        ? `$ref "${ref}" at ${where}${at.slice(1)} is not a valid reference`
        : `$ref "${ref}" at ${where}${at.slice(1)} is relative, and a spec given as text has no location to resolve it against: use absolute http(s) URLs in its $refs, or give the spec by URL`,
    );
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    fail(
      'FETCH_ERROR',
      `$ref "${ref}" at ${where}${at.slice(1)} points to ${target.protocol} files, which Lectern does not read: only http(s) references can be resolved`,
    );
  }
  target.hash = '';
  return target.href;
}

/**
 * Builds a version's filesystem from its source. `entryUri` names the entry document when the
 * source is text (Lectern's URL of that text); for a URL source it is the URL read.
 * Throws `ProcessingFailure` (FETCH_TIMEOUT, FETCH_ERROR, PARSE_ERROR) with messages for the user.
 */
export async function buildFilesystem(
  source: Source,
  entryUri: string,
  settings: OpenAPIFetchSettings = openAPIFetchSettings(),
): Promise<{ filesystem: Filesystem; text: string }> {
  const deadline = Date.now() + settings.totalTimeoutMs;
  const fetchOne = async (url: string) => {
    try {
      return await fetchFile(url, { settings, deadline });
    } catch (error) {
      if (error instanceof FetchFailure) fail(error.code, error.message);
      throw error;
    }
  };

  let entry: { uri: string; text: string; relative: boolean };
  if (source.url !== undefined) {
    const fetched = await fetchOne(source.url);
    entry = { uri: fetched.url, text: fetched.text, relative: true };
  } else {
    entry = { uri: entryUri, text: source.text, relative: false };
  }

  const files = new Map<string, FilesystemFile>();
  // What the spec's files take once parsed, all together (the stored filesystem).
  let stored = 0;
  const budget = () => settings.maxFilesystemBytes - stored;
  const count = (size: number) => {
    stored += size;
    if (stored > settings.maxFilesystemBytes) {
      fail(
        'PARSE_ERROR',
        `the spec's files take more than ${formatBytes(settings.maxFilesystemBytes)} together once parsed, the most Lectern keeps for one spec: bundle fewer files or reduce repetition`,
      );
    }
  };
  const entryParsed = parseDocument(entry.text, source.url !== undefined ? source.url : 'The spec text', budget());
  count(entryParsed.size);
  const kind = describeKind(entryParsed.document, source.url !== undefined ? source.url : 'The spec text');
  const queue: { uri: string; format: 'json' | 'yaml'; document: Record<string, unknown>; base: string | null }[] = [
    { uri: entry.uri, format: entryParsed.format, document: entryParsed.document, base: entry.relative ? entry.uri : null },
  ];
  const seen = new Set([entry.uri]);
  while (queue.length) {
    const file = queue.shift()!;
    const where = file.uri === entry.uri && !entry.relative ? 'the spec text ' : `${file.uri} `;
    const references: string[] = [];
    for (const { ref, at } of refsOf(file.document)) {
      if (ref.startsWith('#')) continue;
      const target = targetOf(ref, file.base, at, where);
      if (!references.includes(target)) references.push(target);
      if (seen.has(target)) continue;
      seen.add(target);
      if (seen.size > settings.maxFiles) {
        fail(
          'FETCH_ERROR',
          `the spec references more than ${settings.maxFiles} files, the most Lectern reads for one spec: bundle some of them together`,
        );
      }
      const fetched = await fetchOne(target);
      const parsed = parseDocument(fetched.text, `${target} (referenced by $ref "${ref}" at ${where}${at.slice(1)})`, budget());
      count(parsed.size);
      queue.push({ uri: target, format: parsed.format, document: parsed.document, base: fetched.url });
    }
    files.set(file.uri, { format: file.format, references, specification: file.document });
  }

  await validateBundle(entry.uri, files);
  const info = (entryParsed.document.info ?? {}) as Record<string, unknown>;
  return {
    text: entry.text,
    filesystem: {
      entrypoint: entry.uri,
      specification: kind.specification,
      version: kind.version,
      title: typeof info.title === 'string' ? info.title : null,
      apiVersion: typeof info.version === 'string' ? info.version : null,
      files: Object.fromEntries(files),
    },
  };
}

/**
 * Validation needs one self-contained document: the external files go under the entry document's
 * `x-lectern-external` (extensions are allowed at the top level in every version) and every `$ref`
 * is rewritten to point there. The stored filesystem keeps the documents as written.
 */
async function validateBundle(entryUri: string, files: Map<string, FilesystemFile>) {
  const keys = new Map<string, string>();
  let n = 0;
  for (const uri of files.keys()) if (uri !== entryUri) keys.set(uri, `f${++n}`);
  const base = (uri: string) => (uri === entryUri ? '#' : `#/${EXTERNAL}/${keys.get(uri)}`);
  const rewrite = (node: unknown, uri: string, fileBase: string): unknown => {
    if (Array.isArray(node)) return node.map((v) => rewrite(v, uri, fileBase));
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') {
        const { path, hash } = splitRef(v);
        const target = path ? new URL(path, fileBase) : null;
        if (target) target.hash = '';
        const pointer = hash.startsWith('#/') ? hash.slice(1) : '';
        out[k] = `${base(target ? target.href : uri)}${pointer}`;
      } else out[k] = rewrite(v, uri, fileBase);
    }
    return out;
  };
  // (Relative `$ref`s of a spec given as text were refused before: every file has an absolute uri.)
  const bundled = rewrite(files.get(entryUri)!.specification, entryUri, entryUri) as Record<string, unknown>;
  if (keys.size) {
    bundled[EXTERNAL] = Object.fromEntries([...keys].map(([uri, key]) => [key, rewrite(files.get(uri)!.specification, uri, uri)]));
  }
  const legend = (message: string) =>
    message.replace(new RegExp(`${EXTERNAL}/(f\\d+)`, 'g'), (_m, key: string) => `[${[...keys].find(([, k]) => k === key)?.[0] ?? key}]`);

  let result: Awaited<ReturnType<typeof import('@readme/openapi-parser').validate>>;
  try {
    // Loaded on first use: the parser and its validators are ~24 MB of a server's memory (measured).
    const { validate } = await import('@readme/openapi-parser');
    result = await validate(bundled as never, { resolve: { external: false }, validate: { errors: { colorize: false } } });
  } catch (error) {
    return fail('PARSE_ERROR', `The spec could not be validated: ${legend((error as Error).message)}`);
  }
  if (!result.valid) {
    const errors = result.errors
      .slice(0, MAX_ERRORS)
      .map((e) => ({ message: legend(e.message).slice(0, MAX_MESSAGE), code: 'INVALID_SPEC' }));
    const more = result.errors.length - errors.length + (result.additionalErrors ?? 0);
    if (more > 0) errors.push({ message: `…and ${more} more validation error${more === 1 ? '' : 's'}`, code: 'INVALID_SPEC' });
    throw new ProcessingFailure('PARSE_ERROR', errors, result.errors.length + (result.additionalErrors ?? 0));
  }
}

/** What processing a version gave: plain data, as it crosses back from the worker thread. */
export type ProcessOutcome =
  | { ok: true /** The filesystem, as JSON text: written to the database as is. */; filesystem: string; text: string }
  | { ok: false; code: ErrorCode; errors: ProcessError[]; errorCount: number };

/**
 * The worker-thread task (src/jobs/isolate.ts) of jobs.ts: builds the filesystem, or the failure to
 * record. The JSON text is made here, not on the server's event loop (it can be tens of megabytes).
 */
export async function processSource(input: { source: Source; entryUri: string; settings: OpenAPIFetchSettings }): Promise<ProcessOutcome> {
  try {
    const built = await buildFilesystem(input.source, input.entryUri, input.settings);
    return { ok: true, filesystem: JSON.stringify(built.filesystem), text: built.text };
  } catch (error) {
    if (error instanceof ProcessingFailure) return { ok: false, code: error.code, errors: error.errors, errorCount: error.errorCount };
    throw error;
  }
}
