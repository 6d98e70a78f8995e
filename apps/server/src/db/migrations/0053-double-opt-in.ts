import { sql, type Kysely } from 'kysely';
import { peopleColumnsMarkedAny } from './0039-segment-marks-by-change.ts';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * Double opt-in and proof of consent (docs/senders-and-consent.md, issue 54 parts 2 and 3).
 *
 * - accounts.double_opt_in turns it on for people who arrive by a site form or the ingest API;
 *   accounts.double_opt_in_forms overrides it per form (form key → true/false);
 *   accounts.confirmation_email_id names a saved email sent as the confirmation (null: the built-in one).
 * - people.confirmation_pending_at: set while a person waits to confirm (the recipient rule keeps marketing mail from
 *   them); people.confirmed_at: when they confirmed (or an import said they had).
 * - imports.already_confirmed: the import says its people confirmed already (they stop waiting, if they were).
 * - consent_records: every subscribe, confirm, unsubscribe and preference change, with its source, time, IP, user
 *   agent and the text the person agreed to. Rows go with their person (on delete cascade).
 */
/** 0039's columns whose update marks people for segment re-checks, with this migration's two (a test holds the list). */
export const peopleColumnsMarkedAnyNow = [
  ...peopleColumnsMarkedAny,
  'confirmation_pending_at',
  'confirmed_at',
] as const;

const columnsTrigger = (columns: readonly string[]) => sql`
  drop trigger people_updated_segment_columns on people;
  create trigger people_updated_segment_columns after update of ${sql.raw(columns.join(', '))} on people
    for each statement execute function herald_people_segment_columns_set();
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table accounts
      add column double_opt_in boolean not null default false,
      add column double_opt_in_forms jsonb not null default '{}',
      add column confirmation_email_id bigint;

    alter table imports add column already_confirmed boolean not null default false;

    alter table people
      add column confirmation_pending_at timestamptz,
      add column confirmed_at timestamptz;
    create index people_confirmation_pending_idx on people (account_id) where confirmation_pending_at is not null;

    create table consent_records (
      account_id bigint not null references accounts (id) on delete cascade,
      id bigint generated always as identity,
      person_id bigint not null,
      at timestamptz not null default now(),
      action text not null check (action in ('subscribe', 'confirm', 'unsubscribe', 'preferences')),
      source text not null check (source in ('form', 'api', 'import', 'preference-centre', 'one-click', 'unsubscribe-link', 'confirmation-link', 'manual')),
      ip text,
      user_agent text,
      consent_text text,
      details jsonb not null default '{}',
      primary key (account_id, id),
      foreign key (account_id, person_id) references people (account_id, id) on delete cascade
    );
    create index consent_records_person_idx on consent_records (account_id, person_id, at desc, id desc);
  `.execute(db);
  await protectTenantTables(db, ['consent_records']);
  await columnsTrigger(peopleColumnsMarkedAnyNow).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await columnsTrigger(peopleColumnsMarkedAny).execute(db);
  await sql`
    drop table consent_records;
    drop index people_confirmation_pending_idx;
    alter table people drop column confirmation_pending_at, drop column confirmed_at;
    alter table imports drop column already_confirmed;
    alter table accounts drop column double_opt_in, drop column double_opt_in_forms, drop column confirmation_email_id;
  `.execute(db);
}
