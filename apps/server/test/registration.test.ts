import { messages, nextRegistrationStep } from '@herald/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Client,
  createTestContext,
  registerUser,
  registrationDetails,
  uniqueEmail,
  type TestContext,
} from './helpers.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function countUsers(email: string) {
  const row = await ctx.services.db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('POST /v1/accounts/', () => {
  it('creates the account, its owner and a session cookie', async () => {
    const client = new Client(ctx.app);
    const email = uniqueEmail();
    const res = await client.post('/v1/accounts/', { email, source: 'web', timezone: 'America/New_York' });
    expect(res.status).toBe(201);
    expect(res.body.email).toBe(email);
    expect(res.body.timezone).toBe('America/New_York');
    expect(res.body.status).toBe('trial');
    expect(res.body.teamMember.accountData.isOwner).toBe(true);
    expect(res.body.allAccounts).toEqual([{ id: res.body.accountId, name: null, site: null, logo: null }]);
    const cookie = res.setCookie.find((c) => c.startsWith('herald_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    const trialDays = (Date.parse(res.body.trialEndsAt) - Date.parse(res.body.createdAt)) / 86_400_000;
    expect(Math.round(trialDays)).toBe(14);
    const me = await client.get('/v1/accounts');
    expect(me.status).toBe(200);
    expect(me.body.accountId).toBe(res.body.accountId);
    expect(nextRegistrationStep({ ...me.body, createdWithGoogleSignin: false })).toBe('name');
  });

  it('refuses an email that is already registered, whatever its case', async () => {
    const email = uniqueEmail();
    await new Client(ctx.app).post('/v1/accounts/', { email });
    const res = await new Client(ctx.app).post('/v1/accounts/', { email: email.toUpperCase() });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      statusCode: 409,
      name: 'ConflictError',
      message: messages.emailAlreadyRegistered,
    });
    expect(await countUsers(email)).toBe(1);
  });

  it.each([
    ['no email', {}, messages.missingRegistrationEmail],
    ['an invalid email', { email: 'not-an-email' }, 'Enter a valid email address.'],
    ['an unknown field', { email: uniqueEmail(), admin: true }, 'Unrecognized key: "admin"'],
    ['a wrong type', { email: 42 }, 'email: Invalid input: expected string, received number'],
    ['an unknown time zone', { email: uniqueEmail(), timezone: 'Mars/Olympus' }, 'Unknown time zone.'],
    ['a 1 MB source', { email: uniqueEmail(), source: 'x'.repeat(1_000_000) }, undefined],
  ])('answers 4xx for %s and writes nothing', async (_label, body, message) => {
    const before = await ctx.services.db
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const res = await new Client(ctx.app).post('/v1/accounts/', body);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    if (message) expect(res.body.message).toBe(message);
    expect(res.cookie).toBeUndefined();
    const after = await ctx.services.db
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await new Client(ctx.app).request('POST', '/v1/accounts/', { rawBody: '{"email": ' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(messages.invalidJson);
  });

  it('refuses a cross-site request and one that names no origin', async () => {
    const crossSite = await new Client(ctx.app).post(
      '/v1/accounts/',
      { email: uniqueEmail() },
      { origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.message).toBe(messages.crossSiteRefused);
    const fetchSite = await new Client(ctx.app).post(
      '/v1/accounts/',
      { email: uniqueEmail() },
      {
        origin: null,
        headers: { 'sec-fetch-site': 'cross-site' },
      },
    );
    expect(fetchSite.status).toBe(403);
    const none = await new Client(ctx.app).post('/v1/accounts/', { email: uniqueEmail() }, { origin: null });
    expect(none.status).toBe(403);
    const sameOrigin = await new Client(ctx.app).post(
      '/v1/accounts/',
      { email: uniqueEmail() },
      {
        origin: null,
        headers: { 'sec-fetch-site': 'same-origin' },
      },
    );
    expect(sameOrigin.status).toBe(201);
  });
});

describe('PATCH /v1/accounts/me', () => {
  it('saves each wizard step and the deduced step advances', async () => {
    const client = new Client(ctx.app);
    await client.post('/v1/accounts/', { email: uniqueEmail() });
    const step = async () => {
      const me = await client.get('/v1/accounts');
      return nextRegistrationStep({
        ...me.body,
        createdWithGoogleSignin: me.body.teamMember.data.createdWithGoogleSignin,
      });
    };
    expect((await client.patch('/v1/accounts/me', { name: 'Grace' })).body.name).toBe('Grace');
    expect(await step()).toBe('phone');
    await client.patch('/v1/accounts/me', { phone: '555 0100' });
    expect(await step()).toBe('company');
    const company = await client.patch('/v1/accounts/me', {
      site: 'www.hopper.dev',
      industry: 'Education',
      estimatedContacts: 'Over 1,000,000',
    });
    expect(company.body).toMatchObject({
      site: 'www.hopper.dev',
      industry: 'Education',
      estimatedContacts: 'Over 1,000,000',
    });
    expect(await step()).toBe('goals');
    await client.patch('/v1/accounts/me', { goals: 'Grow', flags: { hasFilledGoals: true } });
    expect(await step()).toBe('password');
    const done = await client.post('/v1/accounts/initial-password', { password: 'a long password' });
    expect(done.status).toBe(200);
    expect(done.body.flags.hasSetInitialPassword).toBe(true);
    expect(await step()).toBeNull();
    expect(done.body.teamMember.name).toBe('Grace');
  });

  it("refuses a site that is not a domain with 'Double-check your site.'", async () => {
    const { client } = await registerUser(ctx.app);
    for (const site of ['not a site', 'http://', 'example', 'example.c', 'ftp://example.com']) {
      const res = await client.patch('/v1/accounts/me', { site });
      expect(res.status, site).toBe(400);
      expect(res.body.message).toBe(messages.doubleCheckSite);
    }
    expect((await client.get('/v1/accounts')).body.site).toBe(registrationDetails.site);
  });

  it('refuses an estimated-contacts value outside the 11 options', async () => {
    const { client } = await registerUser(ctx.app);
    const res = await client.patch('/v1/accounts/me', { estimatedContacts: 'lots' });
    expect(res.status).toBe(400);
  });

  it('keeps name, site, phone, timezone and mailing address when sent empty', async () => {
    const { client } = await registerUser(ctx.app);
    await client.patch('/v1/accounts/me', { mailingAddress: '1 Main St' });
    const res = await client.patch('/v1/accounts/me', {
      name: '',
      site: '',
      phone: '  ',
      timezone: '',
      mailingAddress: '',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: registrationDetails.name,
      site: registrationDetails.site,
      phone: registrationDetails.phone,
      timezone: 'Europe/London',
      mailingAddress: '1 Main St',
    });
  });

  it('sets onboarding actions once and merges flags', async () => {
    const { client } = await registerUser(ctx.app);
    const first = await client.patch('/v1/accounts/me', { onboarding: { import: true } });
    expect(first.body.onboarding).toEqual({ import: true });
    const second = await client.patch('/v1/accounts/me', { onboarding: { import: true, help: true } });
    expect(second.body.onboarding).toEqual({ import: true, help: true });
    expect((await client.patch('/v1/accounts/me', { onboarding: { import: false } })).status).toBe(400);
    const flags = await client.patch('/v1/accounts/me', { flags: { hideAnonymous: true } });
    expect(flags.body.flags).toMatchObject({
      hideAnonymous: true,
      hasFilledGoals: true,
      hasSetInitialPassword: true,
    });
  });

  it('does not let a user grant themselves server-decided flags', async () => {
    const { client } = await registerUser(ctx.app);
    const res = await client.patch('/v1/accounts/me', { flags: { canAccessAIWriter: true } });
    expect(res.status).toBe(400);
    expect((await client.get('/v1/accounts')).body.flags.canAccessAIWriter).toBe(false);
  });

  it('needs a session', async () => {
    const res = await new Client(ctx.app).patch('/v1/accounts/me', { name: 'x' });
    expect(res.status).toBe(401);
    expect(res.body.name).toBe('AuthError');
  });
});

describe('POST /v1/accounts/initial-password', () => {
  it('refuses a short password and a second initial password', async () => {
    const client = new Client(ctx.app);
    await client.post('/v1/accounts/', { email: uniqueEmail() });
    const short = await client.post('/v1/accounts/initial-password', { password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.message).toBe(messages.passwordTooShort);
    expect((await client.post('/v1/accounts/initial-password', { password: 'long enough pw' })).status).toBe(
      200,
    );
    const again = await client.post('/v1/accounts/initial-password', { password: 'another password' });
    expect(again.status).toBe(409);
  });

  it('stores an argon2id hash, never the password', async () => {
    const { email, password } = await registerUser(ctx.app);
    const user = await ctx.services.db
      .selectFrom('users')
      .select('passwordHash')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(user.passwordHash).toMatch(/^\$argon2id\$/);
    expect(user.passwordHash).not.toContain(password);
  });
});

describe('GET /v1/accounts', () => {
  it('returns the account fields of the spec', async () => {
    const { client, account } = await registerUser(ctx.app);
    const res = await client.get('/v1/accounts');
    expect(res.status).toBe(200);
    for (const key of [
      'accountId',
      'name',
      'status',
      'flags',
      'onboarding',
      'peopleCount',
      'timezone',
      'allAccounts',
      'teamMember',
      'writeKey',
      'mainAccountId',
    ]) {
      expect(res.body, key).toHaveProperty(key);
    }
    expect(res.body.teamMember.accountData.scopes).toHaveLength(21);
    expect(res.body.accountId).toBe(account.accountId);
  });

  it('keeps the trial going past 14 days while billing is off (the default); with BILLING_MODE=plans it expires (billing.test.ts)', async () => {
    const { client, account } = await registerUser(ctx.app);
    await ctx.services.db
      .updateTable('accounts')
      .set({ trialEndsAt: new Date(Date.now() - 1000) })
      .where('id', '=', account.accountId)
      .execute();
    expect((await client.get('/v1/accounts')).body.status).toBe('trial');
  });

  it('answers 401 without a session', async () => {
    const res = await new Client(ctx.app).get('/v1/accounts');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ statusCode: 401, name: 'AuthError', message: messages.notLoggedIn });
  });
});
