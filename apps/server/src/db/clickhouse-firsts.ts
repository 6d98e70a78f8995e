import type { ClickHouse, Params } from './clickhouse.ts';
import { metricKeys, text, variantOf } from './clickhouse-schema.ts';

/** The keys a first open or click is recorded under. */
const firstKey = 'account_id, person_id, source_kind, source_id, email_id, step_id, name';

/**
 * Unique opens and clicks on ClickHouse (docs/scaling.md, "Email metrics on ClickHouse"): the human opens and clicks
 * among `source`'s rows (a FROM clause over rows shaped as the events table's) whose recipient had none of that sent
 * email yet are recorded in `email_metric_firsts` and counted in the hourly rollup's hour of the first, as
 * PostgreSQL's rollup counts them (the earliest of a batch; a later batch's are not firsts).
 *
 * The counts are added before the firsts are recorded, each insert with a token of its own: run again after a crash,
 * the same firsts are found (the counts' insert is dropped by its token) until they are recorded, and none after.
 * The forwarder runs it for each forward, one at a time (its advisory lock), so firsts are decided in forward order.
 */
export async function recordFirstEngagements(
  ch: ClickHouse,
  source: string,
  params: Params,
  token: string,
): Promise<void> {
  const firsts = `
    SELECT * FROM (
      SELECT account_id, person_id, ${metricKeys}, name, min(created_at) AS first_at,
        argMin(${variantOf}, created_at) AS variant
      FROM ${source}
      WHERE type = 'email' AND name IN ('opened', 'clicked') AND person_id != 0
        AND NOT ifNull(${text('machine')} = 'true', 0)
      GROUP BY account_id, person_id, source_kind, source_id, email_id, step_id, name
    ) AS candidate
    WHERE (${firstKey}) NOT IN (
      SELECT ${firstKey} FROM email_metric_firsts
      WHERE (account_id, person_id) IN (SELECT account_id, person_id FROM ${source})
    )`;
  await ch.command(
    `INSERT INTO email_metrics_hourly (account_id, hour, source_kind, source_id, email_id, step_id, variant,
       unique_opens, unique_clicks)
     SELECT account_id, toStartOfHour(toDateTime(first_at, 'UTC')), source_kind, source_id, email_id, step_id, variant,
       name = 'opened', name = 'clicked'
     FROM (${firsts})`,
    params,
    { insert_deduplication_token: `${token}-unique` },
  );
  await ch.command(
    `INSERT INTO email_metric_firsts (${firstKey}, first_at, variant)
     SELECT ${firstKey}, first_at, variant FROM (${firsts})`,
    params,
    { insert_deduplication_token: `${token}-firsts` },
  );
}
