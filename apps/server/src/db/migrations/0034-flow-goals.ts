import { sql, type Kysely, type RawBuilder } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * Flow goals and conversions (issue 20).
 *
 * - `flows.goal`: segment conditions (jsonb, null = no goal). A run whose person matches them ends (status 'done',
 *   no step) and gets one row in `flow_conversions` (unique per run, so converting twice counts once).
 * - "Checked whenever the person changes": statement-level triggers on `people` updates and `events` inserts
 *   enqueue the flow's own `advance-flow` job (one job key per flow, a second later) for every flow with a goal in
 *   which a changed person has a run in progress; the job first converts, in one statement, the flow's runs in
 *   progress whose person now matches the compiled goal. The goal compiles with @herald/segments in the server, so
 *   the triggers only say which flows to look at. With no active flow with a goal anywhere, they return after one
 *   lookup of a partial index.
 */
const goalBody = (personColumn: RawBuilder<unknown>) => sql`
    declare
      goal_accounts bigint[];
      key text;
    begin
      select array_agg(distinct f.account_id) into goal_accounts from flows f
      where f.goal is not null and f.status = 'active' and not f.archived;
      if goal_accounts is null then
        return null;
      end if;
      for key in
        select distinct r.account_id::text || ':' || r.flow_id::text
        from (select distinct n.account_id, n.${personColumn} as person_id from new_rows n where n.account_id = any(goal_accounts)) c
        join flow_runs r on r.account_id = c.account_id and r.person_id = c.person_id and r.status in ('active', 'waiting')
        join flows f on f.account_id = r.account_id and f.id = r.flow_id and f.goal is not null and f.status = 'active' and not f.archived
      loop
        perform herald_enqueue_soonest('advance-flow',
          json_build_object('accountId', split_part(key, ':', 1)::bigint, 'flowId', split_part(key, ':', 2)::bigint),
          'advance-flow:' || key, now() + interval '1 second', 25);
      end loop;
      return null;
    end`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table flows add column goal jsonb;
    create index flows_goal_idx on flows (account_id) where goal is not null;

    create table flow_conversions (
      account_id bigint not null,
      run_id bigint not null,
      flow_id bigint not null,
      person_id bigint not null,
      converted_at timestamptz not null default now(),
      primary key (account_id, run_id),
      foreign key (account_id, flow_id) references flows (account_id, id) on delete cascade
    );
    create index flow_conversions_flow_idx on flow_conversions (account_id, flow_id);

    create function herald_flow_goal_people() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    ${goalBody(sql.raw('id'))}
    $fn$;
    create trigger people_updated_flow_goals after update on people
      referencing new table as new_rows for each statement execute function herald_flow_goal_people();

    create function herald_flow_goal_events() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    ${goalBody(sql.raw('person_id'))}
    $fn$;
    create trigger events_inserted_flow_goals after insert on events
      referencing new table as new_rows for each statement execute function herald_flow_goal_events();
  `.execute(db);
  await protectTenantTables(db, ['flow_conversions']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger events_inserted_flow_goals on events;
    drop trigger people_updated_flow_goals on people;
    drop function herald_flow_goal_events();
    drop function herald_flow_goal_people();
    drop table flow_conversions;
    drop index flows_goal_idx;
    alter table flows drop column goal;
  `.execute(db);
}
