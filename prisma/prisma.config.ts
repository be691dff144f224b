// Prisma CLI configuration (generate, migrate diff, migrate deploy). Never loaded by the server.
// Uses the WASM schema engine through @prisma/adapter-pg: no engine binary is downloaded.
// The CLI needs a PostgreSQL server: DATABASE_URL, else the one on 127.0.0.1:5432 (user postgres).
import path from 'node:path';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { defineConfig } from 'prisma/config';

// prisma/orm#27403: the schema engine reads pg_catalog columns of types node-postgres reports
// as `name`, `"char"`, `reg*`, which the adapter cannot map. Report them as text instead.
const TEXT_OIDS = new Set([18, 19, 22, 24, 28, 30, 194, 2205, 2206, 3734]);
const TEXT_ARRAY_OIDS = new Set([1002, 1003]);
const originalQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
(pg.Client.prototype as unknown as { query: unknown }).query = function (this: unknown, ...args: unknown[]) {
  const result = originalQuery.apply(this, args);
  if (result && typeof (result as Promise<unknown>).then === 'function') {
    return (result as Promise<{ fields?: { dataTypeID: number }[] }>).then((res) => {
      for (const field of res?.fields ?? []) {
        if (TEXT_OIDS.has(field.dataTypeID)) field.dataTypeID = 25;
        else if (TEXT_ARRAY_OIDS.has(field.dataTypeID)) field.dataTypeID = 1009;
      }
      return res;
    });
  }
  return result;
};

function connectionFields() {
  // Discrete fields: with a connectionString, node-postgres lets it override `database`,
  // and the shadow database would silently become the main one.
  const url = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  return {
    host: url.searchParams.get('host') ?? decodeURIComponent(url.hostname),
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username || 'postgres'),
    password: url.password ? decodeURIComponent(url.password) : undefined,
    database: decodeURIComponent(url.pathname.slice(1) || 'postgres'),
  };
}

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: path.join(import.meta.dirname, 'schema.prisma'),
  migrations: { path: path.join(import.meta.dirname, 'migrations') },
  async adapter() {
    return new PrismaPg(connectionFields());
  },
});
