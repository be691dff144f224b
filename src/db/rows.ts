import { createHash } from 'node:crypto';
import pg from 'pg';
import { Prisma } from '../generated/prisma/browser.js';
import { getDatamodel } from '../generated/pothos-types.js';

/**
 * Rows read with one plain SQL statement, typed as Prisma's models, for the lookups every request
 * makes (the caller's membership, the space, its organization and collection). Why not Prisma there:
 * Prisma 6's client engine compiles each query (WASM, on the event loop) before running it; under
 * load that was over half of the server's CPU for GET /v1/spaces/{id} (bench/results.md). The rows
 * carry the same fields and JS values as Prisma's: scalars only (the tables have no unsupported
 * columns), jsonb parsed, arrays as arrays, enums as strings, and `timestamp(3)` read as UTC the
 * way Prisma stores it. test/db/rows.test.ts compares both for every table listed here.
 */
export type HotTable = 'Organization' | 'User' | 'Member' | 'Space' | 'Revision' | 'Collection' | 'Site';

/** Each hot table's columns, as this build's Prisma schema has them. */
const COLUMNS: Record<HotTable, readonly string[]> = {
  Organization: Object.values(Prisma.OrganizationScalarFieldEnum),
  User: Object.values(Prisma.UserScalarFieldEnum),
  Member: Object.values(Prisma.MemberScalarFieldEnum),
  Space: Object.values(Prisma.SpaceScalarFieldEnum),
  Revision: Object.values(Prisma.RevisionScalarFieldEnum),
  Collection: Object.values(Prisma.CollectionScalarFieldEnum),
  Site: Object.values(Prisma.SiteScalarFieldEnum),
};

/**
 * A table's columns listed by name (`"s"."id", "s"."title", …`; `alias` defaults to the table), for
 * a prepared statement: `s.*` would be expanded once, when the statement is prepared, and a column
 * added later (another process's migration during a rolling upgrade) would fail every later
 * execution with "cached plan must not change result type". Listed, the answer keeps its shape.
 */
export function columnsOf(table: HotTable, alias: string = table): string {
  return COLUMNS[table].map((column) => `"${alias}"."${column}"`).join(', ');
}

/**
 * A hot table's row as ONE column: `json_build_array` of its columns, named `__row:<Table>`, which
 * `selectRowGroups` decodes into the row's fields. Why: pg describes every column of a result on
 * every execution and parses each value on its own; the authentication statement of a space read
 * selects some 60, and describing and parsing them was the largest part of its client-side cost
 * (measured: 52 columns 0.12 ms, the same rows as four JSON columns 0.08 ms, `SELECT 1` 0.05 ms).
 * The columns are listed (see `columnsOf`), so the array's positions are the table's fields. For a
 * row or a few: PostgreSQL pays for the JSON per row (see `rowsById`).
 */
export function rowOf(table: HotTable, alias: string = table): string {
  return `json_build_array(${columnsOf(table, alias)}) AS "${ROW_PREFIX}${table}"`;
}
const ROW_PREFIX = '__row:';

/**
 * How each field of a hot table comes back from JSON: `timestamp(3)` as text without a zone (read
 * as UTC, as Prisma stores it), a float that is not finite as text ("NaN"); everything else as
 * JSON gives it (jsonb nested, arrays as arrays, enums as strings). test/db/rows.test.ts compares
 * every table with Prisma.
 */
type FieldReader = ((value: unknown) => unknown) | null;
const readDate = (value: unknown) => (typeof value === 'string' ? new Date(`${value}Z`) : value);
const readFloat = (value: unknown) => (typeof value === 'string' ? Number(value) : value);
const READERS: Record<HotTable, readonly FieldReader[]> = (() => {
  const models = getDatamodel().datamodel.models as Record<string, { fields: readonly { name: string; type: string }[] }>;
  const readers = {} as Record<HotTable, FieldReader[]>;
  for (const table of Object.keys(COLUMNS) as HotTable[]) {
    const types = new Map(models[table]!.fields.map((f) => [f.name, f.type]));
    // json_build_array takes at most 100 arguments; JSON would lose a BigInt's digits, a Decimal's and a Bytes' type.
    if (COLUMNS[table].length > 100) throw new Error(`rowOf: "${table}" has more than 100 columns`);
    readers[table] = COLUMNS[table].map((column) => {
      const type = types.get(column);
      if (type === 'BigInt' || type === 'Decimal' || type === 'Bytes') throw new Error(`rowOf: "${table}"."${column}" is a ${type}`);
      return type === 'DateTime' ? readDate : type === 'Float' ? readFloat : null;
    });
  }
  return readers;
})();

/** A `rowOf` value as the row's fields (into `record`); false when every field is null (no match of a LEFT JOIN). */
function readRow(table: HotTable, values: unknown[] | null, record: Record<string, unknown>): boolean {
  if (!values || values.every((v) => v === null)) return false;
  const columns = COLUMNS[table];
  const readers = READERS[table];
  for (let i = 0; i < columns.length; i++) {
    const read = readers[i];
    record[columns[i]!] = read ? read(values[i]) : values[i];
  }
  return true;
}

/**
 * A statement every request sends, prepared once per connection (PostgreSQL parses and plans it
 * once, then only binds and executes): named after its text, so one text is one prepared statement
 * and a connection holds as many as there are such constants. For fixed texts only (a text built
 * from input would prepare without end), and no `*` (see `columnsOf`). Measured: the authentication
 * statement of a space request took 1.1-1.6 ms unnamed and 0.5-0.6 ms prepared on the bench machine.
 */
export interface Prepared {
  text: string;
  name: string;
}

export const prepared = (text: string): Prepared => ({
  text,
  name: `lectern_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`,
});

