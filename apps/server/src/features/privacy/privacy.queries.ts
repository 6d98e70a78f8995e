import { sql, type RawBuilder } from 'kysely';
import { intArray } from '../../db/arrays.ts';
import type { Database } from '../../db/connection.ts';

type Row = Record<string, unknown>;

/** The person as stored (their own columns, custom fields and tags), or undefined; locked until the transaction ends. */
export async function lockPeople(
  db: Database,
  accountId: number,
  where: { ids: number[] } | { emails: string[] },
): Promise<{ id: number; email: string | null }[]> {
  const match =
    'ids' in where
      ? sql`id = any(${intArray(where.ids)}::bigint[])`
      : sql`email_key = any(${sql.val(where.emails)}::text[])`;
  const { rows } = await sql<{ id: string; email: string | null }>`
    select id, email from people where account_id = ${accountId} and ${match} order by id for update`.execute(
    db,
  );
  return rows.map((r) => ({ id: Number(r.id), email: r.email }));
}

/** snake_case → camelCase, as the API names columns. */
const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/**
 * Rows as JSON objects (dates as ISO text) without the account column every table repeats; the columns named as the
 * API names them, the JSON values inside exactly as stored (sent as text, past the camel-casing of result keys).
 */
async function rows(db: Database, query: RawBuilder<unknown>): Promise<Row[]> {
  const { rows: found } = await sql<{ row: string }>`
    select (to_jsonb(t) - 'account_id')::text as row from (${query}) t`.execute(db);
  return found.map(
    (r) => Object.fromEntries(Object.entries(JSON.parse(r.row) as Row).map(([k, v]) => [camel(k), v])) as Row,
  );
}

/** The webhook outbox's events that name the person (person.created/updated carry the person as `data`). */
const namesPerson = (ids: RawBuilder<unknown>) => sql`(
  (type in ('person.created', 'person.updated') and (data ->> 'id') = any(${ids}::text[]))
  or (data -> 'person' ->> 'id') = any(${ids}::text[]))`;

/**
 * Each table's rows about one person, keyed as the export names them (contracts' PersonExport). Events are not here:
 * they are read through the event store (privacy.service.ts).
 */
