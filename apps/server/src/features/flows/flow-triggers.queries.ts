import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../db/connection.ts';

/**
 * SQL of the scheduled triggers (/time, /dateFieldTrigger, /annualTrigger). Each fires set-wise: one statement
 * records the people whose moment has come in `flow_trigger_fires` (once per step, person and date) and enters
 * them through herald_flow_enter, by the flow's re-entry rule. Events and tag changes enter people from the
 * database triggers of migration 0026 instead.
 */

export interface ScheduledTrigger {
  accountId: number;
  flowId: number;
  stepId: number;
  operationKey: '/time' | '/dateFieldTrigger' | '/annualTrigger';
  inputFields: unknown;
  activatedAt: Date | null;
}

/** Active flows' scheduled triggers (owner connection: every account). */
export async function scheduledTriggers(db: Database): Promise<ScheduledTrigger[]> {
  const { rows } = await sql<{
    accountId: string;
    flowId: string;
    stepId: string;
    operationKey: ScheduledTrigger['operationKey'];
    inputFields: unknown;
    activatedAt: Date | null;
  }>`
    select s.account_id as "accountId", s.flow_id as "flowId", s.id as "stepId", s.operation_key as "operationKey", s.input_fields as "inputFields",
      f.activated_at as "activatedAt"
    from flow_steps s join flows f on f.account_id = s.account_id and f.id = s.flow_id
    join accounts a on a.id = s.account_id and a.deleting_at is null
    where s.type = 'trigger' and s.operation_key in ('/time', '/dateFieldTrigger', '/annualTrigger') and f.status = 'active' and not f.archived`.execute(
    db,
  );
  return rows.map((r) => ({
    ...r,
    accountId: Number(r.accountId),
    flowId: Number(r.flowId),
    stepId: Number(r.stepId),
  }));
}

/** The person's time zone when PostgreSQL knows it, else the account's, else UTC (`p` is the person). */
const personZone = (accountId: number) => sql`coalesce(
  (select z.name from pg_timezone_names z where z.name = nullif(p.fields->>'timezone', '')),
  (select z.name from pg_timezone_names z join accounts a on a.timezone = z.name where a.id = ${accountId}),
  'UTC')`;

/** Record fires for `people` (rows person_id, fire_on) and enter them; returns how many runs started. */
async function fire(db: Database, t: ScheduledTrigger, people: RawBuilder<unknown>): Promise<number> {
  const { rows } = await sql<{ n: number | null }>`
    with candidates as (${people}),
    fired as (
      insert into flow_trigger_fires (account_id, step_id, person_id, fire_on)
      select ${t.accountId}, ${t.stepId}, c.person_id, c.fire_on from candidates c
      on conflict do nothing
      returning person_id
    )
    select herald_flow_enter(coalesce((select jsonb_agg(jsonb_build_array(${t.accountId}::bigint, ${t.flowId}::bigint, person_id, ${t.stepId}::bigint)) from fired), '[]')) as n`.execute(
    db,
  );
  return rows[0]?.n ?? 0;
}

/** /time: everyone in the audience (a segment's condition, or everyone not archived) once its moment has come. */
export function fireTime(
  db: Database,
  t: ScheduledTrigger,
  at: Date,
  audience: RawBuilder<SqlBool>,
): Promise<number> {
  return fire(
    db,
    t,
    sql`
    select p.id as person_id, (${at}::timestamptz at time zone 'UTC')::date as fire_on from people p
    where p.account_id = ${t.accountId} and p.archived_at is null and ${audience} and now() >= ${at}::timestamptz`,
  );
}

/** The calendar date of a person's date field: a date as written, a time as its date in the person's zone. */
const fieldDate = (field: string) => sql`(case
  when p.fields->>${field}::text ~ '^\\d{4}-\\d{2}-\\d{2}$' then herald_to_timestamptz(p.fields->>${field}::text)::date
  else (herald_to_timestamptz(p.fields->>${field}::text) at time zone z.zone)::date end)`;

/**
 * /dateFieldTrigger and /annualTrigger: people whose moment (the field's date shifted by offsetDays, or its
 * anniversary this year, at `time` in their zone) fell within the last day and after the flow was switched on.
 */
export function fireDates(
  db: Database,
  t: ScheduledTrigger,
  field: string,
  time: string,
  offsetDays: number | null,
): Promise<number> {
  // The anniversary in the year of the local date a day ago and today; 29 February falls on 28 February in other years.
  const firstOfMonth = sql`make_date(extract(year from y.local_day)::int, extract(month from f.fd)::int, 1)`;
  const day =
    offsetDays !== null
      ? sql`(f.fd + ${offsetDays}::int)`
      : sql`(${firstOfMonth} + (least(extract(day from f.fd)::int, extract(day from (${firstOfMonth} + interval '1 month - 1 day'))::int) - 1))`;
  const years =
    offsetDays !== null
      ? sql`(select (now() at time zone z.zone)::date as local_day) y`
      : sql`(select (now() at time zone z.zone)::date as local_day union select ((now() - interval '1 day') at time zone z.zone)::date) y`;
  return fire(
    db,
    t,
    sql`
    select distinct d.person_id, d.fire_on from (
      select p.id as person_id, ${day} as fire_on, z.zone
      from people p
      cross join lateral (select ${personZone(t.accountId)} as zone) z
      cross join lateral (select ${fieldDate(field)} as fd) f
      cross join lateral ${years}
      where p.account_id = ${t.accountId} and p.archived_at is null and p.fields ? ${field}::text
    ) d
    where d.fire_on is not null
      and ((d.fire_on + ${time}::time) at time zone d.zone) <= now()
      and ((d.fire_on + ${time}::time) at time zone d.zone) > greatest(now() - interval '1 day', ${t.activatedAt ?? new Date(0)}::timestamptz)`,
  );
}
