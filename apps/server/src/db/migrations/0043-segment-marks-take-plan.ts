import { sql, type Kysely } from 'kysely';

/**
 * The take of segment marks runs in a function whose planner settings leave it one plan: the picked addresses, then
 * a lookup by address for each (a nested loop over a TID scan). Left to choose, PostgreSQL hashed every mark of the
 * account whenever the statistics said the account had many: under `tracking-hits`, with 400,000 marks waiting, 72 ms
 * a take of 5,000 against 18 ms by address, and the cost grew with the backlog it was meant to shrink
 * (docs/tracking-and-metrics.md, "The take of segment marks"). The function runs with its caller's rights, so the tenant
 * policy still holds; the settings end with it.
 */

/** The planner settings of the take: no hash or merge join, so the delete finds each picked mark by its address. */
export const takeMarksSettings = { enable_hashjoin: 'off', enable_mergejoin: 'off' } as const;

/** The take's statement, with the account as $1 and the limit as $2 (the function's body). */
export const takeMarksBody = `
  with picked as materialized (
    select ctid as address from segment_dirty_people where account_id = $1 limit $2 for update skip locked
  )
  delete from segment_dirty_people d using picked p where d.ctid = p.address
  returning d.person_id, d.tags`;

export async function up(db: Kysely<unknown>): Promise<void> {
  const settings = Object.entries(takeMarksSettings)
    .map(([name, value]) => `set ${name} = ${value}`)
    .join(' ');
  await sql`
    create function herald_take_segment_marks(account bigint, lim int) returns table (person_id bigint, tags text[])
    language sql volatile ${sql.raw(settings)}
    as $fn$ ${sql.raw(takeMarksBody)} $fn$;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function herald_take_segment_marks(bigint, int)`.execute(db);
}
