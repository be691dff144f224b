import pino from 'pino';
import { settings } from '../config.js';

/**
 * The server's log, through pino: one line per event on stdout (errors on stderr). JSON lines (pino's
 * fields: level, time, msg, and for requests requestId, method, route, path, status, ms) when stdout
 * is not a terminal or LOG_FORMAT=json — what log collectors read; one readable line per event on a
 * terminal or with LOG_FORMAT=text (formatted here, in the same thread: no transport, no worker).
 * Writes are synchronous: nothing is lost when the process exits.
 *
 * What is never logged: a request is logged by its route pattern and its path with secret segments
 * redacted (src/http/redact.ts) — never a query string (share keys, file tokens, jwt_token), a header
 * (tokens, cookies) nor a body (SAML assertions). The fields are chosen here (no object is logged
 * whole), and pino's `redact` drops those names should one appear. Only a fault (an unexpected error,
 * `fault`) carries an error's stack; a fault or warning met while a request is answered carries its
 * request id, so that a 500 can be matched to its X-Request-Id. The id is handed over explicitly
 * (`requestIdOf`), not by AsyncLocalStorage: on this Node its async hooks ran on every promise and
 * cost ~12% of a small read's CPU.
 */
export interface RequestLog {
  requestId: string;
  method: string;
  /** The route pattern (`/v1/spaces/:spaceId`), or the redacted path when no pattern is known. */
  route: string;
  /** The path, secret segments redacted. */
  path: string;
  status: number;
  ms: number;
}

export interface FaultContext {
  stack?: string;
  requestId?: string;
}

export interface Logger {
  format: 'json' | 'text';
  line(message: string): void;
  error(error: unknown): void;
  /** Something went wrong but the process carries on (a restart, a lost connection). */
  warn(message: string, requestId?: string): void;
  /**
   * An unexpected error: `message` says what failed; the error's message and stack (or `opts.stack`)
   * follow, and the id of the request it was met in.
   */
  fault(message: string, error?: unknown, opts?: FaultContext): void;
  request(entry: RequestLog): void;
}

const NEVER = [
  'authorization',
  'cookie',
  'token',
  'shareKey',
  'jwt_token',
  'SAMLResponse',
  'headers',
  'query',
  'body',
  '*.authorization',
  '*.cookie',
  '*.token',
];

/** A destination that turns pino's JSON lines into readable ones (`GET /v1/user 200 3.1ms`). */
function readable(write: (line: string) => void) {
  return {
    write(json: string) {
      const o = JSON.parse(json) as Record<string, unknown>;
      const text =
        o.msg === 'request'
          ? `${o.method} ${o.path} ${o.status} ${Number(o.ms).toFixed(1)}ms`
          : `${o.requestId ? `[${o.requestId}] ` : ''}${String(o.msg ?? '')}${o.stack ? `\n${o.stack}` : ''}`;
      write(`${text}\n`);
    },
  };
}

export function createLogger(
  logFormat: 'json' | 'text' | undefined = settings().logFormat,
  out: (line: string) => void = (l) => process.stdout.write(l),
  err: (line: string) => void = (l) => process.stderr.write(l),
  terminal: boolean = process.stdout.isTTY === true,
): Logger {
  const format: 'json' | 'text' = logFormat ?? (terminal ? 'text' : 'json');
  const options: pino.LoggerOptions = {
    base: undefined, // no pid/hostname: one line per event, nothing about the machine
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: NEVER, remove: true },
  };
  const sink = (write: (line: string) => void) => (format === 'json' ? { write } : readable(write));
  const stdout = pino(options, sink(out));
  const stderr = pino(options, sink(err));
  return {
    format,
    line: (message) => stdout.info(message),
    error: (error) => stderr.error(error instanceof Error ? error.message : String(error)),
    warn: (message, requestId) => stderr.warn(requestId ? { requestId } : {}, message),
    fault: (message, error, opts = {}) => {
      const reason = error === undefined ? '' : `: ${error instanceof Error ? error.message : String(error)}`;
      const stack = opts.stack ?? (error instanceof Error ? error.stack : undefined);
      stderr.error({ ...(opts.requestId ? { requestId: opts.requestId } : {}), ...(stack ? { stack } : {}) }, `${message}${reason}`);
    },
    request: (r) =>
      stdout.info(
        { requestId: r.requestId, method: r.method, route: r.route, path: r.path, status: r.status, ms: Math.round(r.ms * 10) / 10 },
        'request',
      ),
  };
}

const requestIds = new WeakMap<object, string>();

/** Marks `request` as the request `id` (src/server.ts, as it arrives). */
export function tagRequest(request: object, id: string): void {
  requestIds.set(request, id);
}

/** The id of a request tagged by `tagRequest` (undefined for in-process calls). */
export const requestIdOf = (request: object | undefined): string | undefined => (request ? requestIds.get(request) : undefined);

let shared: Logger | undefined;

/** The process's log, made on first use; `lectern serve` logs its requests through it too. */
export function processLog(): Logger {
  shared ??= createLogger();
  return shared;
}

/** The request id: the caller's X-Request-Id when it is a plain token (a proxy's), else a new one. */
export function requestId(header: string | null | undefined, make: () => string): string {
  return header && /^[A-Za-z0-9._:-]{1,100}$/.test(header) ? header : make();
}
