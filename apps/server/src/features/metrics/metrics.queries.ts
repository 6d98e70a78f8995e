import { sql, type RawBuilder } from 'kysely';
import { intArray } from '../../db/arrays.ts';
import type { Database } from '../../db/connection.ts';

/** Which sent emails a metrics query covers; empty lists mean no restriction. */
export interface MetricsFilter {
  accountId: number;
  start: number;
  end: number;
  broadcastId?: number;
  flowIds: number[];
  emailIds: number[];
  stepIds: string[];
}

/** Summed counters of rollup rows, as Postgres returns them (bigint sums arrive as strings). */
export interface CounterRow {
  sent: string;
  opened: string;
  clicked: string;
  uniqueOpens: string;
  uniqueClicks: string;
  unsubscribed: string;
  bounced: string;
  complained: string;
}

const sums = sql`
  sum(sent)::text as sent, sum(opened)::text as opened, sum(clicked)::text as clicked,
  sum(unique_opens)::text as "uniqueOpens", sum(unique_clicks)::text as "uniqueClicks",
  sum(unsubscribed)::text as unsubscribed, sum(bounced)::text as bounced, sum(complained)::text as complained`;

/** Whether a filter names sources, emails or steps; without, the account-wide rollups answer. */
const isFiltered = (f: MetricsFilter) =>
  f.broadcastId !== undefined || f.flowIds.length > 0 || f.emailIds.length > 0 || f.stepIds.length > 0;

/** The where clause of a filter over a rollup table (hour is the UTC hour a row counts). */
function where(f: MetricsFilter): RawBuilder<unknown> {
  const parts = [
    sql`account_id = ${f.accountId}`,
    sql`hour >= ${new Date(f.start)}`,
    sql`hour < ${new Date(f.end)}`,
  ];
  const sources: RawBuilder<unknown>[] = [];
  if (f.broadcastId !== undefined)
    sources.push(sql`(source_kind = 'broadcast' and source_id = ${f.broadcastId})`);
  if (f.flowIds.length)
    sources.push(sql`(source_kind = 'flow' and source_id = any(${intArray(f.flowIds)}::bigint[]))`);
  if (sources.length) parts.push(sql`(${sql.join(sources, sql` or `)})`);
  if (f.emailIds.length) parts.push(sql`email_id = any(${intArray(f.emailIds)}::bigint[])`);
  if (f.stepIds.length) parts.push(sql`step_id = any(${f.stepIds}::text[])`);
  return sql.join(parts, sql` and `);
}

/**
 * Counters per bucket of the period (buckets given by their starts, in order), summed in the database: an hour counts
 * in the bucket it starts in. Unfiltered, from the account-wide rollup (one row per hour). Only buckets with
 * activity come back, `bucket` being the index into `starts`.
 */
export async function bucketCounters(db: Database, f: MetricsFilter, starts: number[]) {
  const table = isFiltered(f) ? sql`email_metrics_hourly` : sql`email_metrics_account_hourly`;
  const { rows } = await sql<CounterRow & { bucket: number }>`
    select width_bucket(hour, ${sql.val(starts.map((ms) => new Date(ms)))}::timestamptz[]) - 1 as bucket, ${sums}
    from ${table} where ${where(f)} group by 1 order by 1`.execute(db);
  return rows;
}

/** Counters per email, with the email's name. */
export async function emailCounters(db: Database, f: MetricsFilter) {
  const { rows } = await sql<CounterRow & { emailId: string; name: string | null }>`
    select m.*, e.name from (select email_id::text as "emailId", ${sums} from email_metrics_hourly where ${where(f)} group by email_id) m
    left join emails e on e.account_id = ${f.accountId} and e.id = m."emailId"::bigint
    order by m.sent::bigint desc, m."emailId"::bigint`.execute(db);
  return rows;
}

/** Counters per A/B variant. */
export async function variantCounters(db: Database, f: MetricsFilter) {
  const { rows } = await sql<CounterRow & { variant: number }>`
    select variant, ${sums} from email_metrics_hourly where ${where(f)} group by variant order by variant`.execute(
    db,
  );
  return rows;
}

const day = 86_400_000;

/**
 * The account's clicks per link in a period: whole UTC days from the daily table, the hours before the first and
 * after the last whole day from the hourly one.
 */
function accountLinkRows(f: MetricsFilter): RawBuilder<unknown> {
  const firstDay = Math.ceil(f.start / day) * day;
  const endDay = Math.floor(f.end / day) * day;
  if (firstDay >= endDay) return sql`select link, clicks from email_metrics_account_links where ${where(f)}`;
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return sql`
    select link, clicks from email_metrics_account_links_daily
    where account_id = ${f.accountId} and day >= ${iso(firstDay)}::date and day < ${iso(endDay)}::date
    union all
    select link, clicks from email_metrics_account_links
    where account_id = ${f.accountId} and ((hour >= ${new Date(f.start)} and hour < ${new Date(firstDay)}) or (hour >= ${new Date(endDay)} and hour < ${new Date(f.end)}))`;
}

/** Clicks per link, most clicked first. */
export async function linkClicks(db: Database, f: MetricsFilter, limit = 100) {
  const { rows } = isFiltered(f)
    ? await sql<{ link: string; clicks: string }>`
        select link, sum(clicks)::text as clicks from email_metrics_links where ${where(f)}
        group by link order by sum(clicks) desc, link limit ${limit}`.execute(db)
    : await sql<{ link: string; clicks: string }>`
        select link, sum(clicks)::text as clicks from (${accountLinkRows(f)}) rows
        group by link order by sum(clicks) desc, link limit ${limit}`.execute(db);
  return rows;
}

/**
 * Where the email metrics are read from: PostgreSQL's rollups (above), or ClickHouse's on EVENT_STORE=clickhouse
 * (metrics-clickhouse.queries.ts). Both answer in the same shapes, and the same figures (test/metrics-parity.test.ts).
 */
export interface MetricsReader {
  bucketCounters(f: MetricsFilter, starts: number[]): Promise<(CounterRow & { bucket: number })[]>;
  emailCounters(f: MetricsFilter): Promise<(CounterRow & { emailId: string; name: string | null })[]>;
  variantCounters(f: MetricsFilter): Promise<(CounterRow & { variant: number })[]>;
  linkClicks(f: MetricsFilter, limit?: number): Promise<{ link: string; clicks: string }[]>;
}

export function postgresMetrics(db: Database): MetricsReader {
  return {
    bucketCounters: (f, starts) => bucketCounters(db, f, starts),
    emailCounters: (f) => emailCounters(db, f),
    variantCounters: (f) => variantCounters(db, f),
    linkClicks: (f, limit) => linkClicks(db, f, limit),
  };
}

/** The account's time zone as Postgres knows it; UTC when unset or unknown. */
export async function accountTimeZone(db: Database, accountId: number): Promise<string> {
  const { rows } = await sql<{
    timeZone: string | null;
  }>`select timezone as "timeZone" from accounts where id = ${accountId}`.execute(db);
  return rows[0]?.timeZone || 'UTC';
}
