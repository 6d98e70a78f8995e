import type pg from 'pg';
import type { Services } from '../../services.ts';
import { withAccountClient } from '../../db/tenancy.ts';
import { enqueuePeopleSearchBlocks } from './people-search-blocks.jobs.ts';

/**
 * The people-search-fill job: search entries for the people an import wrote, in one statement, right after the
 * import is done (its merge leaves them out: `herald.search_deferred`, migration 0037). People written since the
 * import was requested get their entry (re)computed; an entry that is already right is not written again, so a
 * retried job, or people another write already indexed, cost a comparison only.
 */
export async function runPeopleSearchFill(
  services: Services,
  accountId: number,
  since: string,
): Promise<void> {
  await fillPeopleSearch(services.pool, accountId, since);
  // The blocks the fill wrote to are unknown now: summarise them, so searches pass by the import's people again.
  await enqueuePeopleSearchBlocks(services.db, accountId);
}

/** Connections filling at once: trigram entries cost about 25 µs a person on one core; the fill uses both. */
const fillConnections = 2;

export async function fillPeopleSearch(pool: pg.Pool, accountId: number, since: string): Promise<number> {
  const part = (k: number) =>
    withAccountClient(pool, accountId, async (client) => {
      // New entries go to the GIN pending list and are folded in large sorted passes (4 MB passes cost more).
      await client.query(
        "select set_config('gin_pending_list_limit', '65536', true), set_config('work_mem', '131072', true), set_config('statement_timeout', '600000', true), set_config('jit', 'off', true)",
      );
      const { rowCount } = await client.query(
        `insert into people_search (account_id, person_id, search)
         select p.account_id, p.id, herald_person_search(p.email, p.first_name, p.last_name)
         from people p where p.account_id = $1 and p.updated_at >= $2 and p.id % $3 = $4
         on conflict (account_id, person_id) do update set search = excluded.search
         where people_search.search is distinct from excluded.search`,
        [accountId, since, fillConnections, k],
      );
      return rowCount ?? 0;
    });
  const filled = (await Promise.all(Array.from({ length: fillConnections }, (_, k) => part(k)))).reduce(
    (a, b) => a + b,
    0,
  );
  const client = await pool.connect();
  try {
    await client.query("set maintenance_work_mem = '256MB'; set statement_timeout = 600000");
    await client.query("select gin_clean_pending_list('people_search_grams_idx'::regclass)");
  } finally {
    await client.query('reset maintenance_work_mem; reset statement_timeout').catch(() => undefined);
    client.release();
  }
  return filled;
}
