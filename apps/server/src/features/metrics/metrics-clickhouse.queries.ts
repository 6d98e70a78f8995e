import { sql } from 'kysely';
import type { ClickHouse, Params } from '../../db/clickhouse.ts';
import { clickhouseTime } from '../../db/clickhouse-schema.ts';
import type { Database } from '../../db/connection.ts';
import type { ClickHouseReads } from '../../db/event-store.ts';
import type { CounterRow, MetricsFilter, MetricsReader } from './metrics.queries.ts';

const at = (ms: number) => clickhouseTime(new Date(ms));

/** The filter's conditions on a rollup of ClickHouse (its columns are those of PostgreSQL's rollups), with its values. */
function filterOf(f: MetricsFilter): { where: string[]; params: Params } {
  const params: Params = { a: f.accountId };
  const where = ['account_id = {a:UInt64}'];
  const sources: string[] = [];
  if (f.broadcastId !== undefined) {
    params.broadcast = f.broadcastId;
    sources.push(`(source_kind = 'broadcast' AND source_id = {broadcast:Int64})`);
  }
  if (f.flowIds.length) {
    params.flows = f.flowIds;
    sources.push(`(source_kind = 'flow' AND has({flows:Array(Int64)}, source_id))`);
  }
  if (sources.length) where.push(`(${sources.join(' OR ')})`);
  if (f.emailIds.length) {
    params.emails = f.emailIds;
    where.push('has({emails:Array(Int64)}, email_id)');
  }
  if (f.stepIds.length) {
    params.steps = f.stepIds;
    where.push('has({steps:Array(String)}, step_id)');
  }
  return { where, params };
}

/**
 * The hourly counts in the period's hours, with `key` (a column of the rollup) as `k` (`hour` as itself). Unique opens
 * and clicks are in the hour of each recipient's first, as in PostgreSQL's rollup (clickhouse-firsts.ts).
 */
function periodRows(
  f: MetricsFilter,
  key: 'hour' | 'email_id' | 'variant',
): { query: string; params: Params } {
  const { where, params } = filterOf(f);
  params.start = at(f.start);
  params.end = at(f.end);
  const query = `
    SELECT ${key === 'hour' ? 'hour' : `${key} AS k`}, sent AS c_sent, opened AS c_opened, clicked AS c_clicked,
      unique_opens AS c_unique_opens, unique_clicks AS c_unique_clicks, unsubscribed AS c_unsubscribed,
      bounced AS c_bounced, complained AS c_complained
    FROM email_metrics_hourly
    WHERE ${[...where, `hour >= {start:DateTime64(3, 'UTC')} AND hour < {end:DateTime64(3, 'UTC')}`].join(' AND ')}`;
  return { query, params };
}

/** The counters, as the rollup names them. */
const counters = [
  'sent',
  'opened',
  'clicked',
  'unique_opens',
  'unique_clicks',
  'unsubscribed',
  'bounced',
  'complained',
] as const;
const camel = (name: string) => name.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());
/** Each counter summed over columns named `<prefix>_<counter>`, as the text PostgreSQL's sums arrive as. */
const sumsOf = (prefix: string) =>
  counters.map((c) => `toString(sum(${prefix}_${c})) AS ${camel(c)}`).join(', ');
const sums = sumsOf('c');

/** The email metrics from ClickHouse's rollups (EVENT_STORE=clickhouse; docs/scaling.md, "Email metrics on ClickHouse"). */
export function clickhouseMetrics(reads: ClickHouseReads, db: Database): MetricsReader {
  const rows = <T>(query: string, params: Params) =>
    reads.read((ch: ClickHouse) => ch.rows<T>(query, params));
  return {
    bucketCounters(f, starts) {
      const { query, params } = periodRows(f, 'hour');
      params.starts = starts.map(at);
      // Summed by hour first: the bucket (a count of the starts at or before the hour) is then looked up once per
      // hour with activity instead of once per rollup row (a year's rows of a busy account, each against 365 starts).
      return rows<CounterRow & { bucket: number }>(
        `SELECT arrayCount(s -> s <= hour, {starts:Array(DateTime64(3, 'UTC'))}) - 1 AS bucket, ${sumsOf('h')}
         FROM (SELECT hour, ${counters.map((c) => `sum(c_${c}) AS h_${c}`).join(', ')} FROM (${query}) GROUP BY hour)
         GROUP BY bucket ORDER BY bucket`,
        params,
      );
    },

    async emailCounters(f) {
      const { query, params } = periodRows(f, 'email_id');
      const counters = await rows<CounterRow & { emailId: string }>(
        `SELECT toString(k) AS emailId, ${sums} FROM (${query}) GROUP BY k ORDER BY sum(c_sent) DESC, k`,
        params,
      );
      if (counters.length === 0) return [];
      const { rows: names } = await sql<{ id: string; name: string | null }>`
        select id::text as id, name from emails
        where account_id = ${f.accountId} and id = any(${counters.map((c) => c.emailId)}::bigint[])`.execute(
        db,
      );
      const nameOf = new Map(names.map((n) => [n.id, n.name]));
      return counters.map((c) => ({ ...c, name: nameOf.get(c.emailId) ?? null }));
    },

    variantCounters(f) {
      const { query, params } = periodRows(f, 'variant');
      return rows<CounterRow & { variant: number }>(
        `SELECT k AS variant, ${sums} FROM (${query}) GROUP BY k ORDER BY k`,
        params,
      );
    },

    linkClicks(f, limit = 100) {
      const { where, params } = filterOf(f);
      params.start = at(f.start);
      params.end = at(f.end);
      params.limit = limit;
      return rows<{ link: string; total: string }>(
        `SELECT link, toString(sum(clicks)) AS total FROM email_metrics_links
         WHERE ${[...where, `hour >= {start:DateTime64(3, 'UTC')} AND hour < {end:DateTime64(3, 'UTC')}`].join(' AND ')}
         GROUP BY link ORDER BY sum(clicks) DESC, link LIMIT {limit:UInt32}`,
        params,
      ).then((found) => found.map((r) => ({ link: r.link, clicks: r.total })));
    },
  };
}
