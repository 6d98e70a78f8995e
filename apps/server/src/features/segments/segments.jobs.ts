/**
 * Membership jobs: a segment's full rebuild, following the changes the triggers mark, the time-relative
 * schedule and the poller that queues work for accounts with marks. Only this file knows the job queue.
 */
import { sql } from 'kysely';
import { isTimeRelative, tagChangeMatters, tagChangeReads, type CompileContext } from '@herald/segments';
import type { Database } from '../../db/connection.ts';
import type { EventStore } from '../../db/event-store.ts';
import { withAccount } from '../../db/tenancy.ts';
import { enqueueCoalesced } from '../../jobs/enqueue-coalesced.ts';
import { refreshesFree } from '../../db/refresh-hold.ts';
import { startPoller } from '../../jobs/poller.ts';
import type { Services } from '../../services.ts';
import {
  applyMembership,
  applyMembershipChunk,
  accountsWithDirtyMarks,
  accountsWithManyMarks,
  accountsWithSegments,
  clearDirtyPeople,
  holdSegmentMembership,
  markAccountDirty,
  markPeopleDirty,
  membershipDiff,
  setMemberCount,
  takeDirtyAccount,
  takeDirtyPeople,
  tryLockSegmentMembership,
} from './membership.queries.ts';
import { conditionsOf, loadCompileContext, storedSegmentFilter } from './segment-context.ts';
import type { SegmentRow } from './segments.queries.ts';

/** People taken from the dirty marks per transaction. */
const dirtyBatch = 5_000;
/** A refresh job hands over to a fresh job after this long, so one busy account cannot hold a worker. */
const jobBudgetMs = 30_000;
/** A refresh job locked for longer than this is taken to be dead (its worker stopped), and the poller queues anew. */
const liveJobMs = 5 * 60_000;
/** How long people left for a segment being rebuilt wait for their next round. */
const deferredRoundMs = 1_000;

/** Segments whose members are kept: every stored one but All People (which is everyone). */
const keepsMembers = (row: SegmentRow) => row.autoType !== 'allPeople';

/** Membership work runs without the request time limit and without waiting on a synchronous commit. */
async function asJob(db: Database) {
  await sql`select set_config('statement_timeout', '0', true), set_config('synchronous_commit', 'off', true)`.execute(
    db,
  );
}

/**
 * Bring a segment's members in line with its conditions (for everyone, or for the given people). A segment
 * whose conditions no longer hold (a field deleted since) keeps its members until it is edited, and does not
 * stop the account's other segments from being kept.
 */
async function refreshMembers(
  events: EventStore,
  db: Database,
  accountId: number,
  row: SegmentRow,
  ctx: CompileContext,
  personIds: number[] | null,
  recordEvents: boolean,
) {
  const compiled = await storedSegmentFilter(events, row, ctx);
  if ('problem' in compiled) return;
  await applyMembership(db, accountId, row, compiled.filter, personIds, recordEvents);
}

/**
 * A rebuild that adds or removes more people than this applies them in parts of this size, each committed on its own
 * (docs/segments.md, "A big rebuild in parts"): a flow on entering the segment starts on the first part's people
 * while the rest are written.
 */
export const rebuildChunk = 10_000;

/**
 * The `refresh-segment` job: rebuild one segment's members from its conditions. Its first build records no entered
 * events (the people were there before the segment) and is one statement. A later build records each entry and exit:
 * who enters and who leaves is worked out once, and a difference of up to `rebuildChunk` people is applied in the
 * same transaction, a larger one in parts, each committed, while this connection holds the segment's membership lock.
 * A refresh of marked changes leaves the segment to a later round meanwhile, so no change is lost between the parts:
 * the marks made after the difference was taken are followed once the rebuild is done. `parts` is for tests.
 */
