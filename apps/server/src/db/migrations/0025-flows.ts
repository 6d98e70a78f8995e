import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * Flows (issue 19). A flow holds steps joined by links; a step's configuration is the spec's `inputFields` tree.
 * A plain step has at most one next step; a filter has one per branch ('yes' / 'no') and an A/B test one per
 * variant name, so a link is unique on (source, condition). Runs (docs/flows.md, "Running") are one row per
 * (flow, person, entry) with the step to execute next and, while waiting, the time to wake; `seq` counts the steps a
 * run has executed and keys every effect, so a retried batch never repeats one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table flows (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity (start with 100),
      name text not null default 'Unnamed Flow',
      status text not null default 'deactivated-user'
        check (status in ('active', 'deactivated-user', 'deactivated', 'deactivated-expired-auth')),
      archived boolean not null default false,
      reentry text not null default 'once' check (reentry in ('once', 'after-days')),
      reentry_days integer,
      recipe text,
      -- Problems found while the flow ran (a segment or email deleted under an active flow), shown as warnings.
      warnings jsonb not null default '[]',
      -- Bumped by every change to steps or links, so workers reload a changed flow.
      version integer not null default 1,
      activated_at timestamptz,
      last_saved timestamptz,
      created_by bigint,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (account_id, id)
    );
    create index flows_list_idx on flows (account_id, archived, updated_at desc);

    create table flow_steps (
      account_id bigint not null,
      id bigint generated always as identity (start with 100),
      flow_id bigint not null,
      type text not null check (type in ('trigger', 'filter', 'action')),
      service_id text not null default 'herald',
      operation_key text not null,
      input_fields jsonb not null default '{}',
      output_fields jsonb,
      x double precision not null default 0,
      y double precision not null default 0,
      position integer,
      integration_id text,
      -- The webhook trigger's signing secret (never sent to the web app).
      secret text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (account_id, id),
      foreign key (account_id, flow_id) references flows (account_id, id) on delete cascade
    );
    create index flow_steps_flow_idx on flow_steps (account_id, flow_id);
    create index flow_steps_trigger_idx on flow_steps (account_id, operation_key) where type = 'trigger';

    create table flow_links (
      account_id bigint not null,
      id bigint generated always as identity (start with 100),
      flow_id bigint not null,
      source bigint not null,
      target bigint not null,
      condition text,
      created_at timestamptz not null default now(),
      primary key (account_id, id),
      foreign key (account_id, flow_id) references flows (account_id, id) on delete cascade,
      foreign key (account_id, source) references flow_steps (account_id, id) on delete cascade,
      foreign key (account_id, target) references flow_steps (account_id, id) on delete cascade
    );
    create unique index flow_links_branch_key on flow_links (account_id, source, coalesce(condition, ''));
    create unique index flow_links_pair_key on flow_links (account_id, source, target);
    create index flow_links_flow_idx on flow_links (account_id, flow_id);

    create table flow_runs (
      account_id bigint not null,
      id bigint generated always as identity,
      flow_id bigint not null,
      person_id bigint not null,
      entry integer not null default 1,
      -- The step to execute next; null once the run is over.
      step_id bigint,
      status text not null default 'active' check (status in ('active', 'waiting', 'done', 'exited', 'failed')),
      wake_at timestamptz,
      seq integer not null default 0,
      lease_until timestamptz,
      last_error text,
      entered_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      finished_at timestamptz,
      primary key (account_id, id),
      foreign key (account_id, flow_id) references flows (account_id, id) on delete cascade
    );
    create unique index flow_runs_entry_key on flow_runs (account_id, flow_id, person_id, entry);
    create index flow_runs_step_idx on flow_runs (account_id, flow_id, step_id) where status in ('active', 'waiting');
  `.execute(db);
  await protectTenantTables(db, ['flows', 'flow_steps', 'flow_links', 'flow_runs']);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table flow_runs, flow_links, flow_steps, flows`.execute(db);
}
