import { sql, type Kysely, type RawBuilder } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * Connected apps (issue 20): outgoing webhooks, Slack and other service connections.
 *
 * - `webhook_endpoints`: the URLs an account registers, the events each wants, its signing secret, and the failure
 *   count that switches it off. `webhook_events` is the outbox: one row per (endpoint, event), written by
 *   statement-level triggers on `people`, `events` and `flow_runs` in the transaction of the change, so the API,
 *   bulk actions, imports, tracking's COPY batches and the flow engine all feed it and a rolled-back change sends
 *   nothing. Each trigger first looks whether any endpoint is switched on at all (one lookup in a partial index),
 *   then builds events only for the rows of accounts that have one.
 * - `webhook_deliveries`: one request of up to 100 events of one endpoint; the `outgoing-webhooks` job groups waiting
 *   events into deliveries and posts them, so a retry sends the same events under the same delivery id.
 * - `account_services`: a connected service's credentials (Slack's incoming-webhook URL), and whether they failed.
 * - `slack_messages`: the outbox of Slack messages (flow steps, account alerts), keyed per account.
 * - `flows.auth_reason`: why a flow was switched off with status 'deactivated-expired-auth'.
 */

/** Insert captured events (`rows`: account_id, type, data) for every enabled endpoint that wants them; wake the job. */
const capture = (rows: RawBuilder<unknown>) => sql`
      with captured as (${rows}),
      ins as (
        insert into webhook_events (account_id, endpoint_id, type, data)
        select c.account_id, w.id, c.type, c.data
        from captured c join webhook_endpoints w on w.account_id = c.account_id and w.enabled and c.type = any(w.events)
        returning account_id
      )
      select coalesce(array_agg(distinct account_id), '{}') into touched from ins;
      perform herald_webhooks_wake(touched);`;

const guard = sql`
      if not exists (select 1 from webhook_endpoints where enabled) then
        return null;
      end if;`;

