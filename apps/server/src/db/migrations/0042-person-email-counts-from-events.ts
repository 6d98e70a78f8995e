import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * A person's email counts (GET /v1/people/metrics/{id}) are counted from the person's events when asked for, and
 * the per-person rollup `email_metrics_people` goes (issue 18). The rollup took an upsert for every email event,
 * one for every open and click of a new recipient in a batch, since hits rarely repeat a person within a batch:
 * a sixth of PostgreSQL's CPU a tracking hit (34.6-38.1 µs with it, 28.8-29.7 µs without, `tracking-hits`). The
 * count reads one person's events through `events_person_idx`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function herald_accounts_deleted_metrics() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      delete from email_metric_firsts f using old_rows o where f.account_id = o.id;
      return null;
    end $fn$;
    drop table email_metrics_people;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table email_metrics_people (
      account_id bigint not null,
      person_id bigint not null,
      sent bigint not null default 0,
      opened bigint not null default 0,
      clicked bigint not null default 0,
      unsubscribed bigint not null default 0,
      bounced bigint not null default 0,
      complained bigint not null default 0,
      primary key (account_id, person_id)
    );
    insert into email_metrics_people (account_id, person_id, sent, opened, clicked, unsubscribed, bounced, complained)
      select account_id, person_id, count(*) filter (where name = 'sent'), count(*) filter (where name = 'opened'),
        count(*) filter (where name = 'clicked'), count(*) filter (where name = 'unsubscribed'),
        count(*) filter (where name = 'bounced'), count(*) filter (where name = 'complained')
      from events
      where type = 'email' and person_id is not null
        and name in ('sent', 'opened', 'clicked', 'unsubscribed', 'bounced', 'complained')
        and not (name = 'bounced' and coalesce(data->>'soft', '') = 'true')
      group by 1, 2;
    create or replace function herald_accounts_deleted_metrics() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      delete from email_metric_firsts f using old_rows o where f.account_id = o.id;
      delete from email_metrics_people p using old_rows o where p.account_id = o.id;
      return null;
    end $fn$;
  `.execute(db);
  await protectTenantTables(db, ['email_metrics_people']);
}
