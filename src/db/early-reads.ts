import type pg from 'pg';
import { perRequest } from '../loaders.js';
import { selectRows } from './rows.js';

/**
 * Reads begun before a request's caller is known, while its token is checked (src/app.ts), for
 * the few GET routes whose first statement can be told from the request alone (a REST route's
 * `early`, src/rest/route.ts): the space search, which would otherwise wait for the
 * authentication round trip and then make its own. The rows are handed only to the code that
 * would have sent the very same statement (same text, same values) in that request, after the
 * caller was authenticated and its access checked as always; a request refused on the way (bad
 * token, no access) simply never takes them. So nothing is answered that the request would not
 * have answered, and the cost of a refused request is one read the caller could have asked for.
 */
export interface Statement {
  text: string;
  values: unknown[];
  /** The prepared statement's name, for a fixed text (src/db/rows.ts `prepared`). */
  name?: string;
}

/**
 * A GET's first statement, told from the request alone. `rides`: its columns survive JSON (text,
 * int4, bool, jsonb) and its text is fixed, so it is read by the authentication statement itself
 * (one round trip for the whole request, src/auth/authenticate.ts) instead of on a connection of
 * its own while the token is checked.
 */
export interface EarlyStatement {
  statement: Statement;
  rides: boolean;
}

export type EarlyReads = Map<string, Promise<unknown[]>>;

// A prepared statement's name is made from its text (src/db/rows.ts): it stands for the text, which
// is long enough that building and hashing a key of it was ~1 % of a small read.
const keyOf = (statement: Statement) => `${statement.name ?? statement.text}\u0000${JSON.stringify(statement.values)}`;

/**
 * Whether the pool can spare the connection a read begun early takes beside the authentication's:
 * under load (no idle connection for both, or requests already waiting) nothing is begun early, so
 * early reads never take connections from requests already admitted.
 */
export function poolHasRoom(pool: pg.Pool): boolean {
  const max = (pool as unknown as { options: { max: number } }).options.max;
  return pool.waitingCount === 0 && pool.idleCount + (max - pool.totalCount) >= 2;
}

/** Sends `statement` now; its rows wait for the request that may take them. */
export function beginEarlyRead(pool: pg.Pool, statement: Statement): EarlyReads {
  const rows = selectRows<unknown>(pool, textOf(statement), statement.values);
  // Untaken (the request was refused), a failure is nobody's error; taken, the taker sees it.
  rows.catch(() => {});
  return new Map([[keyOf(statement), rows]]);
}

/** Rows already read (by the authentication statement it rode on), for the request that may take them. */
export const earlyReadOf = (statement: Statement, rows: unknown[]): EarlyReads => new Map([[keyOf(statement), Promise.resolve(rows)]]);

const textOf = (statement: Statement) => (statement.name ? { text: statement.text, name: statement.name } : statement.text);

const earlyReadsOf = perRequest((_ctx: object): EarlyReads => new Map());

/** Hands a request's early reads to its context (the REST adapter's execute, src/app.ts). */
export function primeEarlyReads(ctx: object, reads: EarlyReads | undefined): void {
  if (reads) for (const [key, rows] of reads) earlyReadsOf(ctx).set(key, rows);
}

/** The rows of `statement`: the early read's when one was begun for this exact statement (taken once), else read now. */
export function selectRowsOnce<T>(ctx: object, pool: pg.Pool, statement: Statement): Promise<T[]> {
  const reads = earlyReadsOf(ctx);
  const key = keyOf(statement);
  const early = reads.get(key);
  if (!early) return selectRows<T>(pool, textOf(statement), statement.values);
  reads.delete(key);
  return early as Promise<T[]>;
}
