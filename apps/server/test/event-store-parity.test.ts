import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClickHouse, type ClickHouse } from '../src/db/clickhouse.ts';
import { migrateClickHouse } from '../src/db/clickhouse-schema.ts';
import { openDatabase, type DatabaseHandle } from '../src/db/connection.ts';
import { clickhouseEventStore } from '../src/db/event-store-clickhouse.ts';
import { postgresEventStore } from '../src/db/event-store-postgres.ts';
import type { EventFilter, EventStore, FeedbackKey, PageCursor, StoredEvent } from '../src/db/event-store.ts';
import { withAccount } from '../src/db/tenancy.ts';
import {
  dayUs,
  messageIds,
  personSlots,
  scenarioArb,
  sources,
  type Scenario,
  type WalkSpec,
} from './event-store-parity-arbitraries.ts';
import {
  modelChange,
  modelEmailCounts,
  modelFeedback,
  modelPage,
  modelSoftBounces,
  type ModelEvent,
} from './event-store-parity-model.ts';
import { testDatabaseUrl } from './helpers.ts';

/**
 * The PostgreSQL and the ClickHouse event store answer every read the same (docs/scaling.md, "Events on
 * ClickHouse"). Each run writes one generated account's events (event-store-parity-arbitraries.ts) twice into
 * PostgreSQL's `events` table, with the same ids: into an account the PostgreSQL store reads, and into one the
 * ClickHouse store reads, where the forwarder (`settle`) has moved some events to ClickHouse, some wait in the spool,
 * and some are in both (a forward a crash interrupted). Both stores must give the same timeline pages (walked to the
 * end with the cursor), email counts, soft bounces, recorded feedback and test-run copies, and the PostgreSQL store
 * what a model of the events says (event-store-parity-model.ts); again after each `movePerson` / `deletePerson`;
 * then `settle` must leave nothing in the spool, and the ClickHouse store alone must still agree with the model.
 */
let ch: ClickHouse;
let database: DatabaseHandle;
const postgres = postgresEventStore();
let onClickHouse: EventStore;
const accounts: number[] = [];
const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-store-parity-'));

beforeAll(async () => {
  ch = await connectClickHouse(`chdb:${directory}`);
  await migrateClickHouse(ch, undefined);
  database = openDatabase(testDatabaseUrl(), 4);
  onClickHouse = clickhouseEventStore(ch, database.pool, undefined, { log: () => undefined });
  // Events earlier files left in this database go to ClickHouse now, once, rather than in the first run.
  await onClickHouse.settle();
});
afterAll(async () => {
  if (database && accounts.length)
    await database.pool.query('delete from accounts where id = any($1::bigint[])', [accounts]);
  await onClickHouse?.stop();
  await ch?.close();
  await database?.close();
  fs.rmSync(directory, { recursive: true, force: true });
});

async function newAccount(label: string): Promise<number> {
  const unique = crypto.randomUUID();
  const { rows } = await database.pool.query<{ id: number }>(
    `insert into accounts (name, email, write_key, trial_ends_at) values ($1, $2, $3, now()) returning id`,
    [`parity-${label}`, `parity-${unique}@example.com`, `wk-parity-${unique}`],
  );
  accounts.push(Number(rows[0]!.id));
  return Number(rows[0]!.id);
}

/** `n` values of a table's identity sequence: ids as Herald would have given them. */
async function nextIds(table: 'events' | 'people', n: number): Promise<number[]> {
  const { rows } = await database.pool.query<{ id: string }>(
    `select nextval(pg_get_serial_sequence($1, 'id')) as id from generate_series(1, $2)`,
    [table, n],
  );
  return rows.map((r) => Number(r.id));
}

/** Rows straight into `events` (its triggers fan out as for any write), with their ids and instants. */
async function insertEvents(accountId: number, events: readonly ModelEvent[]) {
  if (events.length === 0) return;
  await sql`insert into events (account_id, id, person_id, type, name, url, data, source, created_at)
    overriding system value
    select ${accountId}, e.id, e.person_id, e.type, e.name, e.url, e.data, e.source,
      timestamptz 'epoch' + e.us * interval '1 microsecond'
    from unnest(${events.map((e) => e.id)}::bigint[], ${events.map((e) => e.personId)}::bigint[],
      ${events.map((e) => e.type)}::text[], ${events.map((e) => e.name)}::text[], ${events.map((e) => e.url)}::text[],
      ${events.map((e) => JSON.stringify(e.data))}::jsonb[], ${events.map((e) => e.source)}::text[],
      ${events.map((e) => e.atMicros)}::int8[]) as e(id, person_id, type, name, url, data, source, us)`.execute(
    database.db,
  );
}

