import { badRequest } from './errors.js';

/** The list envelope of every list, REST and GraphQL alike. */
export interface ListPage<T> {
  items: T[];
  count: number;
  next?: { page: string } | null;
}

export interface PageArgs {
  page?: string | null;
  limit?: number | null;
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;

// The cursor is opaque to clients: base64url of a small JSON object. Lists always order by a
// unique key last (the id), so an offset into that order is stable between calls.
function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

function decodeCursor(page: string): number {
  try {
    const value = JSON.parse(Buffer.from(page, 'base64url').toString('utf8')) as { o?: unknown };
    if (typeof value.o === 'number' && Number.isInteger(value.o) && value.o >= 0) return value.o;
  } catch {
    // fall through
  }
  throw badRequest('page', 'is not a page identifier returned by this list');
}

export function readPageArgs(args: PageArgs): { offset: number; limit: number } {
  const limit = args.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw badRequest('limit', `must be an integer between 1 and ${MAX_LIMIT}`);
  }
  const offset = args.page ? decodeCursor(args.page) : 0;
  return { offset, limit };
}

/**
 * Runs one list: `count` and `fetch` see the same filter; `fetch` must order by a unique key.
 * Both run in one round of queries (in parallel), whatever the list.
 */
export async function paginate<T>(
  args: PageArgs,
  count: () => Promise<number>,
  fetch: (window: { skip: number; take: number }) => Promise<T[]>,
): Promise<ListPage<T>> {
  const { offset, limit } = readPageArgs(args);
  const [total, items] = await Promise.all([count(), fetch({ skip: offset, take: limit })]);
  const nextOffset = offset + items.length;
  return { items, count: total, next: nextOffset < total && items.length > 0 ? { page: encodeCursor(nextOffset) } : null };
}

/**
 * Runs one list as a single statement that answers its window and the total beside each row
 * (`count(*) OVER ()`): `fetch` gets the window and answers its rows and that total (null when the
 * window is empty: a page past the end, when `count` is asked apart).
 */
export async function paginateWindow<T>(
  args: PageArgs,
  fetch: (window: { skip: number; take: number }) => Promise<{ items: T[]; total: number | null }>,
  count: () => Promise<number>,
): Promise<ListPage<T>> {
  const { offset, limit } = readPageArgs(args);
  const { items, total: known } = await fetch({ skip: offset, take: limit });
  const total = known ?? (offset > 0 ? await count() : 0);
  const nextOffset = offset + items.length;
  return { items, count: total, next: nextOffset < total && items.length > 0 ? { page: encodeCursor(nextOffset) } : null };
}

/** Pages an in-memory list (already filtered and ordered), for lists computed in code. */
export function paginateArray<T>(args: PageArgs, all: T[]): ListPage<T> {
  const { offset, limit } = readPageArgs(args);
  const items = all.slice(offset, offset + limit);
  const nextOffset = offset + items.length;
  return { items, count: all.length, next: nextOffset < all.length ? { page: encodeCursor(nextOffset) } : null };
}
