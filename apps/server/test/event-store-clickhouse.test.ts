import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClickHouseHttp, type ClickHouseHttp } from './clickhouse-http.ts';
import { clickhouseMetrics } from '../src/features/metrics/metrics-clickhouse.queries.ts';
import { flushTrackingHits } from '../src/features/tracking/tracking.endpoints.ts';
import { encodeMessage } from '../src/features/tracking/tracking-token.ts';
import { addStep, link, newFlow } from './flows-fixtures.ts';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';

/**
 * EVENT_STORE=clickhouse through the production client path: the official HTTP client, talking to ClickHouse's
 * HTTP interface in front of the embedded engine (clickhouse-http.ts). Events are written to PostgreSQL's spool,
 * forwarded to ClickHouse exactly once, and every read answers the same as on the PostgreSQL store.
 */
let clickhouse: ClickHouseHttp;
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-ch-http-'));

beforeAll(async () => {
  clickhouse = await startClickHouseHttp(directory, {
    user: 'herald',
    password: 's3cret',
    database: 'herald',
  });
  ctx = await createTestContext({ EVENT_STORE: 'clickhouse', CLICKHOUSE_URL: clickhouse.url() });
  owner = await registerUser(ctx.app);
});
afterAll(async () => {
  await ctx?.close();
  await clickhouse?.close();
  fs.rmSync(directory, { recursive: true, force: true });
});

const ingest = (batch: unknown[]) =>
  new Client(ctx.app).post(
    '/v1/ingest/batch',
    { batch },
    { origin: 'https://site.example', headers: { 'x-write-key': owner.account.writeKey } },
  );

async function personId(email: string): Promise<number> {
  const found = await owner.client.get(`/v1/people/search?query=${encodeURIComponent(email)}`);
  return found.body.users[0].id as number;
}

/** Events of the account in ClickHouse and in the spool (PostgreSQL's events table), as the owner sees them. */
async function where(accountId: number) {
  const inClickHouse = Number(
    (await clickhouse.query(`SELECT count() FROM events WHERE account_id = ${accountId}`)).trim(),
  );
  const { rows } = await sql<{
    n: number;
  }>`select count(*)::int as n from events where account_id = ${accountId}`.execute(ctx.services.db);
  return { inClickHouse, inSpool: rows[0]!.n };
}

