import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { ConditionNode } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';

const segmentColumns = [
  'id',
  'name',
  'color',
  'autoType',
  'conditions',
  'version',
  'memberCount',
  'refreshedAt',
  'createdAt',
  'updatedAt',
] as const;

export type SegmentRow = NonNullable<Awaited<ReturnType<typeof findSegment>>>;

export function listSegments(db: Database, accountId: number) {
  return db
    .selectFrom('segments')
    .select(segmentColumns)
    .where('accountId', '=', accountId)
    .orderBy('id')
    .execute();
}

export function findSegment(db: Database, accountId: number, id: number) {
  return db
    .selectFrom('segments')
    .select(segmentColumns)
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function insertSegment(
  db: Database,
  accountId: number,
  values: { name: string; color: string | null; conditions: ConditionNode[] },
) {
  return db
    .insertInto('segments')
    .values({
      accountId,
      name: values.name,
      color: values.color,
      conditions: JSON.stringify(values.conditions),
    })
    .returning(segmentColumns)
    .executeTakeFirstOrThrow();
}

/** Save name, colour and conditions; the version moves only when the conditions change. */
export async function updateSegment(
  db: Database,
  accountId: number,
  id: number,
  values: { name: string; color?: string | null; conditions?: ConditionNode[]; conditionsChanged: boolean },
) {
  return db
    .updateTable('segments')
    .set({
      name: values.name,
      ...(values.color !== undefined ? { color: values.color } : {}),
      ...(values.conditions !== undefined ? { conditions: JSON.stringify(values.conditions) } : {}),
      ...(values.conditionsChanged ? { version: sql<number>`version + 1` } : {}),
      updatedAt: sql<Date>`now()`,
    })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .returning(segmentColumns)
    .executeTakeFirstOrThrow();
}

export async function deleteSegment(db: Database, accountId: number, id: number) {
  await db.deleteFrom('segments').where('accountId', '=', accountId).where('id', '=', id).execute();
}

/** Serialise segment writes of one account (create and update run one at a time). */
export async function lockSegmentWrites(db: Database, accountId: number) {
  await sql`select pg_advisory_xact_lock(hashtextextended('segments', ${accountId}::bigint))`.execute(db);
}

export function customFieldTypes(db: Database, accountId: number) {
  return db.selectFrom('personFields').select(['name', 'type']).where('accountId', '=', accountId).execute();
}

/**
 * Time limits for the rest of the transaction, so a slow segment answers instead of hanging: one for each
 * statement, a shorter one for waiting on a table lock (a migration, say). JIT is off for these reads:
 * compiling the plan cost about 90 ms of a 400 ms count over 1M people.
 */
export async function limitStatementTime(db: Database, limits: { statementMs: number; lockMs: number }) {
  await sql`select set_config('statement_timeout', ${String(limits.statementMs)}, true),
    set_config('lock_timeout', ${String(limits.lockMs)}, true), set_config('jit', 'off', true)`.execute(db);
}

export async function countArchived(db: Database, accountId: number) {
  const { rows } = await sql<{
    n: number;
  }>`select count(*)::int as n from people where account_id = ${accountId} and archived_at is not null`.execute(
    db,
  );
  return rows[0]!.n;
}

/** How many people match, and how many of them wait to confirm a double opt-in (given only when some do). */
export async function countMatching(db: Database, filter: RawBuilder<SqlBool>) {
  const { rows } = await sql<{ n: number; pending: number }>`select count(*)::int as n,
    count(*) filter (where p.confirmation_pending_at is not null)::int as pending
    from people p where ${filter}`.execute(db);
  const { n, pending } = rows[0]!;
  return { totalCount: n, ...(pending > 0 ? { pendingConfirmation: pending } : {}) };
}

const sortColumns = {
  createdAt: sql`p.created_at`,
  updatedAt: sql`p.updated_at`,
  email: sql`p.email`,
  firstName: sql`p.first_name`,
  lastName: sql`p.last_name`,
} as const;

/**
 * One page of the people a filter matches, sorted by a whitelisted column with the id as tie-breaker.
 * The page's ids are chosen first from the narrow rows, then only those people are read whole.
 */
export function pageMatching(
  db: Database,
  accountId: number,
  filter: RawBuilder<SqlBool>,
  page: {
    sort: keyof typeof sortColumns;
    order: 'asc' | 'desc';
    limit: number;
    offset: number;
    ignoreAnonymous: boolean;
  },
) {
  const direction = page.order === 'asc' ? sql`asc` : sql`desc`;
  const ordering = sql`${sortColumns[page.sort]} ${direction} nulls last, p.id ${direction}`;
  const pageIds = sql`select p.id from people p where ${filter} ${page.ignoreAnonymous ? sql`and p.email is not null` : sql``}
    order by ${ordering} limit ${page.limit}::int offset ${page.offset}::int`;
  return db
    .selectFrom('people as p')
    .select([
      'p.id',
      'p.email',
      'p.firstName',
      'p.lastName',
      'p.phone',
      'p.company',
      'p.website',
      'p.externalId',
      'p.fields',
      'p.tags',
      'p.createdAt',
      'p.updatedAt',
      'p.archivedAt',
      'p.unsubscribedAt',
      'p.unsubscribeReason',
    ])
    .where('p.accountId', '=', accountId)
    .where(sql<SqlBool>`p.id in (${pageIds})`)
    .orderBy(ordering)
    .execute();
}

/** Ids of all the people a filter matches (for bulk actions), in id order. */
export async function idsMatching(db: Database, filter: RawBuilder<SqlBool>) {
  const { rows } = await sql<{ id: number }>`select p.id from people p where ${filter} order by p.id`.execute(
    db,
  );
  return rows.map((r) => r.id);
}

/** The account's tracked event names, most recently seen first (from the `event_names` summary). */
export async function recentEventNames(db: Database, accountId: number, limit: number) {
  const rows = await db
    .selectFrom('eventNames')
    .select('name')
    .where('accountId', '=', accountId)
    .orderBy('lastSeenAt', 'desc')
    .orderBy('name')
    .limit(limit)
    .execute();
  return rows.map((r) => r.name);
}

export async function segmentsOfPerson(db: Database, accountId: number, personId: number) {
  return db
    .selectFrom('segmentMembers as m')
    .innerJoin('segments as s', (j) =>
      j.onRef('s.accountId', '=', 'm.accountId').onRef('s.id', '=', 'm.segmentId'),
    )
    .select(['s.id', 's.name', 's.color'])
    .where('m.accountId', '=', accountId)
    .where('m.personId', '=', personId)
    .orderBy('s.name')
    .execute();
}
