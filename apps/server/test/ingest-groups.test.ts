import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitingIngestCalls } from '../src/features/events/ingest-groups.ts';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { until } from './until.ts';

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
beforeAll(async () => {
  ctx = await createTestContext();
  owner = await registerUser(ctx.app);
});
afterAll(() => ctx.close());

const ingest = (batch: unknown[], userAgent = 'Site A') =>
  new Client(ctx.app).post(
    '/v1/ingest/batch',
    { batch },
    { headers: { 'x-write-key': owner.account.writeKey, 'user-agent': userAgent } },
  );

/** Hold both of the account's writers: each writes a call naming a user id whose identity lock a test connection holds. */
async function holdWriters(accountId: number) {
  const userId = `hold-${Math.random().toString(36).slice(2)}`;
  const key = `identity:${accountId}:u:${userId}`;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  const connection = ctx.services.db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(hashtextextended(${key}, 0))`.execute(conn);
    held();
    await released;
    await sql`select pg_advisory_unlock(hashtextextended(${key}, 0))`.execute(conn);
  });
  await holding;
  const blocked = [1, 2].map(() => ingest([{ type: 'track', userId, name: 'Held' }]));
  // Both writers wait on the lock (their transactions' advisory lock calls).
  await until(
    async () => {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_locks
      where locktype = 'advisory' and not granted
        and database = (select oid from pg_database where datname = current_database())`.execute(
        ctx.services.db,
      );
      return rows[0]!.n >= 2;
    },
    { timeout: 10_000, interval: 10, message: 'both writers waiting on the lock' },
  );
  return {
    async release() {
      release();
      await connection;
      for (const res of await Promise.all(blocked)) expect(res.status).toBe(200);
    },
  };
}

/** The transactions that wrote events named `name` (their xmin). */
async function writers(name: string) {
  const { rows } = await sql<{ xmin: string }>`select distinct xmin::text from events
    where account_id = ${owner.account.accountId} and name = ${name}`.execute(ctx.services.db);
  return rows.map((r) => r.xmin);
}

describe('ingest calls written together', () => {
  it('calls that arrive while the account is writing go in one transaction, each answered with its own part', async () => {
    const hold = await holdWriters(owner.account.accountId);
    const name = `Grouped ${Date.now()}`;
    const [first, second, third] = [uniqueEmail('g1'), uniqueEmail('g2'), uniqueEmail('g3')];
    const calls = [
      ingest([
        { type: 'track', email: first, name },
        { type: 'track', email: second, name },
      ]),
      ingest(
        [
          { type: 'track', email: 'not-an-address', name },
          { type: 'identify', email: third, traits: { firstName: 'Tess' } },
          { type: 'track', email: third, name },
          { type: 'track', email: third },
        ],
        'Site B',
      ),
      ingest([{ type: 'track', email: first, name }]),
    ];
    await until(() => waitingIngestCalls(ctx.services) === 3, {
      timeout: 10_000,
      interval: 10,
      message: 'three calls waiting',
    });
    await hold.release();
    const answers = await Promise.all(calls);
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(answers[0]!.body).toEqual({ accepted: 2, rejected: [] });
    expect(answers[1]!.body).toEqual({
      accepted: 2,
      rejected: [
        { index: 0, message: 'Enter a valid email address.' },
        { index: 3, message: 'A track message needs a name.' },
      ],
    });
    expect(answers[2]!.body).toEqual({ accepted: 1, rejected: [] });
    expect(await writers(name)).toHaveLength(1);

    // Each new person subscribed with what the call that brought them showed.
    const { rows } = await sql<{
      email: string;
      userAgent: string;
    }>`select p.email, c.user_agent as "userAgent"
      from consent_records c join people p on p.account_id = c.account_id and p.id = c.person_id
      where c.account_id = ${owner.account.accountId} and p.email = any(${[first, second, third]}::text[])
      order by p.email`.execute(ctx.services.db);
    expect(rows).toEqual(
      [
        { email: first, userAgent: 'Site A' },
        { email: second, userAgent: 'Site A' },
        { email: third, userAgent: 'Site B' },
      ].sort((a, b) => a.email.localeCompare(b.email)),
    );
  });

  it('a call that fails fails alone: the others of its group are written, each in its own transaction', async () => {
    const hold = await holdWriters(owner.account.accountId);
    const name = `Failing group ${Date.now()}`;
    const calls = [
      ingest([{ type: 'track', email: uniqueEmail('f1'), name }]),
      // PostgreSQL refuses a NUL character in JSON text, which the checks before the write let through.
      ingest([{ type: 'track', email: uniqueEmail('f2'), name, properties: { note: 'a\u0000b' } }]),
      ingest([{ type: 'track', email: uniqueEmail('f3'), name }]),
    ];
    await until(() => waitingIngestCalls(ctx.services) === 3, {
      timeout: 10_000,
      interval: 10,
      message: 'three calls waiting',
    });
    await hold.release();
    const [good, bad, other] = await Promise.all(calls);
    expect(good!.status).toBe(200);
    expect(other!.status).toBe(200);
    expect(bad!.status).toBe(400);
    expect(bad!.body.message).toBe('Text cannot contain the NUL character (\\u0000).');
    expect(await writers(name)).toHaveLength(2);
  });
});