export async function personRows(db: Database, accountId: number, personId: number, email: string | null) {
  const a = accountId;
  const p = personId;
  const address = (email ?? '').toLowerCase();
  const ids = sql.val([String(p)]);
  const [person] = await rows(db, sql`select * from people where account_id = ${a} and id = ${p}`);
  return {
    person: Object.fromEntries(Object.entries(person ?? {}).filter(([k]) => k !== 'emailKey')),
    deliveries: await rows(
      db,
      sql`select id, source_kind, source_id, email_id, to_address, variant, status, attempts, message_id, last_error,
            created_at, sent_at, flow_run_id
          from deliveries where account_id = ${a} and person_id = ${p} order by id`,
    ),
    segments: await rows(
      db,
      sql`select s.id as segment_id, s.name, m.entered_at from segment_members m
          join segments s on s.account_id = m.account_id and s.id = m.segment_id
          where m.account_id = ${a} and m.person_id = ${p} order by s.id`,
    ),
    flowRuns: await rows(
      db,
      sql`select r.id, r.flow_id, f.name as flow_name, r.entry, r.status, r.step_id, r.last_error, r.entered_at,
            r.finished_at,
            (select coalesce(jsonb_agg(jsonb_build_object('stepId', s.step_id, 'executedAt', s.executed_at) order by s.seq), '[]')
             from flow_run_steps s where s.account_id = r.account_id and s.run_id = r.id) as steps
          from flow_runs r left join flows f on f.account_id = r.account_id and f.id = r.flow_id
          where r.account_id = ${a} and r.person_id = ${p} order by r.id`,
    ),
    flowConversions: await rows(
      db,
      sql`select run_id, flow_id, converted_at from flow_conversions where account_id = ${a} and person_id = ${p}`,
    ),
    flowWebhookCalls: await rows(
      db,
      sql`select id, flow_id, step_id, run_id, url, payload, status, attempts, response_status, created_at, finished_at
          from flow_webhook_calls where account_id = ${a} and person_id = ${p} order by id`,
    ),
    outgoingWebhookEvents: await rows(
      db,
      sql`select id, endpoint_id, event_id, type, data, created_at from webhook_events
          where account_id = ${a} and ${namesPerson(ids)} order by id`,
    ),
    communicationPreferences: await rows(
      db,
      sql`select c.id as category_id, c.name as category, cp.value, cp.updated_at from communication_preferences cp
          join communication_categories c on c.account_id = cp.account_id and c.id = cp.category_id
          where cp.account_id = ${a} and cp.person_id = ${p} order by c.id`,
    ),
    suppression: await rows(
      db,
      sql`select email, reason, source, note, created_at from suppressions where account_id = ${a} and email = ${address}`,
    ),
    suppressionHistory: await rows(
      db,
      sql`select email, action, reason, source, note, at from suppression_history
          where account_id = ${a} and email = ${address} order by id`,
    ),
    transactionalSends: await rows(
      db,
      sql`select id, email_id, to_address, subject, data, delivery_id, created_at from transactional_sends
          where account_id = ${a} and lower(to_address) = ${address} order by id`,
    ),
    siteVisitors: await rows(
      db,
      sql`select anonymous_id, page_views, first_seen_at, last_seen_at from site_visitors
          where account_id = ${a} and person_id = ${p}`,
    ),
    consentHistory: await rows(
      db,
      sql`select at, action, source, ip, user_agent, consent_text, details from consent_records
          where account_id = ${a} and person_id = ${p} order by at, id`,
    ),
    trackingIdentities: await rows(
      db,
      sql`select anonymous_id from tracking_identities where account_id = ${a} and person_id = ${p} order by anonymous_id`,
    ),
    emailFirstEngagements: await rows(
      db,
      sql`select source_kind, source_id, email_id, step_id, name, first_at, variant from email_metric_firsts
          where account_id = ${a} and person_id = ${p}`,
    ),
  };
}

export interface ErasedCounts {
  flowRunsEnded: number;
  deliveriesCanceled: number;
  webhookCallsCanceled: number;
}

const count = async (db: Database, query: RawBuilder<unknown>) =>
  Number(
    (await sql<{ n: string }>`with done as (${query}) select count(*)::text as n from done`.execute(db))
      .rows[0]?.n ?? 0,
  );

/**
 * Erase these people's rows from every PostgreSQL table that holds them, except `people` itself and the events (the
 * service deletes those last, the events through the event store). One statement a table, in the caller's
 * transaction. Order matters: runs end first (their webhook events are written by the runs' trigger and deleted
 * below), and a send step's deliveries, written by a flow batch that held the runs' locks, are seen once it commits.
 */
