import fs from 'node:fs';
import readline from 'node:readline';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import type pg from 'pg';

/**
 * Backup and restore without pg_dump (the embedded PostgreSQL ships none, and a system pg_dump of
 * another major version refuses the server): a logical export of every table of the `public` schema
 * through the pool, as JSON lines, gzipped when the file name ends in .gz.
 *
 * - Backup reads in one REPEATABLE READ, READ ONLY transaction: one consistent snapshot while the
 *   server keeps serving. Rows are fetched through a cursor (1000 at a time), so memory stays flat.
 * - Restore fills an empty database (migrations applied, no users nor organizations) in one
 *   transaction: foreign keys are dropped, every table loaded, the keys re-created (and so checked),
 *   sequences moved past the restored ids. All or nothing.
 *
 * Format: line 1 `{"lectern":"backup","format":1,...,"migrations":[...]}`; then for each table a line
 * `{"table":"T","columns":[...]}` followed by one line per row (the row as JSON, as `row_to_json`
 * gives it; json_populate_recordset reads it back with the exact types).
 */
const FORMAT = 1;
const MIGRATIONS = '_prisma_migrations';
const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function tables(client: pg.PoolClient): Promise<string[]> {
  const rows = await client.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
  );
  return rows.rows.map((r) => r.name);
}

/** Columns a row may be inserted with (not generated). */
async function insertableColumns(client: pg.PoolClient, table: string): Promise<string[]> {
  const rows = await client.query<{ name: string }>(
    "SELECT attname AS name FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum",
    [quote(table)],
  );
  return rows.rows.map((r) => r.name);
}

export interface BackupSummary {
  file: string;
  tables: number;
  rows: number;
  bytes: number;
  ms: number;
}

