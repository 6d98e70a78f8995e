import { withAccount } from '../../db/tenancy.ts';
import type { Services } from '../../services.ts';
import { accountsWithEventRetention } from './privacy.queries.ts';

/** The instant `months` calendar months before `now` (the end of a shorter month is its last day). */
export function monthsBefore(now: Date, months: number): Date {
  const cutoff = new Date(now);
  const day = cutoff.getUTCDate();
  cutoff.setUTCDate(1);
  cutoff.setUTCMonth(cutoff.getUTCMonth() - months);
  const last = new Date(Date.UTC(cutoff.getUTCFullYear(), cutoff.getUTCMonth() + 1, 0)).getUTCDate();
  cutoff.setUTCDate(Math.min(day, last));
  return cutoff;
}

/**
 * The daily event retention job ('prune-events'; docs/people.md, "Event retention"): for each account that set
 * `event_retention_months`, its events older than that go through the event store (PostgreSQL's table, or ClickHouse
 * and its spool), one account a transaction. The email metrics' rollups keep their counts. Returns the accounts done.
 */
export async function runPruneEvents(services: Services, now = new Date()): Promise<number> {
  const accounts = await accountsWithEventRetention(services.db);
  for (const account of accounts) {
    const before = monthsBefore(now, account.eventRetentionMonths!);
    await withAccount(services.db, account.id, (db) => services.events.deleteBefore(db, account.id, before));
  }
  return accounts.length;
}
