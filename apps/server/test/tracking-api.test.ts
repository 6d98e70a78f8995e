import zlib from 'node:zlib';
import { trackingApiMessages } from '@herald/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trackingRateLimit } from '../src/features/tracking-api/tracking-api.service.ts';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
let writeKey: string;
beforeAll(async () => {
  ctx = await createTestContext();
  owner = await registerUser(ctx.app);
  writeKey = owner.account.writeKey;
  await owner.client.post('/v1/fields', { items: [{ name: 'plan', title: 'Plan', type: 'string' }] });
});
afterAll(() => ctx.close());

const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
const unique = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;

/** A server-side SDK's call: no cookie, the write key as the Basic auth user. */
const call = (
  path: string,
  body: unknown,
  key: string | null = writeKey,
  headers: Record<string, string> = {},
) =>
  new Client(ctx.app).request('POST', path, {
    rawBody: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { ...(key === null ? {} : { authorization: basic(key) }), ...headers },
    origin: null,
  });

interface StoredEvent {
  id: number;
  personId: number | null;
  type: string;
  name: string | null;
  url: string | null;
  data: Record<string, any>;
  createdAt: string;
}
const allEvents = async (client = owner.client): Promise<StoredEvent[]> =>
  (await client.get('/v1/people/all/events?limit=500')).body.events;
const eventOf = async (messageId: string) =>
  (await allEvents()).find((e) => e.data.$segment?.messageId === messageId);
const person = async (id: number) => (await owner.client.get(`/v1/people/${id}`)).body.users[0];

