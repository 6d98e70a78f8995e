import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { marketplaceMessages, messages } from '@herald/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignPlan } from '../src/features/billing/plan-assignment.ts';
import { addCodes, codeHashOf } from '../src/features/marketplace/marketplace-codes.service.ts';
import { redeemAttemptLimit } from '../src/features/marketplace/marketplace.service.ts';
import { addMember } from './email-helpers.ts';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext, testDatabaseUrl } from './helpers.ts';
import { startSmtpServer } from './smtp.ts';

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  ctx = await createTestContext({ SMTP_URL: smtp.url, MAIL_FROM: 'Herald <no-reply@herald.test>' });
  await ctx.startWorker();
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

/** A fresh code loaded as the operator would, granting `peopleUpperLimit`. */
async function newCode(peopleUpperLimit = 5000): Promise<string> {
  const code = `DEAL-${crypto.randomBytes(6).toString('hex').toUpperCase()}`;
  await addCodes(ctx.services.db, [{ code, peopleUpperLimit }]);
  return code;
}

function codeRow(code: string) {
  return ctx.services.db.selectFrom('marketplaceCodes').selectAll().where('codeHash', '=', codeHashOf(code)).executeTakeFirstOrThrow();
}

function accountRow(accountId: number) {
  return ctx.services.db
    .selectFrom('accounts')
    .select(['status', 'planName', 'planPeopleUpperLimit', 'planProvider', 'source'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
}

async function countUsers(email: string) {
  const row = await ctx.services.db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function countAccounts() {
  const row = await ctx.services.db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('POST /v1/marketplace/redeem for a visitor', () => {
  it('registers the account with the code in one go: marketplace plan, active, signed in, wizard next', async () => {
    const code = await newCode(10000);
    const client = new Client(ctx.app);
    const email = uniqueEmail('deal');
    const res = await client.post('/v1/marketplace/redeem', { code: ` ${code.toLowerCase()} `, email, timezone: 'Europe/Paris' });
    expect(res.status).toBe(200);
    expect(res.body.accountCreated).toBe(true);
    expect(res.body.plan).toMatchObject({ name: 'marketplace-growth-monthly-v1', peopleUpperLimit: 10000, price: 89.5 });
    expect(res.body.account).toMatchObject({ email, timezone: 'Europe/Paris', status: 'active' });
    expect(res.cookie).toBeDefined();
    const me = await client.get('/v1/accounts');
    expect(me.status).toBe(200);
    expect(me.body.accountId).toBe(res.body.account.accountId);
    expect(me.body.name).toBeNull();
    const accountId = res.body.account.accountId as number;
    expect(await accountRow(accountId)).toEqual({
      status: 'active',
      planName: 'marketplace-growth-monthly-v1',
      planPeopleUpperLimit: 10000,
      planProvider: 'marketplace',
      source: 'marketplace',
    });
    const row = await codeRow(code);
    expect(row.redeemedByAccountId).toBe(accountId);
    expect(row.redeemedAt).toBeInstanceOf(Date);
    const listed = await client.get('/v1/marketplace/redemptions');
    expect(listed.status).toBe(200);
    expect(listed.body.redemptions).toEqual([{ codeHint: `…${code.slice(-4)}`, planName: 'marketplace-growth-monthly-v1', peopleUpperLimit: 10000, redeemedAt: row.redeemedAt!.toISOString() }]);
  });

  it('a code used twice: 409 with a clear message, and the second account is not created', async () => {
    const code = await newCode();
    expect((await new Client(ctx.app).post('/v1/marketplace/redeem', { code, email: uniqueEmail('first') })).status).toBe(200);
    const before = await countAccounts();
    const email = uniqueEmail('second');
    const again = await new Client(ctx.app).post('/v1/marketplace/redeem', { code, email });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ name: 'ConflictError', message: marketplaceMessages.alreadyRedeemed });
    expect(again.cookie).toBeUndefined();
    expect(await countUsers(email)).toBe(0);
    expect(await countAccounts()).toBe(before);
  });

  it('an unknown code: 404 with a clear message, nothing created', async () => {
    const before = await countAccounts();
    const email = uniqueEmail('unknown');
    const res = await new Client(ctx.app).post('/v1/marketplace/redeem', { code: 'NO-SUCH-CODE-1', email });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(marketplaceMessages.unknownCode);
    expect(res.cookie).toBeUndefined();
    expect(await countUsers(email)).toBe(0);
    expect(await countAccounts()).toBe(before);
  });

  it('an email already registered: 409, and the code stays free for its owner', async () => {
    const { email } = await registerUser(ctx.app);
    const code = await newCode();
    const res = await new Client(ctx.app).post('/v1/marketplace/redeem', { code, email });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(messages.emailAlreadyRegistered);
    expect((await codeRow(code)).redeemedAt).toBeNull();
    expect((await new Client(ctx.app).post('/v1/marketplace/redeem', { code, email: uniqueEmail() })).status).toBe(200);
  });

  it.each([
    ['no code', { email: uniqueEmail() }, 'code: Invalid input: expected string, received undefined'],
    ['an empty code', { code: '  ', email: uniqueEmail() }, marketplaceMessages.missingCode],
    ['a code with odd characters', { code: "x' or 1=1 --", email: uniqueEmail() }, marketplaceMessages.codeCharacters],
    ['no email', { code: 'SOME-CODE' }, messages.missingRegistrationEmail],
    ['an invalid email', { code: 'SOME-CODE', email: 'not-an-email' }, 'Enter a valid email address.'],
    ['an unknown field', { code: 'SOME-CODE', email: uniqueEmail(), plan: 'premium' }, 'Unrecognized key: "plan"'],
    ['an unknown time zone', { code: 'SOME-CODE', email: uniqueEmail(), timezone: 'Mars/Olympus' }, 'Unknown time zone.'],
  ])('answers 400 for %s and writes nothing', async (_label, body, message) => {
    const before = await countAccounts();
    const res = await new Client(ctx.app).post('/v1/marketplace/redeem', body);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(message);
    expect(res.cookie).toBeUndefined();
    expect(await countAccounts()).toBe(before);
  });

  it('refuses a cross-site request', async () => {
    const code = await newCode();
    const res = await new Client(ctx.app).post('/v1/marketplace/redeem', { code, email: uniqueEmail() }, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect((await codeRow(code)).redeemedAt).toBeNull();
  });

  it(`limits an address to ${redeemAttemptLimit} attempts, so codes cannot be guessed`, async () => {
    const guesser = new Client(ctx.app);
    for (let i = 0; i < redeemAttemptLimit; i += 1) {
      const res = await guesser.post('/v1/marketplace/redeem', { code: `GUESS-${i}`, email: uniqueEmail('guess') });
      expect(res.status).toBe(404);
    }
    const code = await newCode();
    const blocked = await guesser.post('/v1/marketplace/redeem', { code, email: uniqueEmail('guess') });
    expect(blocked.status).toBe(429);
    expect(blocked.body.message).toBe(messages.tooManyRequests);
    expect(blocked.headers['retry-after'] ?? blocked.body.retryAfter).toBeDefined();
    expect((await codeRow(code)).redeemedAt).toBeNull();
    // Another address is not held back.
    expect((await new Client(ctx.app).post('/v1/marketplace/redeem', { code, email: uniqueEmail() })).status).toBe(200);
  });
});

describe('POST /v1/marketplace/redeem for a signed-in member', () => {
  it('an owner redeems onto the current account; a larger code later raises the plan', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    const small = await newCode(2000);
    const res = await owner.client.post('/v1/marketplace/redeem', { code: small });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accountCreated: false, plan: { peopleUpperLimit: 2000, price: 25.5 } });
    expect(res.body.account).toMatchObject({ accountId, status: 'active', name: owner.account.name });
    expect(await accountRow(accountId)).toMatchObject({ planName: 'marketplace-growth-monthly-v1', planPeopleUpperLimit: 2000, planProvider: 'marketplace' });

    const larger = await newCode(20000);
    expect((await owner.client.post('/v1/marketplace/redeem', { code: larger })).status).toBe(200);
    expect(await accountRow(accountId)).toMatchObject({ planPeopleUpperLimit: 20000 });
    const listed = await owner.client.get('/v1/marketplace/redemptions');
    expect(listed.body.redemptions.map((r: { peopleUpperLimit: number }) => r.peopleUpperLimit)).toEqual([20000, 2000]);
  });

  it('a code that would not raise the plan is refused and stays free', async () => {
    const owner = await registerUser(ctx.app);
    expect((await owner.client.post('/v1/marketplace/redeem', { code: await newCode(10000) })).status).toBe(200);
    const same = await newCode(10000);
    const res = await owner.client.post('/v1/marketplace/redeem', { code: same });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(marketplaceMessages.planAlreadyCovers);
    expect((await codeRow(same)).redeemedAt).toBeNull();
  });

  it('an account paying through a provider keeps its subscription; the code is not used', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    await assignPlan(ctx.services.db, accountId, { planName: 'growth-monthly-v1', peopleUpperLimit: 2000, provider: 'chargebee' });
    const code = await newCode(50000);
    const res = await owner.client.post('/v1/marketplace/redeem', { code });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(marketplaceMessages.paidPlanActive);
    expect(await accountRow(accountId)).toMatchObject({ planName: 'growth-monthly-v1', planProvider: 'chargebee' });
    expect((await codeRow(code)).redeemedAt).toBeNull();
  });

  it('a used code, an unknown code and registration fields are refused without changing the account', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    const code = await newCode();
    expect((await new Client(ctx.app).post('/v1/marketplace/redeem', { code, email: uniqueEmail() })).status).toBe(200);
    const used = await owner.client.post('/v1/marketplace/redeem', { code });
    expect(used.status).toBe(409);
    expect(used.body.message).toBe(marketplaceMessages.alreadyRedeemed);
    const unknown = await owner.client.post('/v1/marketplace/redeem', { code: 'NOT-LOADED-9' });
    expect(unknown.status).toBe(404);
    const withEmail = await owner.client.post('/v1/marketplace/redeem', { code: await newCode(), email: uniqueEmail() });
    expect(withEmail.status).toBe(400);
    expect(withEmail.body.message).toBe(marketplaceMessages.signedInNoRegistration);
    expect(await accountRow(accountId)).toMatchObject({ status: 'trial', planName: null });
  });

  it('a member without billing:write gets 403; with billing:read they can list the redemptions', async () => {
    const owner = await registerUser(ctx.app);
    const member = await addMember(ctx, smtp, owner, ['billing:read']);
    const code = await newCode();
    const res = await member.post('/v1/marketplace/redeem', { code });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(marketplaceMessages.needsBillingWrite);
    expect((await codeRow(code)).redeemedAt).toBeNull();
    const listed = await member.get('/v1/marketplace/redemptions');
    expect(listed.status).toBe(200);
    expect(listed.body.redemptions).toEqual([]);
    const writer = await addMember(ctx, smtp, owner, ['billing:read', 'billing:write']);
    expect((await writer.post('/v1/marketplace/redeem', { code })).status).toBe(200);
    const none = await addMember(ctx, smtp, owner, []);
    expect((await none.get('/v1/marketplace/redemptions')).status).toBe(403);
    expect((await new Client(ctx.app).get('/v1/marketplace/redemptions')).status).toBe(401);
  });

  it('two accounts redeeming one code at the same moment: one wins, the other gets the clear 409', async () => {
    const [a, b] = await Promise.all([registerUser(ctx.app), registerUser(ctx.app)]);
    const code = await newCode();
    const answers = await Promise.all([a.client.post('/v1/marketplace/redeem', { code }), b.client.post('/v1/marketplace/redeem', { code })]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = answers[0]!.status === 200 ? a : b;
    const loser = winner === a ? b : a;
    expect((await codeRow(code)).redeemedByAccountId).toBe(winner.account.accountId);
    expect(await accountRow(loser.account.accountId as number)).toMatchObject({ planName: null, status: 'trial' });
  });
});

