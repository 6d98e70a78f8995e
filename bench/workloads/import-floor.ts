import { sql } from 'kysely';
import type { Database } from '../../apps/server/src/db/connection.ts';
import { ensureBenchData } from './bench-data.ts';
import { newDomain, rows } from './import-1m.ts';
import { checkpoint, round1, startBench, unbounded } from './lib.ts';

const batchRows = 100_000;
const lanes = 2;
const schema = 'bench_floor';

/**
 * Copy the 1M-people account into a scratch table that keeps only the two indexes an import cannot do
 * without (primary key, unique email), and stage a million rows shaped like import-1m's file: even
 * rows are the first 500,000 people by id with new values, odd rows are new people.
 */
async function prepare(db: Database, accountId: number): Promise<void> {
  await unbounded(db, async (trx) => {
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(trx);
    await sql`create schema ${sql.id(schema)}`.execute(trx);
    await sql`create table ${sql.id(schema, 'people')} (like public.people including defaults including identity including generated)`.execute(
      trx,
    );
    const copied = await sql`insert into ${sql.id(schema, 'people')}
        (account_id, id, email, first_name, last_name, phone, company, website, external_id, anonymous_id, fields, tags, created_at, updated_at)
      overriding system value
      select account_id, id, email, first_name, last_name, phone, company, website, external_id, anonymous_id, fields, tags, created_at, updated_at
      -- An earlier import-1m run leaves its new people in the account until its next run puts the account back.
      from public.people where account_id = ${accountId} and (email_key is null or email_key not like ${`%@${newDomain}`})
      order by id`.execute(trx);
    console.log(`  copied ${Number(copied.numAffectedRows ?? 0)} people`);
    await sql`alter table ${sql.id(schema, 'people')} add primary key (account_id, id)`.execute(trx);
    await sql`create unique index on ${sql.id(schema, 'people')} (account_id, email_key) where email_key is not null`.execute(
      trx,
    );
    await sql`select setval(pg_get_serial_sequence(${`${schema}.people`}, 'id'), (select max(id) from public.people))`.execute(
      trx,
    );
    await sql`create unlogged table ${sql.id(schema, 'staging')} as
      with existing as (
        select email, row_number() over (order by id) as k from ${sql.id(schema, 'people')} where email is not null order by id limit ${rows / 2}
      )
      select g as row_no, lower(coalesce(e.email, 'imp-' || g || ${`@${newDomain}`})) as email,
        'First' || (g % 997) as first_name, 'Last' || (g % 991) as last_name, '+1 555 ' || lpad(g::text, 7, '0') as phone,
        'Company ' || (g % 5000) || ', Inc.' as company, 'https://site' || (g % 9000) || '.example' as website,
        jsonb_build_object('city', (array['Berlin', 'Lisbon', 'Austin', 'Osaka'])[1 + g % 4], 'plan_tier', 'pro', 'score', g % 1000,
          'signed_up', '2025-03-04T00:00:00.000Z', 'newsletter', g % 3 = 0) as fields,
        case when g % 4 = 0 then array['imported', 'csv', 'bench-import'] else array['imported', 'bench-import'] end as tags
      from generate_series(1, ${rows}) g left join existing e on g % 2 = 0 and e.k = g / 2`.execute(trx);
    await sql`alter table ${sql.id(schema, 'staging')} add primary key (row_no)`.execute(trx);
  });
  await db.connection().execute(async (conn) => {
    await sql`set statement_timeout = 0`.execute(conn);
    await sql`vacuum (analyze) ${sql.id(schema, 'people')}`.execute(conn);
    await sql`analyze ${sql.id(schema, 'staging')}`.execute(conn);
    await sql`reset statement_timeout`.execute(conn);
  });
}

/** The barest merge of one batch: update the people found by email, insert the others. No change checks, no conflict handling. */
async function mergeBatch(
  db: Database,
  accountId: number,
  from: number,
  to: number,
): Promise<{ updated: number; created: number; updateSeconds: number; insertSeconds: number }> {
  return unbounded(db, async (trx) => {
    // The import's planner settings: each staged row reaches its person through the email index.
    await sql`select set_config('jit', 'off', true), set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true), set_config('enable_seqscan', 'off', true)`.execute(
      trx,
    );
    const t0 = performance.now();
    const updated =
      await sql`update ${sql.id(schema, 'people')} p set first_name = s.first_name, last_name = s.last_name, phone = s.phone,
        company = s.company, website = s.website, fields = p.fields || s.fields, tags = p.tags || s.tags, updated_at = now()
      from ${sql.id(schema, 'staging')} s
      where s.row_no > ${from} and s.row_no <= ${to} and p.account_id = ${accountId} and p.email_key = s.email`.execute(
        trx,
      );
    const t1 = performance.now();
    const created =
      await sql`insert into ${sql.id(schema, 'people')} (account_id, email, first_name, last_name, phone, company, website, fields, tags)
      select ${accountId}, s.email, s.first_name, s.last_name, s.phone, s.company, s.website, s.fields, s.tags
      from ${sql.id(schema, 'staging')} s
      where s.row_no > ${from} and s.row_no <= ${to}
        and not exists (select 1 from ${sql.id(schema, 'people')} p where p.account_id = ${accountId} and p.email_key = s.email)`.execute(
        trx,
      );
    return {
      updated: Number(updated.numAffectedRows ?? 0),
      created: Number(created.numAffectedRows ?? 0),
      updateSeconds: (t1 - t0) / 1000,
      insertSeconds: (performance.now() - t1) / 1000,
    };
  });
}

/**
 * `import-floor`: the least the merge of import-1m's million rows (half updates, half inserts, into the
 * 1M-people account as import-1m puts it back before it runs) can cost this machine's PostgreSQL. It
 * runs the barest update and insert, in batches of 100,000 on two connections with the import's planner
 * settings, against a copy of the account's people that has only the primary key and the unique email
 * index: no search or tags index, no foreign key, no triggers, no row-level security, no change checks.
 * The import does all of that on top, and parses the file before, so its time cannot fall below this
 * figure (seconds).
 */
export async function importFloor(): Promise<{ figure: number; unit: string }> {
  const bench = await startBench();
  try {
    const { accountId } = await ensureBenchData(bench);
    console.log('  preparing a copy of the account with only the primary key and the unique email index');
    await prepare(bench.db, accountId);
    await checkpoint(bench.db);
    const started = performance.now();
    let next = 0;
    let updated = 0;
    let created = 0;
    const lane = async () => {
      while (next * batchRows < rows) {
        const b = next++;
        const r = await mergeBatch(bench.db, accountId, b * batchRows, (b + 1) * batchRows);
        updated += r.updated;
        created += r.created;
        console.log(
          `  batch ${b + 1}: ${r.updated} updated in ${round1(r.updateSeconds)} s, ${r.created} created in ${round1(r.insertSeconds)} s`,
        );
      }
    };
    await Promise.all(Array.from({ length: lanes }, lane));
    const seconds = (performance.now() - started) / 1000;
    console.log(`  ${updated} updated and ${created} created in all`);
    return { figure: round1(seconds), unit: 's' };
  } finally {
    await unbounded(bench.db, (trx) =>
      sql`drop schema if exists ${sql.id(schema)} cascade`.execute(trx),
    ).catch(() => undefined);
    await bench.stop();
  }
}
