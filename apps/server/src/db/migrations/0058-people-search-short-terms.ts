import type { Kysely } from 'kysely';
import { searchFunction } from './0054-people-search-sample.ts';

/**
 * People search: a term of one or two characters takes its candidates from a plain scan of the search entries, not
 * the trigram index (issue 56, docs/people.md, "How a search runs"). Such a term holds no trigram, so the index
 * answered with every entry of the account, which were then all sorted for the newest few hundred: right after
 * `import-1m` (half a million new people whose names hold neither `li` nor `an`), `li` took 5.7 s and `an` 4.9 s. The
 * first walks of the newest entries are unchanged, so a common short term still answers from them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await searchFunction(true, true).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await searchFunction(true).execute(db);
}
