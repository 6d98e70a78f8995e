import { sql, type Kysely, type RawBuilder } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * Running flows (issue 19, docs/flows.md).
 *
 * - Entries are set-wise, in the transaction of the change that triggers them: a statement-level trigger on
 *   `events` (segment entered / left, tracked events, email activity, page views, form submissions) and one on
 *   `people` (tags added or removed) insert one run per (flow, person, entry) with `insert … select … on conflict
 *   do nothing`, by the flow's re-entry rule, and enqueue the flow's `advance-flow` job (one job key per flow). Both
 *   return at once when no active flow anywhere has such a trigger. A flow is entered by what happens after it was
 *   switched on; people who matched before are not entered.
 * - A run due now has status 'active' (wake_at = when it became due) or 'waiting' with wake_at in the past; the
 *   worker claims due runs of a flow in batches with FOR UPDATE SKIP LOCKED in one transaction that also writes
 *   the effects: the row lock is the lease, released when the transaction or its connection ends.
 * - `flow_run_steps` records each executed step under the primary key (run, seq): a step executed twice for the
 *   same run and sequence number cannot be stored, and the bench counts duplicates from it.
 * - Flow deliveries are unique per (run, seq) instead of (source, person), so a person who enters again gets the
 *   send step's email again; other sources keep their (source, person) key.
 * - `flow_webhook_calls` is the outbox of the send-webhook step, keyed `${run}:${seq}`; a job posts it after commit.
 * - `flow_trigger_fires` remembers date and time triggers already fired per person, so each fires once per date.
 */
const eventOperations = sql.raw(
  [
    '/entered-segment',
    '/left-segment',
    '/event',
    '/email-trigger',
    '/page-visited-trigger',
    '/site-form-submitted',
    '/submitted-form',
  ]
    .map((k) => `'${k}'`)
    .join(', '),
);

