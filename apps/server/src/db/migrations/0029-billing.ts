import { sql, type Kysely } from 'kysely';

/**
 * Plans, trial and limits (issue 21): the account's plan, as assigned (by a payment provider, the operator command or
 * a marketplace code), with the price it was assigned at. All plan columns are set together or none is. The accounts
 * table keeps its row-level security (0002); the open people-limit issue is at most one per account.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table accounts
      add column plan_name text,
      add column plan_people_upper_limit integer,
      add column plan_period text,
      add column plan_price numeric(12, 2),
      add column plan_provider text,
      add column plan_set_at timestamptz,
      add constraint accounts_plan_provider_check
        check (plan_provider in ('chargebee', 'paypal', 'operator', 'marketplace')),
      add constraint accounts_plan_period_check check (plan_period in ('month', 'year', 'lifetime')),
      add constraint accounts_plan_whole_check check (
        (plan_name is null) = (plan_people_upper_limit is null)
        and (plan_name is null) = (plan_period is null)
        and (plan_name is null) = (plan_provider is null)
        and (plan_name is null) = (plan_set_at is null)
      );
    -- The trial job looks for trials whose end has passed.
    create index accounts_trial_end_idx on accounts (trial_ends_at) where status = 'trial';
    create unique index account_issues_one_open_people_limit on account_issues (account_id)
      where kind = 'people-limit' and resolved_at is null;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index account_issues_one_open_people_limit;
    drop index accounts_trial_end_idx;
    alter table accounts
      drop constraint accounts_plan_whole_check,
      drop constraint accounts_plan_period_check,
      drop constraint accounts_plan_provider_check,
      drop column plan_name,
      drop column plan_people_upper_limit,
      drop column plan_period,
      drop column plan_price,
      drop column plan_provider,
      drop column plan_set_at;
  `.execute(db);
}