export async function backup(pool: pg.Pool, file: string): Promise<BackupSummary> {
  const started = performance.now();
  const client = await pool.connect();
  let rows = 0;
  let count = 0;
  const source = Readable.from(
    (async function* () {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const names = await tables(client);
        const migrations = names.includes(MIGRATIONS)
          ? (
              await client.query<{ n: string }>(
                `SELECT migration_name AS n FROM ${quote(MIGRATIONS)} WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name`,
              )
            ).rows.map((r) => r.n)
          : [];
        const server = (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
        yield `${JSON.stringify({ lectern: 'backup', format: FORMAT, createdAt: new Date().toISOString(), postgres: server, migrations })}\n`;
        for (const table of names) {
          if (table === MIGRATIONS) continue;
          count++;
          yield `${JSON.stringify({ table, columns: await insertableColumns(client, table) })}\n`;
          await client.query(`DECLARE lectern_backup NO SCROLL CURSOR FOR SELECT row_to_json(t)::text AS j FROM ${quote(table)} t`);
          for (;;) {
            const batch = await client.query<{ j: string }>('FETCH 1000 FROM lectern_backup');
            if (!batch.rows.length) break;
            rows += batch.rows.length;
            // The JSON of a row never holds a raw newline (row_to_json escapes them).
            yield `${batch.rows.map((r) => r.j).join('\n')}\n`;
          }
          await client.query('CLOSE lectern_backup');
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    })(),
  );
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  const target: Writable = file === '-' ? process.stdout : fs.createWriteStream(`${file}.partial`, { mode: 0o600 });
  try {
    if (file.endsWith('.gz')) await pipeline(source, createGzip(), counter, target, { end: file !== '-' });
    else await pipeline(source, counter, target, { end: file !== '-' });
  } catch (error) {
    if (file !== '-') fs.rmSync(`${file}.partial`, { force: true });
    throw error;
  }
  // Only a complete backup gets the name: an interrupted one never looks like a good file.
  if (file !== '-') fs.renameSync(`${file}.partial`, file);
  return { file, tables: count, rows, bytes, ms: Math.round(performance.now() - started) };
}

export interface RestoreSummary {
  file: string;
  tables: number;
  rows: number;
  ms: number;
}

export async function restore(pool: pg.Pool, file: string): Promise<RestoreSummary> {
  const started = performance.now();
  if (file !== '-' && !fs.existsSync(file)) throw new Error(`no such file: ${file}`);
  const client = await pool.connect();
  let rows = 0;
  let count = 0;
  let lines: readline.Interface | undefined;
  try {
    await client.query('BEGIN');
    for (const table of ['User', 'Organization']) {
      const n = (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${quote(table)}`)).rows[0]!.n;
      if (n)
        throw new Error(
          `this database is not empty (${n} row(s) in ${table}): restore into a fresh data directory (LECTERN_DATA_DIR) or a new empty database (DATABASE_URL)`,
        );
    }
    const names = await tables(client);
    const current = new Set(
      (
        await client.query<{ n: string }>(
          `SELECT migration_name AS n FROM ${quote(MIGRATIONS)} WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
        )
      ).rows.map((r) => r.n),
    );

    // Foreign keys go while the tables load (in any order, cycles included) and come back at the end:
    // re-creating them checks every restored reference.
    const keys = (
      await client.query<{ table: string; name: string; def: string }>(
        `SELECT c.conrelid::regclass::text AS table, c.conname AS name, pg_get_constraintdef(c.oid) AS def
           FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
          WHERE c.contype = 'f' AND n.nspname = 'public'`,
      )
    ).rows;
    for (const key of keys) await client.query(`ALTER TABLE ${key.table} DROP CONSTRAINT ${quote(key.name)}`);
    const others = names.filter((t) => t !== MIGRATIONS);
    if (others.length) await client.query(`TRUNCATE ${others.map(quote).join(', ')}`);

    let header: { lectern?: string; format?: number; migrations?: string[] } | null = null;
    let table: { name: string; columns: string[] } | null = null;
    let batch: string[] = [];
    const flush = async () => {
      if (!table || !batch.length) return;
      const cols = table.columns.map(quote).join(', ');
      await client.query(
        `INSERT INTO ${quote(table.name)} (${cols}) OVERRIDING SYSTEM VALUE SELECT ${cols} FROM json_populate_recordset(NULL::${quote(table.name)}, $1::json)`,
        [`[${batch.join(',')}]`],
      );
      rows += batch.length;
      batch = [];
    };
    // Opened only now: readline's iterator must be taken before any line is read, or lines are lost.
    const raw = file === '-' ? process.stdin : fs.createReadStream(file);
    lines = readline.createInterface({ input: file.endsWith('.gz') ? raw.pipe(createGunzip()) : raw, crlfDelay: Infinity });
    for await (const line of lines) {
      if (!line) continue;
      if (!header) {
        header = JSON.parse(line);
        if (header?.lectern !== 'backup' || header.format !== FORMAT) throw new Error(`${file} is not a Lectern backup (format ${FORMAT})`);
        const newer = (header.migrations ?? []).filter((m) => !current.has(m));
        if (newer.length)
          throw new Error(
            `the backup comes from a newer Lectern (migrations ${newer.join(', ')} are unknown here): restore it with that version or later`,
          );
        continue;
      }
      if (line.startsWith('{"table":')) {
        await flush();
        const next = JSON.parse(line) as { table: string; columns: string[] };
        if (!names.includes(next.table)) throw new Error(`the backup has a table ${next.table} this database does not`);
        const here = new Set(await insertableColumns(client, next.table));
        // Columns added since the backup take their defaults; columns dropped since are left out.
        table = { name: next.table, columns: next.columns.filter((c) => here.has(c)) };
        count++;
        continue;
      }
      batch.push(line);
      if (batch.length >= 1000) await flush();
    }
    await flush();
    if (!header) throw new Error(`${file} is empty`);
    for (const key of keys) await client.query(`ALTER TABLE ${key.table} ADD CONSTRAINT ${quote(key.name)} ${key.def}`);
    // Sequences (serial/identity columns) continue after the restored values.
    const sequences = await client.query<{ seq: string; table: string; col: string }>(
      `SELECT s.oid::regclass::text AS seq, d.refobjid::regclass::text AS table, a.attname AS col
         FROM pg_class s JOIN pg_depend d ON d.objid = s.oid AND d.deptype IN ('a', 'i')
         JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
        WHERE s.relkind = 'S'`,
    );
    for (const s of sequences.rows) {
      await client.query(`SELECT setval($1, COALESCE((SELECT max(${quote(s.col)}) FROM ${s.table}), 0) + 1, false)`, [s.seq]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
    lines?.close();
  }
  return { file, tables: count, rows, ms: Math.round(performance.now() - started) };
}
