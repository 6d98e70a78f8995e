import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../src/db/connection.ts';
import type { Client } from './helpers.ts';

/**
 * A person with a row in every table that holds a person's data (features/privacy/person-tables.ts): made through
 * the API where it can be, the rest written as the features write them. The person is mid-flow (a waiting run) and
 * mid-send (a pending delivery). Rows go in as the database owner, beside the app's own.
 */
export async function seedPerson(db: Database, client: Client, accountId: number, email: string) {
  const created = await client.post('/v1/people/?source=manual', { email, firstName: 'Erin', tags: 'vip' });
  expect(created.status).toBe(201);
  const p = created.body.user.id as number;
  const a = accountId;
  const one = async <T>(query: ReturnType<typeof sql<T>>) => (await query.execute(db)).rows[0]!;
  await sql`insert into events (account_id, person_id, type, name, data) values
    (${a}, ${p}, 'custom', 'Upgraded', '{"plan":"pro"}'),
    (${a}, ${p}, 'email', 'opened', '{"broadcastId":1,"emailId":1}')`.execute(db);
  const segment = await one(
    sql<{ id: string }>`insert into segments (account_id, name) values (${a}, ${`Seg ${p}`}) returning id`,
  );
  await sql`insert into segment_members (account_id, segment_id, person_id) values (${a}, ${segment.id}, ${p})`.execute(
    db,
  );
  await sql`insert into segment_dirty_people (account_id, person_id) values (${a}, ${p})`.execute(db);
  await sql`insert into people_search (account_id, person_id, search) values (${a}, ${p}, ${email})
    on conflict do nothing`.execute(db);
  const flow = await one(sql<{ id: string }>`insert into flows (account_id) values (${a}) returning id`);
  const run = await one(
    sql<{ id: string }>`insert into flow_runs (account_id, flow_id, person_id, status, step_id, wake_at)
      values (${a}, ${flow.id}, ${p}, 'waiting', 1, now() + interval '1 day') returning id`,
  );
  await sql`insert into flow_conversions (account_id, run_id, flow_id, person_id) values (${a}, ${run.id}, ${flow.id}, ${p})`.execute(
    db,
  );
  await sql`insert into flow_trigger_fires (account_id, step_id, person_id, fire_on) values (${a}, 1, ${p}, current_date)`.execute(
    db,
  );
  await sql`insert into flow_webhook_calls (account_id, idempotency_key, flow_id, step_id, run_id, person_id, url, payload)
    values (${a}, ${`k-${p}`}, ${flow.id}, 1, ${run.id}, ${p}, 'https://hooks.example.com/flow',
      ${JSON.stringify({ email })}::jsonb)`.execute(db);
  const endpoint = await one(
    sql<{ id: string }>`insert into webhook_endpoints (account_id, url, events, enabled)
      values (${a}, 'https://hooks.example.com/out', '{person.updated}', false) returning id`,
  );
  await sql`insert into webhook_events (account_id, endpoint_id, type, data) values
    (${a}, ${endpoint.id}, 'person.updated', jsonb_build_object('id', ${p}::bigint, 'email', ${email}::text)),
    (${a}, ${endpoint.id}, 'tag.added', jsonb_build_object('tag', 'vip', 'person', jsonb_build_object('id', ${p}::bigint)))`.execute(
    db,
  );
  await sql`insert into deliveries (account_id, source_kind, source_id, person_id, email_id, to_address, status)
    values (${a}, 'broadcast', 1, ${p}, 1, ${email}, 'pending'), (${a}, 'broadcast', 2, ${p}, 1, ${email}, 'sent')`.execute(
    db,
  );
  const category = await one(
    sql<{ id: string }>`select id from communication_categories where account_id = ${a} order by id limit 1`,
  );
  await sql`insert into communication_preferences (account_id, person_id, category_id, value)
    values (${a}, ${p}, ${category.id}, 'optOut')`.execute(db);
  await sql`insert into suppressions (account_id, email, reason, source) values (${a}, ${email.toLowerCase()}, 'manual', 'test')`.execute(
    db,
  );
  await sql`insert into suppression_history (account_id, email, action, reason, source)
    values (${a}, ${email.toLowerCase()}, 'added', 'manual', 'test')`.execute(db);
  await sql`insert into transactional_sends (account_id, request_hash, email_id, to_address, subject, category_id)
    values (${a}, ${`h-${p}`}, 1, ${email}, 'Your receipt', ${category.id})`.execute(db);
  await sql`insert into site_visitors (account_id, anonymous_id, person_id) values (${a}, ${`anon-${p}`}, ${p})`.execute(
    db,
  );
  await sql`insert into consent_records (account_id, person_id, action, source, consent_text)
    values (${a}, ${p}, 'subscribe', 'form', 'Send me the newsletter')`.execute(db);
  await sql`insert into tracking_identities (account_id, anonymous_id, person_id) values (${a}, ${`device-${p}`}, ${p})`.execute(
    db,
  );
  await sql`insert into email_metric_firsts (account_id, source_kind, source_id, email_id, step_id, person_id, name, first_at, variant)
    values (${a}, 'broadcast', 1, 1, '', ${p}, 'opened', now(), 0)`.execute(db);
  await sql`insert into email_metric_queue (account_id, event_id, person_id, name, at, source_kind, source_id, email_id, step_id, variant, machine)
    values (${a}, 0, ${p}, 'opened', now(), 'broadcast', 1, 1, '', 0, false)`.execute(db);
  return { id: p, email, runId: Number(run.id) };
}

/** The columns that name a person: their id, or an address. */
export const personColumns = ['person_id', 'email', 'to_address'];

/** Tables of the public schema with a person column, and those columns. */
export async function tablesWithPersonColumns(db: Database): Promise<Map<string, string[]>> {
  const { rows } = await sql<{ table: string; columns: string[] }>`
    select c.table_name as table, array_agg(c.column_name::text order by c.column_name) as columns
    from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = 'public' and t.table_type = 'BASE TABLE' and c.column_name = any(${personColumns})
    group by c.table_name`.execute(db);
  return new Map(rows.map((r) => [r.table, r.columns]));
}

/** Rows of `table` that still name the person (by id or address, per its columns). */
export async function rowsNaming(
  db: Database,
  table: string,
  columns: string[],
  accountId: number,
  person: { id: number; email: string },
): Promise<number> {
  const tests = columns.map((column) =>
    column === 'person_id'
      ? sql`person_id = ${person.id}`
      : sql`lower(${sql.ref(column)}) = ${person.email.toLowerCase()}`,
  );
  const { rows } = await sql<{ n: string }>`select count(*)::text as n from ${sql.table(table)}
    where account_id = ${accountId} and (${sql.join(tests, sql` or `)})`.execute(db);
  return Number(rows[0]!.n);
}
