import { suppressesTransactional, type CategoryType, type SuppressionReason } from '@herald/contracts';
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../db/connection.ts';

/** The suppression reasons that stop transactional mail too (contracts' suppressesTransactional). */
export const stoppingAll = (Object.keys(suppressesTransactional) as SuppressionReason[]).filter(
  (reason) => suppressesTransactional[reason],
);

/**
 * Who may receive mail of a category, as a condition on `people p` (docs/senders-and-consent.md and the sending half of
 * docs/senders-and-consent.md): an address, not archived, not suppressed for the category's type (any suppression stops
 * marketing; hard bounces, invalid addresses and manual entries stop transactional mail too), not opted
 * out of the category, and, for marketing, not waiting to confirm a double opt-in. The send pipeline puts it in its INSERT … SELECT and re-checks it at claim time.
 */
export function deliverableTo(categoryId: number, categoryType: CategoryType): RawBuilder<SqlBool> {
  const blocking = categoryType === 'marketing' ? sql`true` : sql`s.reason in (${sql.join(stoppingAll)})`;
  // Double opt-in: a person who has not confirmed yet gets no marketing mail (transactional mail, the confirmation
  // email among it, still goes).
  const confirmed = categoryType === 'marketing' ? sql`p.confirmation_pending_at is null` : sql`true`;
  return sql<SqlBool>`(
    p.email is not null and p.archived_at is null and ${confirmed}
    and not exists (select 1 from suppressions s where s.account_id = p.account_id and s.email = lower(p.email) and ${blocking})
    and not exists (
      select 1 from communication_preferences cp
      where cp.account_id = p.account_id and cp.person_id = p.id and cp.category_id = ${categoryId} and cp.value = 'optOut'
    )
  )`;
}

/** The same rule for one person: may they receive mail of this category now? */
export async function mayReceive(
  db: Database,
  accountId: number,
  personId: number,
  category: { id: number; type: CategoryType },
): Promise<boolean> {
  const row = await db
    .selectFrom('people as p')
    .select(sql<boolean>`${deliverableTo(category.id, category.type)}`.as('ok'))
    .where('p.accountId', '=', accountId)
    .where('p.id', '=', personId)
    .executeTakeFirst();
  return row?.ok === true;
}

/** Of these addresses (lower case), the ones the suppression list (or an erase) stops for mail of this category type. */
export async function stoppedAmong(
  db: Database,
  accountId: number,
  addresses: string[],
  categoryType: CategoryType,
): Promise<Set<string>> {
  if (!addresses.length) return new Set();
  let query = db
    .selectFrom('suppressions')
    .select('email')
    .where('accountId', '=', accountId)
    .where('email', 'in', addresses);
  if (categoryType !== 'marketing') query = query.where('reason', 'in', stoppingAll);
  const stopped = new Set((await query.execute()).map((r) => r.email));
  // An address erased on request (migration 0052) is kept only as its hash; it stops every kind of mail.
  const { rows: erased } = await sql<{ email: string }>`
    select e as email from unnest(${addresses}::text[]) as e
    where exists (select 1 from erased_addresses x where x.account_id = ${accountId}
      and x.address_hash = herald_erased_hash(${accountId}, e))`.execute(db);
  for (const row of erased) stopped.add(row.email);
  return stopped;
}
