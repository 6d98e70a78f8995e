import type { CategoryType } from '@herald/contracts';
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { intArray } from '../../db/arrays.ts';
import type { Database } from '../../db/connection.ts';
import { deliverableTo } from '../suppressions/recipient-rule.ts';

export interface TestShareInput {
  accountId: number;
  broadcastId: number;
  /** A condition over `people p`: the broadcast's audience. */
  audience: RawBuilder<SqlBool>;
  category: { id: number; type: CategoryType };
  /** People per variant, in variant order (abTestSplit); the email each variant sends. */
  sizes: number[];
  emailIds: number[];
  /** Each person's zone and due time (send-times' deliveryTiming: quiet hours), over `people p`. */
  timing: {
    joins: RawBuilder<unknown>;
    timeZone: RawBuilder<string>;
    notBefore: RawBuilder<Date>;
    quietDueAt: RawBuilder<Date | null>;
  };
}

/**
 * Queue the test share in one INSERT … SELECT: the deliverable people of the audience in a random order, the first
 * `sizes[0]` as variant 1 with its email, the next `sizes[1]` as variant 2, and so on; nobody else. Each person is
 * ranked once, so nobody lands in two variants, and the unique (source, person) key keeps a repeated call from
 * queueing anyone twice. Answers how many rows each variant (1-based) got.
 */
export async function enqueueTestShare(db: Database, input: TestShareInput): Promise<Map<number, number>> {
  const { accountId, broadcastId, sizes, emailIds } = input;
  const test = sizes.reduce((a, b) => a + b, 0);
  let upTo = 0;
  const branches = sizes.map((size, index) => {
    upTo += size;
    return sql`when r.rank <= ${upTo}::bigint then ${index + 1}::int`;
  });
  const { rows } = await sql<{ variant: number; n: string }>`
    with ranked as (
      select p.account_id, p.id, p.email, ${input.timing.timeZone} as zone, ${input.timing.notBefore} as due, ${input.timing.quietDueAt} as quiet_due, row_number() over (order by random()) as rank
      from people p ${input.timing.joins}
      where p.account_id = ${accountId} and ${input.audience} and ${deliverableTo(input.category.id, input.category.type)}
    ), assigned as (
      select r.account_id, r.id, r.email, r.zone, r.due, r.quiet_due, (case ${sql.join(branches, sql` `)} else 0 end)::smallint as variant
      from ranked r where r.rank <= ${test}
    ), inserted as (
      insert into deliveries (account_id, source_kind, source_id, person_id, email_id, to_address, not_before, time_zone, variant, quiet_due_at)
      select a.account_id, 'broadcast', ${broadcastId}, a.id, (${intArray(emailIds)}::bigint[])[a.variant], a.email, a.due, a.zone, a.variant, a.quiet_due
      from assigned a
      on conflict (account_id, source_kind, source_id, person_id) where person_id is not null and flow_run_id is null do nothing
      returning variant
    )
    select variant, count(*) as n from inserted group by variant
  `.execute(db);
  return new Map(rows.map((row) => [Number(row.variant), Number(row.n)]));
}

/** Delivery rows of a broadcast's test variants (1-based): all of them, and those sent. */
export async function variantDeliveries(
  db: Database,
  accountId: number,
  broadcastId: number,
): Promise<Map<number, { queued: number; sent: number }>> {
  const rows = await db
    .selectFrom('deliveries')
    .select([
      'variant',
      (eb) => eb.fn.countAll<string>().as('queued'),
      sql<string>`count(*) filter (where status = 'sent')`.as('sent'),
    ])
    .where('accountId', '=', accountId)
    .where('sourceKind', '=', 'broadcast')
    .where('sourceId', '=', broadcastId)
    .where('variant', '>', 0)
    .groupBy('variant')
    .execute();
  return new Map(
    rows.map((row) => [Number(row.variant), { queued: Number(row.queued), sent: Number(row.sent) }]),
  );
}

/**
 * People who opened and who clicked each test variant (1-based), each person counted once: the first opens and
 * clicks that the metrics rollup records (`email_metric_firsts`, metrics.jobs.ts), which leave out hits that
 * tracking flagged as a machine's (privacy proxies, link scanners). They count events once rolled up, within
 * seconds (the decision job rolls up first).
 */
export async function variantEngagement(
  db: Database,
  accountId: number,
  broadcastId: number,
): Promise<Map<number, { opens: number; clicks: number }>> {
  const { rows } = await sql<{ variant: number; opens: string; clicks: string }>`
    select variant,
      count(distinct person_id) filter (where name = 'opened') as opens,
      count(distinct person_id) filter (where name = 'clicked') as clicks
    from email_metric_firsts
    where account_id = ${accountId} and source_kind = 'broadcast' and source_id = ${broadcastId} and variant between 1 and 4
    group by variant
  `.execute(db);
  return new Map(
    rows.map((row) => [Number(row.variant), { opens: Number(row.opens), clicks: Number(row.clicks) }]),
  );
}