/** The body of a people trigger: people whose tags changed (`changed` over new_rows n), their tags before (`before`). */
const tagsBody = (changed: RawBuilder<unknown>, before: RawBuilder<unknown>) => sql`
    declare
      matches jsonb;
    begin
      if not exists (select 1 from flow_steps s where s.type = 'trigger' and s.operation_key in ('/added-tag', '/removed-tag')) then
        return null;
      end if;
      with t as (
        select s.account_id, s.flow_id, s.id as step_id, s.operation_key as op, s.input_fields #>> '{properties,tag,value}' as tag
        from flow_steps s join flows f on f.account_id = s.account_id and f.id = s.flow_id
        where s.type = 'trigger' and f.status = 'active' and not f.archived and s.operation_key in ('/added-tag', '/removed-tag')
      ),
      changed as (
        select n.account_id, n.id as person_id, n.tags as now_tags, ${before} as was_tags
        from new_rows n ${changed}
      )
      select jsonb_agg(jsonb_build_array(t.account_id, t.flow_id, c.person_id, t.step_id)) into matches
      from changed c join t on t.account_id = c.account_id
      where (t.op = '/added-tag' and t.tag = any(c.now_tags) and not (t.tag = any(c.was_tags)))
         or (t.op = '/removed-tag' and t.tag = any(c.was_tags) and not (t.tag = any(c.now_tags)));
      if matches is not null then
        perform herald_flow_enter(matches);
      end if;
      return null;
    end`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- Every step gets a random secret; only the webhook trigger uses it (to sign and check its inbound URL).
    alter table flow_steps alter column secret set default md5(gen_random_uuid()::text) || md5(gen_random_uuid()::text);
    update flow_steps set secret = md5(gen_random_uuid()::text) || md5(gen_random_uuid()::text) where secret is null;

    create index flow_runs_due_idx on flow_runs (account_id, flow_id, wake_at) where status in ('active', 'waiting');
    create index flow_runs_person_idx on flow_runs (account_id, person_id);
    create index flow_steps_operation_idx on flow_steps (operation_key, account_id) where type = 'trigger';

    create table flow_run_steps (
      account_id bigint not null,
      run_id bigint not null,
      seq integer not null,
      flow_id bigint not null,
      step_id bigint not null,
      executed_at timestamptz not null default now(),
      primary key (account_id, run_id, seq)
    );
    create index flow_run_steps_step_idx on flow_run_steps (account_id, step_id);

    alter table deliveries add column flow_run_id bigint, add column flow_seq integer;
    drop index deliveries_source_person_key;
    create unique index deliveries_source_person_key on deliveries (account_id, source_kind, source_id, person_id)
      where person_id is not null and flow_run_id is null;
    create unique index deliveries_flow_run_key on deliveries (account_id, flow_run_id, flow_seq) where flow_run_id is not null;

    create table flow_webhook_calls (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity,
      idempotency_key text not null,
      flow_id bigint not null,
      step_id bigint not null,
      run_id bigint not null,
      person_id bigint,
      url text not null,
      payload jsonb not null,
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
    create unique index flow_webhook_calls_key on flow_webhook_calls (account_id, idempotency_key);
    create index flow_webhook_calls_due_idx on flow_webhook_calls (next_at) where status in ('pending', 'sending');

    create table flow_trigger_fires (
      account_id bigint not null,
      step_id bigint not null,
      person_id bigint not null,
      fire_on date not null,
      primary key (account_id, step_id, person_id, fire_on)
    );

    -- Enter people into flows: one row per (account, flow, person) of matches, by the flow's re-entry rule
    -- (once: never again; after-days: again when the last entry is at least reentry_days old and over).
    -- Enqueues each flow's advance job; returns how many runs were inserted.
    create function herald_flow_enter(matches jsonb) returns integer
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    declare
      touched text[];
      n integer;
      key text;
    begin
      with m as (
        select distinct (x->>0)::bigint as account_id, (x->>1)::bigint as flow_id, (x->>2)::bigint as person_id, (x->>3)::bigint as step_id
        from jsonb_array_elements(matches) x
      ),
      ins as (
        insert into flow_runs (account_id, flow_id, person_id, entry, step_id, status, wake_at)
        select m.account_id, m.flow_id, m.person_id, coalesce(last.entry, 0) + 1, m.step_id, 'active', now()
        from m
        join flows f on f.account_id = m.account_id and f.id = m.flow_id and f.status = 'active' and not f.archived
        left join lateral (
          select r.entry, r.entered_at, r.status from flow_runs r
          where r.account_id = m.account_id and r.flow_id = m.flow_id and r.person_id = m.person_id
          order by r.entry desc limit 1
        ) last on true
        where last.entry is null
          or (f.reentry = 'after-days' and last.status not in ('active', 'waiting')
              and last.entered_at <= now() - make_interval(days => coalesce(f.reentry_days, 1)))
        on conflict do nothing
        returning account_id, flow_id
      )
      select coalesce(array_agg(distinct account_id::text || ':' || flow_id::text), '{}'), count(*) into touched, n from ins;
      foreach key in array touched loop
        perform herald_enqueue_soonest('advance-flow',
          json_build_object('accountId', split_part(key, ':', 1)::bigint, 'flowId', split_part(key, ':', 2)::bigint),
          'advance-flow:' || key, now(), 25);
      end loop;
      return n;
    end $fn$;
    revoke all on function herald_flow_enter(jsonb) from public;
    grant execute on function herald_flow_enter(jsonb) to herald_app;

    create function herald_flow_events_entered() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    declare
      matches jsonb;
    begin
      if not exists (select 1 from flow_steps s where s.type = 'trigger' and s.operation_key in (${eventOperations})) then
        return null;
      end if;
      with t as (
        select s.account_id, s.flow_id, s.id as step_id, s.operation_key as op,
          s.input_fields #>> '{properties,segment,properties,id,value}' as segment_id,
          s.input_fields #>> '{properties,name,value}' as event_name,
          s.input_fields #>> '{properties,activity,value}' as activity,
          s.input_fields #>> '{properties,email,properties,id,value}' as email_id,
          lower(s.input_fields #>> '{properties,url,value}') as url,
          s.input_fields #>> '{properties,match,value}' as url_match,
          lower(s.input_fields #>> '{properties,form,value}') as form
        from flow_steps s join flows f on f.account_id = s.account_id and f.id = s.flow_id
        where s.type = 'trigger' and f.status = 'active' and not f.archived and s.operation_key in (${eventOperations})
          and s.account_id in (select distinct account_id from new_rows)
      )
      select jsonb_agg(jsonb_build_array(t.account_id, t.flow_id, e.person_id, t.step_id)) into matches
      from new_rows e join t on t.account_id = e.account_id
      where e.person_id is not null and case t.op
        when '/entered-segment' then e.type = 'segment' and e.name = 'entered' and e.data->>'segmentId' = t.segment_id
        when '/left-segment' then e.type = 'segment' and e.name = 'left' and e.data->>'segmentId' = t.segment_id
        when '/event' then e.type = 'track' and e.name = t.event_name
        when '/email-trigger' then e.type = 'email' and e.name = t.activity and (t.email_id is null or e.data->>'emailId' = t.email_id)
        when '/page-visited-trigger' then e.type = 'page' and case t.url_match
          when 'equals' then lower(e.url) = t.url
          when 'startsWith' then starts_with(lower(e.url), t.url)
          when 'pattern' then lower(e.url) like replace(replace(replace(replace(t.url, '\\', '\\\\'), '%', '\\%'), '_', '\\_'), '*', '%')
          else strpos(lower(e.url), t.url) > 0 end
        when '/site-form-submitted' then e.type = 'track' and e.name = 'form-submitted' and e.source = 'site'
          and (t.form is null or lower(e.data->>'key') = t.form or lower(e.data->'form'->>'id') = t.form)
        when '/submitted-form' then e.source <> 'site' and (e.type = 'form' or (e.type = 'track' and lower(e.name) = 'form submitted'))
          and (t.form is null or lower(coalesce(e.data->>'form', case when e.type = 'form' then e.name end)) = t.form)
        else false end;
      if matches is not null then
        perform herald_flow_enter(matches);
      end if;
      return null;
    end $fn$;
    create trigger events_inserted_flows after insert on events
      referencing new table as new_rows for each statement execute function herald_flow_events_entered();

    -- Tags added or removed: an update compares each person's tags before and after; a new person's tags are added.
    create function herald_flow_tags_updated() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    ${tagsBody(sql`join old_rows o on o.account_id = n.account_id and o.id = n.id where n.tags is distinct from o.tags`, sql`o.tags`)}
    $fn$;
    create trigger people_updated_flows after update on people
      referencing old table as old_rows new table as new_rows for each statement execute function herald_flow_tags_updated();
    create function herald_flow_tags_inserted() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    ${tagsBody(sql`where cardinality(n.tags) > 0`, sql`'{}'::text[]`)}
    $fn$;
    create trigger people_inserted_flows after insert on people
      referencing new table as new_rows for each statement execute function herald_flow_tags_inserted();
  `.execute(db);
  await protectTenantTables(db, ['flow_run_steps', 'flow_webhook_calls', 'flow_trigger_fires']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger events_inserted_flows on events;
    drop function herald_flow_events_entered();
    drop trigger people_updated_flows on people;
    drop trigger people_inserted_flows on people;
    drop function herald_flow_tags_updated();
    drop function herald_flow_tags_inserted();
    drop function herald_flow_enter(jsonb);
    drop table flow_trigger_fires, flow_webhook_calls, flow_run_steps;
    drop index deliveries_flow_run_key;
    drop index deliveries_source_person_key;
    create unique index deliveries_source_person_key on deliveries (account_id, source_kind, source_id, person_id) where person_id is not null;
    alter table deliveries drop column flow_run_id, drop column flow_seq;
    drop index flow_runs_due_idx, flow_runs_person_idx, flow_steps_operation_idx;
  `.execute(db);
}