describe('the Segment-compatible Tracking API', () => {
  it('identify, track and page land on one person: traits as fields, properties and context on the events', async () => {
    const [userId, anonymousId, email] = [unique('user'), unique('anon'), uniqueEmail('segment')];
    const identify = await call('/v1/identify', {
      userId,
      anonymousId,
      messageId: `${userId}-1`,
      traits: {
        email,
        name: 'Grace Brewster Hopper',
        company: { name: 'Navy' },
        phone: '+1 555',
        plan: 'pro',
        shoe: 9,
      },
      context: { ip: '203.0.113.9', userAgent: 'Mozilla/5.0 test' },
    });
    expect(identify.status).toBe(200);
    expect(identify.body).toEqual({ success: true, accepted: 1, duplicates: 0 });
    const track = await call('/v1/track', {
      userId,
      messageId: `${userId}-2`,
      event: 'Signed up',
      properties: { plan: 'pro', seats: 3 },
      context: { campaign: { name: 'spring', source: 'newsletter' } },
    });
    expect(track.status).toBe(200);
    const page = await call('/v1/page', {
      anonymousId,
      messageId: `${userId}-3`,
      name: 'Pricing',
      properties: { title: 'Pricing', path: '/pricing' },
      context: {
        page: { url: 'https://customer-site.example/pricing', referrer: 'https://search.example/' },
      },
    });
    expect(page.status).toBe(200);

    const identified = await eventOf(`${userId}-1`);
    expect(identified).toMatchObject({ type: 'identify' });
    expect(identified!.data.$segment).toMatchObject({
      userId,
      anonymousId,
      droppedTraits: ['shoe'],
      context: { ip: '203.0.113.9', userAgent: 'Mozilla/5.0 test' },
    });
    const found = await person(identified!.personId!);
    expect(found).toMatchObject({
      email,
      userId,
      firstName: 'Grace',
      lastName: 'Brewster Hopper',
      company: 'Navy',
      phone: '+1 555',
      plan: 'pro',
    });
    expect(found.shoe).toBeUndefined();

    const timeline = (await owner.client.get(`/v1/people/${found.id}/events`)).body.events as StoredEvent[];
    expect(timeline.map((e) => [e.type, e.name])).toEqual([
      ['page', 'Pricing'],
      ['track', 'Signed up'],
      ['identify', null],
    ]);
    expect(timeline[1]!.data).toMatchObject({ plan: 'pro', seats: 3 });
    expect(timeline[1]!.data.$segment.context.campaign).toEqual({ name: 'spring', source: 'newsletter' });
    expect(timeline[0]).toMatchObject({ url: 'https://customer-site.example/pricing' });
    expect(timeline[0]!.data).toMatchObject({ title: 'Pricing', path: '/pricing' });
  });

  it('anonymous calls join the person when identified; alias merges previousId into userId', async () => {
    const [anonymousId, userId, email] = [unique('anon'), unique('user'), uniqueEmail('joined')];
    for (const n of [1, 2])
      await call('/v1/p', {
        anonymousId,
        messageId: `${anonymousId}-${n}`,
        properties: { url: `https://s.example/${n}` },
      });
    const visitor = (await eventOf(`${anonymousId}-1`))!.personId!;
    expect((await eventOf(`${anonymousId}-2`))!.personId).toBe(visitor);
    // The person is known by email already (an import, a form): the visitor's pages move to them.
    const imported = await owner.client.post('/v1/people/', { email, firstName: 'Imported' });
    expect(imported.status).toBe(201);
    await call('/v1/identify', { userId, anonymousId, messageId: `${userId}-id`, traits: { email } });
    const known = imported.body.user.id as number;
    expect((await eventOf(`${anonymousId}-1`))!.personId).toBe(known);
    expect((await owner.client.get(`/v1/people/${visitor}`)).status).toBe(404);
    expect(await person(known)).toMatchObject({ email, userId, firstName: 'Imported' });
    // Later anonymous calls of that browser land on the known person.
    await call('/v1/track', { anonymousId, messageId: `${anonymousId}-3`, event: 'Clicked' });
    expect((await eventOf(`${anonymousId}-3`))!.personId).toBe(known);

    // alias: another device's anonymous person, and a former userId, become the user's.
    const other = unique('anon');
    await call('/v1/track', { anonymousId: other, messageId: `${other}-1`, event: 'Opened app' });
    const alias = await call('/v1/alias', { previousId: other, userId, messageId: `${other}-alias` });
    expect(alias.status).toBe(200);
    expect((await eventOf(`${other}-1`))!.personId).toBe(known);
    expect((await eventOf(`${other}-alias`))!.data).toMatchObject({ previousId: other, outcome: 'merged' });
    const renamed = unique('user');
    await call('/v1/a', { previousId: userId, userId: renamed, messageId: `${renamed}-alias` });
    expect(await person(known)).toMatchObject({ userId: renamed });
    // Two people who both have an address are never merged by an alias: the event says so.
    const second = unique('user');
    await call('/v1/identify', {
      userId: second,
      messageId: `${second}-id`,
      traits: { email: uniqueEmail('b') },
    });
    await call('/v1/alias', { previousId: second, userId: renamed, messageId: `${second}-alias` });
    expect((await eventOf(`${second}-alias`))!.data.outcome).toBe(trackingApiMessages.aliasKeptApart);
    expect((await eventOf(`${second}-id`))!.personId).not.toBe(known);
  });

  it('calls at the same moment with one new userId make one person, and events of the ingest API land on it too', async () => {
    const userId = unique('racer');
    const answers = await Promise.all([
      ...[1, 2, 3, 4].map((n) =>
        call('/v1/track', { userId, messageId: `${userId}-${n}`, event: 'Signed up' }),
      ),
      new Client(ctx.app).post(
        '/v1/ingest/batch',
        { batch: [{ type: 'track', userId, name: 'Also here' }] },
        { origin: 'https://customer-site.example', headers: { 'x-write-key': writeKey } },
      ),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, answers[4]!.status]);
    expect(answers[4]!.status).toBeLessThan(300);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from people
      where account_id = ${owner.account.accountId} and external_id = ${userId}`.execute(ctx.services.db);
    expect(rows[0]!.n).toBe(1);
  });

  it('a batch: messageId makes a retry store nothing new; times are corrected for the client clock', async () => {
    const userId = unique('user');
    const now = Date.now();
    const sentAt = new Date(now - 3_600_000); // the client's clock is an hour behind
    const body = {
      sentAt: sentAt.toISOString(),
      batch: [
        { type: 'identify', userId, messageId: `${userId}-1`, traits: { plan: 'free' } },
        {
          type: 'track',
          userId,
          messageId: `${userId}-2`,
          event: 'Upgraded',
          timestamp: new Date(sentAt.getTime() - 10_000).toISOString(),
        },
        { type: 'screen', userId, messageId: `${userId}-3`, name: 'Settings' },
        { type: 'group', userId, messageId: `${userId}-4`, groupId: 'acme', traits: { name: 'Acme' } },
      ],
    };
    const first = await call('/v1/batch', body);
    expect(first.body).toEqual({ success: true, accepted: 4, duplicates: 0 });
    const upgraded = (await eventOf(`${userId}-2`))!;
    const at = Date.parse(upgraded.createdAt);
    expect(Math.abs(at - (now - 10_000))).toBeLessThan(5_000);
    expect(upgraded.data.$segment).toMatchObject({ sentAt: sentAt.toISOString() });
    expect(await eventOf(`${userId}-3`)).toMatchObject({ type: 'page', name: 'Settings' });
    expect((await eventOf(`${userId}-4`))!).toMatchObject({
      type: 'track',
      name: 'Group',
      data: { groupId: 'acme', name: 'Acme' },
    });

    const before = (await allEvents()).length;
    const retry = await call('/v1/b', body);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ success: true, accepted: 0, duplicates: 4 });
    expect((await allEvents()).length).toBe(before);

    // A messageId is remembered a week: the account's next call forgets older ones, and a resend is stored again.
    await sql`update tracking_message_ids set received_at = now() - interval '8 days'
      where message_id = ${`${userId}-2`}`.execute(ctx.services.db);
    const later = await call('/v1/batch', {
      batch: [{ type: 'track', userId, messageId: `${userId}-5`, event: 'Later' }],
    });
    expect(later.body.accepted).toBe(1);
    const resent = await call('/v1/batch', body);
    expect(resent.body).toEqual({ success: true, accepted: 1, duplicates: 3 });
  });

  it('refuses a wrong key (401), bad JSON, a message without ids, oversized messages and batches (400), writing nothing', async () => {
    const before = (await allEvents()).length;
    const userId = unique('user');
    const wrong = await call('/v1/identify', { userId, traits: { plan: 'x' } }, 'wk_wrong');
    expect(wrong.status).toBe(401);
    const inBody = await call('/v1/track', { userId, event: 'x', writeKey: 'wk_wrong' }, null);
    expect(inBody.status).toBe(401);
    const herald = await call('/v1/track', { userId, event: 'x' }, null, { 'x-write-key': 'wk_wrong' });
    expect(herald.status).toBe(401);
    const none = await call('/v1/track', { userId, event: 'x' }, null);
    expect(none.status).toBe(401);
    expect(none.body.message).toBe(trackingApiMessages.missingWriteKey);

    const malformed = await call('/v1/track', '{"userId": "u", "event": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBe(trackingApiMessages.invalidJson);
    const nobody = await call('/v1/batch', {
      batch: [
        { type: 'track', userId, event: 'ok' },
        { type: 'track', event: 'x' },
      ],
    });
    expect(nobody.status).toBe(400);
    expect(nobody.body.message).toBe(trackingApiMessages.missingIdentity(1));
    const noEvent = await call('/v1/track', { userId });
    expect(noEvent.body.message).toBe(trackingApiMessages.missingEvent(0));
    const big = await call('/v1/track', {
      userId,
      event: 'Big',
      properties: { text: 'x'.repeat(33 * 1024) },
    });
    expect(big.status).toBe(400);
    expect(big.body.message).toBe(trackingApiMessages.messageTooLarge(0, 34));
    const batch = Array.from({ length: 20 }, () => ({
      type: 'track',
      userId,
      event: 'x',
      properties: { t: 'y'.repeat(26_000) },
    }));
    const huge = await call('/v1/batch', { batch });
    expect(huge.status).toBe(400);
    expect(huge.body.message).toMatch(/^A request is at most 500 KB; this one is 5\d\d KB/);

    // A trait of the wrong type for its field refuses the whole call: the first message's person is not written either.
    await owner.client.post('/v1/fields', { items: [{ name: 'seats', title: 'Seats', type: 'number' }] });
    const wrongType = await call('/v1/batch', {
      batch: [
        { type: 'identify', userId, messageId: `${userId}-ok`, traits: { plan: 'pro' } },
        { type: 'identify', userId, messageId: `${userId}-bad`, traits: { seats: 'many' } },
      ],
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.message).toMatch(/^Message 1: .*seats/);
    expect((await allEvents()).length).toBe(before);
    // The fixed retry is not taken for a duplicate.
    const fixed = await call('/v1/batch', {
      batch: [
        { type: 'identify', userId, messageId: `${userId}-ok`, traits: { plan: 'pro' } },
        { type: 'identify', userId, messageId: `${userId}-bad`, traits: { seats: 12 } },
      ],
    });
    expect(fixed.body).toEqual({ success: true, accepted: 2, duplicates: 0 });
    expect(await person((await eventOf(`${userId}-ok`))!.personId!)).toMatchObject({
      userId,
      plan: 'pro',
      seats: 12,
    });
  });

  it('keeps unknown traits as custom fields when the account says so', async () => {
    const other = await registerUser(ctx.app);
    const key = other.account.writeKey as string;
    expect(other.account.trackingUnknownTraits).toBe('drop');
    const set = await other.client.patch('/v1/accounts/me', { trackingUnknownTraits: 'field' });
    expect(set.body.trackingUnknownTraits).toBe('field');
    const userId = unique('user');
    const res = await call(
      '/v1/identify',
      {
        userId,
        messageId: userId,
        traits: { favoriteColor: 'blue', age: 42, vip: true, address: { city: 'Paris' } },
      },
      key,
    );
    expect(res.status).toBe(200);
    const fields = (await other.client.get('/v1/fields')).body.items as { name: string; type: string }[];
    expect(
      fields
        .filter((f) => ['favoriteColor', 'age', 'vip'].includes(f.name))
        .map((f) => [f.name, f.type])
        .sort(),
    ).toEqual([
      ['age', 'number'],
      ['favoriteColor', 'string'],
      ['vip', 'boolean'],
    ]);
    const events = await allEvents(other.client);
    const found = (await other.client.get(`/v1/people/${events[0]!.personId}`)).body.users[0];
    expect(found).toMatchObject({ userId, favoriteColor: 'blue', age: 42, vip: true });
    expect(events[0]!.data.$segment.droppedTraits).toEqual(['address']);
  });

  it('reads gzip bodies, text/plain with the key in the body, answers preflights; 429 with Retry-After past the limit', async () => {
    const userId = unique('user');
    const gz = await new Client(ctx.app).request('POST', '/v1/batch', {
      rawBody: zlib.gzipSync(
        JSON.stringify({ batch: [{ type: 'track', userId, messageId: `${userId}-gz`, event: 'Zipped' }] }),
      ) as unknown as string,
      headers: { authorization: basic(writeKey), 'content-encoding': 'gzip' },
      origin: null,
    });
    expect(gz.status).toBe(200);
    expect(await eventOf(`${userId}-gz`)).toMatchObject({ name: 'Zipped' });
    const notGzip = await call('/v1/batch', '{"batch": []}', writeKey, { 'content-encoding': 'gzip' });
    expect(notGzip.status).toBe(400);
    expect(notGzip.body.message).toBe('The body is not valid gzip.');
    // A small gzip body that expands past the body limit is refused, not read whole.
    const bomb = zlib.gzipSync(Buffer.alloc(3 * 1024 * 1024, ' '));
    const expanded = await new Client(ctx.app).request('POST', '/v1/batch', {
      rawBody: bomb as unknown as string,
      headers: { authorization: basic(writeKey), 'content-encoding': 'gzip' },
      origin: null,
    });
    expect(expanded.status).toBe(413);
    const browser = await call(
      '/v1/t',
      { userId, messageId: `${userId}-b`, event: 'From a page', writeKey },
      null,
      {
        'content-type': 'text/plain',
      },
    );
    expect(browser.status).toBe(200);
    expect(browser.headers['access-control-allow-origin']).toBe('*');
    const preflight = await ctx.app.inject({
      method: 'OPTIONS',
      url: '/v1/identify',
      headers: { origin: 'https://a.example' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toContain('authorization');

    const limited = await registerUser(ctx.app);
    const saved = { ...trackingRateLimit };
    trackingRateLimit.requests = 2;
    try {
      const send = () => call('/v1/track', { userId, event: 'x' }, limited.account.writeKey);
      expect((await send()).status).toBe(200);
      expect((await send()).status).toBe(200);
      const refused = await send();
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      Object.assign(trackingRateLimit, saved);
    }
  });
});
