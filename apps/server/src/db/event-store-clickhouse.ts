import { sql } from 'kysely';
import type pg from 'pg';
import {
  eventConditionKey,
  eventConditionsOf,
  eventSetQuery,
  type CompileContext,
  type EventCondition,
  type EventSet,
} from '@herald/segments';
import type { ClickHouse, Params } from './clickhouse.ts';
import { metricTables, migrateClickHouse } from './clickhouse-schema.ts';
import { eventForwarder, forwarderLock, type ForwarderOptions } from './event-forwarder.ts';
import type { Database } from './connection.ts';
import {
  postgresEventStore,
  emailCountsFromPostgres,
  feedbackInPostgres,
  pageFromPostgres,
  softBounceIdsInPostgres,
} from './event-store-postgres.ts';
import { eventStoreError, personEmailNames, type EventStore, type StoredEvent } from './event-store.ts';

export type ClickHouseStoreOptions = ForwarderOptions;

/** The compile context with ClickHouse's answer to each event condition (one query each, run side by side). */
export async function answerEventConditions(
  ch: ClickHouse,
  ctx: CompileContext,
  conditions: readonly EventCondition[],
  table = 'events',
): Promise<CompileContext> {
  const answers = await Promise.all(
    conditions.map(async (condition): Promise<[string, EventSet]> => {
      const { query, params, complement } = eventSetQuery(condition, ctx, table);
      return [
        eventConditionKey(condition),
        { ids: query ? await ch.numbers(query, params) : [], complement },
      ];
    }),
  );
  return { ...ctx, eventSets: new Map(answers) };
}

/**
 * Events in ClickHouse (EVENT_STORE=clickhouse; docs/scaling.md, "Events on ClickHouse").
 *
 * PostgreSQL's `events` table is the spool: features write there, in the transaction of their change, and its
 * triggers fan out exactly as on the PostgreSQL store (one code path, so the two cannot drift). The forwarder moves
 * the spool to ClickHouse in id order:
 *   1. it records which events make the next forward (`event_forwards`, one row per account), and commits;
 *   2. it inserts them into ClickHouse with the forward's id as the deduplication token;
 *   3. it deletes them and the record from PostgreSQL in one transaction.
 * A crash between 1 and 3 repeats the same forward with the same token, which ClickHouse drops if it already has
 * it: each event is stored once. While ClickHouse is unreachable, events wait in the spool and go, in order, when it
 * answers again. Reads answer from ClickHouse and from the spool's rows together, each event once.
 */
