import { GraphQLError } from 'graphql';

/**
 * The one closed table of error codes and their HTTP statuses. GraphQL carries the code in
 * `extensions.code`; the REST adapter answers `{ error: { code: <status>, message } }`.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  RATE_LIMITED: 429,
  PAYLOAD_TOO_LARGE: 413,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class LecternError extends GraphQLError {
  readonly code: ErrorCode;
  /** `details`: what a client may act on besides the code (GraphQL extensions; REST answers code and message only). */
  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message, { extensions: { code, ...details, http: { status: ERROR_STATUS[code] } } });
    this.code = code;
  }
}

export const badRequest = (field: string, problem: string) => new LecternError('BAD_REQUEST', `${field}: ${problem}`);
export const notFound = (what: string) => new LecternError('NOT_FOUND', `${what} not found`);
export const forbidden = (message = 'You are not allowed to do this') => new LecternError('FORBIDDEN', message);
export const conflict = (message: string) => new LecternError('CONFLICT', message);
export const preconditionFailed = (message: string) => new LecternError('PRECONDITION_FAILED', message);
export const unauthenticated = () => new LecternError('UNAUTHENTICATED', 'Authentication required: send Authorization: Bearer <token>');

export function statusOfCode(code: unknown): number | undefined {
  return typeof code === 'string' && code in ERROR_STATUS ? ERROR_STATUS[code as ErrorCode] : undefined;
}

/** The REST/HTTP error body. */
export function errorBody(status: number, message: string) {
  return { error: { code: status, message } };
}

/** How a database failure is answered: which status, what the client reads, when to retry. */
export interface DatabaseFailure {
  status: 409 | 429 | 503;
  code: ErrorCode;
  message: string;
  /** Seconds, for the Retry-After header. */
  retryAfter: number;
}

// Waiting for something another request holds is contention, not an outage: the database answered.
// Lock waits and transaction conflicts are a clash with a concurrent change of the same thing (409);
// waiting too long for a pooled connection or for a transaction to start means the server is busy (429).
const CONFLICT_CODES = new Set(['55P03', '40001', '40P01']); // lock_not_available, serialization_failure, deadlock_detected
const BUSY_CODES = new Set(['P2028', '53300', '57014']); // Prisma transaction start/expiry, too many connections, statement timeout
const BUSY_MESSAGE =
  /timeout exceeded when trying to connect|Unable to start a transaction|Transaction already closed|Transaction API error|too many clients/i;
const DOWN_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOENT',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
  '08006',
  '08001',
  '08003',
  '08004',
]);
const DOWN_MESSAGE =
  /Connection terminated|terminating connection|the database system is (shutting down|starting up|in recovery mode)|connect ECONNREFUSED|Client has encountered a connection error|Can't reach database server|Server has closed the connection/i;

/** The error and what it wraps (Prisma and the driver adapter nest the driver's error a few levels down). */
function* layers(error: unknown): Generator<any> {
  const queue: unknown[] = [error];
  const seen = new Set<unknown>();
  while (queue.length && seen.size < 12) {
    const e = queue.shift() as any;
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    yield e;
    queue.push(e.cause, e.originalError, e.meta?.driverAdapterError, e.meta?.cause);
  }
}

/**
 * The one place that tells a database failure apart: unreachable (503: the server is down,
 * restarting, or cut our connections — retry in a few seconds), or contention (409/429 with
 * Retry-After: the database is up and busy with other requests). `null`: not a database
 * availability problem (answered as the error it is).
 */
export function classifyDatabaseError(error: unknown): DatabaseFailure | null {
  let busy = false;
  let clash = false;
  for (const e of layers(error)) {
    const codes = [e.code, e.originalCode, e.kind].map((c) => String(c ?? ''));
    const message = `${String(e.message ?? '')} ${String(e.originalMessage ?? '')}`;
    // Unreachable wins: a lock wait cut short by a server shutdown is an outage.
    if (
      codes.some((c) => DOWN_CODES.has(c)) ||
      DOWN_MESSAGE.test(message) ||
      ['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout'].includes(e.kind)
    ) {
      return { status: 503, code: 'UNAVAILABLE', message: 'The database is unavailable; retry shortly', retryAfter: 5 };
    }
    if (codes.some((c) => CONFLICT_CODES.has(c)) || e.kind === 'TransactionWriteConflict') clash = true;
    if (codes.some((c) => BUSY_CODES.has(c)) || BUSY_MESSAGE.test(message) || e.kind === 'TooManyConnections') busy = true;
  }
  if (clash)
    return { status: 409, code: 'CONFLICT', message: 'A concurrent request is changing the same content; retry shortly', retryAfter: 1 };
  if (busy) return { status: 429, code: 'RATE_LIMITED', message: 'The server is busy; retry shortly', retryAfter: 1 };
  return null;
}

/** The GraphQL error a database failure is answered with (its status and Retry-After go to HTTP). */
export function databaseFailureError(failure: DatabaseFailure): GraphQLError {
  return new GraphQLError(failure.message, {
    extensions: { code: failure.code, http: { status: failure.status, headers: { 'retry-after': String(failure.retryAfter) } } },
  });
}