/** The run's events with ids, person ids and instants (µs, back from `startMicros`). */
function materialize(s: Scenario, people: number[], ids: number[], startMicros: number): ModelEvent[] {
  return s.events.map((e, i) => {
    const atMicros = 'tie' in e.at ? startMicros - s.ties[e.at.tie]! + e.at.delta : startMicros - e.at.offset;
    return {
      id: ids[i]!,
      atMicros,
      personId: e.person === null ? null : people[e.person]!,
      type: e.type,
      name: e.name,
      url: e.url,
      data: e.data,
      source: e.source,
      createdAt: new Date(Math.floor(atMicros / 1000)),
      where: e.where,
    };
  });
}

type PageOf = (filter: EventFilter, after: PageCursor | undefined, limit: number) => Promise<StoredEvent[]>;

/** Every page of a timeline, following each page's cursor until a page says there is no more. */
async function walk(page: PageOf, filter: EventFilter, limit: number, start: PageCursor | undefined) {
  const pages: StoredEvent[][] = [];
  let after = start;
  for (;;) {
    const rows = await page(filter, after, limit);
    pages.push(rows);
    if (rows.length <= limit || pages.length > 200) return pages;
    const last = rows[limit - 1]!;
    after = { atMicros: last.atMicros, id: last.id };
  }
}

interface Reads {
  walks: { filter: EventFilter; limit: number; start: PageCursor | undefined }[];
  people: number[];
  /** The window (days) of each person's soft bounces. */
  windows: number[];
  feedback: FeedbackKey[];
  /** The person whose events a flow's test run copies in. */
  testRun: number;
}

interface Answers {
  pages: StoredEvent[][][];
  emailCounts: Record<string, number>[];
  softBounces: number[];
  feedback: boolean[];
  testRun: StoredEvent[];
}

/** What one store answers (each read in the account's own transaction, as the routes and jobs read). */
async function answersOf(store: EventStore, accountId: number, reads: Reads): Promise<Answers> {
  const scoped = <T>(work: Parameters<typeof withAccount<T>>[2]) => withAccount(database.db, accountId, work);
  const page: PageOf = (filter, after, limit) =>
    scoped((db) => store.page(db, accountId, filter, after, limit));
  const pages = [];
  for (const w of reads.walks) pages.push(await walk(page, w.filter, w.limit, w.start));
  const emailCounts = [];
  const softBounces = [];
  for (const [i, p] of reads.people.entries()) {
    emailCounts.push(await scoped((db) => store.personEmailCounts(db, accountId, p)));
    softBounces.push(await scoped((db) => store.softBouncedMessages(db, accountId, p, reads.windows[i]!)));
  }
  const feedback = [];
  for (const key of reads.feedback)
    feedback.push(await scoped((db) => store.feedbackRecorded(db, { ...key, accountId })));
  return {
    pages,
    emailCounts,
    softBounces,
    feedback,
    testRun: await testRunEvents(store, accountId, reads.testRun),
  };
}

const rollback = new Error('rolled back');

/** The person's rows of PostgreSQL's `events` in a flow's test run, whose transaction is rolled back. */
async function testRunEvents(store: EventStore, accountId: number, personId: number): Promise<StoredEvent[]> {
  let rows: StoredEvent[] = [];
  await withAccount(database.db, accountId, async (db) => {
    await store.copyPersonForTestRun(db, accountId, personId);
    rows = await postgres.page(db, accountId, { personId }, undefined, 1000);
    throw rollback;
  }).catch((error: unknown) => {
    if (error !== rollback) throw error;
  });
  return rows;
}

