import type { ConditionNode } from '@herald/contracts';
import type { CompileContext } from '@herald/segments';
import { AppError } from '../http/errors.ts';
import type { ClickHouse } from './clickhouse.ts';
import type { Database } from './connection.ts';

/**
 * Where events are read from (docs/scaling.md, "Where events live"). Every feature that reads events, deletes them
 * or moves them between people goes through this interface; `EVENT_STORE` picks the implementation.
 *
 * Writes are the same on both stores: features insert into PostgreSQL's `events` table (one row or a COPY of
 * thousands), in the transaction of the change that caused them, and the table's statement triggers do the fan-out
 * (segment marks, flow triggers and goals, outgoing webhooks, event names, the email metrics' queue) in that same
 * transaction. With `postgres` the table is the store. With `clickhouse` the table is the spool: a forwarder moves
 * its rows to ClickHouse in order, each batch exactly once (event-store-clickhouse.ts), and the reads below answer
 * from ClickHouse together with the rows not yet moved.
 */
export interface EventStore {
  readonly kind: 'postgres' | 'clickhouse';
  /** One page of events, newest first, keyset-paged on (created_at, id); `limit + 1` rows when there are more. */
  page(
    db: Database,
    accountId: number,
    filter: EventFilter,
    after: PageCursor | undefined,
    limit: number,
  ): Promise<StoredEvent[]>;
  /** A person's email events by name (sent, opened, clicked, unsubscribed, bounced; soft bounces left out). */
  personEmailCounts(db: Database, accountId: number, personId: number): Promise<Record<string, number>>;
  /** True when a bounce or complaint of this message (and softness) is already recorded. */
  feedbackRecorded(db: Database, feedback: FeedbackKey): Promise<boolean>;
  /** How many different messages soft-bounced for the person in the last `days` days. */
  softBouncedMessages(db: Database, accountId: number, personId: number, days: number): Promise<number>;
  /** Delete a person's events (the person is being deleted). */
  deletePerson(db: Database, accountId: number, personId: number): Promise<void>;
  /**
   * Erase people on request (docs/people.md, "Export and erase"): their events, and on ClickHouse the per-person rows
   * the metrics keep beside them (first opens and clicks, the engagements' staging copy); one statement a table for the
   * whole list (a bulk erase of 10,000 is three ClickHouse mutations, not 30,000). The rollups' counts stay.
   */
  erasePeople(db: Database, accountId: number, personIds: readonly number[]): Promise<void>;
  /** Delete the account's events older than `before` (the account's event retention; the rollups' counts stay). */
  deleteBefore(db: Database, accountId: number, before: Date): Promise<void>;
  /** Give one person's events to another (an anonymous visitor who turned out to be a known person). */
  movePerson(db: Database, accountId: number, fromId: number, intoId: number): Promise<void>;
  /**
   * Make a person's events readable from PostgreSQL's `events` table inside the caller's transaction, which is
   * always rolled back (a flow's test run, whose made-up events live only there). Nothing to do on PostgreSQL; on
   * ClickHouse the person's stored events are copied in, their triggers' work undone with the rollback.
   */
  copyPersonForTestRun(db: Database, accountId: number, personId: number): Promise<void>;
  /** Delete an account's events everywhere (its PostgreSQL rows go with the account). */
  deleteAccount(accountId: number): Promise<void>;
  /**
   * The compile context for a tree whose event conditions this store answers: unchanged on PostgreSQL (the
   * conditions read the events table), with the answer of each event condition on ClickHouse.
   */
  withEventSets(ctx: CompileContext, nodes: readonly ConditionNode[]): Promise<CompileContext>;
  /**
   * Make every event committed so far readable by `withEventSets` (ClickHouse: forward the spool; PostgreSQL:
   * nothing to do). Segment refreshes call it first, so a person marked by an event is judged with that event.
   */
  settle(): Promise<void>;
  /** Throws when the store cannot be reached (`/readyz`). */
  ping(): Promise<void>;
  /** Events waiting to be moved to the store, and when the oldest of them happened, as last seen (none on PostgreSQL). */
  spool(): { size: number; oldestAtMs: number | undefined };
  /** Start the background work (ClickHouse: the forwarder); `stop` ends it. */
  start(): void;
  stop(): Promise<void>;
  /**
   * ClickHouse's tables for the features whose rollups live there on this store (the email metrics, kept by
   * materialized views: clickhouse-schema.ts); null on PostgreSQL, where they are PostgreSQL tables.
   */
  readonly clickhouse: ClickHouseReads | null;
}

/** Reads of ClickHouse's tables beside the events. */
export interface ClickHouseReads {
  /**
   * Run `work` once every event committed so far is in ClickHouse (so a figure counts each of them); ClickHouse's
   * failure is the 503 of `eventStoreError`.
   */
  read<T>(work: (ch: ClickHouse) => Promise<T>): Promise<T>;
}

export interface EventFilter {
  personId?: number;
  source?: string;
  /** Only events of nobody (page views of visitors never identified). */
  withoutPeople?: boolean;
}

/**
 * Where a page ends: the last event's instant in microseconds since 1970 and its id. Microseconds, not a Date: the
 * events one statement writes (a segment's 10,000 entries) share an instant finer than a millisecond, and a cursor
 * cut to milliseconds would skip all but the first page of them.
 */
export interface PageCursor {
  atMicros: number;
  id: number;
}

export interface StoredEvent {
  id: number;
  /** `createdAt` to the microsecond (a page's cursor). */
  atMicros: number;
  personId: number | null;
  type: string;
  name: string | null;
  url: string | null;
  data: unknown;
  source: string;
  createdAt: Date;
}

export interface FeedbackKey {
  accountId: number;
  personId: number | null;
  name: 'bounced' | 'complained';
  messageId: string;
  soft: boolean;
}

/** The names a person's email metrics show. */
export const personEmailNames = ['sent', 'opened', 'clicked', 'unsubscribed', 'bounced'] as const;

/** A message for the user when ClickHouse does not answer a read (the route answers 503). */
export const eventStoreUnavailable =
  'Events cannot be read right now: the event store does not answer. Try again in a minute.';

/** ClickHouse's failure as the 503 a route answers or a job retries (an AppError passes as it is). */
export function eventStoreError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new AppError('ServiceError', eventStoreUnavailable, {
    extra: { cause: String((error as Error).message).slice(0, 200) },
  });
}
