import { sql } from 'kysely';
import { intArray } from './arrays.ts';
import type { Database } from './connection.ts';
import type { EventStore, PageCursor, StoredEvent } from './event-store.ts';

/** Events in PostgreSQL's `events` table (EVENT_STORE=postgres, the default): every read is a query on it. */
export function postgresEventStore(): EventStore {
  return {
    kind: 'postgres',
    clickhouse: null,
    page: (db, accountId, filter, after, limit) => pageFromPostgres(db, accountId, filter, after, limit),
    personEmailCounts: (db, accountId, personId) => emailCountsFromPostgres(db, accountId, personId),
    feedbackRecorded: async (db, f) => feedbackInPostgres(db, f),
    softBouncedMessages: (db, accountId, personId, days) =>
      softBouncesInPostgres(db, accountId, personId, days),
    deletePerson: async (db, accountId, personId) => {
      await db
        .deleteFrom('events')
        .where('accountId', '=', accountId)
        .where('personId', '=', personId)
        .execute();
    },
    erasePeople: async (db, accountId, personIds) => {
      if (personIds.length === 0) return;
      await sql`delete from events where account_id = ${accountId}
        and person_id = any(${intArray(personIds)}::bigint[])`.execute(db);
    },
    deleteBefore: async (db, accountId, before) => {
      await db
        .deleteFrom('events')
        .where('accountId', '=', accountId)
        .where('createdAt', '<', before)
        .execute();
    },
    movePerson: async (db, accountId, fromId, intoId) => {
      await db
        .updateTable('events')
        .set({ personId: intoId })
        .where('accountId', '=', accountId)
        .where('personId', '=', fromId)
        .execute();
    },
    copyPersonForTestRun: async () => undefined,
    deleteAccount: async () => undefined,
    withEventSets: async (ctx) => ctx,
    settle: async () => undefined,
    ping: async () => undefined,
    spool: () => ({ size: 0, oldestAtMs: undefined }),
    start: () => undefined,
    stop: async () => undefined,
  };
}

const eventColumns = ['id', 'personId', 'type', 'name', 'url', 'data', 'source', 'createdAt'] as const;

/** Newest first, keyset-paged on (created_at, id), from the `events` table (the whole store, or the spool). */
export async function pageFromPostgres(
  db: Database,
  accountId: number,
  filter: Parameters<EventStore['page']>[2],
  after: PageCursor | undefined,
  limit: number,
): Promise<StoredEvent[]> {
  let q = db
    .selectFrom('events')
    .select(eventColumns)
    .select(sql<number>`(extract(epoch from created_at) * 1000000)::int8`.as('atMicros'))
    .where('accountId', '=', accountId);
  if (filter.personId !== undefined) q = q.where('personId', '=', filter.personId);
  if (filter.withoutPeople) q = q.where('personId', 'is', null);
  if (filter.source) q = q.where('source', '=', filter.source);
  if (after)
    q = q.where(
      sql<boolean>`(created_at, id) < (timestamptz 'epoch' + ${after.atMicros}::int8 * interval '1 microsecond', ${after.id})`,
    );
  return q
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}

/**
 * A person's email activity counted from the person's email events, with the rule the rollup's queue uses (soft
 * bounces do not count). A per-person rollup cost a write for every hit (migration 0042); this reads the person's
 * events through `events_person_idx`, a few hundred rows for a reader of years of newsletters.
 */
export async function emailCountsFromPostgres(
  db: Database,
  accountId: number,
  personId: number,
): Promise<Record<string, number>> {
  const { rows } = await sql<{ name: string; n: string }>`
    select name, count(*)::text as n from events
    where account_id = ${accountId} and person_id = ${personId} and type = 'email'
      and name in ('sent', 'opened', 'clicked', 'unsubscribed', 'bounced')
      and not (name = 'bounced' and coalesce(data->>'soft', '') = 'true')
    group by name`.execute(db);
  return Object.fromEntries(rows.map((row) => [row.name, Number(row.n)]));
}

export async function feedbackInPostgres(
  db: Database,
  f: Parameters<EventStore['feedbackRecorded']>[1],
): Promise<boolean> {
  const found = await db
    .selectFrom('events')
    .select('id')
    .where('accountId', '=', f.accountId)
    .where('type', '=', 'email')
    .where('name', '=', f.name)
    .where(sql<boolean>`data->>'messageId' = ${f.messageId}`)
    .where(sql<boolean>`coalesce((data->>'soft')::boolean, false) = ${f.soft}`)
    .$if(f.personId !== null, (q) => q.where('personId', '=', f.personId))
    .limit(1)
    .executeTakeFirst();
  return found !== undefined;
}

/** The message ids of the person's soft bounces in the window (a set: one message bounced twice counts once). */
export async function softBounceIdsInPostgres(
  db: Database,
  accountId: number,
  personId: number,
  days: number,
): Promise<string[]> {
  const { rows } = await sql<{ id: string | null }>`
    select distinct data->>'messageId' as id from events
    where account_id = ${accountId} and person_id = ${personId} and type = 'email' and name = 'bounced'
      and coalesce((data->>'soft')::boolean, false) and created_at > now() - make_interval(days => ${days})
  `.execute(db);
  return rows.flatMap((row) => (row.id === null ? [] : [row.id]));
}

async function softBouncesInPostgres(db: Database, accountId: number, personId: number, days: number) {
  return (await softBounceIdsInPostgres(db, accountId, personId, days)).length;
}
