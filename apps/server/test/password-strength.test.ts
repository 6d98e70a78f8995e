import { messages } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgePassword } from '../src/lib/password-strength.ts';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { queuedLinkToken } from './two-factor-support.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe('judgePassword (zxcvbn with the bundled dictionaries)', () => {
  it.each(['password1', 'PASSWORD1', 'P@ssw0rd', 'drowssap', 'iloveyou', 'qwertyuiop', 'zxcvbnm123'])(
    'refuses %s: on the common-password list (as typed, in another case, l33t or reversed)',
    (password) => expect(judgePassword(password)).toBe('common'),
  );

  it.each(['Password123!', 'iloveyou12', 'aaaaaaaaaaaa', 'abcdefgh1234', 'pass word', 'a'.repeat(200)])(
    'refuses %s as too easy to guess',
    (password) => expect(judgePassword(password)).toBe('weak'),
  );

  it.each(['correct horse battery', 'tess password 1', 'Ox-lantern 47 rivers', 'a brand new passphrase 42'])(
    'takes %s',
    (password) => expect(judgePassword(password)).toBe('ok'),
  );

  it("counts the user's own email and name as known words", () => {
    expect(judgePassword('grace.hopper@navy.example')).toBe('ok');
    expect(judgePassword('grace.hopper@navy.example', ['grace.hopper@navy.example'])).toBe('weak');
  });

  it('stays quick: the dictionaries load once, and only the first 64 characters are analysed', () => {
    judgePassword('warm up the dictionaries');
    const started = performance.now();
    for (let i = 0; i < 20; i += 1) judgePassword(`${'long passphrase words '.repeat(9)}${i}`.slice(0, 200));
    // A loose bound for a busy 2-core machine; one check takes a few tens of milliseconds at most.
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});

describe('every place a new password is set refuses a weak one with a 400 and changes nothing', () => {
  it('registration (the initial password)', async () => {
    const client = new Client(ctx.app);
    const email = uniqueEmail();
    expect((await client.post('/v1/accounts/', { email, source: 'test' })).status).toBe(201);
    const common = await client.post('/v1/accounts/initial-password', { password: 'password1' });
    expect(common.status).toBe(400);
    expect(common.body.message).toBe(messages.passwordCommon);
    const weak = await client.post('/v1/accounts/initial-password', { password: 'Password123!' });
    expect(weak.status).toBe(400);
    expect(weak.body.message).toBe(messages.passwordWeak);
    const own = await client.post('/v1/accounts/initial-password', { password: email });
    expect(own.body.message).toBe(messages.passwordWeak);
    expect((await client.get('/v1/accounts')).body.flags.hasSetInitialPassword).toBe(false);
    expect(
      (await new Client(ctx.app).post('/v1/accounts/login/', { email, password: 'password1' })).status,
    ).toBe(401);
    expect(
      (await client.post('/v1/accounts/initial-password', { password: 'Ox-lantern 47 rivers' })).status,
    ).toBe(200);
  });

  it('a password reset, without spending the link', async () => {
    const { email } = await registerUser(ctx.app);
    await new Client(ctx.app).post('/v1/accounts/request-reset-password', { email });
    const token = await queuedLinkToken(ctx, email);
    const weak = await new Client(ctx.app).post('/v1/accounts/reset-password', {
      token,
      password: 'qwertyuiop',
    });
    expect(weak.status).toBe(400);
    expect(weak.body.message).toBe(messages.passwordCommon);
    const strong = await new Client(ctx.app).post('/v1/accounts/reset-password', {
      token,
      password: 'Ox-lantern 47 rivers',
    });
    expect(strong.status).toBe(200);
  });

  it('accepting an invitation with a new password, without joining', async () => {
    const owner = await registerUser(ctx.app);
    const email = uniqueEmail('invitee');
    await owner.client.post('/v1/team-members', { name: 'New', email });
    const token = await queuedLinkToken(ctx, email, 'accept-invite');
    const weak = await new Client(ctx.app).post('/v1/team-members/invitations/accept', {
      token,
      password: 'abcdefgh1234',
    });
    expect(weak.status).toBe(400);
    expect(weak.body.message).toBe(messages.passwordWeak);
    const info = await new Client(ctx.app).get(`/v1/team-members/invitations/${encodeURIComponent(token)}`);
    expect(info.body.needsPassword).toBe(true);
    const joined = await new Client(ctx.app).post('/v1/team-members/invitations/accept', {
      token,
      password: 'Ox-lantern 47 rivers',
    });
    expect(joined.status).toBe(200);
  });
});
