import { finished } from 'node:stream/promises';
import fc from 'fast-check';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollUpEmailMetrics } from '../src/features/metrics/metrics.jobs.ts';
import { copyLine, HitBuffer, type TrackingHit } from '../src/features/tracking/hit-buffer.ts';
import { HitThrottle } from '../src/features/tracking/hit-throttle.ts';
import { createTestContext, registerUser, testDatabaseUrl, type TestContext } from './helpers.ts';

describe('the hit throttle (a fixed table of typed arrays)', () => {
  /** What the throttle promises: per second, each pair's first `perSecond` hits pass; past `room` pairs in a second, new pairs pass uncounted. */
  function model(perSecond: number, room: number) {
    let second = Number.NaN;
    let counts = new Map<string, number>();
    return (address: string, key: string, nowMs: number) => {
      const now = Math.floor(nowMs / 1000);
      if (now !== second) {
        second = now;
        counts = new Map();
      }
      const pair = JSON.stringify([address, key]);
      const count = counts.get(pair);
      if (count === undefined && counts.size >= room) return true;
      counts.set(pair, (count ?? 0) + 1);
      return (count ?? 0) + 1 <= perSecond;
    };
  }

  it('allows what the model allows, for any hits over a few seconds (a small table, so that it fills)', () => {
    const hit = fc.record({
      address: fc.constantFrom('203.0.113.9', '198.51.100.7', '::1', 'é'),
      key: fc.oneof(fc.constantFrom('a', 'b', 'c', 'a b', ''), fc.string({ maxLength: 6 })),
      // Mostly forward in time, sometimes the same second again.
      stepMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 400 }), fc.integer({ min: 900, max: 2500 })),
    });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(hit, { maxLength: 300 }), (perSecond, hits) => {
        const throttle = new HitThrottle(perSecond, 32);
        const expected = model(perSecond, 16);
        let now = 1_790_000_000_000;
        for (const h of hits) {
          now += h.stepMs;
          expect(throttle.allow(h.address, h.key, now)).toBe(expected(h.address, h.key, now));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('tells the address and the key apart where they meet', () => {
    const throttle = new HitThrottle(1);
    const now = Date.now();
    expect(throttle.allow('1.2.3.4', 'x y', now)).toBe(true);
    expect(throttle.allow('1.2.3.4 x', 'y', now)).toBe(true);
    expect(throttle.allow('1.2.3.4', 'x y', now)).toBe(false);
    expect(() => new HitThrottle(1, 100)).toThrow();
  });

  it('answers, uncounted, when a clock stepping back and forth has stamped every slot with the current second', () => {
    const throttle = new HitThrottle(1, 8);
    const [x, y] = [1_790_000_000_000, 1_790_000_001_000];
    let key = 0;
    // Each return to x starts its count of pairs afresh and takes slots again, until x holds all 8 (y's one pair
    // takes back a slot each time). Without a bound on the probe, the next new pair of x searched for ever.
    for (let turn = 0; turn < 10; turn++) {
      throttle.allow('203.0.113.9', 'y', y);
      for (let i = 0; i < 4; i++) throttle.allow('203.0.113.9', `k${key++}`, x);
    }
    expect(throttle.allow('203.0.113.9', 'new', x)).toBe(true);
    expect(throttle.allow('203.0.113.9', 'new', x)).toBe(true);
  });
});

describe("a hit's COPY line", () => {
  /** The line as an object through JSON.stringify would make it: COPY's text format escapes only backslashes here. */
  function expected(hit: TrackingHit): string {
    const { ref } = hit;
    const key = { broadcast: 'broadcastId', flow: 'flowId', transactional: 'sourceId', test: 'sourceId' }[
      ref.sourceKind
    ];
    const data: Record<string, unknown> =
      ref.sourceKind === 'flow'
        ? {
            ...(ref.flowId !== undefined ? { flowId: ref.flowId } : {}),
            stepId: String(ref.sourceId),
            emailId: ref.emailId,
          }
        : { [key]: ref.sourceId, emailId: ref.emailId };
    if (ref.variant > 0) data.variant = ref.variant;
    if (hit.link !== null) data.link = hit.link;
    data.userAgent = hit.agent;
    data.machine = hit.machine;
    const json = JSON.stringify(data).replace(/\\/g, '\\\\');
    return `${ref.accountId}\t${ref.personId}\temail\t${hit.name}\temail\t${json}\t${new Date(hit.atMs).toISOString()}\n`;
  }

  it('is the text of the hit as an object, for any hit, several to a millisecond or not', () => {
    const id = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });
    const hit = fc.record({
      ref: fc.record({
        accountId: id,
        deliveryId: id,
        personId: id,
        emailId: id,
        sourceKind: fc.constantFrom('broadcast', 'flow', 'transactional', 'test' as const),
        sourceId: id,
        variant: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1000 })),
        sentAt: fc.integer({ min: 0, max: 2 ** 31 }),
        flowId: fc.option(id, { nil: undefined }),
      }),
      name: fc.constantFrom('opened', 'clicked' as const),
      // Links with what JSON and COPY escape: quotes, backslashes, tabs, line breaks, control and non-ASCII characters.
      link: fc.option(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          fc.constantFrom('https://a.example/?q=a\\b\t"c"\n\u0000é'),
        ),
        { nil: null },
      ),
      agent: fc.constantFrom(
        'privacy-proxy',
        'image-proxy',
        'scanner',
        'mobile',
        'desktop',
        'unknown' as const,
      ),
      machine: fc.boolean(),
      stepMs: fc.oneof(fc.constant(0), fc.integer({ min: -5, max: 5 }), fc.integer({ min: 0, max: 10 ** 9 })),
    });
    fc.assert(
      fc.property(fc.array(hit, { minLength: 1, maxLength: 30 }), (hits) => {
        let atMs = 1_790_000_000_000;
        for (const { stepMs, ref, ...rest } of hits) {
          atMs += stepMs;
          const { flowId, ...others } = ref;
          const h: TrackingHit = {
            ...rest,
            ref: { ...others, ...(flowId !== undefined ? { flowId } : {}) },
            atMs,
          };
          expect(copyLine(h)).toBe(expected(h));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('the hit buffer (COPY lines in bytes outside the heap)', () => {
  let ctx: TestContext;
  let accountId: number;
  beforeAll(async () => {
    ctx = await createTestContext();
    accountId = (await registerUser(ctx.app)).account.accountId as number;
  });
  afterAll(() => ctx.close());

  let person = 9_000_000;
  const hitOf = (link: string | null): TrackingHit => ({
    ref: {
      accountId,
      deliveryId: 1,
      personId: ++person,
      emailId: 501,
      sourceKind: 'broadcast',
      sourceId: 77,
      variant: 0,
      sentAt: 0,
    },
    name: link === null ? 'opened' : 'clicked',
    link,
    agent: 'desktop',
    machine: false,
    atMs: Date.now(),
  });
  const linksOf = async (from: number) =>
    (
      await ctx.database.pool.query<{ link: string | null }>(
        `select data->>'link' as link from events where account_id = $1 and person_id > $2 and name in ('opened', 'clicked') order by person_id`,
        [accountId, from],
      )
    ).rows.map((r) => r.link);

  it('writes every line whole, across batches cut by rows and by bytes, UTF-8 included', async () => {
    const buffer = new HitBuffer(ctx.database.pool, { flushMs: 60_000, flushRows: 7 });
    const from = person;
    // Links of 4,000 characters of three UTF-8 bytes each: about 170 lines fill a batch's bytes.
    const long = (i: number) => `https://shop.example/${'€'.repeat(3990)}${i}`;
    const links = Array.from({ length: 400 }, (_, i) =>
      i % 50 === 0 ? null : i % 3 === 0 ? long(i) : `https://shop.example/café?i=${i}&q=a\\b\t"c"`,
    );
    for (const link of links) buffer.add(hitOf(link));
    await buffer.close();
    expect(buffer.written).toBe(400);
    expect(buffer.dropped).toBe(0);
    expect(await linksOf(from)).toEqual(links);
  });

  it('rolls the hits up as it writes them, to the figures the queue gives the same events', async () => {
    // The same hits for two accounts: the buffer's for one, a COPY of the same lines outside it (the queue, then the rollup job) for the other.
    const direct = (await registerUser(ctx.app)).account.accountId as number;
    const other = (await registerUser(ctx.app)).account.accountId as number;
    const hits = (account: number): TrackingHit[] =>
      Array.from({ length: 60 }, (_, i) => {
        const flow = i % 5 === 0;
        return {
          ref: {
            accountId: account,
            deliveryId: i,
            personId: 8_000_000 + (i % 17),
            emailId: 600 + (i % 2),
            sourceKind: flow ? 'flow' : 'broadcast',
            sourceId: flow ? 3 : 88,
            ...(flow ? { flowId: 41 } : {}),
            variant: i % 7 === 0 ? 1 : 0,
            sentAt: 0,
          },
          name: i % 3 === 0 ? 'clicked' : 'opened',
          link: i % 3 === 0 ? `https://shop.example/${i % 4}` : null,
          agent: i % 11 === 0 ? 'scanner' : 'desktop',
          machine: i % 11 === 0,
          // In the order they come, across the hour's turn (a recipient's first is the first rolled up, as with the queue's batches).
          atMs: Date.UTC(2026, 10, 27, 10, 50, 30) + i * 20_000,
        } as TrackingHit;
      });
    const buffer = new HitBuffer(ctx.database.pool, { flushMs: 60_000, flushRows: 25 });
    for (const hit of hits(direct)) buffer.add(hit);
    await buffer.close();
    expect(buffer.written).toBe(60);
    const queued = async (account: number) =>
      (
        await ctx.database.pool.query<{ n: number }>(
          'select count(*)::int as n from email_metric_queue where account_id = $1',
          [account],
        )
      ).rows[0]!.n;
    expect(await queued(direct)).toBe(0);

    const client = await ctx.database.pool.connect();
    try {
      const copy = client.query(
        copyStreams.from(
          'copy events (account_id, person_id, type, name, source, data, created_at) from stdin',
        ),
      );
      copy.end(hits(other).map(copyLine).join(''));
      await finished(copy);
    } finally {
      client.release();
    }
    expect(await queued(other)).toBe(60);
    await rollUpEmailMetrics(ctx.services.db, { wait: true });

    const figures = async (account: number) => {
      const read = async (table: string, order: string) =>
        (
          await ctx.database.pool.query(`select * from ${table} where account_id = $1 order by ${order}`, [
            account,
          ])
        ).rows.map(({ account_id: _a, ...row }) => row as unknown);
      return {
        hourly: await read(
          'email_metrics_hourly',
          'hour, source_kind, source_id, email_id, step_id, variant',
        ),
        accountHourly: await read('email_metrics_account_hourly', 'hour'),
        links: await read('email_metrics_links', 'hour, source_kind, source_id, email_id, step_id, link'),
        accountLinks: await read('email_metrics_account_links', 'hour, link'),
        accountLinksDaily: await read('email_metrics_account_links_daily', 'day, link'),
        firsts: await read(
          'email_metric_firsts',
          'source_kind, source_id, email_id, step_id, person_id, name',
        ),
      };
    };
    const rolledUp = await figures(direct);
    expect(rolledUp.hourly.length).toBeGreaterThan(4);
    expect(rolledUp.links.length).toBeGreaterThan(4);
    expect(rolledUp.firsts.length).toBeGreaterThan(20);
    expect(rolledUp).toEqual(await figures(other));
  });

  it('keeps a batch the database refused, within the limit, and writes it once the database takes it', async () => {
    // A pool whose statements give up after 300 ms waiting for a lock: with events locked, the COPY fails.
    const pool = new pg.Pool({ connectionString: testDatabaseUrl(), max: 2, options: '-c lock_timeout=300' });
    const buffer = new HitBuffer(pool, { flushMs: 60_000, flushRows: 5, maxWaiting: 4 });
    const from = person;
    const locker = await ctx.database.pool.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table events in access exclusive mode');
      const links = Array.from({ length: 9 }, (_, i) => `https://shop.example/${i}`);
      for (const link of links.slice(0, 4)) buffer.add(hitOf(link));
      // The first batch (4) is on its way; 3 more come meanwhile; at its failure 1 of its lines fits under the limit.
      const flushed = buffer.flush();
      for (const link of links.slice(4, 7)) buffer.add(hitOf(link));
      await flushed;
      expect(buffer.pending).toBe(4);
      expect(buffer.dropped).toBe(3);
      buffer.add(hitOf(links[7]!));
      expect(buffer.dropped).toBe(4);
      await locker.query('commit');
      await buffer.close();
      expect(buffer.written).toBe(4);
      expect(await linksOf(from)).toEqual([links[0], ...links.slice(4, 7)]);
    } finally {
      locker.release();
      await pool.end();
    }
  });
});
