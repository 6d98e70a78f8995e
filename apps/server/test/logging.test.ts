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
      { error: { message: 'Boom', stack: 'Error: Boom\n    at x', name: 'TypeError', componentStack: 'in Page' } },
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
});
