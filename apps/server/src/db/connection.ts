import { AsyncLocalStorage } from 'node:async_hooks';
import {
  CamelCasePlugin,
  CompiledQuery,
  Kysely,
  PostgresDialect,
  PostgresDriver,
  type DatabaseConnection,
  type Driver,
  type PostgresDialectConfig,
  type TransactionSettings,
} from 'kysely';
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
  const db = new Kysely<DB>({ dialect: new TenantDialect({ pool }), plugins: [new CamelCasePlugin()] });
  return {
    db,
    pool,
    close: async () => {
      await db.destroy();
    },
  };
}

/**
 * The account whose transaction `withAccount` is about to open, taken by the first `begin` in its async context. The
 * begin then sets the account and the role in the same round trip (`begin; select set_config(…)`), one round trip
 * less for every signed-in request (docs/team-and-accounts.md, "Team, scopes and tenancy"). Taken once: a
 * transaction the work opens on another connection begins as the owner, as before.
 */
export const pendingAccount = new AsyncLocalStorage<{ accountId: number; taken: boolean }>();

/** The text that opens an account's transaction: begin, then the account and the role for this transaction only. */
export function beginForAccount(accountId: number): string {
  if (!Number.isSafeInteger(accountId)) throw new Error(`not an account id: ${accountId}`);
  return `begin; select set_config('herald.account_id', '${accountId}', true), set_config('role', 'herald_app', true)`;
}

class TenantDriver extends PostgresDriver {
  override async beginTransaction(
    connection: DatabaseConnection,
    settings: TransactionSettings,
  ): Promise<void> {
    const pending = pendingAccount.getStore();
    if (!pending || pending.taken || settings.isolationLevel || settings.accessMode)
      return super.beginTransaction(connection, settings);
    pending.taken = true;
    await connection.executeQuery(CompiledQuery.raw(beginForAccount(pending.accountId)));
  }
}

class TenantDialect extends PostgresDialect {
  readonly #config: PostgresDialectConfig;
  constructor(config: PostgresDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new TenantDriver(this.#config);
  }
}
