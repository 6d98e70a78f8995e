import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestContext, registerUser, type TestContext } from './helpers.ts';

// The Tracking API's two further paths (docs/people.md, "Segment-compatible Tracking API"): Segment's /v1/import for
// past data, and RudderStack's beacon path, whose write key is in the query string.
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
beforeAll(async () => {
  ctx = await createTestContext();
  owner = await registerUser(ctx.app);
});
afterAll(() => ctx.close());

const unique = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
const events = async () =>
  (await owner.client.get('/v1/people/all/events?limit=200')).body.events as {
    name: string | null;
    createdAt: string;
    data: { $segment?: { messageId?: string } };
  }[];

describe('the Tracking API: import and beacon paths', () => {
  it('/v1/import stores a batch of past calls at their own times', async () => {
    const userId = unique('past');
    const res = await new Client(ctx.app).request('POST', '/v1/import', {
      rawBody: JSON.stringify({
        batch: [
          {
            type: 'track',
            userId,
            event: 'Bought',
            messageId: `${userId}-1`,
            timestamp: '2024-03-01T10:00:00Z',
          },
        ],
      }),
      headers: { authorization: `Basic ${Buffer.from(`${owner.account.writeKey}:`).toString('base64')}` },
      origin: null,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, accepted: 1 });
    const stored = (await events()).find((e) => e.data.$segment?.messageId === `${userId}-1`);
    expect(stored?.createdAt.slice(0, 19)).toBe('2024-03-01T10:00:00');
  });

  it('/beacon/v1/batch reads the key from the query string and a text/plain body; a wrong key writes nothing', async () => {
    const anonymousId = unique('beacon');
    const body = JSON.stringify({
      batch: [
        {
          type: 'page',
          anonymousId,
          messageId: `${anonymousId}-1`,
          properties: { url: 'https://s.example/bye' },
        },
      ],
    });
    const send = (key: string) =>
      new Client(ctx.app).request('POST', `/beacon/v1/batch?writeKey=${encodeURIComponent(key)}`, {
        rawBody: body,
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
        origin: 'https://s.example',
      });
    const refused = await send('not-a-key');
    expect(refused.status).toBe(401);
    expect((await events()).some((e) => e.data.$segment?.messageId === `${anonymousId}-1`)).toBe(false);
    const res = await send(owner.account.writeKey);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, accepted: 1 });
    expect((await events()).some((e) => e.data.$segment?.messageId === `${anonymousId}-1`)).toBe(true);
  });
});
