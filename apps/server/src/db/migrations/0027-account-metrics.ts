import { sql, type Kysely } from 'kysely';
import { protectTenantTables } from './tenant-policy.ts';

/**
 * Account-wide email metrics (issue 18, metrics-10m). The whole account's figures over a long period summed
 * `email_metrics_hourly` rows of every source, email, step and variant: a year of an account that sends all day is
 * ~90,000 rows to add up on each request (~400 ms on this machine under load). These tables hold the same counts
 * with those dimensions summed away, one row per account and UTC hour (and link; and for links also per UTC day),
 * kept by the same rollup statement, so an unfiltered query reads at most one row per hour of its period. Filtered queries (a broadcast,
 * flows, emails, steps) still read the detailed tables, where a filter leaves few rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table email_metrics_account_hourly (
      account_id bigint not null references accounts (id) on delete cascade,
      hour timestamptz not null,
      sent bigint not null default 0,
      opened bigint not null default 0,
      clicked bigint not null default 0,
      unique_opens bigint not null default 0,
      unique_clicks bigint not null default 0,
      unsubscribed bigint not null default 0,
      bounced bigint not null default 0,
      complained bigint not null default 0,
      primary key (account_id, hour)
    );
    create table email_metrics_account_links (
      account_id bigint not null references accounts (id) on delete cascade,
      hour timestamptz not null,
      link text not null,
      clicks bigint not null default 0,
      primary key (account_id, hour, link)
    );
    -- Clicks per link and UTC day: a period's whole days come from here, its partial first and last days from the
    -- hourly table, so ranking a year's links reads ~365 rows per link instead of ~8,760.
    create table email_metrics_account_links_daily (
      account_id bigint not null references accounts (id) on delete cascade,
      day date not null,
      link text not null,
      clicks bigint not null default 0,
      primary key (account_id, day, link)
    );
    insert into email_metrics_account_hourly (account_id, hour, sent, opened, clicked, unique_opens, unique_clicks, unsubscribed, bounced, complained)
    select account_id, hour, sum(sent), sum(opened), sum(clicked), sum(unique_opens), sum(unique_clicks), sum(unsubscribed), sum(bounced), sum(complained)
    from email_metrics_hourly group by account_id, hour;
    insert into email_metrics_account_links (account_id, hour, link, clicks)
    select account_id, hour, link, sum(clicks) from email_metrics_links group by account_id, hour, link;
    insert into email_metrics_account_links_daily (account_id, day, link, clicks)
    select account_id, (hour at time zone 'UTC')::date, link, sum(clicks) from email_metrics_links group by 1, 2, 3;
  `.execute(db);
  await protectTenantTables(db, [
    'email_metrics_account_hourly',
    'email_metrics_account_links',
    'email_metrics_account_links_daily',
  ]);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table email_metrics_account_links_daily, email_metrics_account_links, email_metrics_account_hourly`.execute(
    db,
  );
}