const person = (alias: string) =>
  sql.raw(`jsonb_build_object('id', ${alias}.id, 'email', ${alias}.email, 'firstName', ${alias}.first_name, 'lastName', ${alias}.last_name,
  'phone', ${alias}.phone, 'company', ${alias}.company, 'website', ${alias}.website, 'externalId', ${alias}.external_id, 'tags', to_jsonb(${alias}.tags),
  'fields', ${alias}.fields, 'unsubscribed', ${alias}.unsubscribed_at is not null, 'createdAt', ${alias}.created_at, 'updatedAt', ${alias}.updated_at)`);

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table webhook_endpoints (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity,
      url text not null,
      description text,
      events text[] not null,
      secret text not null default 'whsec_' || md5(gen_random_uuid()::text) || md5(gen_random_uuid()::text),
      enabled boolean not null default true,
      failures_in_row integer not null default 0,
      failing_since timestamptz,
      disabled_reason text,
      disabled_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (account_id, id)
    );
    create index webhook_endpoints_enabled_idx on webhook_endpoints (account_id) where enabled;

    create table webhook_events (
      account_id bigint not null,
      id bigint generated always as identity,
      endpoint_id bigint not null,
      event_id uuid not null default gen_random_uuid(),
      type text not null,
      data jsonb not null,
      delivery_id bigint,
      created_at timestamptz not null default now(),
      primary key (account_id, id),
      foreign key (account_id, endpoint_id) references webhook_endpoints (account_id, id) on delete cascade
    );
    create index webhook_events_waiting_idx on webhook_events (account_id, endpoint_id, id) where delivery_id is null;
    create index webhook_events_delivery_idx on webhook_events (account_id, delivery_id) where delivery_id is not null;

    create table webhook_deliveries (
      account_id bigint not null,
      id bigint generated always as identity,
      endpoint_id bigint not null,
      status text not null default 'pending' check (status in ('pending', 'sending', 'sent', 'failed')),
      attempts integer not null default 0,
      next_at timestamptz not null default now(),
      lease_until timestamptz,
      response_status integer,
      last_error text,
      event_count integer not null,
      event_types text[] not null,
      test boolean not null default false,
      created_at timestamptz not null default now(),
      last_attempt_at timestamptz,
      finished_at timestamptz,
      primary key (account_id, id),
      foreign key (account_id, endpoint_id) references webhook_endpoints (account_id, id) on delete cascade
    );
    create index webhook_deliveries_log_idx on webhook_deliveries (account_id, endpoint_id, id desc);
    create index webhook_deliveries_due_idx on webhook_deliveries (account_id, next_at) where status in ('pending', 'sending');

    create table account_services (
      account_id bigint not null references accounts (id) on delete cascade,
      service_id text not null,
      credentials jsonb not null,
      status text not null default 'active' check (status in ('active', 'failed')),
      auth_reason text check (auth_reason in ('no_credentials', 'expired', 'wrong_credentials')),
      connected_at timestamptz not null default now(),
      failed_at timestamptz,
      primary key (account_id, service_id)
    );

    create table slack_messages (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity,
      idempotency_key text not null,
      source text not null check (source in ('flow', 'alert')),
      flow_id bigint,
      step_id bigint,
      text text not null,
      status text not null default 'pending' check (status in ('pending', 'sending', 'sent', 'failed')),
      attempts integer not null default 0,
      next_at timestamptz not null default now(),
      lease_until timestamptz,
      response_status integer,
      last_error text,
      created_at timestamptz not null default now(),
      finished_at timestamptz,
      primary key (account_id, id)
    );
    create unique index slack_messages_key on slack_messages (account_id, idempotency_key);
    create index slack_messages_due_idx on slack_messages (account_id, next_at) where status in ('pending', 'sending');

    alter table flows add column auth_reason text check (auth_reason in ('no_credentials', 'expired', 'wrong_credentials'));

    -- Wake each touched account's delivery job (one job key per account).
    create function herald_webhooks_wake(accounts bigint[]) returns void
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    declare
      acc bigint;
    begin
      foreach acc in array accounts loop
        perform herald_enqueue_soonest('outgoing-webhooks', json_build_object('accountId', acc), 'outgoing-webhooks:' || acc, now(), 25);
      end loop;
    end $fn$;
    revoke all on function herald_webhooks_wake(bigint[]) from public;

    -- New people: person.created, and tag.added for each tag they start with.
    create function herald_webhooks_people_inserted() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    declare
      touched bigint[];
    begin
      ${guard}
      ${capture(sql`
        select n.account_id, 'person.created'::text as type, ${person('n')} as data from new_rows n
        where n.account_id in (select account_id from webhook_endpoints where enabled)
        union all
        select n.account_id, 'tag.added', jsonb_build_object('tag', t.tag, 'person', jsonb_build_object('id', n.id, 'email', n.email))
        from new_rows n cross join lateral unnest(n.tags) t(tag) where n.account_id in (select account_id from webhook_endpoints where enabled)`)}
      return null;
    end $fn$;
    create trigger people_inserted_webhooks after insert on people
      referencing new table as new_rows for each statement execute function herald_webhooks_people_inserted();

    -- Changed people: person.updated when what a person is changed, person.unsubscribed, tag.added / tag.removed.
    create function herald_webhooks_people_updated() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    declare
      touched bigint[];
    begin
      ${guard}
      ${capture(sql`
        with pairs as (
          select n.*, o.tags as old_tags, o.unsubscribed_at as old_unsubscribed_at,
            (row(n.email, n.first_name, n.last_name, n.phone, n.company, n.website, n.external_id, n.fields, n.tags, n.archived_at, n.unsubscribed_at)
              is distinct from row(o.email, o.first_name, o.last_name, o.phone, o.company, o.website, o.external_id, o.fields, o.tags, o.archived_at, o.unsubscribed_at)) as changed
          from new_rows n join old_rows o on o.account_id = n.account_id and o.id = n.id
          where n.account_id in (select account_id from webhook_endpoints where enabled)
        )
        select p.account_id, 'person.updated'::text as type, ${person('p')} as data from pairs p where p.changed
        union all
        select p.account_id, 'person.unsubscribed', jsonb_build_object('person', ${person('p')}, 'reason', p.unsubscribe_reason)
        from pairs p where p.unsubscribed_at is not null and p.old_unsubscribed_at is null
        union all
        select p.account_id, 'tag.added', jsonb_build_object('tag', t.tag, 'person', jsonb_build_object('id', p.id, 'email', p.email))
        from pairs p cross join lateral unnest(p.tags) t(tag) where p.tags is distinct from p.old_tags and not (t.tag = any(p.old_tags))
        union all
        select p.account_id, 'tag.removed', jsonb_build_object('tag', t.tag, 'person', jsonb_build_object('id', p.id, 'email', p.email))
        from pairs p cross join lateral unnest(p.old_tags) t(tag) where p.tags is distinct from p.old_tags and not (t.tag = any(p.tags))`)}
      return null;
    end $fn$;
    create trigger people_updated_webhooks after update on people
      referencing old table as old_rows new table as new_rows for each statement execute function herald_webhooks_people_updated();

    -- Events: segment entered / left, email sent / opened / clicked / bounced, unsubscribes (the preference centre's), forms submitted.
    create function herald_webhooks_events_inserted() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    declare
      touched bigint[];
    begin
      ${guard}
      ${capture(sql`
        with typed as (
          select e.*, case
            when e.type = 'segment' and e.name in ('entered', 'left') then 'segment.' || e.name
            when e.type = 'email' and e.name in ('sent', 'opened', 'clicked', 'bounced') then 'email.' || e.name
            when e.type = 'email' and e.name = 'unsubscribed' then 'person.unsubscribed'
            when e.type = 'form' or (e.type = 'track' and (lower(e.name) = 'form submitted' or e.name = 'form-submitted')) then 'form.submitted'
          end as hook_type
          from new_rows e
          where e.person_id is not null and e.account_id in (select account_id from webhook_endpoints where enabled)
        )
        select e.account_id, e.hook_type as type,
          jsonb_build_object('person', jsonb_build_object('id', e.person_id, 'email', p.email), 'source', e.source, 'url', e.url, 'data', e.data, 'occurredAt', e.created_at) as data
        from typed e left join people p on p.account_id = e.account_id and p.id = e.person_id
        where e.hook_type is not null`)}
      return null;
    end $fn$;
    create trigger events_inserted_webhooks after insert on events
      referencing new table as new_rows for each statement execute function herald_webhooks_events_inserted();

    -- Flow runs: flow.entered when a run starts, flow.completed when it ends done.
    create function herald_webhooks_runs_inserted() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    declare
      touched bigint[];
    begin
      ${guard}
      ${capture(sql`
        select r.account_id, 'flow.entered'::text as type,
          jsonb_build_object('flowId', r.flow_id, 'runId', r.id, 'entry', r.entry, 'person', jsonb_build_object('id', r.person_id)) as data
        from new_rows r where r.account_id in (select account_id from webhook_endpoints where enabled)`)}
      return null;
    end $fn$;
    create trigger flow_runs_inserted_webhooks after insert on flow_runs
      referencing new table as new_rows for each statement execute function herald_webhooks_runs_inserted();

    create function herald_webhooks_runs_updated() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    declare
      touched bigint[];
    begin
      ${guard}
      ${capture(sql`
        select n.account_id, 'flow.completed'::text as type,
          jsonb_build_object('flowId', n.flow_id, 'runId', n.id, 'entry', n.entry, 'person', jsonb_build_object('id', n.person_id)) as data
        from new_rows n join old_rows o on o.account_id = n.account_id and o.id = n.id
        where n.status = 'done' and o.status <> 'done' and n.account_id in (select account_id from webhook_endpoints where enabled)`)}
      return null;
    end $fn$;
    create trigger flow_runs_updated_webhooks after update on flow_runs
      referencing old table as old_rows new table as new_rows for each statement execute function herald_webhooks_runs_updated();
  `.execute(db);
  await protectTenantTables(db, [
    'webhook_endpoints',
    'webhook_events',
    'webhook_deliveries',
    'account_services',
    'slack_messages',
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger people_inserted_webhooks on people;
    drop trigger people_updated_webhooks on people;
    drop trigger events_inserted_webhooks on events;
    drop trigger flow_runs_inserted_webhooks on flow_runs;
    drop trigger flow_runs_updated_webhooks on flow_runs;
    drop function herald_webhooks_people_inserted(), herald_webhooks_people_updated(), herald_webhooks_events_inserted(),
      herald_webhooks_runs_inserted(), herald_webhooks_runs_updated(), herald_webhooks_wake(bigint[]);
    alter table flows drop column auth_reason;
    drop table slack_messages, account_services, webhook_deliveries, webhook_events, webhook_endpoints;
  `.execute(db);
}