describe('with BILLING_MODE=plans', () => {
  it("the code's plan is the account's plan, marked as a marketplace one, and the picker offers the marketplace list", async () => {
    const plansCtx = await createTestContext({ BILLING_MODE: 'plans' });
    try {
      const code = await newCode(5000);
      const client = new Client(plansCtx.app);
      const res = await client.post('/v1/marketplace/redeem', { code, email: uniqueEmail('plans') });
      expect(res.status).toBe(200);
      expect(res.body.account.payment).toMatchObject({ plan: { name: 'marketplace-growth-monthly-v1', peopleUpperLimit: 5000, price: 49.5 }, appsumo: true });
      const billing = await client.get('/v1/billing');
      expect(billing.body).toMatchObject({ mode: 'plans', status: 'active', planProvider: 'marketplace', peopleUpperLimit: 5000 });
      const choices = await client.get('/v1/billing/plans');
      expect(choices.status).toBe(200);
      const monthlyGrowth = choices.body.groups.find((group: { label: string }) => group.label === 'Monthly Growth');
      expect(monthlyGrowth.plans.length).toBeGreaterThan(0);
      expect(new Set(monthlyGrowth.plans.map((plan: { name: string }) => plan.name))).toEqual(new Set(['marketplace-growth-monthly-v1']));
    } finally {
      await plansCtx.close();
    }
  });
});

