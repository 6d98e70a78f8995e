import { sql, type Kysely } from 'kysely';
import { queueRowSelect, queueRowWhere } from './0021-email-metrics.ts';

/**
 * Tracking hits are rolled up as they are written, in the statement of their COPY, instead of passing through
 * `email_metric_queue` (issue 18). Queued, each open and click was written twice more (its queue row, then the
 * row's delete) and read back by the rollup; under `tracking-hits` the queue insert and the rollup's pass over it
 * were about a third of PostgreSQL's time a hit.
 *
 * The hit buffer's transaction sets `herald.email_metrics_direct` and holds the rollup's lock (`rollupLockKey`,
 * taken before the COPY, as the rollup job takes it before its rows and an account's delete before the account's).
 * The queue trigger then rolls the statement's email events up at once, with the rollup job's own statement
 * (`rollupOfBatch`) over the rows the queue would have held: the same events count, the same way, in the same
 * tables. Every other writer of email events (the sending pipeline, the ingest API, imports) queues as before.
 */

/** The transaction setting under which the queue trigger rolls email events up at once. */
export const directRollupSetting = 'herald.email_metrics_direct';

/**
 * The rollup of a batch of queue rows, as common table expressions that follow one named `batch` (the queue's
 * columns): first human opens and clicks (each recipient once per sent email), then the counts added to the hourly
 * and per-link rollups and to the account-wide hourly and per-link ones.
 */
export const rollupOfBatch = `
      -- Events of an account deleted since they were queued go with the batch and count nowhere (the rollups'
      -- foreign keys would refuse them, and the whole batch with them, at every try).
      live as (
        select b.* from batch b where exists (select 1 from accounts a where a.id = b.account_id)
      ),
      -- Sorted by person first: the other keys are mostly the same within a batch (one broadcast's opens), and a
      -- sort whose first keys tie compares every key of each pair (for 50,000 hits, about a fifth of the time).
      firsts as (
        insert into email_metric_firsts (account_id, source_kind, source_id, email_id, step_id, person_id, name, first_at, variant)
        select distinct on (person_id, account_id, source_id, email_id, source_kind, step_id, name)
          account_id, source_kind, source_id, email_id, step_id, person_id, name, at, variant
        from live where name in ('opened', 'clicked') and not machine and person_id is not null
        order by person_id, account_id, source_id, email_id, source_kind, step_id, name, at
        on conflict do nothing
        returning account_id, date_trunc('hour', first_at, 'UTC') as hour, source_kind, source_id, email_id, step_id, variant, name
      ),
      counts as (
        select account_id, date_trunc('hour', at, 'UTC') as hour, source_kind, source_id, email_id, step_id, variant,
          count(*) filter (where name = 'sent') as sent, count(*) filter (where name = 'opened') as opened,
          count(*) filter (where name = 'clicked') as clicked, 0::bigint as unique_opens, 0::bigint as unique_clicks,
          count(*) filter (where name = 'unsubscribed') as unsubscribed, count(*) filter (where name = 'bounced') as bounced,
          count(*) filter (where name = 'complained') as complained
        from live group by 1, 2, 3, 4, 5, 6, 7
        union all
        select account_id, hour, source_kind, source_id, email_id, step_id, variant, 0, 0, 0,
          count(*) filter (where name = 'opened'), count(*) filter (where name = 'clicked'), 0, 0, 0
        from firsts group by 1, 2, 3, 4, 5, 6, 7
      ),
      hourly as (
        insert into email_metrics_hourly as h (account_id, hour, source_kind, source_id, email_id, step_id, variant,
          sent, opened, clicked, unique_opens, unique_clicks, unsubscribed, bounced, complained)
        select account_id, hour, source_kind, source_id, email_id, step_id, variant, sum(sent), sum(opened), sum(clicked),
          sum(unique_opens), sum(unique_clicks), sum(unsubscribed), sum(bounced), sum(complained)
        from counts group by 1, 2, 3, 4, 5, 6, 7
        on conflict (account_id, hour, source_kind, source_id, email_id, step_id, variant) do update set
          sent = h.sent + excluded.sent, opened = h.opened + excluded.opened, clicked = h.clicked + excluded.clicked,
          unique_opens = h.unique_opens + excluded.unique_opens, unique_clicks = h.unique_clicks + excluded.unique_clicks,
          unsubscribed = h.unsubscribed + excluded.unsubscribed, bounced = h.bounced + excluded.bounced, complained = h.complained + excluded.complained
      ),
      account_hourly as (
        insert into email_metrics_account_hourly as a (account_id, hour, sent, opened, clicked, unique_opens, unique_clicks,
          unsubscribed, bounced, complained)
        select account_id, hour, sum(sent), sum(opened), sum(clicked), sum(unique_opens), sum(unique_clicks),
          sum(unsubscribed), sum(bounced), sum(complained)
        from counts group by 1, 2
        on conflict (account_id, hour) do update set
          sent = a.sent + excluded.sent, opened = a.opened + excluded.opened, clicked = a.clicked + excluded.clicked,
          unique_opens = a.unique_opens + excluded.unique_opens, unique_clicks = a.unique_clicks + excluded.unique_clicks,
          unsubscribed = a.unsubscribed + excluded.unsubscribed, bounced = a.bounced + excluded.bounced, complained = a.complained + excluded.complained
      ),
      account_links as (
        insert into email_metrics_account_links as l (account_id, hour, link, clicks)
        select account_id, date_trunc('hour', at, 'UTC'), link, count(*)
        from live where name = 'clicked' and link is not null group by 1, 2, 3
        on conflict (account_id, hour, link) do update set clicks = l.clicks + excluded.clicks
      ),
      account_links_daily as (
        insert into email_metrics_account_links_daily as l (account_id, day, link, clicks)
        select account_id, (at at time zone 'UTC')::date, link, count(*)
        from live where name = 'clicked' and link is not null group by 1, 2, 3
        on conflict (account_id, day, link) do update set clicks = l.clicks + excluded.clicks
      ),
      links as (
        insert into email_metrics_links as l (account_id, hour, source_kind, source_id, email_id, step_id, link, clicks)
        select account_id, date_trunc('hour', at, 'UTC'), source_kind, source_id, email_id, step_id, link, count(*)
        from live where name = 'clicked' and link is not null group by 1, 2, 3, 4, 5, 6, 7
        on conflict (account_id, hour, source_kind, source_id, email_id, step_id, link) do update set clicks = l.clicks + excluded.clicks
      )`;

/** The queue rows of the statement's new email events, under the queue's column names. */
const newRowsBatch = `batch (account_id, event_id, person_id, name, at, source_kind, source_id, email_id, step_id, variant, machine, link) as (
  ${queueRowSelect} from new_rows e where ${queueRowWhere}
)`;

/** The queue rows of the statement's new email events, queued (every writer but the hit buffer). */
const queueInsert = `insert into email_metric_queue (account_id, event_id, person_id, name, at, source_kind, source_id, email_id, step_id, variant, machine, link)
  ${queueRowSelect} from new_rows e where ${queueRowWhere}`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function herald_queue_email_metrics() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    declare
      n bigint;
    begin
      if coalesce(current_setting(${sql.lit(directRollupSetting)}, true), '') = 'yes' then
        with ${sql.raw(newRowsBatch)}, ${sql.raw(rollupOfBatch)}
        select count(*) into n from batch;
      else
        ${sql.raw(queueInsert)};
      end if;
      return null;
    end $fn$;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function herald_queue_email_metrics() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      ${sql.raw(queueInsert)};
      return null;
    end $fn$;
  `.execute(db);
}