export async function runSegmentRefresh(
  services: Services,
  accountId: number,
  segmentId: number,
  parts: { size?: number; afterPart?: (part: number) => Promise<void> } = {},
  waitMs = Number.POSITIVE_INFINITY,
): Promise<boolean> {
  const size = parts.size ?? rebuildChunk;
  return services.db.connection().execute(async (connection) => {
    const release = await holdSegmentMembership(connection, segmentId, waitMs);
    if (!release) return false;
    try {
      const planned = await withAccount(connection, accountId, async (db) => {
        await asJob(db);
        // While an import merges (it holds the account's refreshes), a rebuild would compete with it over the
        // same people: the account is marked instead, and every segment is rebuilt once the import is done.
        if (!(await refreshesFree(db, accountId))) {
          await markAccountDirty(db, accountId);
          return null;
        }
        const { ctx, rows } = await loadCompileContext(db, accountId);
        const row = rows.find((r) => r.id === segmentId);
        if (!row || !keepsMembers(row)) return null;
        const compiled = await storedSegmentFilter(services.events, row, ctx);
        // A segment whose conditions no longer hold (a field deleted since) keeps its members until it is edited.
        if ('problem' in compiled) return null;
        // A first build records no entries (the people were there before the segment), and so starts no flow: one
        // statement writes it, as that is the cheapest way.
        const recordEvents = row.refreshedAt !== null;
        if (!recordEvents) {
          await applyMembership(db, accountId, row, compiled.filter, null, false);
          return null;
        }
        const diff = await membershipDiff(db, accountId, row.id, compiled.filter);
        if (diff.entered.length + diff.exited.length > size) return { row, diff, recordEvents };
        const change = await applyMembershipChunk(
          db,
          accountId,
          row,
          diff.entered,
          diff.exited,
          recordEvents,
        );
        if (change.applied) await setMemberCount(db, accountId, row, diff.total);
        return null;
      });
      if (!planned) return true;
      const { row, diff, recordEvents } = planned;
      const rounds = Math.ceil(Math.max(diff.entered.length, diff.exited.length) / size);
      for (let round = 0; round < rounds; round++) {
        const part = (ids: number[]) => ids.slice(round * size, (round + 1) * size);
        const change = await withAccount(connection, accountId, async (db) => {
          await asJob(db);
          return applyMembershipChunk(
            db,
            accountId,
            row,
            part(diff.entered),
            part(diff.exited),
            recordEvents,
          );
        });
        // Edited or deleted meanwhile: saving queued a rebuild of the new conditions.
        if (!change.applied) return true;
        await parts.afterPart?.(round);
      }
      await withAccount(connection, accountId, (db) => setMemberCount(db, accountId, row, null));
      return true;
    } finally {
      await release();
    }
  });
}

/** How long the `refresh-segment` job waits for its segment's membership lock, and when it looks again after that. */
export const rebuildLockWaitMs = 2_000;
export const heldRebuildRetryMs = 3_000;

/**
 * The `refresh-segment` job (docs/segments.md, "A rebuild asked for during another"). While another rebuild of the
 * segment holds its membership lock past `rebuildLockWaitMs` (two saves in a row of a big segment), the job queues
 * itself again `heldRebuildRetryMs` later and ends: waiting in PostgreSQL ran into the statement time-out after 30 s,
 * failed the job with an error in the log, and held a worker's slot all that time.
 */
export async function runSegmentRefreshJob(
  services: Services,
  payload: { accountId: number; segmentId: number },
): Promise<void> {
  const { accountId, segmentId } = payload;
  if (await runSegmentRefresh(services, accountId, segmentId, {}, rebuildLockWaitMs)) return;
  await withAccount(services.db, accountId, (db) =>
    queueSegmentRefresh(db, accountId, segmentId, new Date(Date.now() + heldRebuildRetryMs)),
  );
}

/**
 * The `refresh-segments` job: follow the changes marked by the triggers. An account-wide mark queues a
 * rebuild of every segment; otherwise the marked people are re-checked in batches. Marks are taken in the same
 * transaction that applies them, so a crash loses nothing and a retry repeats nothing.
 */
export async function runDirtyRefresh(services: Services, accountId: number): Promise<void> {
  const started = Date.now();
  const first = await withAccount(services.db, accountId, async (db) => {
    await asJob(db);
    // An import merging into the account holds its refreshes; the marks wait for the poller after it.
    if (!(await refreshesFree(db, accountId))) return 'held';
    if (!(await takeDirtyAccount(db, accountId))) return 'people';
    await clearDirtyPeople(db, accountId);
    // Each segment is rebuilt by its own job: no transaction spans the whole account, a crash keeps the
    // rebuilds still to do queued, and changes marked meanwhile are followed between them.
    const { rows } = await loadCompileContext(db, accountId);
    for (const row of rows.filter(keepsMembers)) await queueSegmentRefresh(db, accountId, row.id);
    return 'account';
  });
  if (first !== 'people') return;
  for (;;) {
    const round = await withAccount(services.db, accountId, async (db) => {
      await asJob(db);
      if (!(await refreshesFree(db, accountId))) return { taken: 0, deferred: false };
      const marks = await takeDirtyPeople(db, accountId, dirtyBatch);
      if (marks.size === 0) return { taken: 0, deferred: false };
      const ids = [...marks.keys()];
      const { ctx, rows } = await loadCompileContext(db, accountId);
      let deferred = false;
      for (const row of rows.filter(keepsMembers)) {
        // People whose tags alone changed are re-checked only where the segment reads one of those tags.
        const reads = tagChangeReads(conditionsOf(row), ctx);
        const some = [...marks].filter(([, tags]) => tagChangeMatters(reads, tags)).map(([id]) => id);
        if (!some.length) continue;
        // A segment being rebuilt (which can take a while over a million people) does not hold up the
        // others: it is left out of this round and the people are marked again for the next one.
        if (!(await tryLockSegmentMembership(db, row.id))) {
          deferred = true;
          continue;
        }
        await refreshMembers(services.events, db, accountId, row, ctx, some, true);
      }
      if (deferred) await markPeopleDirty(db, accountId, ids);
      return { taken: ids.length, deferred };
    });
    if (round.taken === 0) return;
    // The people left for a segment being rebuilt wait for a round `deferredRoundMs` later: looping now would spin,
    // and so would a round queued at the poller's next look.
    if (round.deferred) {
      await enqueueDirtyRefresh(services.db, accountId, new Date(Date.now() + deferredRoundMs));
      return;
    }
    if (Date.now() - started > jobBudgetMs) {
      await enqueueDirtyRefresh(services.db, accountId);
      return;
    }
  }
}

