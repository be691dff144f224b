import pg from 'pg';

/**
 * Rows read with one plain SQL statement, typed as Prisma's models, for the lookups every request
 * makes (the caller's membership, the space, its organization and collection). Why not Prisma there:
 * Prisma 6's client engine compiles each query (WASM, on the event loop) before running it; under
 * load that was over half of the server's CPU for GET /v1/spaces/{id} (bench/results.md). The rows
 * carry the same fields and JS values as Prisma's: scalars only (the tables have no unsupported
 * columns), jsonb parsed, arrays as arrays, enums as strings, and `timestamp(3)` read as UTC the
 * way Prisma stores it. test/rows.test.ts compares both for every table listed here.
 */
export type HotTable = 'Organization' | 'User' | 'Member' | 'Space' | 'Revision' | 'Collection' | 'Site';

const TIMESTAMP = 1114;
const utc = (text: string) => new Date(`${text.replace(' ', 'T')}Z`);
const types = { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === TIMESTAMP ? utc : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser };

export async function selectRows<T>(pool: pg.Pool, text: string, values: unknown[]): Promise<T[]> {
  return (await pool.query({ text, values, types })).rows as T[];
}

/** Rows of `table` whose id is in `ids`, in no particular order (table names come from the closed list above, never from input). */
export function rowsById<T>(pool: pg.Pool, table: HotTable) {
  return (ids: string[]) => selectRows<T>(pool, `SELECT * FROM "${table}" WHERE id = ANY($1::text[])`, [ids]);
}
