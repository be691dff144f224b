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
  constructor(code: ErrorCode, message: string) {
    super(message, { extensions: { code, http: { status: ERROR_STATUS[code] } } });
    this.code = code;
  }
}

export const badRequest = (field: string, problem: string) => new LecternError('BAD_REQUEST', `${field}: ${problem}`);
export const notFound = (what: string) => new LecternError('NOT_FOUND', `${what} not found`);
export const forbidden = (message = 'You are not allowed to do this') => new LecternError('FORBIDDEN', message);
export const conflict = (message: string) => new LecternError('CONFLICT', message);
export const preconditionFailed = (message: string) => new LecternError('PRECONDITION_FAILED', message);
export const unauthenticated = () =>
  new LecternError('UNAUTHENTICATED', 'Authentication required: send Authorization: Bearer <token>');

export function statusOfCode(code: unknown): number | undefined {
  return typeof code === 'string' && code in ERROR_STATUS ? ERROR_STATUS[code as ErrorCode] : undefined;
}

/** The REST/HTTP error body. */
export function errorBody(status: number, message: string) {
  return { error: { code: status, message } };
}

/**
 * Whether an error means the database cannot be reached (down, restarting, connections cut): such
 * requests answer 503 quickly instead of a 500, and succeed again once it is back.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: any = error, depth = 0; e && depth < 6; e = e.cause ?? e.originalError, depth++) {
    const code = String(e.code ?? '');
    const message = String(e.message ?? '');
    if (['ECONNREFUSED', 'ECONNRESET', 'ENOENT', 'EPIPE', 'ETIMEDOUT', '57P01', '57P02', '57P03', '08006', '08001', '08003'].includes(code)) return true;
    if (/Connection terminated|connection timeout|timeout exceeded when trying to connect|terminating connection|the database system is (shutting down|starting up)|connect ECONNREFUSED|Client has encountered a connection error/i.test(message)) return true;
    if (e.kind === 'DatabaseNotReachable' || e.kind === 'ConnectionClosed' || e.cause?.kind === 'DatabaseNotReachable') return true;
  }
  return false;
}
