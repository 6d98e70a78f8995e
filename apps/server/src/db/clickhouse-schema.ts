import { jsonTextCh } from '@herald/segments';
import type { ClickHouse } from './clickhouse.ts';

/**
 * The event store's tables in ClickHouse (docs/scaling.md, "Events on ClickHouse").
 *
 * `events` holds every event (tracked, page views, form submissions, email events), ordered by account, person and
 * time: a person's timeline and "people with such events" both read one account's range. Events carry the id
 * Herald gave them; a batch written again after a failure is dropped by its deduplication token, so an event is
 * stored once.
 *
 * On a cluster (`CLICKHOUSE_CLUSTER`), each node keeps a replicated `events_local` and `events` is a distributed
 * table over them, sharded by account: one account's events sit on one shard, and every query names one account.
 */
export const eventColumns = `
  account_id UInt64,
  person_id UInt64,
  created_at DateTime64(6, 'UTC'),
  id UInt64,
  type LowCardinality(String),
  name Nullable(String),
  url Nullable(String),
  data String,
  source LowCardinality(String)`;

const orderBy = 'ORDER BY (account_id, person_id, created_at, id)';

/**
 * A second copy of the rows ordered by account, type and name (a projection ClickHouse keeps with each part): "who
 * has such events" reads only that name's range instead of the account's whole log. Deletes rebuild it.
 */
const byName = `PROJECTION by_name (SELECT * ORDER BY account_id, type, name, created_at)`;
const projectionSettings = `lightweight_mutation_projection_mode = 'rebuild', deduplicate_merge_projection_mode = 'rebuild'`;

/** PostgreSQL's `data ->> key` for a key written in the definition (segments' `jsonTextCh`). */
export const text = (key: string) => jsonTextCh(`'${key}'`);
/** A whole number of at most `digits` digits, or NULL (PostgreSQL's `~ '^[0-9]{1,N}$'` then a cast). */
const wholeNumber = (key: string, digits: number, type: 'Int64' | 'Int32') =>
  `if(match(ifNull(${text(key)}, ''), '^[0-9]{1,${digits}}$'), to${type}OrNull(${text(key)}), NULL)`;

/**
 * The keys an email event counts under, as the email metrics' queue reads them in PostgreSQL (migration 0021's
 * `queueRowSelect`): its source (broadcast, flow or other, and its id), email, flow step and A/B variant.
 */
export const metricKeys = `
  multiIf(JSONHas(data, 'broadcastId'), 'broadcast', JSONHas(data, 'flowId'), 'flow', 'other') AS source_kind,
  coalesce(${wholeNumber('broadcastId', 18, 'Int64')}, ${wholeNumber('flowId', 18, 'Int64')}, ${wholeNumber('sourceId', 18, 'Int64')}, toInt64(0)) AS source_id,
  coalesce(${wholeNumber('emailId', 18, 'Int64')}, toInt64(0)) AS email_id,
  ifNull(substringUTF8(${text('stepId')}, 1, 100), '') AS step_id`;
export const variantOf = `coalesce(${wholeNumber('variant', 4, 'Int32')}, toInt32(0))`;
const metricKeyColumns = `source_kind LowCardinality(String), source_id Int64, email_id Int64, step_id String, variant Int32`;
const metricKeyNames = 'source_kind, source_id, email_id, step_id, variant';
/** The email events the metrics count (the queue's `queueRowWhere`): soft bounces are not bounces. */
const countedEmailEvents = `type = 'email' AND name IN ('sent', 'opened', 'clicked', 'bounced', 'complained', 'unsubscribed')
  AND NOT (name = 'bounced' AND ifNull(${text('soft')} = 'true', 0))`;
const hourOf = `toStartOfHour(toDateTime(created_at, 'UTC'))`;

/** The email metrics' tables, as the queries name them. */
export const metricTables = [
  'email_metrics_hourly',
  'email_metric_firsts',
  'email_metrics_links',
  'email_engagements',
] as const;

/**
 * The email metrics' rollups (docs/scaling.md, "Email metrics on ClickHouse"), filled by materialized views on every
 * insert into the events table, so they count each stored email event once (a forward written again is dropped by its
 * deduplication token in the views too):
 * - `email_metrics_hourly`: sends, opens, clicks, unsubscribes, bounces and complaints per UTC hour and sent email;
 * - `email_metrics_links`: clicks per link, hour and sent email.
 * Unique opens and clicks are not a view's: each forward records its recipients' first human opens and clicks
 * (`email_metric_firsts`, from the forward's copy in `email_engagements`) and adds them to the hourly rollup in the
 * first's hour, as PostgreSQL's rollup counts them (clickhouse-firsts.ts).
 * A person's events moved to another (site-tracking's merge of an anonymous visitor, who has no email events) are
 * written again and would count again: the views count email events, which such a person never has.
 */
