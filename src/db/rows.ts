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

/**
 * Rows of two tables read by one statement, as pairs: the statement selects the first table's
 * columns, then `NULL AS "__next"`, then the second's (`SELECT a.*, NULL AS "__next", b.* FROM a
 * LEFT JOIN b …`), each typed as `selectRows` types them. A second row whose columns are all null
 * (no match of a LEFT JOIN) is null.
 */
export async function selectRowPairs<A, B>(pool: pg.Pool, text: string, values: unknown[]): Promise<[A, B | null][]> {
  const { fields, rows } = await pool.query<unknown[]>({ text, values, types, rowMode: 'array' });
  const split = fields.findIndex((f) => f.name === '__next');
  if (split < 0) throw new Error('selectRowPairs: the statement selects no "__next" column');
  const record = (row: unknown[], from: number, to: number) => Object.fromEntries(fields.slice(from, to).map((f, i) => [f.name, row[from + i]]));
  return rows.map((row) => [record(row, 0, split) as A, row.slice(split + 1).every((v) => v === null) ? null : (record(row, split + 1, fields.length) as B)]);
}

/**
 * `selectRowPairs` for any number of column groups: every `NULL AS "__next"` column starts the next
 * group; each row is the list of its groups' records, a group whose columns are all null being null.
 */
export async function selectRowGroups(pool: pg.Pool, text: string, values: unknown[]): Promise<(Record<string, unknown> | null)[][]> {
  const { fields, rows } = await pool.query<unknown[]>({ text, values, types, rowMode: 'array' });
  const bounds = [-1, ...fields.flatMap((f, i) => (f.name === '__next' ? [i] : [])), fields.length];
  const groups = bounds.slice(1).map((to, g) => [bounds[g]! + 1, to] as const);
  return rows.map((row) =>
    groups.map(([from, to]) => (row.slice(from, to).every((v) => v === null) ? null : Object.fromEntries(fields.slice(from, to).map((f, i) => [f.name, row[from + i]])))),
  );
}

/** Rows of `table` whose id is in `ids`, in no particular order (table names come from the closed list above, never from input). */
export function rowsById<T>(pool: pg.Pool, table: HotTable) {
  return (ids: string[]) => selectRows<T>(pool, `SELECT * FROM "${table}" WHERE id = ANY($1::text[])`, [ids]);
}
