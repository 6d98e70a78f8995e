import type pg from 'pg';
import type { ClickHouse } from './clickhouse.ts';
import { recordFirstEngagements } from './clickhouse-firsts.ts';
import { eventStoreError } from './event-store.ts';

/**
 * The advisory lock that lets one process at a time forward the spool (any role may hold it). A change that moves or
 * deletes a person's events takes it for its transaction, so no forward carries the events' old state past it.
 */
export const forwarderLock = 0x48455631; // 'HEV1'

export interface ForwarderOptions {
  /** Events moved in one forward (one ClickHouse insert per account in it). */
  forwardBatch?: number;
  /** How often the forwarder looks at the spool when it is idle. */
  idleMs?: number;
  log?: (line: string) => void;
}

export interface Forwarder {
  start(): void;
  stop(): Promise<void>;
  /** Forward every event committed before the call (waiting for a forward under way in another process). */
  settle(): Promise<void>;
  spool(): { size: number; oldestAtMs: number | undefined };
}

/**
 * The spool's forwarder (EVENT_STORE=clickhouse): it moves PostgreSQL's `events` rows to ClickHouse in id order,
 *   1. recording which events make the next forward (`event_forwards`, one row per account), and committing;
 *   2. inserting them into ClickHouse with the forward's id as the deduplication token;
 *   3. deleting them and the record from PostgreSQL in one transaction.
 * A crash between 1 and 3 repeats the same forward with the same token, which ClickHouse drops if it already has
 * it: each event is stored once. While ClickHouse is unreachable, events wait in the spool and go, in order, when
 * it answers again. `ready` makes ClickHouse's tables (once).
 */
