import { messages } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe('POST /v1/accounts/login/', () => {
  it('logs in with the right password and starts a session', async () => {
    const { email, password, account } = await registerUser(ctx.app);
    const client = new Client(ctx.app);
    const res = await client.post('/v1/accounts/login/', { email: email.toUpperCase(), password });
    expect(res.status).toBe(200);
    expect(res.body.accountId).toBe(account.accountId);
    expect((await client.get('/v1/heartbeat/authenticated')).body).toEqual({
      ok: true,
      accountId: account.accountId,
    });
  });

  it('refuses a wrong password and an unknown email with the same answer', async () => {
    const { email } = await registerUser(ctx.app);
    const wrong = await new Client(ctx.app).post('/v1/accounts/login/', {
      email,
      password: 'wrong password',
    });
    const unknown = await new Client(ctx.app).post('/v1/accounts/login/', {
      email: uniqueEmail(),
      password: 'whatever pw',
    });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body.message).toBe(messages.wrongCredentials);
      expect(res.cookie).toBeUndefined();
    }
  });

  it("answers 'Missing email or password.' for empty fields", async () => {
    const res = await new Client(ctx.app).post('/v1/accounts/login/', { email: '', password: '' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(messages.missingEmailOrPassword);
  });

  it('refuses a user who never set a password', async () => {
    const client = new Client(ctx.app);
    const email = uniqueEmail();
    await client.post('/v1/accounts/', { email });
    const res = await new Client(ctx.app).post('/v1/accounts/login/', { email, password: 'anything at all' });
    expect(res.status).toBe(401);
  });

  it('limits attempts per email: the 11th in 15 minutes gets 429 with retryAfter', async () => {
    const { email, password } = await registerUser(ctx.app);
    for (let i = 0; i < 10; i += 1) {
      expect(
        (await new Client(ctx.app).post('/v1/accounts/login/', { email, password: 'wrong password' })).status,
      ).toBe(401);
    }
    const limited = await new Client(ctx.app).post('/v1/accounts/login/', { email, password });
    expect(limited.status).toBe(429);
    expect(limited.body.name).toBe('RateLimitError');
    expect(limited.body.retryAfter).toBeGreaterThan(0);
    expect(limited.headers['retry-after']).toBeDefined();
  });

  it('refuses a cross-site login', async () => {
    const { email, password } = await registerUser(ctx.app);
    const res = await new Client(ctx.app).post(
      '/v1/accounts/login/',
      { email, password },
      { origin: 'http://attacker.test' },
    );
    expect(res.status).toBe(403);
  });
});

describe('logout and the session check', () => {
  it('logout ends the session and clears the cookie', async () => {
    const { client } = await registerUser(ctx.app);
    const cookie = client.cookie!;
    const res = await client.post('/v1/accounts/logout');
    expect(res.status).toBe(204);
    expect(res.setCookie.some((c) => /^herald_session=;/.test(c))).toBe(true);
    const replay = new Client(ctx.app);
    replay.cookie = cookie;
    expect((await replay.get('/v1/heartbeat/authenticated')).status).toBe(401);
  });

  it('the session check answers 401 for a forged cookie', async () => {
    const client = new Client(ctx.app);
    client.cookie = 'herald_session=forged-value';
    const res = await client.get('/v1/heartbeat/authenticated');
    expect(res.status).toBe(401);
  });

  it('an expired session is refused', async () => {
    const { client, account } = await registerUser(ctx.app);
    await ctx.services.db
      .updateTable('sessions')
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where('accountId', '=', account.accountId)
      .execute();
    expect((await client.get('/v1/accounts')).status).toBe(401);
  });
});