export function clickhouseEventStore(
  ch: ClickHouse,
  pool: pg.Pool,
  cluster: string | undefined,
  options: ClickHouseStoreOptions = {},
): EventStore {
  const table = 'events';
  // Deletes and updates go to the local tables on a cluster (a distributed table takes none).
  const mutationTarget = cluster ? `events_local ON CLUSTER ${cluster}` : 'events';
  let schema: Promise<void> | undefined;
  /** The tables, made once ClickHouse answers (a failed try is tried again next time). */
  const ready = () =>
    (schema ??= migrateClickHouse(ch, cluster).catch((error: unknown) => {
      schema = undefined;
      throw error;
    }));

  const forwarder = eventForwarder(ch, pool, ready, options);
  /** The spool is PostgreSQL's events table: its rows change as the PostgreSQL store changes them. */
  const spool = postgresEventStore();

  /** A read of ClickHouse; an unreachable store is a 503 with a message, never a 500. */
  async function read<T>(work: () => Promise<T>): Promise<T> {
    try {
      await ready();
      return await work();
    } catch (error) {
      throw eventStoreError(error);
    }
  }

  /** Ids of the spool's rows among `rows`: ClickHouse's copy of them (a forward under way) is left out. */
  const spoolIds = (rows: readonly { id: number }[]) => rows.map((r) => r.id);

  /**
   * Hold the forwarder until the caller's transaction ends: a forward that read a person's events before a move or a
   * delete would otherwise write their old state to ClickHouse after it.
   */
  async function holdForwards(db: Database) {
    await sql`select pg_advisory_xact_lock(${forwarderLock})`.execute(db);
  }

  async function spoolRowsOf(db: Database, accountId: number, personId: number) {
    return (
      await db
        .selectFrom('events')
        .select(['id'])
        .where('accountId', '=', accountId)
        .where('personId', '=', personId)
        .execute()
    ).map((r) => r.id);
  }

  return {
    kind: 'clickhouse',

    async page(db, accountId, filter, after, limit) {
      const fromSpool = await pageFromPostgres(db, accountId, filter, after, limit);
      const params: Params = { a: accountId, n: limit + 1, skip: spoolIds(fromSpool) };
      const where = ['account_id = {a:UInt64}', 'NOT has({skip:Array(UInt64)}, id)'];
      if (filter.personId !== undefined) {
        where.push('person_id = {p:UInt64}');
        params.p = filter.personId;
      }
      if (filter.withoutPeople) where.push('person_id = 0');
      if (filter.source) {
        where.push('source = {s:String}');
        params.s = filter.source;
      }
      if (after) {
        where.push("(created_at, id) < (fromUnixTimestamp64Micro(toInt64({t:Int64}), 'UTC'), {i:UInt64})");
        params.t = after.atMicros;
        params.i = after.id;
      }
      const fromClickHouse = await read(() =>
        ch.rows<{
          id: number;
          person_id: number;
          type: string;
          name: string | null;
          url: string | null;
          data: string;
          source: string;
          at: number;
          us: number;
        }>(
          `SELECT id, person_id, type, name, url, data, source, toUnixTimestamp64Milli(created_at) AS at,
             toUnixTimestamp64Micro(created_at) AS us
           FROM ${table} WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT {n:UInt32}`,
          params,
        ),
      );
      const merged: StoredEvent[] = [
        ...fromSpool,
        ...fromClickHouse.map((r) => ({
          id: r.id,
          personId: r.person_id === 0 ? null : r.person_id,
          type: r.type,
          name: r.name,
          url: r.url,
          data: JSON.parse(r.data) as unknown,
          source: r.source,
          createdAt: new Date(r.at),
          atMicros: r.us,
        })),
      ];
      merged.sort((x, y) => y.atMicros - x.atMicros || y.id - x.id);
      return merged.slice(0, limit + 1);
    },

    async personEmailCounts(db, accountId, personId) {
      const counts = await emailCountsFromPostgres(db, accountId, personId);
      const skip = await spoolRowsOf(db, accountId, personId);
      const rows = await read(() =>
        ch.rows<{ name: string; n: number }>(
          `SELECT name, count() AS n FROM ${table}
           WHERE account_id = {a:UInt64} AND person_id = {p:UInt64} AND type = 'email'
             AND has({names:Array(String)}, name) AND NOT has({skip:Array(UInt64)}, id)
             AND NOT (name = 'bounced' AND JSONExtractRaw(data, 'soft') = 'true')
           GROUP BY name`,
          { a: accountId, p: personId, names: [...personEmailNames], skip },
        ),
      );
      for (const row of rows) counts[row.name!] = (counts[row.name!] ?? 0) + Number(row.n);
      return counts;
    },

    async feedbackRecorded(db, f) {
      if (await feedbackInPostgres(db, f)) return true;
      const params: Params = { a: f.accountId, name: f.name, m: f.messageId, soft: f.soft ? 1 : 0 };
      if (f.personId !== null) params.p = f.personId;
      const [n] = await read(() =>
        ch.numbers(
          `SELECT count() FROM ${table} WHERE account_id = {a:UInt64} AND type = 'email' AND name = {name:String}
             AND JSONExtractString(data, 'messageId') = {m:String}
             AND (JSONExtractRaw(data, 'soft') = 'true') = {soft:UInt8}
             ${f.personId !== null ? 'AND person_id = {p:UInt64}' : ''}`,
          params,
        ),
      );
      return (n ?? 0) > 0;
    },

    async softBouncedMessages(db, accountId, personId, days) {
      const ids = new Set(await softBounceIdsInPostgres(db, accountId, personId, days));
      const rows = await read(() =>
        ch.rows<{ m: string }>(
          `SELECT DISTINCT JSONExtractString(data, 'messageId') AS m FROM ${table}
           WHERE account_id = {a:UInt64} AND person_id = {p:UInt64} AND type = 'email' AND name = 'bounced'
             AND JSONExtractRaw(data, 'soft') = 'true' AND JSONHas(data, 'messageId')
             AND created_at > now64(6) - toIntervalDay({d:UInt32})`,
          { a: accountId, p: personId, d: days },
        ),
      );
      for (const row of rows) ids.add(row.m);
      return ids.size;
    },

    async deletePerson(db, accountId, personId) {
      await holdForwards(db);
      await spool.deletePerson(db, accountId, personId);
      await read(() =>
        ch.command(`DELETE FROM ${mutationTarget} WHERE account_id = {a:UInt64} AND person_id = {p:UInt64}`, {
          a: accountId,
          p: personId,
        }),
      );
    },

    async erasePeople(db, accountId, personIds) {
      if (personIds.length === 0) return;
      await holdForwards(db);
      await spool.erasePeople(db, accountId, personIds);
      // The events, and the per-person rows beside them (first opens and clicks, the engagements' staging copy); the
      // hourly and link rollups hold counts only, and keep them.
      await read(async () => {
        for (const rollup of ['events', 'email_metric_firsts', 'email_engagements'] as const)
          await ch.command(
            `DELETE FROM ${cluster ? `${rollup}_local ON CLUSTER ${cluster}` : rollup}
             WHERE account_id = {a:UInt64} AND has({p:Array(UInt64)}, person_id)`,
            { a: accountId, p: [...personIds] },
          );
      });
    },

    async deleteBefore(db, accountId, before) {
      await holdForwards(db);
      await spool.deleteBefore(db, accountId, before);
      await read(() =>
        ch.command(
          `DELETE FROM ${mutationTarget} WHERE account_id = {a:UInt64}
             AND created_at < fromUnixTimestamp64Milli(toInt64({t:Int64}), 'UTC')`,
          { a: accountId, t: before.getTime() },
        ),
      );
    },

    async movePerson(db, accountId, fromId, intoId) {
      await holdForwards(db);
      await spool.movePerson(db, accountId, fromId, intoId);
      // The person is in the sort key: the events are written again under the new person, then the old go.
      await read(async () => {
        await ch.command(
          `INSERT INTO ${table} SELECT account_id, {into:UInt64}, created_at, id, type, name, url, data, source
           FROM ${table} WHERE account_id = {a:UInt64} AND person_id = {from:UInt64}`,
          { a: accountId, from: fromId, into: intoId },
        );
        await ch.command(
          `DELETE FROM ${mutationTarget} WHERE account_id = {a:UInt64} AND person_id = {from:UInt64}`,
          {
            a: accountId,
            from: fromId,
          },
        );
      });
    },

    async copyPersonForTestRun(db, accountId, personId) {
      const skip = await spoolRowsOf(db, accountId, personId);
      const rows = await read(() =>
        ch.rows<{
          id: number;
          type: string;
          name: string | null;
          url: string | null;
          data: string;
          source: string;
          us: number;
        }>(
          `SELECT id, type, name, url, data, source, toUnixTimestamp64Micro(created_at) AS us FROM ${table}
           WHERE account_id = {a:UInt64} AND person_id = {p:UInt64} AND NOT has({skip:Array(UInt64)}, id)`,
          { a: accountId, p: personId, skip },
        ),
      );
      if (rows.length === 0) return;
      await sql`insert into events (account_id, id, person_id, type, name, url, data, source, created_at)
        overriding system value
        select ${accountId}, e.id, ${personId}, e.type, e.name, e.url, e.data, e.source,
          timestamptz 'epoch' + e.us * interval '1 microsecond'
        from unnest(${rows.map((r) => r.id)}::bigint[], ${rows.map((r) => r.type)}::text[], ${rows.map((r) => r.name)}::text[],
          ${rows.map((r) => r.url)}::text[], ${rows.map((r) => r.data)}::jsonb[], ${rows.map((r) => r.source)}::text[],
          ${rows.map((r) => r.us)}::int8[]) as e(id, type, name, url, data, source, us)`.execute(db);
    },

    async deleteAccount(accountId) {
      await ready();
      await ch.command(`DELETE FROM ${mutationTarget} WHERE account_id = {a:UInt64}`, { a: accountId });
      for (const rollup of metricTables)
        await ch.command(
          `DELETE FROM ${cluster ? `${rollup}_local ON CLUSTER ${cluster}` : rollup} WHERE account_id = {a:UInt64}`,
          {
            a: accountId,
          },
        );
    },

    async withEventSets(ctx, nodes) {
      const conditions = eventConditionsOf(nodes, ctx);
      if (conditions.length === 0) return ctx;
      // Every event committed so far is judged: a person marked by an event is never re-checked without it.
      await forwarder.settle();
      return read(() => answerEventConditions(ch, ctx, conditions, table));
    },

    settle: () => forwarder.settle(),

    clickhouse: {
      read: (work) =>
        read(async () => {
          await forwarder.settle();
          return work(ch);
        }),
    },

    ping: () => ch.ping(),
    spool: () => forwarder.spool(),
    start: () => forwarder.start(),
    stop: () => forwarder.stop(),
  };
}
