import type pg from 'pg';

/**
 * Where an import's parsed rows wait for the merge: a table of its own, `import_staging.import_<id>`,
 * made (owner rights) when the parse starts and dropped when the import ends, so a million staged rows
 * leave neither a long delete nor dead rows behind. It is unlogged: staged rows do not go through the
 * WAL twice (once staged, once merged); a PostgreSQL crash empties it, which the job notices (fewer
 * staged rows than it parsed) and answers by parsing the file again. Like every tenant table it carries
 * the account id and lets herald_app see that account's rows only.
 */
export function stagingTable(importId: number): string {
  if (!Number.isSafeInteger(importId) || importId <= 0) throw new Error(`not an import id: ${importId}`);
  return `import_staging.import_${importId}`;
}

/** Make the import's staging table unless it is there; answers whether it was there already. */
export async function ensureStagingTable(pool: pg.Pool, importId: number): Promise<boolean> {
  const table = stagingTable(importId);
  const client = await pool.connect();
  try {
    await client.query('begin');
    // One job runs an import at a time; the lock keeps a retry from racing a job still ending.
    await client.query('select pg_advisory_xact_lock(hashtext($1))', [table]);
    const { rows } = await client.query<{ exists: boolean }>('select to_regclass($1) is not null as exists', [
      table,
    ]);
    if (!rows[0]!.exists) {
      await client.query(`
        create unlogged table ${table} (
          account_id bigint not null,
          row_no integer primary key,
          email text not null,
          email_lower text not null,
          first_name text,
          last_name text,
          phone text,
          company text,
          website text,
          external_id text,
          fields jsonb not null default '{}',
          tags text[] not null default '{}'
        );
        grant select, delete on ${table} to herald_app;
        alter table ${table} enable row level security;
        create policy tenant on ${table} using (account_id = current_setting('herald.account_id', true)::bigint);`);
    }
    await client.query('commit');
    return rows[0]!.exists;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** Empty the import's staging table (its rows were lost or are to be parsed again). */
export async function emptyStagingTable(pool: pg.Pool, importId: number): Promise<void> {
  await pool.query(`truncate ${stagingTable(importId)}`);
}

/** Drop the import's staging table if it is there. */
export async function dropStagingTable(pool: pg.Pool, importId: number): Promise<void> {
  await pool.query(`drop table if exists ${stagingTable(importId)}`);
}

/**
 * Drop the staging tables of imports that ended (done or failed) or no longer exist: a job stopped
 * between marking its import done and dropping the table leaves one behind. Run as each import starts.
 */
export async function sweepStagingTables(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ id: string }>(
    `select substr(c.relname, 8) as id from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'import_staging' and c.relkind = 'r' and c.relname ~ '^import_[0-9]+$'
       and not exists (select 1 from imports i where i.id = substr(c.relname, 8)::bigint and i.status not in ('done', 'failed'))`,
  );
  for (const row of rows) await dropStagingTable(pool, Number(row.id));
}