async function modelAnswers(events: readonly ModelEvent[], reads: Reads): Promise<Answers> {
  const page: PageOf = async (filter, after, limit) => modelPage(events, filter, after, limit);
  const pages = [];
  for (const w of reads.walks) pages.push(await walk(page, w.filter, w.limit, w.start));
  const now = Date.now() * 1000;
  return {
    pages,
    emailCounts: reads.people.map((p) => modelEmailCounts(events, p)),
    softBounces: reads.people.map((p, i) => modelSoftBounces(events, p, now - reads.windows[i]! * dayUs)),
    feedback: reads.feedback.map((key) => modelFeedback(events, key)),
    testRun: modelPage(events, { personId: reads.testRun }, undefined, 1000),
  };
}

/** The same answers, read by read, each failure naming its read. */
function expectSame(actual: Answers, expected: Answers, reads: Reads, what: string) {
  reads.walks.forEach((w, i) => {
    const read = `${what}: page(${JSON.stringify(w.filter)}, after ${JSON.stringify(w.start)}, limit ${w.limit})`;
    const ids = (pages: StoredEvent[][]) => pages.map((rows) => rows.map((r) => r.id));
    expect(ids(actual.pages[i]!), `${read}, ids`).toEqual(ids(expected.pages[i]!));
    expect(actual.pages[i], read).toEqual(expected.pages[i]);
  });
  reads.people.forEach((p, i) => {
    expect(actual.emailCounts[i], `${what}: personEmailCounts(${p})`).toEqual(expected.emailCounts[i]);
    expect(actual.softBounces[i], `${what}: softBouncedMessages(${p}, ${reads.windows[i]} days)`).toBe(
      expected.softBounces[i],
    );
  });
  reads.feedback.forEach((key, i) => {
    expect(actual.feedback[i], `${what}: feedbackRecorded(${JSON.stringify(key)})`).toBe(
      expected.feedback[i],
    );
  });
  expect(actual.testRun, `${what}: copyPersonForTestRun(${reads.testRun}), then the events table`).toEqual(
    expected.testRun,
  );
}

function readsOf(s: Scenario, people: number[], events: readonly ModelEvent[]): Reads {
  const filterOf = (f: WalkSpec['filter']): EventFilter => ({
    ...(f.person !== undefined ? { personId: people[f.person]! } : {}),
    ...(f.source !== undefined ? { source: sources[f.source]! } : {}),
    ...(f.withoutPeople ? { withoutPeople: true } : {}),
  });
  const cursorOf = (start: WalkSpec['start']): PageCursor | undefined => {
    const e = start && events.length ? events[start.event % events.length]! : undefined;
    return e && start ? { atMicros: e.atMicros + start.atShift, id: e.id + start.idShift } : undefined;
  };
  const limit = s.walks[0]!.limit;
  const walks = [
    // The account's feed, everyone's timeline, nobody's events and each source, from the newest event.
    { filter: {}, limit, start: undefined },
    { filter: { withoutPeople: true }, limit, start: undefined },
    ...people.map((personId) => ({ filter: { personId }, limit: limit + 1, start: undefined })),
    ...sources.map((source) => ({ filter: { source }, limit: limit + 2, start: undefined })),
    ...s.walks.map((w) => ({ filter: filterOf(w.filter), limit: w.limit, start: cursorOf(w.start) })),
  ];
  // The keys of the feedback recorded, each as recordFeedback asks (with the person, and with none), and others.
  const recorded = events.flatMap((e): Omit<FeedbackKey, 'accountId'>[] => {
    const d = e.data as Record<string, unknown>;
    const name = e.name;
    if (e.type !== 'email' || (name !== 'bounced' && name !== 'complained')) return [];
    const key: Omit<FeedbackKey, 'accountId' | 'personId'> = {
      name,
      messageId: d.messageId as string,
      soft: d.soft === true,
    };
    return [
      { ...key, personId: e.personId },
      { ...key, personId: null },
    ];
  });
  const generated = s.feedback.map((f) => ({
    name: f.name,
    messageId: messageIds[f.message]!,
    soft: f.soft,
    personId: f.person === null ? null : people[f.person]!,
  }));
  return {
    walks,
    people,
    windows: s.windows,
    feedback: [
      ...new Map(
        [...recorded, ...generated].map((k) => [JSON.stringify(k), { ...k, accountId: 0 }]),
      ).values(),
    ],
    testRun: people[s.testRun]!,
  };
}

async function change(
  store: EventStore,
  accountId: number,
  c: Scenario['changes'][number],
  people: number[],
) {
  await withAccount(database.db, accountId, (db) =>
    c.kind === 'move'
      ? store.movePerson(db, accountId, people[c.from]!, people[c.into]!)
      : store.deletePerson(db, accountId, people[c.person]!),
  );
}