function metricsDdl(
  source: string,
  /** Appended to each table's name (`_local` on a cluster). */
  suffix: string,
  on: string,
  engine: (kind: 'Summing' | '', table: string) => string,
  /** The deduplication window: a forward written again reaches the views again, which drop it by its token. */
  settings: string,
): string[] {
  const [hourly, firsts, links, engagements] = metricTables.map((table) => `${table}${suffix}`);
  return [
    `CREATE TABLE IF NOT EXISTS ${hourly} ${on} (account_id UInt64, hour DateTime('UTC'), ${metricKeyColumns},
      sent UInt64, opened UInt64, clicked UInt64, unique_opens UInt64, unique_clicks UInt64, unsubscribed UInt64,
      bounced UInt64, complained UInt64
    ) ENGINE = ${engine('Summing', 'email_metrics_hourly')} ORDER BY (account_id, hour, ${metricKeyNames})
    ${settings}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS email_metrics_hourly_mv ${on} TO ${hourly} AS
    SELECT account_id, ${hourOf} AS hour, ${metricKeys}, ${variantOf} AS variant,
      countIf(name = 'sent') AS sent, countIf(name = 'opened') AS opened, countIf(name = 'clicked') AS clicked,
      countIf(name = 'unsubscribed') AS unsubscribed, countIf(name = 'bounced') AS bounced,
      countIf(name = 'complained') AS complained
    FROM ${source} WHERE ${countedEmailEvents}
    GROUP BY account_id, hour, ${metricKeyNames}`,
    `CREATE TABLE IF NOT EXISTS ${firsts} ${on} (account_id UInt64, person_id UInt64, source_kind LowCardinality(String),
      source_id Int64, email_id Int64, step_id String, name LowCardinality(String), first_at DateTime64(6, 'UTC'),
      variant Int32
    ) ENGINE = ${engine('', 'email_metric_firsts')}
    ORDER BY (account_id, person_id, source_kind, source_id, email_id, step_id, name)
    ${settings}`,
    `CREATE TABLE IF NOT EXISTS ${engagements} ${on} (forward_id UInt64, ${eventColumns},
      staged_at DateTime DEFAULT now()
    ) ENGINE = ${engine('', 'email_engagements')} ORDER BY forward_id TTL staged_at + INTERVAL 1 DAY
    ${settings}`,
    `CREATE TABLE IF NOT EXISTS ${links} ${on} (account_id UInt64, hour DateTime('UTC'), ${metricKeyColumns}, link String, clicks UInt64
    ) ENGINE = ${engine('Summing', 'email_metrics_links')} ORDER BY (account_id, hour, link, ${metricKeyNames})
    ${settings}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS email_metrics_links_mv ${on} TO ${links} AS
    SELECT account_id, ${hourOf} AS hour, ${metricKeys}, ${variantOf} AS variant, substringUTF8(assumeNotNull(${text('link')}), 1, 2000) AS link,
      count() AS clicks
    FROM ${source} WHERE type = 'email' AND name = 'clicked' AND ${text('link')} IS NOT NULL
    GROUP BY account_id, hour, ${metricKeyNames}, link`,
  ];
}

/** The statements that create the event store's tables, in order; each may run again. */
export function eventStoreDdl(cluster: string | undefined): string[] {
  if (!cluster)
    return [
      `CREATE TABLE IF NOT EXISTS events (${eventColumns},
        ${byName}
      ) ENGINE = MergeTree ${orderBy}
      SETTINGS non_replicated_deduplication_window = 10000, ${projectionSettings}`,
      ...metricsDdl(
        'events',
        '',
        '',
        (kind) => `${kind}MergeTree`,
        'SETTINGS non_replicated_deduplication_window = 10000',
      ),
    ];
  const on = `ON CLUSTER ${cluster}`;
  // On a cluster each node's views read its own shard's inserts into events_local and fill local tables; the
  // distributed tables over them are what the queries name (one account's rows sit on one shard).
  return [
    `CREATE TABLE IF NOT EXISTS events_local ${on} (${eventColumns},
      ${byName}
    ) ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/events_local', '{replica}') ${orderBy}
    SETTINGS replicated_deduplication_window = 10000, ${projectionSettings}`,
    `CREATE TABLE IF NOT EXISTS events ${on} (${eventColumns})
    ENGINE = Distributed(${cluster}, currentDatabase(), events_local, cityHash64(account_id))`,
    ...metricsDdl(
      'events_local',
      '_local',
      on,
      (kind, table) =>
        `Replicated${kind}MergeTree('/clickhouse/tables/{shard}/{database}/${table}_local', '{replica}')`,
      'SETTINGS replicated_deduplication_window = 10000',
    ),
    ...metricTables.map(
      (table) => `CREATE TABLE IF NOT EXISTS ${table} ${on} AS ${table}_local
      ENGINE = Distributed(${cluster}, currentDatabase(), ${table}_local, cityHash64(account_id))`,
    ),
  ];
}

/** Create the tables the event store needs (idempotent). */
export async function migrateClickHouse(ch: ClickHouse, cluster: string | undefined): Promise<void> {
  for (const statement of eventStoreDdl(cluster)) await ch.command(statement);
}

/** An instant as the table's DateTime64(6, 'UTC') reads it. */
export function clickhouseTime(at: Date): string {
  return at.toISOString().replace('T', ' ').replace('Z', '');
}