/**
 * Queue a full rebuild of one segment's members, in the caller's transaction (coalesced per segment: a waiting
 * rebuild keeps the earlier of its time and `runAt`).
 */
export async function queueSegmentRefresh(
  db: Database,
  accountId: number,
  segmentId: number,
  runAt: Date | null = null,
) {
  await enqueueCoalesced(
    db,
    'refresh-segment',
    { accountId, segmentId },
    `refresh-segment:${accountId}:${segmentId}`,
    runAt,
  );
}

const dirtyRefreshKey = (accountId: number) => `refresh-segments:${accountId}`;

async function enqueueDirtyRefresh(db: Database, accountId: number, runAt: Date | null = null) {
  await enqueueCoalesced(db, 'refresh-segments', { accountId }, dirtyRefreshKey(accountId), runAt);
}

/**
 * The accounts among `accountIds` whose refresh is already queued or running (running for less than `liveJobMs`;
 * a job locked longer belonged to a worker that died, and queuing again detaches it). The poller passes over them:
 * queuing for a running refresh would start a second one beside it.
 */
async function accountsWithRefresh(db: Database, accountIds: number[]): Promise<Set<number>> {
  if (!accountIds.length) return new Set();
  const { rows } = await sql<{ key: string }>`
    select key from graphile_worker._private_jobs
    where key = any(${accountIds.map(dirtyRefreshKey)}::text[])
      and (locked_at > now() - make_interval(secs => ${liveJobMs / 1000}) or (locked_at is null and attempts = 0))`.execute(
    db,
  );
  const keys = new Set(rows.map((r) => r.key));
  return new Set(accountIds.filter((id) => keys.has(dirtyRefreshKey(id))));
}

/** Marks of one account from which its changes count as a stream (the poller then looks every busyDirtyPollMs). */
const streamMarks = 500;

/**
 * Queue a `refresh-segments` job for every account with marked changes that has none queued or running (owner
 * connection). Answers how many accounts have marks, and how many of them have at least `streamMarks` waiting.
 */
export async function queueDirtyAccounts(db: Database): Promise<{ marked: number; streaming: number }> {
  const accounts = await accountsWithDirtyMarks(db);
  const queued = await accountsWithRefresh(db, accounts);
  for (const accountId of accounts) if (!queued.has(accountId)) await enqueueDirtyRefresh(db, accountId);
  const streaming = await accountsWithManyMarks(db, accounts, streamMarks);
  return { marked: accounts.length, streaming: streaming.length };
}

/**
 * The scheduled `refresh-time-relative-segments` job: rebuild the segments that time alone changes
 * ("in the last 30 days", anniversaries…) and any segment not built yet.
 */
export async function runTimeRelativeRefresh(services: Services): Promise<void> {
  for (const accountId of await accountsWithSegments(services.db)) {
    await withAccount(services.db, accountId, async (db) => {
      const { ctx, rows } = await loadCompileContext(db, accountId);
      for (const row of rows.filter(keepsMembers)) {
        if (row.refreshedAt === null || isTimeRelative(conditionsOf(row), ctx))
          await queueSegmentRefresh(db, accountId, row.id);
      }
    });
  }
}

/**
 * How often the worker looks for marked changes (docs/segments.md, "How soon membership follows a change"): every
 * `quietDirtyPollMs`, so a change is seen within half a second; every `busyDirtyPollMs` while an account has a
 * stream of changes waiting (`streamMarks` or more), so a stream of events is refreshed in batches of two seconds'
 * marks. Each refresh runs every kept segment of the account over its batch, and half-second batches under
 * `event-ingest` cost a third of its rate.
 */
export const quietDirtyPollMs = 500;
export const busyDirtyPollMs = 2_000;

/** Start looking for marked changes (quietDirtyPollMs, busyDirtyPollMs); returns the function that stops it. */
export function startDirtyPoller(db: Database, onError: (error: unknown) => void): () => Promise<void> {
  let nextAt = 0;
  return startPoller(
    async () => {
      if (Date.now() < nextAt) return;
      const { streaming } = await queueDirtyAccounts(db);
      nextAt = streaming > 0 ? Date.now() + busyDirtyPollMs - quietDirtyPollMs / 2 : 0;
    },
    quietDirtyPollMs,
    onError,
  );
}