type Statement = string | Prepared;
const config = (statement: Statement) => (typeof statement === 'string' ? { text: statement } : statement);

const TIMESTAMP = 1114;
const utc = (text: string) => new Date(`${text.replace(' ', 'T')}Z`);
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMP ? utc : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export async function selectRows<T>(pool: pg.Pool, statement: Statement, values: unknown[]): Promise<T[]> {
  return (await pool.query({ ...config(statement), values, types })).rows as T[];
}

/**
 * Rows of two tables read by one statement, as pairs: the statement selects the first table's
 * columns, then `NULL AS "__next"`, then the second's (`SELECT a.*, NULL AS "__next", b.* FROM a
 * LEFT JOIN b …`), each typed as `selectRows` types them. A second row whose columns are all null
 * (no match of a LEFT JOIN) is null.
 */
export async function selectRowPairs<A, B>(pool: pg.Pool, statement: Statement, values: unknown[]): Promise<[A, B | null][]> {
  const { fields, rows } = await pool.query<unknown[]>({ ...config(statement), values, types, rowMode: 'array' });
  const split = fields.findIndex((f) => f.name === '__next');
  if (split < 0) throw new Error('selectRowPairs: the statement selects no "__next" column');
  const record = (row: unknown[], from: number, to: number) =>
    Object.fromEntries(fields.slice(from, to).map((f, i) => [f.name, row[from + i]]));
  return rows.map((row) => [
    record(row, 0, split) as A,
    row.slice(split + 1).every((v) => v === null) ? null : (record(row, split + 1, fields.length) as B),
  ]);
}

/**
 * `selectRowPairs` for any number of column groups: every `NULL AS "__next"` column starts the next
 * group; each row is the list of its groups' records, a group whose columns are all null being null.
 */
export async function selectRowGroups(
  pool: pg.Pool,
  statement: Statement,
  values: unknown[],
): Promise<(Record<string, unknown> | null)[][]> {
  const { fields, rows } = await pool.query<unknown[]>({ ...config(statement), values, types, rowMode: 'array' });
  const groups = groupsOf(typeof statement === 'string' ? statement : statement.text, fields);
  return rows.map((row) => groups.map((group) => recordOf(row, group)));
}

/** The hot table of a `rowOf` column, else null. */
const tableOfRowColumn = (name: string): HotTable | null =>
  name.startsWith(ROW_PREFIX) && name.slice(ROW_PREFIX.length) in COLUMNS ? (name.slice(ROW_PREFIX.length) as HotTable) : null;

/** A group's columns from `from`; `tables[i]`: the hot table of a `rowOf` column, else null. */
type ColumnGroup = { from: number; names: string[]; tables: (HotTable | null)[] };

/**
 * A statement's column groups, split at its `__next` columns: worked out once per statement text
 * and column list (a `*` expands anew when a migration adds a column to a running process's table).
 */
const columnGroups = new Map<string, { names: string[]; groups: ColumnGroup[] }>();
function groupsOf(text: string, fields: { name: string }[]): ColumnGroup[] {
  const known = columnGroups.get(text);
  if (known && known.names.length === fields.length && known.names.every((name, i) => name === fields[i]!.name)) return known.groups;
  const names = fields.map((f) => f.name);
  const groups: ColumnGroup[] = [];
  let from = 0;
  for (let i = 0; i <= names.length; i++) {
    if (i < names.length && names[i] !== '__next') continue;
    const groupNames = names.slice(from, i);
    groups.push({ from, names: groupNames, tables: groupNames.map(tableOfRowColumn) });
    from = i + 1;
  }
  columnGroups.set(text, { names, groups });
  return groups;
}

/**
 * One group's record of a row (a `rowOf` column gives its table's fields); null when every column
 * of it is null (no match of a LEFT JOIN).
 */
function recordOf(row: unknown[], { from, names, tables }: ColumnGroup): Record<string, unknown> | null {
  const record: Record<string, unknown> = {};
  let present = false;
  for (let i = 0; i < names.length; i++) {
    const value = row[from + i];
    const table = tables[i];
    if (table) present = readRow(table, value as unknown[] | null, record) || present;
    else (record[names[i]!] = value), (present ||= value !== null);
  }
  return present ? record : null;
}

/**
 * Each table's two statements by id, made once per process: for many ids an array, for one the id
 * itself. A plan made without values costs an array as 10 elements, so with one id PostgreSQL would
 * plan the array statement anew on every execution instead of keeping its plan. One row comes as
 * JSON (`rowOf`), many as columns: their description is paid once for all rows, and PostgreSQL's
 * JSON output of a page of 100 spaces nearly doubled its CPU (2.2 → 4.1 ms, bench/results.md).
 */
const byIdStatements = new Map<HotTable, { many: Prepared; one: Prepared }>();
const byIdStatementsOf = (table: HotTable) => {
  let statements = byIdStatements.get(table);
  if (!statements) {
    statements = {
      many: prepared(`SELECT ${columnsOf(table)} FROM "${table}" WHERE id = ANY($1::text[])`),
      one: prepared(`SELECT ${rowOf(table)} FROM "${table}" WHERE id = $1`),
    };
    byIdStatements.set(table, statements);
  }
  return statements;
};

/** Rows of `table` whose id is in `ids`, in no particular order (table names come from the closed list above, never from input). */
export function rowsById<T>(pool: pg.Pool, table: HotTable) {
  const { many, one } = byIdStatementsOf(table);
  const oneRow = async (id: string) => (await selectRowGroups(pool, one, [id])).map(([row]) => row as T);
  return (ids: string[]) => (ids.length === 1 ? oneRow(ids[0]!) : selectRows<T>(pool, many, [ids]));
}
