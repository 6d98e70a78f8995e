import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * Email metrics (issue 18): rollups of email events, so GET /v1/emails/stats and a person's metrics read a few
 * hundred summed rows instead of counting events.
 *
 * A statement-level trigger copies each new email event as one narrow row into `email_metric_queue` (an append:
 * concurrent batches of the sending pipeline take no lock on a shared row). The rollup job (metrics.jobs.ts)
 * deletes queued rows a batch at a time and adds them to the rollups. A row is visible to the job only once its
 * transaction commits, and the job takes exactly the rows it deletes, so an insert that commits late is counted
 * on the next pass instead of being skipped as it would be behind a watermark on event ids.
 */

/** The queue row of an email event (`e` is the event). Soft bounces are retried by the remote server: not counted. */
export const queueRowSelect = `
  select e.account_id, e.id, e.person_id, e.name, e.created_at,
    case when e.data ? 'broadcastId' then 'broadcast' when e.data ? 'flowId' then 'flow' else 'other' end,
    coalesce(case when e.data->>'broadcastId' ~ '^[0-9]{1,18}$' then (e.data->>'broadcastId')::bigint end,
             case when e.data->>'flowId' ~ '^[0-9]{1,18}$' then (e.data->>'flowId')::bigint end,
             case when e.data->>'sourceId' ~ '^[0-9]{1,18}$' then (e.data->>'sourceId')::bigint end, 0),
    coalesce(case when e.data->>'emailId' ~ '^[0-9]{1,18}$' then (e.data->>'emailId')::bigint end, 0),
    coalesce(left(e.data->>'stepId', 100), ''),
    coalesce(case when e.data->>'variant' ~ '^[0-9]{1,4}$' then (e.data->>'variant')::int end, 0),
    coalesce(e.data->>'machine' = 'true', false),
    case when e.name = 'clicked' then left(e.data->>'link', 2000) end`;
export const queueRowWhere = `
  e.type = 'email' and e.name in ('sent', 'opened', 'clicked', 'bounced', 'complained', 'unsubscribed')
    and not (e.name = 'bounced' and coalesce(e.data->>'soft', '') = 'true')`;
const queueColumns =
  'account_id, event_id, person_id, name, at, source_kind, source_id, email_id, step_id, variant, machine, link';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table email_metric_queue (
      seq bigint generated always as identity primary key,
      account_id bigint not null,
      event_id bigint not null,
      person_id bigint,
      name text not null,
      at timestamptz not null,
      source_kind text not null,
      source_id bigint not null,
      email_id bigint not null,
      step_id text not null,
      variant integer not null,
      machine boolean not null,
      link text
    );

    -- Counts per UTC hour of each sent email (source, email, flow step, A/B variant). Unique opens and clicks are
    -- counted in the hour of a recipient's first human open or click, so they add up over any run of hours.
    create table email_metrics_hourly (
      account_id bigint not null references accounts (id) on delete cascade,
      hour timestamptz not null,
      source_kind text not null,
      source_id bigint not null,
      email_id bigint not null,
      step_id text not null,
      variant integer not null,
      sent bigint not null default 0,
      opened bigint not null default 0,
      clicked bigint not null default 0,
      unique_opens bigint not null default 0,
      unique_clicks bigint not null default 0,
      unsubscribed bigint not null default 0,
      bounced bigint not null default 0,
      complained bigint not null default 0,
      primary key (account_id, hour, source_kind, source_id, email_id, step_id, variant)
    );
    create index email_metrics_hourly_source_idx on email_metrics_hourly (account_id, source_kind, source_id, hour);
    create index email_metrics_hourly_email_idx on email_metrics_hourly (account_id, email_id, hour);

    -- Clicks per link and hour of each sent email.
    create table email_metrics_links (
      account_id bigint not null references accounts (id) on delete cascade,
      hour timestamptz not null,
      source_kind text not null,
      source_id bigint not null,
      email_id bigint not null,
      step_id text not null,
      link text not null,
      clicks bigint not null default 0,
      primary key (account_id, hour, source_kind, source_id, email_id, step_id, link)
    );

    -- The first human open and click of each recipient of each sent email: what makes a later one not unique.
    create table email_metric_firsts (
      account_id bigint not null references accounts (id) on delete cascade,
      source_kind text not null,
      source_id bigint not null,
      email_id bigint not null,
      step_id text not null,
      person_id bigint not null,
      name text not null,
      first_at timestamptz not null,
      variant integer not null,
      primary key (account_id, source_kind, source_id, email_id, step_id, person_id, name)
    );

    -- Email activity of each person, for GET /v1/people/metrics/{id}.
    create table email_metrics_people (
      account_id bigint not null references accounts (id) on delete cascade,
      person_id bigint not null,
      sent bigint not null default 0,
      opened bigint not null default 0,
      clicked bigint not null default 0,
      unsubscribed bigint not null default 0,
      bounced bigint not null default 0,
      complained bigint not null default 0,
      primary key (account_id, person_id)
    );
  `.execute(db);

  await sql`
    create function herald_queue_email_metrics() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      insert into email_metric_queue (${sql.raw(queueColumns)})
      ${sql.raw(queueRowSelect)} from new_rows e where ${sql.raw(queueRowWhere)};
      return null;
    end $fn$;
    create trigger events_inserted_email_metrics after insert on events
      referencing new table as new_rows for each statement execute function herald_queue_email_metrics();
  `.execute(db);

  // Email events recorded before this migration are counted by the first rollup pass.
  await sql`insert into email_metric_queue (${sql.raw(queueColumns)}) ${sql.raw(queueRowSelect)} from events e where ${sql.raw(queueRowWhere)}`.execute(
    db,
  );
  await protectTenantTables(db, [
    'email_metric_queue',
    'email_metrics_hourly',
    'email_metrics_links',
    'email_metric_firsts',
    'email_metrics_people',
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger events_inserted_email_metrics on events;
    drop function herald_queue_email_metrics();
    drop table email_metrics_people, email_metric_firsts, email_metrics_links, email_metrics_hourly, email_metric_queue;
  `.execute(db);
}
