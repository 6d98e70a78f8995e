import { twoFactorMessages } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealToken } from '../src/lib/sealed-tokens.ts';
import { Client, createTestContext, registerUser, type TestContext } from './helpers.ts';
import { codeFor, enrol, queuedLinkToken } from './two-factor-support.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function passwordStep(email: string, password: string, client = new Client(ctx.app)) {
  const res = await client.post('/v1/accounts/login/', { email, password });
  return { client, res };
}

describe('enrolment from the profile', () => {
  it('shows a QR code and the secret, stores the secret sealed, and turns on with the first right code', async () => {
    const { client, email, password } = await registerUser(ctx.app);
    const otherDevice = (await passwordStep(email, password)).client;
    expect((await client.get('/v1/profile/two-factor')).body).toEqual({
      enabled: false,
      enabledAt: null,
      recoveryCodesLeft: 0,
      requiredByAccount: false,
    });
    const setup = await client.post('/v1/profile/two-factor/setup');
    expect(setup.status).toBe(200);
    const secret = setup.body.secret.replace(/\s/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.body.otpauthUrl).toContain(`secret=${secret}`);
    expect(setup.body.qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(setup.body.qrCode.split(',')[1], 'base64').toString()).toContain('<svg');
    const stored = await ctx.services.db
      .selectFrom('users')
      .select(['totpSecret', 'totpEnabledAt'])
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(stored.totpSecret).toMatch(/^v1\./);
    expect(stored.totpSecret).not.toContain(secret);
    expect(stored.totpEnabledAt).toBeNull();

    const wrong = await client.post('/v1/profile/two-factor/confirm', { code: codeFor(secret, 5) });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe(twoFactorMessages.wrongCode);
    expect((await client.get('/v1/profile/two-factor')).body.enabled).toBe(false);
    expect((await client.post('/v1/profile/two-factor/confirm', { code: '12a456' })).status).toBe(400);

    const confirmed = await client.post('/v1/profile/two-factor/confirm', { code: codeFor(secret) });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.recoveryCodes).toHaveLength(10);
    expect(new Set(confirmed.body.recoveryCodes).size).toBe(10);
    for (const code of confirmed.body.recoveryCodes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    const hashes = await ctx.services.db
      .selectFrom('twoFactorRecoveryCodes')
      .innerJoin('users', 'users.id', 'twoFactorRecoveryCodes.userId')
      .select('codeHash')
      .where('users.email', '=', email)
      .execute();
    expect(hashes).toHaveLength(10);
    expect(hashes.map((h) => h.codeHash)).not.toContain(confirmed.body.recoveryCodes[0]);

    const status = (await client.get('/v1/profile/two-factor')).body;
    expect(status).toMatchObject({ enabled: true, recoveryCodesLeft: 10 });
    // Turning it on ends the user's other sessions, not this one.
    expect((await otherDevice.get('/v1/heartbeat/authenticated')).status).toBe(401);
    expect((await client.get('/v1/heartbeat/authenticated')).status).toBe(200);
    // Once on, setup is refused (it would replace the secret).
    expect((await client.post('/v1/profile/two-factor/setup')).status).toBe(409);
  });

  it('refuses a confirmation with no setup started, and the profile calls by API key', async () => {
    const { client } = await registerUser(ctx.app);
    const res = await client.post('/v1/profile/two-factor/confirm', { code: '123456' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(twoFactorMessages.notEnrolling);
    const key = (await client.post('/v1/accounts/rotate-api-key')).body.apiKey as string;
    const byKey = await new Client(ctx.app).post('/v1/profile/two-factor/setup', undefined, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(byKey.status).toBe(403);
    expect(byKey.body.message).toBe(twoFactorMessages.apiKeyRefused);
  });
});

describe('signing in with two-factor on', () => {
  it('the password alone starts no session; a right code does; wrong, reused and expired codes are refused', async () => {
    const { client, email, password } = await registerUser(ctx.app);
    const { secret, usedCode } = await enrol(client);
    const { client: browser, res } = await passwordStep(email, password);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ secondFactor: 'code' });
    expect(browser.cookie).toBeUndefined();
    expect(browser.otherCookies.has('herald_second_factor')).toBe(true);
    expect(res.setCookie.find((c) => c.startsWith('herald_second_factor='))).toMatch(/HttpOnly/);
    expect((await browser.get('/v1/heartbeat/authenticated')).status).toBe(401);

    const refusals: [string, string][] = [
      [codeFor(secret, 3), twoFactorMessages.wrongCode],
      // The code that turned it on: used once already.
      [usedCode, twoFactorMessages.reusedCode],
      // Two steps old: outside the window.
      [codeFor(secret, -2), twoFactorMessages.wrongCode],
    ];
    for (const [code, message] of refusals) {
      const refused = await browser.post('/v1/accounts/login/two-factor', { code });
      expect(refused.status, code).toBe(401);
      expect(refused.body.message).toBe(message);
      expect(browser.cookie).toBeUndefined();
    }
    const next = codeFor(secret, 1);
    const signedIn = await browser.post('/v1/accounts/login/two-factor', { code: next });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.email).toBe(email);
    expect((await browser.get('/v1/heartbeat/authenticated')).status).toBe(200);
    expect(browser.otherCookies.has('herald_second_factor')).toBe(false);

    // The same code again, from another sign-in: refused.
    const again = (await passwordStep(email, password)).client;
    const reused = await again.post('/v1/accounts/login/two-factor', { code: next });
    expect(reused.status).toBe(401);
    expect(reused.body.message).toBe(twoFactorMessages.reusedCode);
  });

  it('a recovery code signs in once, whatever its case and spacing', async () => {
    const { client, email, password } = await registerUser(ctx.app);
    const { recoveryCodes } = await enrol(client);
    const typed = ` ${recoveryCodes[3]!.toUpperCase().replace('-', ' - ')} `;
    const first = (await passwordStep(email, password)).client;
    expect((await first.post('/v1/accounts/login/two-factor', { recoveryCode: typed })).status).toBe(200);
    const second = (await passwordStep(email, password)).client;
    const spent = await second.post('/v1/accounts/login/two-factor', { recoveryCode: recoveryCodes[3] });
    expect(spent.status).toBe(401);
    expect(spent.body.message).toBe(twoFactorMessages.wrongRecoveryCode);
    const made = await second.post('/v1/accounts/login/two-factor', { recoveryCode: 'aaaaa-bbbbb' });
    expect(made.status).toBe(401);
    expect((await first.get('/v1/profile/two-factor')).body.recoveryCodesLeft).toBe(9);
  });

  it('refuses the second step without a pending sign-in, with an expired one, or with a bad body', async () => {
    const { client, email, password } = await registerUser(ctx.app);
    const { secret } = await enrol(client);
    const none = await new Client(ctx.app).post('/v1/accounts/login/two-factor', {
      code: codeFor(secret, 1),
    });
    expect(none.status).toBe(401);
    expect(none.body.message).toBe(twoFactorMessages.pendingExpired);

    const user = await ctx.services.db
      .selectFrom('users')
      .innerJoin('teamMembers', 'teamMembers.userId', 'users.id')
      .select(['users.id', 'teamMembers.accountId'])
      .where('users.email', '=', email)
      .executeTakeFirstOrThrow();
    const stale = new Client(ctx.app);
    stale.otherCookies.set(
      'herald_second_factor',
      sealToken(
        { u: user.id, a: user.accountId, m: 'code' },
        ctx.services.secret,
        'second-factor',
        600,
        Date.now() - 11 * 60_000,
      ),
    );
    const expired = await stale.post('/v1/accounts/login/two-factor', { code: codeFor(secret, 1) });
    expect(expired.status).toBe(401);
    expect(expired.body.message).toBe(twoFactorMessages.pendingExpired);
    // A cookie that is not sealed by the server is no sign-in either.
    stale.otherCookies.set('herald_second_factor', 'x'.repeat(60));
    expect((await stale.post('/v1/accounts/login/two-factor', { code: codeFor(secret, 1) })).status).toBe(
      401,
    );

    const { client: browser } = await passwordStep(email, password);
    for (const body of [{}, { code: '123' }, { code: codeFor(secret, 1), recoveryCode: 'x' }, { extra: 1 }]) {
      expect((await browser.post('/v1/accounts/login/two-factor', body)).status, JSON.stringify(body)).toBe(
        400,
      );
    }
    // The enrolment calls need a pending enrolment, not a pending code.
    expect((await browser.post('/v1/accounts/login/two-factor/setup')).status).toBe(401);
  });

  it('limits code attempts per user: the 11th in 15 minutes is a 429, even with the right code', async () => {
    const { client, email, password } = await registerUser(ctx.app);
    const { secret } = await enrol(client);
    const { client: browser } = await passwordStep(email, password);
    // The confirming code was the first attempt.
    for (let i = 0; i < 9; i += 1)
      expect((await browser.post('/v1/accounts/login/two-factor', { code: codeFor(secret, 4) })).status).toBe(
        401,
      );
    const limited = await browser.post('/v1/accounts/login/two-factor', { code: codeFor(secret, 1) });
    expect(limited.status).toBe(429);
    expect(limited.body.retryAfter).toBeGreaterThan(0);
  });

  it('a remembered device skips the code for 30 days, for its user and their current two-factor only', async () => {
    const { client, email, password } = await registerUser(ctx.app);
    const { secret } = await enrol(client);
    const { client: browser } = await passwordStep(email, password);
    const res = await browser.post('/v1/accounts/login/two-factor', {
      code: codeFor(secret, 1),
      rememberDevice: true,
    });
    expect(res.status).toBe(200);
    const cookie = res.setCookie.find((c) => c.startsWith('herald_trusted_device='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Max-Age=2592000/);
    await browser.post('/v1/accounts/logout');
    const again = await browser.post('/v1/accounts/login/', { email, password });
    expect(again.body.email).toBe(email);
    expect((await browser.get('/v1/heartbeat/authenticated')).status).toBe(200);

    // Another user on the same browser still gives a code.
    const other = await registerUser(ctx.app);
    await enrol(other.client);
    await browser.post('/v1/accounts/logout');
    expect(
      (await browser.post('/v1/accounts/login/', { email: other.email, password: other.password })).body,
    ).toEqual({
      secondFactor: 'code',
    });
    // Two-factor turned off and on again: the device is forgotten.
    await client.post('/v1/profile/two-factor/disable', { password });
    await enrol(client);
    expect((await browser.post('/v1/accounts/login/', { email, password })).body).toEqual({
      secondFactor: 'code',
    });
  });

  it('a password reset does not bypass it: the link leads to the second step, not a session', async () => {
    const { client, email } = await registerUser(ctx.app);
    const { secret } = await enrol(client);
    await new Client(ctx.app).post('/v1/accounts/request-reset-password', { email });
    const browser = new Client(ctx.app);
    const reset = await browser.post('/v1/accounts/reset-password', {
      token: await queuedLinkToken(ctx, email),
      password: 'a brand new passphrase 42',
    });
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ secondFactor: 'code' });
    expect(browser.cookie).toBeUndefined();
    // The reset still ended every session.
    expect((await client.get('/v1/heartbeat/authenticated')).status).toBe(401);
    expect((await browser.post('/v1/accounts/login/two-factor', { code: codeFor(secret, 1) })).status).toBe(
      200,
    );
  });
});
