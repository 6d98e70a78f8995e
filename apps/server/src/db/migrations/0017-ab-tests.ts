import { sql, type Kysely } from 'kysely';

/**
 * A/B tests of broadcasts. The test (variants, share, metric, wait, and once decided the winner and why) is one jsonb
 * column of the broadcast; its deliveries use the `variant` column of `deliveries` (1..4 for the test's variants,
 * 0 for the rest). The decision counts `opened` / `clicked` email events of the broadcast, found by the partial
 * index. Canceling a test removes its pending decision job through an owner-rights function that can only name the
 * signed-in account's own jobs.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table broadcasts add column ab_test jsonb;
    create index events_broadcast_engagement_idx on events (account_id, (data->>'broadcastId'), name)
      where type = 'email' and name in ('opened', 'clicked');

    create function herald_remove_ab_test_job(broadcast_id bigint)
    returns void language plpgsql security definer set search_path = pg_catalog, public as $fn$
    begin
      perform graphile_worker.remove_job('ab-test-decide:' || current_setting('herald.account_id', true)::bigint || ':' || broadcast_id);
    end $fn$;
    revoke all on function herald_remove_ab_test_job(bigint) from public;
    grant execute on function herald_remove_ab_test_job(bigint) to herald_app;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop function herald_remove_ab_test_job(bigint);
    drop index events_broadcast_engagement_idx;
    alter table broadcasts drop column ab_test;
  `.execute(db);
}
