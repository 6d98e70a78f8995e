import type { AiUseCase } from '@herald/contracts';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';

/** The most suggestions GET /v1/ai-writer lists. */
export const listedSuggestions = 100;

/** Newest answer first; within one answer, the model's own order (its first subject line first). */
export function listSuggestions(db: Database, accountId: number) {
  return db
    .selectFrom('aiSuggestions')
    .select(['id', 'useCase', 'content', 'createdAt'])
    .where('accountId', '=', accountId)
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'asc')
    .limit(listedSuggestions)
    .execute();
}

/** Store one answer's suggestions in one statement: they share their time, and their ids keep the model's order. */
export function insertSuggestions(db: Database, accountId: number, useCase: AiUseCase, contents: string[]) {
  return db
    .insertInto('aiSuggestions')
    .values(contents.map((content) => ({ accountId, useCase, content })))
    .returning(['id', 'useCase', 'content', 'createdAt'])
    .execute();
}

/** Tokens the account has used in the calendar month (UTC) that holds `now`. */
export async function tokensUsedThisMonth(db: Database, accountId: number, now: Date): Promise<number> {
  const row = await db
    .selectFrom('aiTokenUse')
    .select('tokens')
    .where('accountId', '=', accountId)
    .where('month', '=', sql<Date>`date_trunc('month', ${now}::timestamptz at time zone 'UTC')::date`)
    .executeTakeFirst();
  return row ? Number(row.tokens) : 0;
}

/** Add one answer's tokens to the month's count. */
export async function addTokenUse(db: Database, accountId: number, now: Date, tokens: number): Promise<void> {
  await sql`
    insert into ai_token_use (account_id, month, tokens, requests)
    values (${accountId}, date_trunc('month', ${now}::timestamptz at time zone 'UTC')::date, ${tokens}, 1)
    on conflict (account_id, month) do update set tokens = ai_token_use.tokens + excluded.tokens, requests = ai_token_use.requests + 1`.execute(
    db,
  );
}

/** What decides whether the account may use the AI writer. */
export function findAccountStanding(db: Database, accountId: number) {
  return db
    .selectFrom('accounts')
    .select(['name', 'status', 'blocked', 'trialEndsAt'])
    .where('id', '=', accountId)
    .executeTakeFirst();
}
