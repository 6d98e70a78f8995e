import {
  defaultMetricsPreset,
  metricsMessages,
  type EmailFigures,
  type EmailStatsQuery,
  type EmailStatsResponse,
} from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { badRequest } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { bucketsOf, customPeriod, presetPeriod, type Period } from './metric-periods.ts';
import type { EventStore } from '../../db/event-store.ts';
import { clickhouseMetrics } from './metrics-clickhouse.queries.ts';
import {
  accountTimeZone,
  postgresMetrics,
  type CounterRow,
  type MetricsFilter,
  type MetricsReader,
} from './metrics.queries.ts';

const zero = (): Omit<EmailFigures, 'delivered' | 'openRate' | 'clickRate'> => ({
  sent: 0,
  opened: 0,
  clicked: 0,
  uniqueOpens: 0,
  uniqueClicks: 0,
  unsubscribed: 0,
  bounced: 0,
  complained: 0,
});
type Counters = ReturnType<typeof zero>;

const countersOf = (row: CounterRow): Counters => ({
  sent: Number(row.sent),
  opened: Number(row.opened),
  clicked: Number(row.clicked),
  uniqueOpens: Number(row.uniqueOpens),
  uniqueClicks: Number(row.uniqueClicks),
  unsubscribed: Number(row.unsubscribed),
  bounced: Number(row.bounced),
  complained: Number(row.complained),
});

function add(into: Counters, more: Counters): void {
  for (const key of Object.keys(into) as (keyof Counters)[]) into[key] += more[key];
}

const rate = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : 0);

/** Delivered is sent less hard bounces; rates are unique opens and clicks over delivered, as fractions. */
export function figuresOf(c: Counters): EmailFigures {
  const delivered = Math.max(0, c.sent - c.bounced);
  return {
    ...c,
    delivered,
    openRate: rate(c.uniqueOpens, delivered),
    clickRate: rate(c.uniqueClicks, delivered),
  };
}

/** A time zone Intl knows, spelt as Intl spells it (the query's zod schema has already refused unknown ones). */
function canonicalZone(timeZone: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
  } catch {
    throw badRequest(metricsMessages.unknownTimeZone);
  }
}

/** The period a query asks for: its dates when it has any, else its preset (last 30 days by default). */
export function periodOf(query: EmailStatsQuery, now: number, timeZone: string): Period {
  if (query.startDate === undefined && query.endDate === undefined)
    return presetPeriod(query.period ?? defaultMetricsPreset, now, timeZone);
  const period = customPeriod(query.startDate, query.endDate, now, timeZone);
  if (!(period.start < period.end)) throw badRequest(metricsMessages.startAfterEnd);
  return period;
}

/** The rollups the figures come from: ClickHouse's when events are kept there, else PostgreSQL's. */
export function metricsReader(events: Pick<EventStore, 'clickhouse'>, db: Database): MetricsReader {
  return events.clickhouse ? clickhouseMetrics(events.clickhouse, db) : postgresMetrics(db);
}

/** GET /v1/emails/stats */
export async function emailStats(
  db: Database,
  session: Session,
  query: EmailStatsQuery,
  reader: MetricsReader = postgresMetrics(db),
  now = Date.now(),
): Promise<EmailStatsResponse> {
  const timeZone = canonicalZone(query.timezone ?? (await accountTimeZone(db, session.accountId)));
  const period = periodOf(query, now, timeZone);
  const filter: MetricsFilter = {
    accountId: session.accountId,
    start: period.start,
    end: period.end,
    ...(query.broadcastId !== undefined ? { broadcastId: query.broadcastId } : {}),
    flowIds: query.flowIds,
    emailIds: query.emailIds,
    stepIds: query.stepIds,
  };
  const buckets = bucketsOf(period, timeZone);
  const counters = buckets.map(() => zero());
  const totals = zero();
  for (const row of await reader.bucketCounters(
    filter,
    buckets.map((bucket) => bucket.start),
  )) {
    const c = countersOf(row);
    add(counters[row.bucket]!, c);
    add(totals, c);
  }
  const series = buckets.map((bucket, i) => ({
    start: new Date(bucket.start).toISOString(),
    end: new Date(bucket.end).toISOString(),
    ...figuresOf(counters[i]!),
  }));
  const stats: EmailStatsResponse['stats'] = {
    period:
      query.startDate === undefined && query.endDate === undefined
        ? (query.period ?? defaultMetricsPreset)
        : null,
    bucket: period.bucket,
    timezone: timeZone,
    startDate: new Date(period.start).toISOString(),
    endDate: new Date(period.end).toISOString(),
    totals: figuresOf(totals),
    series,
  };
  if (query.groupByEmail) {
    stats.emails = (await reader.emailCounters(filter)).map((row) => ({
      emailId: Number(row.emailId),
      name: row.name,
      ...figuresOf(countersOf(row)),
    }));
  }
  if (query.abTest) {
    stats.variants = (await reader.variantCounters(filter)).map((row) => ({
      variant: Number(row.variant),
      ...figuresOf(countersOf(row)),
    }));
  }
  // Asked for by flow step, the answer is the stats alone (docs/tracking-and-metrics.md).
  if (query.stepIds.length) return { stats };
  const clicks = (await reader.linkClicks(filter)).map((row) => ({
    link: row.link,
    clicks: Number(row.clicks),
  }));
  return { stats, clicks };
}