async function spoolSize(accountId: number): Promise<number> {
  const { rows } = await database.pool.query<{ n: number }>(
    'select count(*)::int as n from events where account_id = $1',
    [accountId],
  );
  return rows[0]!.n;
}

/**
 * The `both` events as a forward a crash interrupted leaves them: recorded in `event_forwards`, in ClickHouse under
 * the forward's deduplication token, and still in the spool (event-forwarder.ts forwardOnce, steps 1 and 2, with
 * its query and settings).
 */
async function forwardHalfway(accountId: number, ids: number[]) {
  if (ids.length === 0) return;
  const { rows } = await database.pool.query<{ id: number }>(
    'insert into event_forwards (account_id, event_ids) values ($1, $2::bigint[]) returning id',
    [accountId, ids],
  );
  const spooled = await database.pool.query(
    `select account_id, coalesce(person_id, 0) as person_id,
       to_char(created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') as created_at, id, type, name, url,
       data::text as data, source
     from events where account_id = $1 and id = any($2::bigint[]) order by id`,
    [accountId, ids],
  );
  await ch.insert('events', spooled.rows, {
    insert_deduplication_token: `herald-forward-${rows[0]!.id}`,
    deduplicate_blocks_in_dependent_materialized_views: 1,
  });
}

async function run(s: Scenario) {
  // Each run reads only its own accounts: the events of earlier runs go, so that ClickHouse's deletes (which rewrite
  // the parts they touch) stay quick.
  await ch.command('TRUNCATE TABLE events');
  const onPostgres = await newAccount('postgres');
  const viaClickHouse = await newAccount('clickhouse');
  const people = await nextIds('people', personSlots);
  let events = materialize(s, people, await nextIds('events', s.events.length), Date.now() * 1000);
  const placed = (...where: string[]) => events.filter((e) => where.includes(e.where));
  try {
    // ClickHouse's share first (the forwarder moves every committed event), then the spool's, then the other store.
    await insertEvents(viaClickHouse, placed('clickhouse'));
    await onClickHouse.settle();
    await insertEvents(viaClickHouse, placed('spool', 'both'));
    await forwardHalfway(
      viaClickHouse,
      placed('both').map((e) => e.id),
    );
    await insertEvents(onPostgres, events);
    expect(await spoolSize(viaClickHouse), 'the spool').toBe(placed('spool', 'both').length);

    const reads = readsOf(s, people, events);
    const compare = async (what: string) => {
      const expected = await answersOf(postgres, onPostgres, reads);
      expectSame(await answersOf(onClickHouse, viaClickHouse, reads), expected, reads, `${what}, ClickHouse`);
      expectSame(expected, await modelAnswers(events, reads), reads, `${what}, PostgreSQL against the model`);
    };
    await compare('stored');
    for (const [i, c] of s.changes.entries()) {
      await change(postgres, onPostgres, c, people);
      await change(onClickHouse, viaClickHouse, c, people);
      events = modelChange(events, c, people);
      await compare(`after change ${i} (${JSON.stringify(c)})`);
    }
    // The rest of the spool goes (the other account's rows too: from here the ClickHouse store is read alone).
    await onClickHouse.settle();
    expect(await spoolSize(viaClickHouse), 'the spool after settle()').toBe(0);
    if (s.readForwarded) {
      const what = 'all forwarded after the changes, ClickHouse against the model';
      expectSame(
        await answersOf(onClickHouse, viaClickHouse, reads),
        await modelAnswers(events, reads),
        reads,
        what,
      );
    }
  } finally {
    // A failed run leaves no forward behind for the next one: whatever the spool holds goes.
    await onClickHouse.settle().catch(() => undefined);
    await onClickHouse.settle().catch(() => undefined);
  }
}

describe('event stores', () => {
  // About 30 s when the stores agree. A failure is shrunk for at most 4 minutes in all, then the smallest case found
  // is reported.
  it('answer the same on PostgreSQL and on ClickHouse with its spool, before and after people move and go', async () => {
    await fc.assert(fc.asyncProperty(scenarioArb, run), {
      numRuns: 8,
      plugins: [fc.interruptAfterTimeLimit(240_000)],
    });
  }, 300_000);
});
