import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { intArray } from '../../db/arrays.ts';
import type { Database } from '../../db/connection.ts';
import { refreshHoldLock } from '../../db/refresh-hold.ts';

export interface MembershipChange {
  entered: number;
  left: number;
  /** False when the segment's conditions changed meanwhile: nothing is written (saving queued a newer refresh). */
  applied: boolean;
}

/**
 * The first CTE of every statement that changes a segment's members: the segment at the version the change was worked
 * out for. The key-share lock holds off a concurrent delete of the segment until this commits, and finds no row when
 * one committed meanwhile (so no member is written for a segment that is gone or changed).
 */
const currentVersion = (accountId: number, segment: { id: number; version: number }) => sql`
    current_version as (
      select 1 from segments s where s.account_id = ${accountId} and s.id = ${segment.id} and s.version = ${segment.version}
      for key share
    )`;

/** The CTE that records each row of `entered` and `exited` as a segment event (none when `recordEvents` is false). */
const recordedChanges = (accountId: number, segmentId: number, recordEvents: boolean) => sql`
    recorded as (
      insert into events (account_id, person_id, type, name, data, source)
      select ${accountId}::bigint, c.person_id, 'segment', c.name, jsonb_build_object('segmentId', ${segmentId}::bigint), 'segments'
      from (select person_id, 'entered' as name from entered union all select person_id, 'left' from exited) c
      where ${recordEvents}::boolean
      returning 1
    )`;

/**
 * Bring one segment's members in line with `filter`, for everyone (`personIds` null) or for the given
 * people, in one statement: insert who is missing, delete who no longer matches, record each entry
 * and exit as an event (unless `recordEvents` is false), and keep the cached count. It commits only
 * for the segment version it was computed for (nothing for a segment deleted meanwhile), and is idempotent: a retry finds nothing to change.
 */
export async function applyMembership(
  db: Database,
  accountId: number,
  segment: { id: number; version: number },
  filter: RawBuilder<SqlBool>,
  personIds: number[] | null,
  recordEvents: boolean,
): Promise<MembershipChange> {
  const some = personIds !== null;
  const ids = intArray(personIds ?? []);
  const { rows } = await sql<{ entered: number; left: number; applied: number }>`
    with ${currentVersion(accountId, segment)},
    target as materialized (
      select p.id from people p where ${filter} ${some ? sql`and p.id = any(${ids}::bigint[])` : sql``}
    ),
    existing as materialized (
      select o.person_id from segment_members o
      where o.account_id = ${accountId} and o.segment_id = ${segment.id} ${some ? sql`and o.person_id = any(${ids}::bigint[])` : sql``}
    ),
    -- Who is not a member yet, by set difference (hashed or sorted, never a nested loop), inserted plainly: every
    -- change of a segment's members holds its lock (holdSegmentMembership, tryLockSegmentMembership), so no one
    -- else adds a member meanwhile. ON CONFLICT checked each row against the primary key first: a third of a build's
    -- insert (docs/segments.md, "How a build writes its members").
    entered as (
      insert into segment_members (account_id, segment_id, person_id)
      select ${accountId}::bigint, ${segment.id}::bigint, d.id
      from (select t.id from target t except select e.person_id from existing e) d
      where exists (select 1 from current_version)
      -- In key order: the difference comes out in hash order, and inserting in it touched the index's pages at random.
      order by d.id
      returning person_id
    ),
    -- The same difference the other way, then deletion through the primary key.
    exited as (
      delete from segment_members m
      where m.account_id = ${accountId} and m.segment_id = ${segment.id} and exists (select 1 from current_version)
        and m.person_id = any(array(select e.person_id from existing e except select t.id from target t))
      returning person_id
    ),
    ${recordedChanges(accountId, segment.id, recordEvents)},
    counted as (
      update segments s set
        member_count = ${
          some
            ? sql`case when s.refreshed_at is null then null else s.member_count + (select count(*) from entered) - (select count(*) from exited) end`
            : sql`(select count(*) from target)`
        },
        refreshed_at = ${some ? sql`s.refreshed_at` : sql`now()`}
      where s.account_id = ${accountId} and s.id = ${segment.id} and exists (select 1 from current_version)
      returning 1
    )
    select (select count(*) from entered)::int as entered, (select count(*) from exited)::int as left,
      (select count(*) from counted)::int as applied, (select count(*) from recorded)::int as recorded`.execute(
    db,
  );
  const row = rows[0]!;
  return { entered: row.entered, left: row.left, applied: row.applied === 1 };
}

/**
 * The statement that takes up to `limit` marks of the account (deleted with the transaction's commit): the function
 * of migration 0043, which picks the marks and deletes each by its address, with planner settings that allow no
 * other plan (docs/tracking-and-metrics.md, "The take of segment marks"). Written as `ctid = any(array(...))`, statistics that
 * knew nothing of the account had PostgreSQL read all of the account's marks through the tenant policy's index and
 * compare each with every picked address in turn (10-20 s a take with 400,000 marks waiting); as a join left to the
 * planner, statistics that knew the account had many marks had it hash them all (72 ms a take against 18).
 */
