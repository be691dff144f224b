// Prisma CLI configuration (generate, migrate diff, migrate deploy). Never loaded by the server.
// Uses the WASM schema engine through @prisma/adapter-pg: no engine binary is downloaded.
// The CLI needs a PostgreSQL server: DATABASE_URL, else the one on 127.0.0.1:5432 (user postgres).
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { defineConfig } from 'prisma/config';

// prisma/orm#27403: the schema engine reads pg_catalog columns of types node-postgres reports
// as `name`, `"char"`, `reg*`, which the adapter cannot map. A client class that reports them as
// text is handed to the pools this config makes (and only to those).
const TEXT_OIDS = new Set([18, 19, 22, 24, 28, 30, 194, 2205, 2206, 3734]);
const TEXT_ARRAY_OIDS = new Set([1002, 1003]);

type Result = { fields?: { dataTypeID: number }[] } | undefined;
function catalogAsText(res: Result) {
  for (const field of res?.fields ?? []) {
    if (TEXT_OIDS.has(field.dataTypeID)) field.dataTypeID = 25;
    else if (TEXT_ARRAY_OIDS.has(field.dataTypeID)) field.dataTypeID = 1009;
  }
  return res;
}

class CatalogAsTextClient extends pg.Client {
  override query(...args: unknown[]): any {
    // pg.Pool#query calls with a callback; direct callers get a promise.
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = (err: unknown, res: Result) => (last as (e: unknown, r: Result) => void)(err, catalogAsText(res));
    }
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (!result || typeof (result as Promise<unknown>).then !== 'function') return result;
    return (result as Promise<Result>).then(catalogAsText);
  }
}

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

/**
 * PrismaPg drops its shadow database while its own pool still holds a connection to it, which
 * PostgreSQL refuses ("being accessed by other users"). This one closes the pool first and drops
 * WITH (FORCE).
 */
type Fields = ReturnType<typeof connectionFields>;
const poolFor = (fields: Fields) => {
  const pool = new pg.Pool({ ...fields, Client: CatalogAsTextClient } as pg.PoolConfig);
  // Dropping the shadow database cuts its idle connections: not an error of the command.
  pool.on('error', () => {});
  return pool;
};

class PrismaPgWithShadow extends PrismaPg {
  constructor(private readonly fields: Fields) {
    super(poolFor(fields));
  }

  override async connectToShadowDb() {
    const main = await this.connect();
    const database = `prisma_shadow_${randomUUID().replace(/-/g, '')}`;
    await main.executeScript(`CREATE DATABASE "${database}"`);
    const shadowPool = poolFor({ ...this.fields, database });
    const shadow = await new PrismaPg(shadowPool).connect();
    const dispose = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await dispose();
      await shadowPool.end();
      await main.executeScript(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    };
    return shadow;
  }
}

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: path.join(import.meta.dirname, 'schema.prisma'),
  migrations: { path: path.join(import.meta.dirname, 'migrations') },
  async adapter() {
    return new PrismaPgWithShadow(connectionFields());
  },
});