describe('npm run cli -- marketplace-codes', () => {
  const serverDir = path.resolve(import.meta.dirname, '..');
  const cli = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', 'marketplace-codes', ...args], {
        cwd: serverDir,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: testDatabaseUrl() },
      }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }));
    });
  const unique = (label: string) => `${label}-${crypto.randomBytes(5).toString('hex').toUpperCase()}`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-market-'));

  it('add: loads codes for a band (hashed), leaves known ones as they were, refuses a band that does not exist', async () => {
    const [one, two] = [unique('ADD'), unique('add')];
    const added = await cli('add', '15000', one, two, one);
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(added.stdout).toContain('Added 2 codes.');
    expect(added.stdout).toContain(`Already loaded, left as they were: ${one}`);
    const row = await codeRow(two);
    expect(row).toMatchObject({ peopleUpperLimit: 15000, planName: 'marketplace-growth-monthly-v1', redeemedAt: null, codeHint: `…${two.slice(-4)}` });
    expect(row.codeHash).not.toContain(two.toUpperCase());

    const badBand = unique('BAND');
    const refused = await cli('add', '15001', badBand);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('No marketplace plan has the people upper limit 15001. The bands are 2000, 5000');
    const badCode = await cli('add', '5000', unique('GOOD'), 'bad code!');
    expect(badCode.code).toBe(2);
    expect(badCode.stderr).toContain(marketplaceMessages.codeCharacters);
    const none = await ctx.services.db.selectFrom('marketplaceCodes').select('codeHash').where('codeHash', '=', codeHashOf(badBand)).execute();
    expect(none).toEqual([]);
    expect((await cli('add', 'many', one)).code).toBe(2);
    const short = await cli('add', '5000', 'AB-12');
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('A code needs at least 8 characters, so that it cannot be guessed.');
  });

  it('import: a CSV of code,peopleUpperLimit (header optional); one bad row imports nothing; a redeemed code stays redeemed', async () => {
    const redeemed = await newCode(2000);
    const visitor = await new Client(ctx.app).post('/v1/marketplace/redeem', { code: redeemed, email: uniqueEmail() });
    expect(visitor.status).toBe(200);
    const [a, b] = [unique('CSV'), unique('CSV')];
    const file = path.join(tmp, 'codes.csv');
    fs.writeFileSync(file, `code,people_upper_limit\n${a},2000\n\n${b},70000\n${redeemed},2000\n`);
    const imported = await cli('import', file);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('Added 2 codes.');
    expect((await codeRow(b)).peopleUpperLimit).toBe(70000);
    expect((await codeRow(redeemed)).redeemedByAccountId).toBe(visitor.body.account.accountId);

    const broken = path.join(tmp, 'broken.csv');
    const c = unique('CSV');
    fs.writeFileSync(broken, `${c},5000\nno-limit-here\n${unique('CSV')},123\n`);
    const refused = await cli('import', broken);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('Nothing was imported.');
    expect(refused.stderr).toContain('Row 2: expected code,peopleUpperLimit');
    const partly = await cli('import', path.join(tmp, 'bands.csv.missing'));
    expect(partly.code).toBe(2);
    expect(partly.stderr).toContain('no such file');
    fs.writeFileSync(broken, `${c},5000\n${unique('CSV')},123\n`);
    const wrongBand = await cli('import', broken);
    expect(wrongBand.code).toBe(2);
    expect(wrongBand.stderr).toContain('No marketplace plan has the people upper limit 123');
    expect(await ctx.services.db.selectFrom('marketplaceCodes').select('codeHash').where('codeHash', '=', codeHashOf(c)).execute()).toEqual([]);
  });

  it('list: every code by its last characters, when and onto which account it was redeemed, and counts per band', async () => {
    const code = await newCode(25000);
    const free = await newCode(25000);
    const visitor = await new Client(ctx.app).post('/v1/marketplace/redeem', { code, email: uniqueEmail() });
    const listed = await cli('list');
    expect(listed.code).toBe(0);
    const lineOf = (c: string) => listed.stdout.split('\n').find((line) => line.startsWith(`…${c.slice(-4)}\t25000`) && !line.includes(c));
    expect(lineOf(code)).toMatch(new RegExp(`\\t${visitor.body.account.accountId}$`));
    expect(lineOf(free)).toMatch(/\tnot yet\t-$/);
    expect(listed.stdout).toMatch(/Up to 25000 people: \d+ codes?, \d+ redeemed, \d+ free/);
    expect(listed.stdout).not.toContain(code);
    const wrong = await cli('remove', code);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('Usage: npm run cli -- marketplace-codes add <peopleUpperLimit> <code…> | import <file.csv> | list');
  });
});
