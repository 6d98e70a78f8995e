import { sql } from 'kysely';
import { intArray } from '../../db/arrays.ts';
import type { Database } from '../../db/connection.ts';

/** The account's time zone and onboarding map: the days of the growth chart and the getting-started state. */
export function dashboardAccount(db: Database, accountId: number) {
  return db
    .selectFrom('accounts')
    .select(['timezone', 'onboarding'])
    .where('id', '=', accountId)
    .executeTakeFirst();
}

export interface PeopleTotals {
  total: number;
  unsubscribed: number;
}

/**
 * People not archived, and how many of them unsubscribed, in one pass over the account's rows (the primary key's
 * account_id prefix finds them; the same count GET /v1/accounts makes for peopleCount).
 */
export async function peopleTotals(db: Database, accountId: number): Promise<PeopleTotals> {
  const row = await db
    .selectFrom('people')
    .select([
      (eb) => eb.fn.countAll<string>().as('total'),
      sql<string>`count(*) filter (where unsubscribed_at is not null)`.as('unsubscribed'),
    ])
    .where('accountId', '=', accountId)
    .where('archivedAt', 'is', null)
    .executeTakeFirstOrThrow();
  return { total: Number(row.total), unsubscribed: Number(row.unsubscribed) };
}

/**
 * People added on each of the last `days` days (today included) in `timeZone`, as 'YYYY-MM-DD' → count; days with
 * nobody are absent. Archived people count on the day they came: growth is about arrivals. The range condition on
 * created_at is served by people_created_idx (migration 0023), so only the period's rows are read.
 */
export async function newPeoplePerDay(
  db: Database,
  accountId: number,
  timeZone: string,
  days: number,
): Promise<Map<string, number>> {
  const { rows } = await sql<{ day: string; n: string }>`
    with bounds as (
      select ((now() at time zone ${timeZone})::date - ${days - 1}::int)::timestamp at time zone ${timeZone} as since
    )
    select to_char((p.created_at at time zone ${timeZone})::date, 'YYYY-MM-DD') as day, count(*) as n
    from people p, bounds b
    where p.account_id = ${accountId} and p.created_at >= b.since
    group by 1
  `.execute(db);
  return new Map(rows.map((row) => [row.day, Number(row.n)]));
}

/** Today in `timeZone`, 'YYYY-MM-DD': the last day of the growth chart. */
export async function todayIn(db: Database, timeZone: string): Promise<string> {
  const { rows } = await sql<{
    today: string;
  }>`select to_char((now() at time zone ${timeZone})::date, 'YYYY-MM-DD') as today`.execute(db);
  return rows[0]!.today;
}

/** Statuses of a broadcast whose mail went out or is going out. */
const sentStatuses = ['sending', 'sent', 'ab-testing', 'ab-test-sending-winner'] as const;

/** The account's latest broadcasts that went out or are going out (not archived), newest start first. */
export function recentSentBroadcasts(db: Database, accountId: number, limit: number) {
  return db
    .selectFrom('broadcasts')
    .select(['id', 'name', 'status', 'startedAt'])
    .where('accountId', '=', accountId)
    .where('archived', '=', false)
    .where('status', 'in', [...sentStatuses])
    .orderBy(sql`started_at desc nulls last`)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export interface BroadcastFigures {
  sent: number;
  opens: number;
  clicks: number;
}

/**
 * Messages sent, and people who opened and who clicked, for each of these broadcasts (all variants together), from
 * the email-metrics rollups (migration 0021): `sent` counts the `sent` event written with each delivery marked sent;
 * unique opens and clicks count a recipient's first human open or click, leaving machine opens out as the Metrics
 * page does. One row per hour with activity, found by email_metrics_hourly_source_idx; no event or delivery row is
 * read. The rollups run a few seconds behind the events.
 */
export async function broadcastRollups(
  db: Database,
  accountId: number,
  ids: number[],
): Promise<Map<number, BroadcastFigures>> {
  if (!ids.length) return new Map();
  const { rows } = await sql<{ broadcast: string; sent: string; opens: string; clicks: string }>`
    select source_id::text as broadcast, sum(sent)::text as sent, sum(unique_opens)::text as opens, sum(unique_clicks)::text as clicks
    from email_metrics_hourly
    where account_id = ${accountId} and source_kind = 'broadcast' and source_id = any(${intArray(ids)}::bigint[])
    group by source_id
  `.execute(db);
  return new Map(
    rows.map((row) => [
      Number(row.broadcast),
      { sent: Number(row.sent), opens: Number(row.opens), clicks: Number(row.clicks) },
    ]),
  );
}
