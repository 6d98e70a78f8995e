import { LogBody } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestContext, registerUser, type TestContext } from './helpers.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe('POST /v1/logging', () => {
  it('accepts whatever a failing client manages to send, signed in or not', async () => {
    const anonymous = new Client(ctx.app);
    const { client } = await registerUser(ctx.app);
    const payloads: unknown[] = [
      { message: 'Cannot read properties of undefined' },
      {
        error: {
          message: 'Boom',
          stack: 'Error: Boom\n    at x',
          name: 'TypeError',
          componentStack: 'in Page',
        },
      },
      { error: 'plain string error' },
      'a bare string',
      42,
      [1, 2, 3],
      {},
      { message: { nested: { deeply: [1, 2] } }, url: 'https://app.example/people', extra: { page: 3 } },
      { message: 'x'.repeat(100_000), stack: 'y'.repeat(100_000) },
      { message: null, error: null },
    ];
    for (const payload of payloads) {
      for (const sender of [anonymous, client]) {
        const res = await sender.post('/v1/logging', payload);
        expect(res.status, JSON.stringify(payload).slice(0, 80)).toBeLessThan(300);
      }
    }
  });

  it('takes bodies that are not JSON at all (broken JSON, plain text, an empty body) instead of refusing them', async () => {
    const sender = new Client(ctx.app);
    const bodies: { rawBody?: string; headers?: Record<string, string> }[] = [
      { rawBody: '{"message": "cut off' },
      { rawBody: '' },
      { rawBody: 'TypeError: x is undefined', headers: { 'content-type': 'text/plain;charset=UTF-8' } },
      { rawBody: '<error>boom</error>', headers: { 'content-type': 'application/xml' } },
      {},
    ];
    for (const body of bodies) {
      const res = await sender.request('POST', '/v1/logging', body);
      expect(res.status, JSON.stringify(body)).toBe(204);
    }
  });

  it('still refuses a body over the limit and too many reports from one address', async () => {
    const sender = new Client(ctx.app);
    const huge = await sender.request('POST', '/v1/logging', {
      rawBody: JSON.stringify({ message: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({
      name: 'PayloadTooLargeError',
      message: 'The request body is too large.',
    });

    const flooder = new Client(ctx.app);
    for (let i = 0; i < 60; i++)
      expect((await flooder.post('/v1/logging', { message: `report ${i}` })).status).toBe(204);
    const refused = await flooder.post('/v1/logging', { message: 'one too many' });
    expect(refused.status).toBe(429);
    expect(refused.body.name).toBe('RateLimitError');
    expect(refused.headers['retry-after']).toBeDefined();
  });
});

describe('LogBody', () => {
  it('turns any payload into one bounded report', () => {
    expect(
      LogBody.parse({ error: { message: 'Boom', stack: 'at x', name: 'TypeError', extra: 1 } }),
    ).toMatchObject({
      message: 'Boom',
      name: 'TypeError',
      stack: 'at x',
    });
    expect(LogBody.parse('a bare string').message).toBe('a bare string');
    expect(LogBody.parse({ message: { nested: [1] } }).message).toBe('{"nested":[1]}');
    expect(LogBody.parse(undefined).message).toBe('No message');
    const capped = LogBody.parse({
      message: 'x'.repeat(100_000),
      stack: 'y'.repeat(100_000),
      url: 'z'.repeat(10_000),
    });
    expect([capped.message.length, capped.stack?.length, capped.url?.length]).toEqual([5000, 20000, 2048]);
  });
});