export const takeMarks = (accountId: number, limit: number) => sql<{
  personId: string | number;
  tags: string[] | null;
}>`
  select person_id as "personId", tags from herald_take_segment_marks(${accountId}, ${limit})`;

/**
 * Take up to `limit` marks of the account (deleted with the transaction's commit), by person: null when something
 * other than tags changed, else the tags added or removed (several marks of one person are merged). Marks another
 * refresh holds are passed over: two refreshes of one account take different people and never wait for each other
 * (waiting on each other's marks, in different orders, they deadlocked).
 */
export async function takeDirtyPeople(
  db: Database,
  accountId: number,
  limit: number,
): Promise<Map<number, string[] | null>> {
  const { rows } = await takeMarks(accountId, limit).execute(db);
  const marks = new Map<number, string[] | null>();
  for (const row of rows) {
    const id = Number(row.personId);
    const seen = marks.get(id);
    if (seen === null) continue;
    marks.set(
      id,
      row.tags === null ? null : seen === undefined ? row.tags : [...new Set([...seen, ...row.tags])],
    );
  }
  return marks;
}

/** Take the account-wide mark (a change too large to follow person by person); true when it was set. */
export async function takeDirtyAccount(db: Database, accountId: number) {
  const res = await sql`delete from segment_dirty_accounts where account_id = ${accountId}`.execute(db);
  return Number(res.numAffectedRows ?? 0) > 0;
}

export async function clearDirtyPeople(db: Database, accountId: number) {
  await sql`delete from segment_dirty_people where account_id = ${accountId}`.execute(db);
}

/**
 * Accounts with people marked for a membership refresh whose refreshes are not held (owner connection: all accounts).
 * The accounts with marks are found by one descent of the marks' index for each (the next account after the last
 * found), not by reading every mark: under `tracking-hits`, with hundreds of thousands waiting, `select distinct`
 * took 52 ms at every poll.
 */
export async function accountsWithDirtyMarks(db: Database) {
  const { rows } = await sql<{ accountId: number }>`
    with recursive marked_accounts (account_id) as (
      (select account_id from segment_dirty_people order by account_id limit 1)
      union all
      select (select p.account_id from segment_dirty_people p where p.account_id > m.account_id order by p.account_id limit 1)
      from marked_accounts m where m.account_id is not null
    )
    select account_id from (
      select account_id from segment_dirty_accounts
      union
      select account_id from marked_accounts where account_id is not null
    ) marked
    where pg_try_advisory_xact_lock_shared(hashtextextended(${refreshHoldLock}, account_id))`.execute(db);
  return rows.map((r) => r.accountId);
}

/** Accounts that keep segment membership (owner connection). */
export async function accountsWithSegments(db: Database) {
  const { rows } = await sql<{ accountId: number }>`
    select distinct s.account_id from segments s join accounts a on a.id = s.account_id
    where s.auto_type is distinct from 'allPeople' and a.deleting_at is null`.execute(db);
  return rows.map((r) => r.accountId);
}

/** Of `accountIds`, those with at least `marks` marked people waiting, in one statement (each count stops there). */
export async function accountsWithManyMarks(db: Database, accountIds: number[], marks: number) {
  if (!accountIds.length) return [];
  const { rows } = await sql<{ accountId: string | number }>`
    select a.id as "accountId" from unnest(${intArray(accountIds)}::bigint[]) a (id)
    where (select count(*) from (select 1 from segment_dirty_people d where d.account_id = a.id limit ${marks}) m) >= ${marks}`.execute(
    db,
  );
  return rows.map((r) => Number(r.accountId));
}

/** Who a full rebuild adds and removes, computed once from the segment's conditions, and how many match them. */
export interface MembershipDiff {
  entered: number[];
  exited: number[];
  total: number;
}

/** The people of the account who match `filter` and are not members, the members who no longer match, in id order. */
export async function membershipDiff(
  db: Database,
  accountId: number,
  segmentId: number,
  filter: RawBuilder<SqlBool>,
): Promise<MembershipDiff> {
  const { rows } = await sql<{ entered: string[]; exited: string[]; total: number }>`
    with target as materialized (select p.id from people p where ${filter}),
    existing as materialized (
      select o.person_id from segment_members o where o.account_id = ${accountId} and o.segment_id = ${segmentId}
    )
    select
      array(select d.id from (select t.id from target t except select e.person_id from existing e) d order by d.id) as entered,
      array(select d.id from (select e.person_id as id from existing e except select t.id from target t) d order by d.id) as exited,
      (select count(*) from target)::int as total`.execute(db);
  const row = rows[0]!;
  return { entered: row.entered.map(Number), exited: row.exited.map(Number), total: row.total };
}