export async function erasePeopleRows(
  db: Database,
  accountId: number,
  people: { id: number; email: string | null }[],
): Promise<ErasedCounts> {
  const a = accountId;
  const pids = intArray(people.map((p) => p.id));
  const textIds = sql.val(people.map((p) => String(p.id)));
  const emails = sql.val(people.flatMap((p) => (p.email ? [p.email.toLowerCase()] : [])));
  const flowRunsEnded = await count(
    db,
    sql`update flow_runs set status = 'exited', step_id = null, wake_at = null, lease_until = null,
          finished_at = now(), updated_at = now(), last_error = 'Ended: the person was erased on request'
        where account_id = ${a} and person_id = any(${pids}::bigint[]) and status in ('active', 'waiting')
        returning 1`,
  );
  // Unsent mail is canceled, and so is a claim whose lease ran out (its sender is gone; a sweep would send it again).
  // A delivery a live sender holds keeps its course: its outcome is recorded without a person, so no event names
  // them. Then every delivery of the person keeps its outcome, without the address.
  const theirs = sql`account_id = ${a} and (person_id = any(${pids}::bigint[]) or lower(to_address) = any(${emails}::text[]))`;
  const deliveriesCanceled = await count(
    db,
    sql`update deliveries set status = 'canceled', lease_until = null,
          last_error = 'Canceled: the person was erased on request'
        where ${theirs} and (status = 'pending' or (status = 'sending' and (lease_until is null or lease_until < now())))
        returning 1`,
  );
  await sql`update deliveries set person_id = null, to_address = 'erased@erased.invalid' where ${theirs}`.execute(
    db,
  );
  const webhookCallsCanceled = await count(
    db,
    sql`delete from flow_webhook_calls where account_id = ${a} and person_id = any(${pids}::bigint[])
        and status = 'pending' returning 1`,
  );
  await sql`delete from flow_webhook_calls where account_id = ${a} and person_id = any(${pids}::bigint[])`.execute(
    db,
  );
  await sql`delete from webhook_events where account_id = ${a} and ${namesPerson(textIds)}`.execute(db);
  for (const table of [
    'segment_members',
    'people_search',
    'communication_preferences',
    'site_visitors',
    'tracking_identities',
    'consent_records',
    'flow_trigger_fires',
    'email_metric_firsts',
  ])
    await sql`delete from ${sql.table(table)} where account_id = ${a} and person_id = any(${pids}::bigint[])`.execute(
      db,
    );
  // Queued email events still count in the rollups; they no longer name the person.
  await sql`update email_metric_queue set person_id = null
    where account_id = ${a} and person_id = any(${pids}::bigint[])`.execute(db);
  await sql`delete from suppressions where account_id = ${a} and email = any(${emails}::text[])`.execute(db);
  await sql`delete from suppression_history where account_id = ${a} and email = any(${emails}::text[])`.execute(
    db,
  );
  await sql`delete from transactional_sends where account_id = ${a} and lower(to_address) = any(${emails}::text[])`.execute(
    db,
  );
  return { flowRunsEnded, deliveriesCanceled, webhookCallsCanceled };
}

/** Delete the people, keep each address as its one-way hash (migration 0052), and empty their audit entries' fields. */
export async function deletePeopleKeepingHashes(
  db: Database,
  accountId: number,
  people: { id: number; email: string | null }[],
): Promise<string[]> {
  const a = accountId;
  const emails = people.flatMap((p) => (p.email ? [p.email.toLowerCase()] : []));
  const pids = intArray(people.map((p) => p.id));
  await sql`delete from people where account_id = ${a} and id = any(${pids}::bigint[])`.execute(db);
  // Marks for the segments' refresh, some written by the erase's own changes (a suppression lifted marks the person).
  await sql`delete from segment_dirty_people where account_id = ${a} and person_id = any(${pids}::bigint[])`.execute(
    db,
  );
  const { rows: hashes } = await sql<{ hash: string }>`
    insert into erased_addresses (account_id, address_hash)
    select ${a}, herald_erased_hash(${a}, e) from unnest(${sql.val(emails)}::text[]) as e
    on conflict (account_id, address_hash) do update set erased_at = now()
    returning encode(address_hash, 'hex') as hash`.execute(db);
  await sql`select herald_scrub_audit_people(${a}, ${sql.val(people.map((p) => String(p.id)))}::text[],
    ${sql.val(emails)}::text[])`.execute(db);
  return hashes.map((h) => h.hash);
}

export async function selectEventRetention(db: Database, accountId: number): Promise<number | null> {
  const row = await db
    .selectFrom('accounts')
    .select('eventRetentionMonths')
    .where('id', '=', accountId)
    .executeTakeFirst();
  return row?.eventRetentionMonths ?? null;
}

export async function updateEventRetention(db: Database, accountId: number, months: number | null) {
  await db
    .updateTable('accounts')
    .set({ eventRetentionMonths: months })
    .where('id', '=', accountId)
    .execute();
}

/** Accounts that delete old events, and how many months each keeps (the daily job; owner connection). */
export async function accountsWithEventRetention(db: Database) {
  return db
    .selectFrom('accounts')
    .select(['id', 'eventRetentionMonths'])
    .where('eventRetentionMonths', 'is not', null)
    .orderBy('id')
    .execute();
}
