import { twoFactorMessages } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { codeFor, enrol, queuedLinkToken } from './two-factor-support.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe('turning two-factor off', () => {
  it('needs the password or a code; a wrong one changes nothing; other sessions end', async () => {
    const { client, email, password } = await registerUser(ctx.app);
    const { secret } = await enrol(client);
    const otherDevice = new Client(ctx.app);
    await otherDevice.post('/v1/accounts/login/', { email, password });
    await otherDevice.post('/v1/accounts/login/two-factor', { code: codeFor(secret, 1) });
    expect((await otherDevice.get('/v1/heartbeat/authenticated')).status).toBe(200);

    for (const body of [
      { password: 'not my password' },
      { code: codeFor(secret, 4) },
      { code: 'zzzzz-zzzzz' },
    ]) {
      const refused = await client.post('/v1/profile/two-factor/disable', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.message).toBe(twoFactorMessages.wrongCodeOrPassword);
    }
    expect((await client.post('/v1/profile/two-factor/disable', {})).status).toBe(400);
    expect((await client.get('/v1/profile/two-factor')).body.enabled).toBe(true);

    expect((await client.post('/v1/profile/two-factor/disable', { password })).status).toBe(204);
    expect((await client.get('/v1/profile/two-factor')).body).toMatchObject({
      enabled: false,
      recoveryCodesLeft: 0,
    });
    expect((await otherDevice.get('/v1/heartbeat/authenticated')).status).toBe(401);
    expect((await client.get('/v1/heartbeat/authenticated')).status).toBe(200);
    const again = await client.post('/v1/profile/two-factor/disable', { password });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe(twoFactorMessages.notEnabled);
    expect((await new Client(ctx.app).post('/v1/accounts/login/', { email, password })).body.email).toBe(
      email,
    );
  });

  it('takes a code from the app or a recovery code instead of the password', async () => {
    const first = await registerUser(ctx.app);
    const { secret } = await enrol(first.client);
    expect(
      (await first.client.post('/v1/profile/two-factor/disable', { code: codeFor(secret, 1) })).status,
    ).toBe(204);
    const second = await registerUser(ctx.app);
    const { recoveryCodes } = await enrol(second.client);
    expect(
      (await second.client.post('/v1/profile/two-factor/disable', { code: recoveryCodes[0] })).status,
    ).toBe(204);
  });
});