export function eventForwarder(
  ch: ClickHouse,
  pool: pg.Pool,
  ready: () => Promise<void>,
  options: ForwarderOptions = {},
): Forwarder {
  const table = 'events';
  const forwardBatch = options.forwardBatch ?? 10_000;
  const idleMs = options.idleMs ?? 200;
  const log = options.log ?? ((line: string) => console.warn(line));
  let spooled: { size: number; oldestAtMs: number | undefined } = { size: 0, oldestAtMs: undefined };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;
  let failing = false;

  /**
   * One forward: the recorded ones first (a crash left them), else the next events in id order. Returns how many
   * events it moved, or how many forwards it finished if more (0: nothing was left to forward).
   */
  async function forwardOnce(client: pg.PoolClient): Promise<number> {
    let forwards = (
      await client.query<{ account_id: number; id: number; event_ids: number[] }>(
        'select account_id, id, event_ids from event_forwards order by id limit 50',
      )
    ).rows;
    if (forwards.length === 0) {
      const next = (
        await client.query<{ account_id: number; ids: number[] }>(
          `select account_id, array_agg(id order by id) as ids
           from (select account_id, id from events order by id limit $1) e group by account_id`,
          [forwardBatch],
        )
      ).rows;
      if (next.length === 0) return 0;
      await client.query('begin');
      try {
        forwards = [];
        for (const n of next) {
          const { rows } = await client.query<{ account_id: number; id: number; event_ids: number[] }>(
            'insert into event_forwards (account_id, event_ids) values ($1, $2::bigint[]) returning account_id, id, event_ids',
            [n.account_id, n.ids],
          );
          forwards.push(...rows);
        }
        await client.query('commit');
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      }
    }
    let moved = 0;
    for (const forward of forwards) {
      const { rows } = await client.query(
        `select account_id, coalesce(person_id, 0) as person_id,
           to_char(created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') as created_at, id, type, name, url,
           data::text as data, source
         from events where account_id = $1 and id = any($2::bigint[]) order by id`,
        [forward.account_id, forward.event_ids],
      );
      // The token drops a forward written again, in the table and in the metrics' views over it.
      const token = `herald-forward-${forward.id}`;
      await ch.insert(table, rows, {
        insert_deduplication_token: token,
        deduplicate_blocks_in_dependent_materialized_views: 1,
      });
      // Its opens and clicks, staged under the forward's id, make the unique ones (clickhouse-firsts.ts).
      const engagements = rows.filter(
        (r) => r.type === 'email' && (r.name === 'opened' || r.name === 'clicked'),
      );
      if (engagements.length > 0) {
        await ch.insert(
          'email_engagements',
          engagements.map((r) => ({ forward_id: forward.id, ...r })),
          { insert_deduplication_token: `${token}-engagements` },
        );
        await recordFirstEngagements(
          ch,
          '(SELECT * FROM email_engagements WHERE forward_id = {forward:UInt64})',
          { forward: forward.id },
          token,
        );
      }
      await client.query('begin');
      try {
        await client.query('delete from events where account_id = $1 and id = any($2::bigint[])', [
          forward.account_id,
          forward.event_ids,
        ]);
        await client.query('delete from event_forwards where account_id = $1 and id = $2', [
          forward.account_id,
          forward.id,
        ]);
        await client.query('commit');
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      }
      moved += rows.length;
    }
    // A recorded forward whose events were all deleted since (their person went) moves none, yet it was work done:
    // the caller goes on to the events after it instead of taking the empty forward for an empty spool.
    return Math.max(moved, forwards.length);
  }

  async function countSpool(client: pg.PoolClient) {
    const { rows } = await client.query<{ n: number; oldest: number | null }>(
      `select count(*)::int as n, (extract(epoch from min(created_at)) * 1000)::float8 as oldest
       from (select created_at from events limit 10000000) s`,
    );
    spooled = { size: rows[0]?.n ?? 0, oldestAtMs: rows[0]?.oldest ?? undefined };
  }

  /**
   * Forward while there is something to forward, holding the lock (`wait`: wait for it, else give up when another
   * process holds it). `upTo`: stop once no event with an id up to it is left (settle's bound).
   */
  async function forwardAll(wait: boolean, upTo?: number): Promise<void> {
    await ready();
    const client = await pool.connect();
    try {
      // The lock is taken for each forward and let go after it: a change that moves or deletes a person's events
      // (which takes it, event-store-clickhouse.ts) waits for one forward at most, never for a whole backlog.
      for (;;) {
        if (wait) await client.query('select pg_advisory_lock($1)', [forwarderLock]);
        else {
          const { rows } = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1) as ok', [
            forwarderLock,
          ]);
          if (!rows[0]?.ok) return;
        }
        let moved: number;
        try {
          moved = await forwardOnce(client);
        } finally {
          await client.query('select pg_advisory_unlock($1)', [forwarderLock]).catch(() => undefined);
        }
        if (moved === 0) break;
        if (upTo !== undefined) {
          const { rows } = await client.query<{ left: boolean }>(
            'select exists (select 1 from events where id <= $1) as left',
            [upTo],
          );
          if (!rows[0]?.left) break;
        }
      }
      await countSpool(client);
    } finally {
      client.release();
    }
  }

  function schedule(delay: number) {
    if (stopped) return;
    timer = setTimeout(() => {
      running = forwardAll(false).then(
        () => {
          if (failing) log('Event store: ClickHouse answers again; the spool is being forwarded');
          failing = false;
          schedule(idleMs);
        },
        (error: unknown) => {
          if (!failing)
            log(
              `Event store: forwarding to ClickHouse failed (${(error as Error).message}); events wait in the spool`,
            );
          failing = true;
          schedule(Math.max(idleMs, 1000));
        },
      );
    }, delay);
    timer.unref();
  }

  /** Forward every event committed before the call; ClickHouse not answering is a 503 (a job retries). */
  async function settle() {
    const { rows } = await pool.query<{ max: number | null }>('select max(id) as max from events');
    const upTo = rows[0]?.max;
    if (upTo === null || upTo === undefined) return;
    try {
      await forwardAll(true, upTo);
    } catch (error) {
      throw eventStoreError(error);
    }
  }

  return {
    settle,
    spool: () => spooled,
    start() {
      if (!stopped) return;
      stopped = false;
      schedule(0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
