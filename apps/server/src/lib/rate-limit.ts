import { sql } from 'kysely';
import type { Database } from '../db/connection.ts';
import { tooManyRequests } from '../http/errors.ts';

/**
 * Fixed-window counter kept in PostgreSQL, so every API process shares it.
 * Throws a 429 AppError when `key` has been hit more than `limit` times in `windowSeconds`.
 */
export async function enforceRateLimit(
  db: Database,
  key: string,
  limit: number,
  windowSeconds: number,
): Promise<void> {
  const window = `${windowSeconds} seconds`;
  const row = await sql<{ hits: number; retryAfter: number }>`
    insert into rate_limits (key, window_start, hits) values (${key}, now(), 1)
    on conflict (key) do update set
      hits = case when rate_limits.window_start < now() - ${window}::interval then 1 else rate_limits.hits + 1 end,
      window_start = case when rate_limits.window_start < now() - ${window}::interval then now() else rate_limits.window_start end
    returning hits, ceil(extract(epoch from (window_start + ${window}::interval - now())))::int as "retryAfter"`
    .execute(db)
    .then((r) => r.rows[0]!);
  if (row.hits > limit) throw tooManyRequests(Math.max(1, row.retryAfter));
}
