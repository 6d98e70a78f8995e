import Fastify, { type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollupLockKey } from '../src/db/migrations/0038-rollup-without-row-keys.ts';
import { createTrackingEndpoints, trackingHitBuffer } from '../src/features/tracking/tracking.endpoints.ts';
import { encodeMessage } from '../src/features/tracking/tracking-token.ts';
import { createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { until } from './until.ts';

let ctx: TestContext;
let accountId: number;
let personId: number;
let nextDelivery = 1;
beforeAll(async () => {
  ctx = await createTestContext();
  const owner = await registerUser(ctx.app);
  accountId = owner.account.accountId as number;
  const person = await owner.client.post('/v1/people/?source=manual', { email: uniqueEmail('reader') });
  personId = person.body.user.id as number;
});
afterAll(() => ctx.close());

/**
 * The tracking endpoints on a real HTTP server, as Herald serves them (the hits answered before Fastify), with a
 * buffer of room for 3 waiting hits that writes 2 at a time and waits `holdMs` for room.
 */
async function server(holdMs: number, maxHeld = 100) {
  const endpoints = createTrackingEndpoints(ctx.services, {
    flushMs: 60_000,
    flushRows: 2,
    maxWaiting: 3,
    holdMs,
    maxHeld,
  });
  const app: FastifyInstance = Fastify({ serverFactory: endpoints.serverFactory });
  endpoints.register(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address() as { port: number };
  const open = async () => {
    const token = encodeMessage(
      ctx.services.secret,
      {
        accountId,
        deliveryId: nextDelivery++,
        personId,
        emailId: 9,
        sourceKind: 'broadcast',
        sourceId: 9,
        variant: 0,
      },
      Date.now() - 60_000,
    );
    const started = Date.now();
    const res = await fetch(`http://127.0.0.1:${address.port}/t/o/${token}`, {
      headers: { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Firefox/128.0' },
    });
    await res.arrayBuffer();
    return { status: res.status, ms: Date.now() - started };
  };
  return { app, open, buffer: () => trackingHitBuffer(app)! };
}

/** Hold the rollup's lock, which every flush takes: the buffer's writes wait until `release`. */
async function holdWrites() {
  const client: pg.PoolClient = await ctx.database.pool.connect();
  await client.query('select pg_advisory_lock($1)', [rollupLockKey]);
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    await client.query('select pg_advisory_unlock($1)', [rollupLockKey]);
    client.release();
  };
}

const opensWritten = async () => {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from events
    where account_id = ${accountId} and type = 'email' and name = 'opened'`.execute(ctx.services.db);
  return rows[0]!.n;
};

describe('tracking hits while the database writes more slowly than they come', () => {
  it('answers wait for room instead of hits being dropped, and every answered hit is written', async () => {
    const before = await opensWritten();
    const release = await holdWrites();
    const { app, open, buffer } = await server(60_000);
    try {
      // Two hits make a batch, whose write waits on the lock; three more wait in the buffer, which is then full.
      for (let i = 0; i < 5; i++) expect((await open()).status).toBe(200);
      expect(buffer().pending).toBe(3);
      const held = [open(), open()];
      await until(() => buffer().holding === 2, {
        timeout: 10_000,
        interval: 10,
        message: 'two requests held',
      });
      let answered = 0;
      for (const hit of held) void hit.then(() => (answered += 1));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(answered).toBe(0);

      await release();
      for (const hit of await Promise.all(held)) expect(hit.status).toBe(200);
      expect(buffer().dropped).toBe(0);
    } finally {
      await release();
      await app.close();
    }
    expect(await opensWritten()).toBe(before + 7);
  });

  it('a request that waited its time for room, or found too many waiting, is answered and its hit dropped', async () => {
    const before = await opensWritten();
    const release = await holdWrites();
    const { app, open, buffer } = await server(300, 1);
    try {
      for (let i = 0; i < 5; i++) expect((await open()).status).toBe(200);
      const late = open();
      await until(() => buffer().holding === 1, {
        timeout: 10_000,
        interval: 10,
        message: 'one request held',
      });
      // One request may wait at a time: the next is answered at once.
      const next = await open();
      expect(next.status).toBe(200);
      expect(next.ms).toBeLessThan(250);
      expect(buffer().dropped).toBe(1);
      expect((await late).status).toBe(200);
      expect((await late).ms).toBeGreaterThanOrEqual(290);
      expect(buffer().dropped).toBe(2);
    } finally {
      await release();
      await app.close();
    }
    expect(await opensWritten()).toBe(before + 5);
  });
});