describe('new recovery codes', () => {
  it('answers ten new codes once proved; the old ones stop working; a wrong proof changes nothing', async () => {
    const { client, email, password } = await registerUser(ctx.app);
    const { secret, recoveryCodes: old } = await enrol(client);
    for (const body of [{ password: 'not my password' }, { code: 'zzzzz-zzzzz' }, {}]) {
      const refused = await client.post('/v1/profile/two-factor/recovery-codes', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    // The first old code proves it (and is spent); nine were left, and still are after the refusals.
    expect((await client.get('/v1/profile/two-factor')).body.recoveryCodesLeft).toBe(10);
    const made = await client.post('/v1/profile/two-factor/recovery-codes', { code: old[0] });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const fresh = made.body.recoveryCodes as string[];
    expect(fresh).toHaveLength(10);
    expect(new Set(fresh).size).toBe(10);
    expect(fresh.some((code) => old.includes(code))).toBe(false);
    expect((await client.get('/v1/profile/two-factor')).body).toMatchObject({
      enabled: true,
      recoveryCodesLeft: 10,
    });
    // Again with the password: the codes of the last call are void too.
    const again = await client.post('/v1/profile/two-factor/recovery-codes', { password });
    expect(again.status).toBe(200);
    const signIn = async (recoveryCode: string) => {
      const device = new Client(ctx.app);
      await device.post('/v1/accounts/login/', { email, password });
      return device.post('/v1/accounts/login/two-factor', { recoveryCode, rememberDevice: false });
    };
    expect((await signIn(old[1]!)).status).toBe(401);
    expect((await signIn(fresh[0]!)).status).toBe(401);
    expect((await signIn((again.body.recoveryCodes as string[])[0]!)).status).toBe(200);
    // An authenticator code proves it as well.
    expect(
      (await client.post('/v1/profile/two-factor/recovery-codes', { code: codeFor(secret, 1) })).status,
    ).toBe(200);
  });

  it('is refused while two-factor is off, and with an API key', async () => {
    const { client, password } = await registerUser(ctx.app);
    const off = await client.post('/v1/profile/two-factor/recovery-codes', { password });
    expect(off.status).toBe(400);
    expect(off.body.message).toBe(twoFactorMessages.notEnabled);
    await enrol(client);
    const key = (await client.post('/v1/accounts/rotate-api-key')).body.apiKey as string;
    const byKey = await new Client(ctx.app).post(
      '/v1/profile/two-factor/recovery-codes',
      { password },
      { headers: { authorization: `Bearer ${key}` } },
    );
    expect(byKey.status).toBe(403);
    expect(byKey.body.message).toBe(twoFactorMessages.apiKeyRefused);
  });
});

describe('an account that requires two-factor of its team', () => {
  it('only someone with two-factor on may require it, with account:write', async () => {
    const owner = await registerUser(ctx.app);
    const first = await owner.client.request('PUT', '/v1/accounts/two-factor-policy', {
      body: { required: true },
    });
    expect(first.status).toBe(400);
    expect(first.body.message).toBe(twoFactorMessages.enableForYourselfFirst);
    expect((await owner.client.get('/v1/profile/two-factor')).body.requiredByAccount).toBe(false);
    await enrol(owner.client);
    const set = await owner.client.request('PUT', '/v1/accounts/two-factor-policy', {
      body: { required: true },
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ required: true });
    expect((await owner.client.get('/v1/profile/two-factor')).body.requiredByAccount).toBe(true);
    // While an account requires it, its members cannot turn theirs off.
    const off = await owner.client.post('/v1/profile/two-factor/disable', { password: owner.password });
    expect(off.status).toBe(400);
    expect(off.body.message).toBe(twoFactorMessages.requiredByAccount);
    for (const body of [{}, { required: 'yes' }, { required: true, extra: 1 }]) {
      expect((await owner.client.request('PUT', '/v1/accounts/two-factor-policy', { body })).status).toBe(
        400,
      );
    }

    const member = await registerUser(ctx.app);
    await owner.client.post('/v1/team-members', { name: 'Member', email: member.email });
    await member.client.post(`/v1/accounts/${owner.account.accountId}/switch`);
    const refused = await member.client.request('PUT', '/v1/accounts/two-factor-policy', {
      body: { required: false },
    });
    expect(refused.status).toBe(403);
    expect((await owner.client.get('/v1/profile/two-factor')).body.requiredByAccount).toBe(true);
  });

  it('sends a member without it to enrolment at the next sign-in; the first code starts the session', async () => {
    const owner = await registerUser(ctx.app);
    await enrol(owner.client);
    await owner.client.request('PUT', '/v1/accounts/two-factor-policy', { body: { required: true } });
    const member = await registerUser(ctx.app);
    await owner.client.post('/v1/team-members', { name: 'Member', email: member.email });
    // A session already open goes on; the rule applies at the next sign-in.
    expect((await member.client.get('/v1/heartbeat/authenticated')).status).toBe(200);

    const browser = new Client(ctx.app);
    const step = await browser.post('/v1/accounts/login/', {
      email: member.email,
      password: member.password,
    });
    expect(step.body).toEqual({ secondFactor: 'enrol' });
    expect(browser.cookie).toBeUndefined();
    expect((await browser.post('/v1/accounts/login/two-factor', { code: '123456' })).status).toBe(401);
    const confirmEarly = await browser.post('/v1/accounts/login/two-factor/confirm', { code: '123456' });
    expect(confirmEarly.status).toBe(400);
    expect(confirmEarly.body.message).toBe(twoFactorMessages.notEnrolling);

    const setup = await browser.post('/v1/accounts/login/two-factor/setup');
    expect(setup.status).toBe(200);
    const secret = setup.body.secret.replace(/\s/g, '');
    const wrong = await browser.post('/v1/accounts/login/two-factor/confirm', { code: codeFor(secret, 4) });
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toBe(twoFactorMessages.wrongCode);
    expect(browser.cookie).toBeUndefined();
    const done = await browser.post('/v1/accounts/login/two-factor/confirm', { code: codeFor(secret) });
    expect(done.status).toBe(200);
    expect(done.body.recoveryCodes).toHaveLength(10);
    expect(done.body.account.email).toBe(member.email);
    expect((await browser.get('/v1/heartbeat/authenticated')).status).toBe(200);
    // From now on, a code.
    const next = new Client(ctx.app);
    expect(
      (await next.post('/v1/accounts/login/', { email: member.email, password: member.password })).body,
    ).toEqual({ secondFactor: 'code' });
    // The policy off again: others sign in with the password alone.
    await owner.client.request('PUT', '/v1/accounts/two-factor-policy', { body: { required: false } });
    const plain = await registerUser(ctx.app);
    await owner.client.post('/v1/team-members', { name: 'Plain', email: plain.email });
    const signedIn = await new Client(ctx.app).post('/v1/accounts/login/', {
      email: plain.email,
      password: plain.password,
    });
    expect(signedIn.body.email).toBe(plain.email);
  });

  it('an invitee who sets a password on joining such an account enrols before the session starts', async () => {
    const owner = await registerUser(ctx.app);
    await enrol(owner.client);
    await owner.client.request('PUT', '/v1/accounts/two-factor-policy', { body: { required: true } });
    const email = uniqueEmail('invitee');
    expect((await owner.client.post('/v1/team-members', { name: 'New', email })).status).toBe(201);
    const invitee = new Client(ctx.app);
    const accepted = await invitee.post('/v1/team-members/invitations/accept', {
      token: await queuedLinkToken(ctx, email, 'accept-invite'),
      password: 'a fresh joining passphrase',
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ secondFactor: 'enrol' });
    expect(invitee.cookie).toBeUndefined();
    const secret = (await invitee.post('/v1/accounts/login/two-factor/setup')).body.secret.replace(/\s/g, '');
    const done = await invitee.post('/v1/accounts/login/two-factor/confirm', { code: codeFor(secret) });
    expect(done.body.account.accountId).toBe(owner.account.accountId);
  });
});