/**
 * Apply part of a rebuild's difference: add `entered` (those still in the account: one deleted since the difference
 * was taken is passed over), remove `exited`, and record each entry and exit (unless `recordEvents` is false). As
 * applyMembership, only for the segment version it was computed for. The count is set by setMemberCount.
 */
export async function applyMembershipChunk(
  db: Database,
  accountId: number,
  segment: { id: number; version: number },
  entered: number[],
  exited: number[],
  recordEvents: boolean,
): Promise<MembershipChange> {
  const { rows } = await sql<{ entered: number; left: number; applied: boolean }>`
    with ${currentVersion(accountId, segment)},
    entered as (
      insert into segment_members (account_id, segment_id, person_id)
      select ${accountId}::bigint, ${segment.id}::bigint, p.id from people p
      where p.account_id = ${accountId} and p.id = any(${intArray(entered)}::bigint[]) and exists (select 1 from current_version)
      order by p.id
      returning person_id
    ),
    exited as (
      delete from segment_members m
      where m.account_id = ${accountId} and m.segment_id = ${segment.id} and exists (select 1 from current_version)
        and m.person_id = any(${intArray(exited)}::bigint[])
      returning person_id
    ),
    ${recordedChanges(accountId, segment.id, recordEvents)}
    select (select count(*) from entered)::int as entered, (select count(*) from exited)::int as left,
      exists (select 1 from current_version) as applied, (select count(*) from recorded)::int as recorded`.execute(
    db,
  );
  const row = rows[0]!;
  return { entered: row.entered, left: row.left, applied: row.applied };
}

/** A rebuild's end: the cached count (`count`, or the members counted now) and the time of the build. */
export async function setMemberCount(
  db: Database,
  accountId: number,
  segment: { id: number; version: number },
  count: number | null,
): Promise<void> {
  await sql`
    update segments s set refreshed_at = now(),
      member_count = ${count ?? sql`(select count(*) from segment_members m where m.account_id = ${accountId} and m.segment_id = ${segment.id})`}
    where s.account_id = ${accountId} and s.id = ${segment.id} and s.version = ${segment.version}`.execute(
    db,
  );
}

/** The lock key of one segment's membership changes. */
const membershipLock = (segmentId: number) =>
  sql`hashtextextended('segment-membership', ${segmentId}::bigint)`;

/** How often `holdSegmentMembership` asks again while another session holds the lock. */
const holdRetryMs = 250;

/**
 * Hold the right to change a segment's members across transactions, on this connection, until `release` (a rebuild
 * applied in parts; tryLockSegmentMembership of a refresh of marks fails meanwhile). Waits at most `waitMs` for
 * whoever holds it (a refresh of marks for a moment, a rebuild of a big segment for minutes) and gives null when it
 * is still held then. It asks again every `holdRetryMs` rather than wait in PostgreSQL, where the wait ran into the
 * pool's statement time-out.
 */
export function holdSegmentMembership(connection: Database, segmentId: number): Promise<() => Promise<void>>;
export function holdSegmentMembership(
  connection: Database,
  segmentId: number,
  waitMs: number,
): Promise<(() => Promise<void>) | null>;
export async function holdSegmentMembership(
  connection: Database,
  segmentId: number,
  waitMs = Number.POSITIVE_INFINITY,
): Promise<(() => Promise<void>) | null> {
  const until = Date.now() + waitMs;
  for (;;) {
    const { rows } = await sql<{
      locked: boolean;
    }>`select pg_try_advisory_lock(${membershipLock(segmentId)}) as locked`.execute(connection);
    if (rows[0]!.locked)
      return async () => {
        await sql`select pg_advisory_unlock(${membershipLock(segmentId)})`.execute(connection);
      };
    if (Date.now() + holdRetryMs > until) return null;
    await new Promise((resolve) => setTimeout(resolve, holdRetryMs));
  }
}

/** Take the right to change a segment's members if no one holds it (until the transaction ends). */
export async function tryLockSegmentMembership(db: Database, segmentId: number): Promise<boolean> {
  const { rows } = await sql<{
    locked: boolean;
  }>`select pg_try_advisory_xact_lock(${membershipLock(segmentId)}) as locked`.execute(db);
  return rows[0]!.locked;
}

/** Mark the whole account for a rebuild of every segment (done by the next refresh of marked changes). */
export async function markAccountDirty(db: Database, accountId: number) {
  await sql`insert into segment_dirty_accounts (account_id) values (${accountId}) on conflict do nothing`.execute(
    db,
  );
}

/** Mark people again, for a later round (their change could not be applied to every segment yet); as changed in any way. */
export async function markPeopleDirty(db: Database, accountId: number, personIds: number[]) {
  await sql`insert into segment_dirty_people (account_id, person_id) select ${accountId}::bigint, unnest(${intArray(personIds)}::bigint[])`.execute(
    db,
  );
}