describe('events on ClickHouse', () => {
  it('forwards ingested events to ClickHouse once and reads timelines, metrics and segments from there', async () => {
    const email = uniqueEmail('ch');
    const res = await ingest([
      { type: 'identify', email, traits: { firstName: 'Cleo' } },
      {
        type: 'track',
        email,
        name: 'Signed up',
        properties: { plan: 'pro' },
        timestamp: '2026-01-02T10:00:00Z',
      },
      {
        type: 'track',
        email,
        name: 'Signed up',
        properties: { plan: 'free' },
        timestamp: '2026-01-03T10:00:00Z',
      },
      { type: 'page', email, url: 'https://site.example/pricing', timestamp: '2026-01-01T10:00:00Z' },
    ]);
    expect(res.body).toEqual({ accepted: 4, rejected: [] });
    await ctx.services.events.settle();
    const accountId = owner.account.accountId as number;
    // The identify, the two tracks and the page view.
    expect(await where(accountId)).toEqual({ inClickHouse: 4, inSpool: 0 });
    expect(clickhouse.seen.insert).toBeGreaterThan(0);

    const id = await personId(email);
    const first = await owner.client.get(`/v1/people/${id}/events?limit=3`);
    expect(first.body.events.map((e: { name: string; data: unknown }) => [e.name, e.data])).toEqual([
      [null, { firstName: 'Cleo' }],
      ['Signed up', { plan: 'free' }],
      ['Signed up', { plan: 'pro' }],
    ]);
    const second = await owner.client.get(
      `/v1/people/${id}/events?limit=3&cursor=${first.body.paging.after}`,
    );
    expect(second.body.events.map((e: { name: string; url: string }) => [e.name, e.url])).toEqual([
      ['Page viewed', 'https://site.example/pricing'],
    ]);
    expect(second.body.paging.after).toBeNull();

    // A live count asks ClickHouse for the event condition (twice "Signed up", at least once with plan pro).
    const count = async (conditions: unknown[]) =>
      (await owner.client.post('/v1/segments/preview', { conditions })).body.totalCount as number;
    const twice = { type: 'event', name: 'Signed up', count: { operator: 'exactly', value: 2 } };
    expect(await count([twice])).toBe(1);
    expect(await count([{ ...twice, count: { operator: 'atLeast', value: 3 } }])).toBe(0);
    expect(await count([{ type: 'pageVisited', performed: false, match: 'contains', url: '/pricing' }])).toBe(
      0,
    );
    const queries = clickhouse.seen.query;
    expect(
      await count([
        { type: 'event', name: 'Signed up', properties: [{ key: 'plan', operator: 'equals', value: 'PRO' }] },
      ]),
    ).toBe(1);
    expect(clickhouse.seen.query).toBeGreaterThan(queries);
  });

  it('keeps events in the spool while ClickHouse is down, and forwards them once, in order, when it is back', async () => {
    const email = uniqueEmail('outage');
    const accountId = owner.account.accountId as number;
    const before = await where(accountId);
    await clickhouse.stop();
    try {
      const res = await ingest(
        Array.from({ length: 50 }, (_, i) => ({ type: 'track', email, name: `Step ${i}` })),
      );
      expect(res.body.accepted).toBe(50);
      // Reads that need ClickHouse answer 503 with a message, never a 500.
      const id = await personId(email);
      const timeline = await owner.client.get(`/v1/people/${id}/events`);
      expect(timeline.status).toBe(503);
      expect(timeline.body.message).toMatch(/event store does not answer/);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await where(accountId)).inSpool).toBe(before.inSpool + 50);
    } finally {
      await clickhouse.start();
    }
    await ctx.services.events.settle();
    const after = await where(accountId);
    expect(after).toEqual({ inClickHouse: before.inClickHouse + 50, inSpool: 0 });
    const id = await personId(email);
    const timeline = await owner.client.get(`/v1/people/${id}/events?limit=100`);
    expect(timeline.body.events).toHaveLength(50);
  });

  it('stores every answered tracking hit once, though ClickHouse was down when they came', async () => {
    const accountId = owner.account.accountId as number;
    const email = uniqueEmail('reader');
    const created = await owner.client.post('/v1/people/?source=manual', { email });
    const personId = created.body.user.id as number;
    const countOpens = async () =>
      Number(
        (
          await clickhouse.query(
            `SELECT count() FROM events WHERE account_id = ${accountId} AND person_id = ${personId} AND name = 'opened'`,
          )
        ).trim(),
      );
    await clickhouse.stop();
    let answered = 0;
    try {
      for (let i = 0; i < 200; i += 1) {
        const token = encodeMessage(
          ctx.services.secret,
          {
            accountId,
            deliveryId: 5000 + i,
            personId,
            emailId: 501,
            sourceKind: 'broadcast',
            sourceId: 77,
            variant: 0,
          },
          Date.now() - 60_000,
        );
        const res = await ctx.app.inject({
          method: 'GET',
          url: `/t/o/${token}`,
          headers: {
            'user-agent':
              'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Safari/605.1.15',
          },
        });
        if (res.statusCode === 200) answered += 1;
      }
      await flushTrackingHits(ctx.app);
    } finally {
      await clickhouse.start();
    }
    expect(answered).toBe(200);
    await ctx.services.events.settle();
    expect(await countOpens()).toBe(200);
    // Forwarding again changes nothing.
    await ctx.services.events.settle();
    expect(await countOpens()).toBe(200);
  });

  it('repeats a forward a crash interrupted without storing its events twice', async () => {
    const email = uniqueEmail('crash');
    const accountId = owner.account.accountId as number;
    await ctx.services.events.stop();
    try {
      await ingest([
        { type: 'track', email, name: 'Paid' },
        { type: 'track', email, name: 'Paid' },
      ]);
      // As if the forwarder stopped between its insert into ClickHouse and its delete from the spool: the
      // forward is recorded and ClickHouse already holds its events under the forward's token.
      const { rows } = await sql<{ ids: number[] }>`
        select array_agg(id order by id) as ids from events where account_id = ${accountId}`.execute(
        ctx.services.db,
      );
      const ids = rows[0]!.ids;
      expect(ids).toHaveLength(2);
      const forward = await sql<{ id: number }>`
        insert into event_forwards (account_id, event_ids) values (${accountId}, ${ids}::bigint[]) returning id`.execute(
        ctx.services.db,
      );
      const forwardId = forward.rows[0]!.id;
      const spool = await sql<Record<string, unknown>>`
        select account_id, person_id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') as created_at,
          id, type, name, url, data::text as data, source
        from events where account_id = ${accountId} order by id`.execute(ctx.services.db);
      const { connectClickHouse } = await import('../src/db/clickhouse.ts');
      const direct = await connectClickHouse(clickhouse.url());
      await direct.insert('events', spool.rows, {
        insert_deduplication_token: `herald-forward-${forwardId}`,
      });
      await direct.close();
      const before = await where(accountId);
      expect(before.inSpool).toBe(2);
      await ctx.services.events.settle();
      const after = await where(accountId);
      expect(after).toEqual({ inClickHouse: before.inClickHouse, inSpool: 0 });
    } finally {
      ctx.services.events.start();
    }
  });

  it('counts a forward of email events written again after a crash once in the email metrics', async () => {
    const accountId = owner.account.accountId as number;
    const db = ctx.services.db;
    const { rows: people } = await sql<{
      id: number;
    }>`insert into people (account_id, email, created_at, updated_at)
      values (${accountId}, ${uniqueEmail('metrics-crash')}, now(), now()) returning id`.execute(db);
    const personId = Number(people[0]!.id);
    const data = JSON.stringify({ broadcastId: 424242, emailId: 7 });
    await ctx.services.events.stop();
    try {
      const { rows: events } = await sql<Record<string, unknown>>`
        insert into events (account_id, person_id, type, name, source, data)
        select ${accountId}, ${personId}, 'email', n, 'email', ${data}::jsonb from unnest(array['sent', 'opened', 'opened']) n
        returning id, account_id, person_id, type, name, source, data,
          to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at`.execute(db);
      const ids = events.map((e) => Number(e.id));
      const forward = await sql<{ id: number }>`
        insert into event_forwards (account_id, event_ids) values (${accountId}, ${ids}::bigint[]) returning id`.execute(
        db,
      );
      const figures = async () => {
        const reader = clickhouseMetrics(ctx.services.events.clickhouse!, db);
        const filter = {
          accountId,
          start: Date.now() - 86_400_000,
          end: Date.now() + 3_600_000,
          broadcastId: 424242,
        };
        const [counts] = await reader.bucketCounters({ ...filter, flowIds: [], emailIds: [], stepIds: [] }, [
          filter.start,
        ]);
        return counts && { sent: counts.sent, opened: counts.opened, uniqueOpens: counts.uniqueOpens };
      };
      await ctx.services.events.settle();
      const once = await figures();
      expect(once).toEqual({ sent: '1', opened: '2', uniqueOpens: '1' });
      // As if the forwarder had stopped after ClickHouse stored the whole forward but before the spool's delete: the
      // same forward, with the same events, is done again.
      await sql`insert into events (id, account_id, person_id, type, name, source, data, created_at) overriding system value
        select (e->>'id')::bigint, (e->>'accountId')::bigint, (e->>'personId')::bigint, e->>'type', e->>'name', e->>'source',
          e->'data', (e->>'at')::timestamptz
        from jsonb_array_elements(${JSON.stringify(events)}::jsonb) e`.execute(db);
      await sql`insert into event_forwards (id, account_id, event_ids) overriding system value
        values (${forward.rows[0]!.id}, ${accountId}, ${ids}::bigint[])`.execute(db);
      await ctx.services.events.settle();
      expect(await figures()).toEqual(once);
      expect((await where(accountId)).inSpool).toBe(0);
    } finally {
      ctx.services.events.start();
    }
  });

  it('a flow’s test run judges a real person’s events stored in ClickHouse', async () => {
    const email = uniqueEmail('tested');
    await ingest([
      { type: 'page', email, url: 'https://site.example/pricing', timestamp: '2026-01-05T10:00:00Z' },
    ]);
    await ctx.services.events.settle();
    expect((await where(owner.account.accountId as number)).inSpool).toBe(0);
    const flow = await newFlow(owner.client, 'Pricing visitors');
    const trigger = await addStep(owner.client, flow.id, '/event', { name: 'signup' });
    const visited = await addStep(owner.client, flow.id, '/visited-page', {
      condition: { type: 'pageVisited', performed: true, match: 'contains', url: '/pricing' },
    });
    await link(owner.client, trigger.id, visited.id);
    const res = await owner.client.post(`/v1/integrations/${flow.id}/simulate`, {
      person: { email },
      start: '2026-03-02T08:00:00.000Z',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.path.at(-1)).toMatchObject({ stepId: visited.id, outcome: 'yes' });
    // The copy lived in the test run's transaction only.
    expect((await where(owner.account.accountId as number)).inSpool).toBe(0);
  });

  it('deletes a person’s events in ClickHouse with the person', async () => {
    const email = uniqueEmail('gone');
    await ingest([{ type: 'track', email, name: 'Visited' }]);
    await ctx.services.events.settle();
    const id = await personId(email);
    const count = async () =>
      Number((await clickhouse.query(`SELECT count() FROM events WHERE person_id = ${id}`)).trim());
    expect(await count()).toBe(1);
    const removed = await owner.client.request('DELETE', `/v1/people/?force=true&id=${id}`);
    expect(removed.status).toBe(200);
    expect(await count()).toBe(0);
  });

  it('answers /readyz with the event store, and 503 while ClickHouse is down', async () => {
    const ready = await new Client(ctx.app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.eventStore).toBe('ok');
    await clickhouse.stop();
    try {
      const down = await new Client(ctx.app).get('/readyz');
      expect(down.status).toBe(503);
      expect(down.body.checks.eventStore).toBeTruthy();
    } finally {
      await clickhouse.start();
    }
  });

  it('refuses wrong ClickHouse credentials as unreachable, not as a crash', async () => {
    const { connectClickHouse } = await import('../src/db/clickhouse.ts');
    const wrong = await connectClickHouse(clickhouse.url('herald:wrong'));
    await expect(wrong.numbers('SELECT 1')).rejects.toThrow(/Authentication failed/);
    await wrong.close();
  });
});
