import { CamelCasePlugin, Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.generated.ts';

// bigint ids and counts arrive as numbers: account sizes stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Database = Kysely<DB>;

export interface DatabaseHandle {
  url?: string;
  db: Database;
  pool: pg.Pool;
  close(): Promise<void>;
}

/**
 * Open a pool and a Kysely instance over it (snake_case tables, camelCase in code). Statements time
 * out after 30 s by default so a runaway query cannot hold a request; migrations pass 0 (no limit).
 */
export function openDatabase(url: string, max = 10, statementTimeoutMs = 30_000): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
  } as pg.PoolConfig);
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), plugins: [new CamelCasePlugin()] });
  return {
    db,
    pool,
    close: async () => {
      await db.destroy();
    },
  };
}
