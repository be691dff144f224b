import os from 'node:os';

/**
 * Connections in this process's database pool when LECTERN_DB_POOL is not set (config.ts parses it): 4 per core, at least 10, at most 40:
 * PostgreSQL runs one query per connection on one core, so more busy connections than a few per
 * core only queue inside PostgreSQL; 10 leaves room for writers waiting on a lock. 40 stays well
 * under the embedded server's max_connections (200, which also serves CLI commands) and lets two
 * processes share a stock PostgreSQL (max_connections 100); a fleet sets LECTERN_DB_POOL so that
 * processes × pool stays under its server's max_connections.
 */
export function defaultDbPoolSize(): number {
  return Math.min(40, Math.max(10, 4 * os.availableParallelism()));
}
