import { adHocEmailId, emailMessages, scopeIds, sendingMessages, transactionalMessages, type ScopeId } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEmail } from './email-helpers.ts';
import { Client, createTestContext, registerUser, uniqueEmail, type ApiResponse, type TestContext } from './helpers.ts';
import { queueDrained } from './job-queue.ts';
import { startSmtpServer } from './smtp.ts';
import { until } from './until.ts';

const origin = 'https://herald.test';
let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  ctx = await createTestContext({ SMTP_URL: smtp.url, MAIL_FROM: 'Herald <no-reply@herald.test>', PUBLIC_URL: origin });
  await ctx.startWorker();
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

/** An account with a verified sender, a saved email from it, and its API key. */
async function setup() {
  const owner = await registerUser(ctx.app, { origin });
  const accountId = owner.account.accountId as number;
  const fromEmail = uniqueEmail('sender');
  await ctx.services.db.insertInto('senderAddresses').values({ accountId, email: fromEmail, status: 'verified', verifiedAt: new Date() }).execute();
  const email = await owner.client.post('/v1/emails', newEmail({ fromEmail, subject: 'Order {{ person.orderId }} for {{ person.firstName | default: "you" }}', html: '<p>Hi {{ person.firstName | default: "there" }}, order {{ person.orderId }} ships {{ person.items[0].name }}.</p>' }));
  expect(email.status).toBe(201);
  const apiKey = (await owner.client.post('/v1/accounts/rotate-api-key')).body.apiKey as string;
  const categories = (await owner.client.get('/v1/settings/communication-categories')).body.categories as { id: number; name: string; type: string }[];
  return { owner, accountId, fromEmail, emailId: email.body.email.id as number, apiKey, categories };
}
type Setup = Awaited<ReturnType<typeof setup>>;

/** A call as a customer's system makes it: API key, no cookie, no Origin. */
function send(account: Pick<Setup, 'apiKey'>, body: unknown, key?: string): Promise<ApiResponse> {
  return new Client(ctx.app).post('/v1/transactional/send', body, { origin: null, headers: { authorization: `Bearer ${account.apiKey}`, ...(key !== undefined ? { 'idempotency-key': key } : {}) } });
}

function status(account: Pick<Setup, 'apiKey'>, deliveryId: number) {
  return new Client(ctx.app).get(`/v1/transactional/${deliveryId}`, { origin: null, headers: { authorization: `Bearer ${account.apiKey}` } });
}

async function waitForStatus(account: Setup, deliveryId: number, wanted: string, timeoutMs = 20_000) {
  let last: unknown;
  return until(async () => {
    const res = await status(account, deliveryId);
    last = res.body;
    return res.body.status === wanted && res.body;
  }, { timeout: timeoutMs, message: () => `delivery ${deliveryId} ${wanted} (it is ${JSON.stringify(last)})` });
}

const mailsTo = (address: string) => smtp.received.filter((m) => JSON.stringify(m.to).toLowerCase().includes(address.toLowerCase()));
const deliveriesOf = (accountId: number) => ctx.services.db.selectFrom('deliveries').select(['id', 'status']).where('accountId', '=', accountId).execute();

/** A team member holding exactly `enabled`, signed in through the mailed invitation. */
async function addMember(owner: Setup['owner'], enabled: ScopeId[]): Promise<Client> {
  const email = uniqueEmail('member');
  expect((await owner.client.post('/v1/team-members', { name: 'Member', email, scopes: scopeIds.map((id) => ({ id, enabled: enabled.includes(id) })) })).status).toBe(201);
  const token = decodeURIComponent(/accept-invite\?token=([^\s"<]+)/.exec((await smtp.waitFor(email)).text ?? '')![1]!);
  const member = new Client(ctx.app, origin);
  expect((await member.post('/v1/team-members/invitations/accept', { token, password: 'member password 1' })).status).toBe(200);
  return member;
}

describe('transactional sends', () => {
  it('sends a saved email to a person with merge data laid over their fields, and reports it sent', async () => {
    const account = await setup();
    const to = uniqueEmail('buyer');
    const person = await account.owner.client.post('/v1/people/?source=manual', { email: to, firstName: 'Grace' });
    const res = await send(account, { emailId: account.emailId, to: to.toUpperCase(), data: { orderId: 'A-1001', items: [{ name: 'tomorrow' }] } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ deliveryId: expect.any(Number), status: 'pending' });
    const mail = await smtp.waitFor(to);
    expect(mail.subject).toBe('Order A-1001 for Grace');
    expect(mail.html).toContain('Hi Grace, order A-1001 ships tomorrow.');
    expect(mail.from?.value[0]?.address).toBe(account.fromEmail);
    // Transactional mail carries no unsubscribe headers (those belong to marketing mail).
    expect(mail.headers.has('list-unsubscribe')).toBe(false);
    const sent = await waitForStatus(account, res.body.deliveryId, 'sent');
    const notices = account.categories.find((c) => c.name === 'Account notices')!;
    expect(sent).toMatchObject({ to, emailId: account.emailId, categoryId: notices.id, lastError: null, attempts: 1, nextAttemptAt: null, messageId: mail.messageId });
    expect(Date.parse(sent.sentAt)).toBeGreaterThanOrEqual(Date.parse(sent.createdAt));
    const row = await ctx.services.db.selectFrom('deliveries').select(['personId', 'sourceKind']).where('accountId', '=', account.accountId).where('id', '=', res.body.deliveryId).executeTakeFirstOrThrow();
    expect(row).toEqual({ personId: person.body.user.id, sourceKind: 'transactional' });
  });

  it(`sends ad-hoc content (emailId ${adHocEmailId}) to an address nobody in the account holds, from the account's first verified sender`, async () => {
    const account = await setup();
    const to = uniqueEmail('stranger');
    const replyTo = uniqueEmail('support');
    const res = await send(account, { emailId: adHocEmailId, to, subject: 'Your code is {{ person.code }}', preheader: 'Sign-in code', html: '<p>Code: <b>{{ person.code }}</b> for {{ person.email }}</p>', fromName: 'Security', replyTo, data: { code: '493 112' } });
    expect(res.status).toBe(200);
    const mail = await smtp.waitFor(to);
    expect(mail.subject).toBe('Your code is 493 112');
    expect(mail.html).toContain(`Code: <b>493 112</b> for ${to}`);
    expect(mail.from?.value[0]).toMatchObject({ address: account.fromEmail, name: 'Security' });
    expect(mail.replyTo?.value[0]?.address).toBe(replyTo);
    expect(await waitForStatus(account, res.body.deliveryId, 'sent')).toMatchObject({ emailId: adHocEmailId, to });
    const row = await ctx.services.db.selectFrom('deliveries').select(['personId', 'emailId']).where('accountId', '=', account.accountId).where('id', '=', res.body.deliveryId).executeTakeFirstOrThrow();
    expect(row).toEqual({ personId: null, emailId: adHocEmailId });
  });

  it('an Idempotency-Key sends once: the same key and body answer the first delivery, another body is a 409', async () => {
    const account = await setup();
    const to = uniqueEmail('retry');
    const body = { emailId: adHocEmailId, to, subject: 'Receipt', html: '<p>Paid</p>', data: { amount: 12, currency: 'EUR' } };
    const first = await send(account, body, 'order-77');
    expect(first.status).toBe(200);
    // The same request, its keys in another order, as a client retrying after a timeout sends it.
    const again = await send(account, { data: { currency: 'EUR', amount: 12 }, html: '<p>Paid</p>', subject: 'Receipt', to: to.toUpperCase(), emailId: adHocEmailId }, 'order-77');
    expect(again.status).toBe(200);
    expect(again.body.deliveryId).toBe(first.body.deliveryId);
    expect(again.headers['idempotent-replayed']).toBe('true');
    await smtp.waitFor(to);
    const replayedLater = await send(account, body, 'order-77');
    expect(replayedLater.body).toMatchObject({ deliveryId: first.body.deliveryId });
    const conflict = await send(account, { ...body, subject: 'Another receipt' }, 'order-77');
    expect(conflict.status).toBe(409);
    expect(conflict.body.message).toBe(transactionalMessages.idempotencyKeyReused);
    // Another key is another send.
    const other = await send(account, body, 'order-78');
    expect(other.body.deliveryId).not.toBe(first.body.deliveryId);
    await waitForStatus(account, other.body.deliveryId, 'sent');
    await queueDrained(ctx.database.pool);
    expect(mailsTo(to)).toHaveLength(2);
    expect((await deliveriesOf(account.accountId)).length).toBe(2);
    expect((await send(account, body, 'k'.repeat(201))).body.message).toBe(transactionalMessages.idempotencyKeyInvalid);

    // Calls racing with one key: one send, every answer naming it.
    const racer = uniqueEmail('race');
    const raced = await Promise.all(Array.from({ length: 5 }, () => send(account, { ...body, to: racer }, 'order-79')));
    expect(new Set(raced.map((r) => r.status))).toEqual(new Set([200]));
    expect(new Set(raced.map((r) => r.body.deliveryId)).size).toBe(1);
    await waitForStatus(account, raced[0]!.body.deliveryId, 'sent');
    await queueDrained(ctx.database.pool);
    expect(mailsTo(racer)).toHaveLength(1);
    expect((await send(account, body, '')).status).toBe(400);
  });

  it('a marketing unsubscribe does not stop it; a hard bounce or a complaint does, and the status says why', async () => {
    const account = await setup();
    const { db } = ctx.services;
    const unsubscribed = uniqueEmail('unsub');
    await account.owner.client.post('/v1/people/?source=manual', { email: unsubscribed, firstName: 'Una' });
    const bounced = uniqueEmail('bounced');
    await account.owner.client.post('/v1/people/?source=manual', { email: bounced, firstName: 'Bo' });
    const complained = uniqueEmail('complained');
    await db.insertInto('suppressions').values([
      { accountId: account.accountId, email: unsubscribed, reason: 'unsubscribed', source: 'test' },
      { accountId: account.accountId, email: bounced, reason: 'hard-bounce', source: 'test' },
      { accountId: account.accountId, email: complained, reason: 'complaint', source: 'test' },
    ]).execute();
    const delivered = await send(account, { emailId: account.emailId, to: unsubscribed, data: { orderId: 'U-1' } });
    expect((await smtp.waitFor(unsubscribed)).subject).toBe('Order U-1 for Una');
    await waitForStatus(account, delivered.body.deliveryId, 'sent');

    const stopped = await send(account, { emailId: account.emailId, to: bounced });
    expect(stopped.body.status).toBe('canceled');
    expect((await status(account, stopped.body.deliveryId)).body).toMatchObject({ status: 'canceled', lastError: transactionalMessages.stoppedBySuppression(bounced, 'hard bounce'), sentAt: null });
    const complaint = await send(account, { emailId: adHocEmailId, to: complained, subject: 'Hi', html: '<p>Hi</p>' });
    expect((await status(account, complaint.body.deliveryId)).body).toMatchObject({ status: 'canceled', lastError: transactionalMessages.stoppedBySuppression(complained, 'spam complaint') });
    await queueDrained(ctx.database.pool);
    expect(mailsTo(bounced)).toHaveLength(0);
    expect(mailsTo(complained)).toHaveLength(0);
  });

  it('refuses bad input with a 4xx and sends nothing', async () => {
    const account = await setup();
    const other = await setup();
    const marketing = account.categories.find((c) => c.type === 'marketing')!;
    const to = uniqueEmail('nobody');
    const refusals: [unknown, number, string?][] = [
      [{ emailId: 999_999_999, to }, 400, emailMessages.notFound],
      [{ emailId: other.emailId, to }, 400, emailMessages.notFound],
      [{ emailId: account.emailId, to, categoryId: marketing.id }, 400, transactionalMessages.categoryNotTransactional(marketing.name)],
      [{ emailId: account.emailId, to, categoryId: other.categories[1]!.id }, 400, sendingMessages.categoryNotFound],
      [{ emailId: adHocEmailId, to, html: '<p>x</p>' }, 400, transactionalMessages.adHocNeeds('subject')],
      [{ emailId: adHocEmailId, to, subject: 'x' }, 400, transactionalMessages.adHocNeeds('html')],
      [{ emailId: account.emailId, to, subject: 'x' }, 400, transactionalMessages.adHocOnly('subject')],
      [{ emailId: account.emailId, to, fromEmail: account.fromEmail }, 400, transactionalMessages.adHocOnly('fromEmail')],
      [{ emailId: 0, to }, 400, transactionalMessages.emailIdInvalid],
      [{ emailId: -1, to }, 400, transactionalMessages.emailIdInvalid],
      [{ emailId: account.emailId, to: 'not an address' }, 400, 'Enter a valid email address.'],
      [{ emailId: account.emailId }, 400],
      [{ emailId: account.emailId, to, data: { big: 'x'.repeat(70_000) } }, 400, transactionalMessages.dataTooLarge],
      [{ emailId: account.emailId, to, data: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])) }, 400, transactionalMessages.dataTooManyKeys],
      [{ emailId: account.emailId, to, data: { 'bad key': 1 } }, 400, transactionalMessages.dataKeyInvalid],
      [{ emailId: account.emailId, to, data: [1, 2] }, 400],
      [{ emailId: account.emailId, to, extra: true }, 400],
      [{ emailId: adHocEmailId, to, subject: 'Hi {{ person.name', html: '<p>x</p>' }, 422],
      [{ emailId: adHocEmailId, to, subject: 'Hi', html: '<p>x</p>', fromEmail: 'someone@unverified.example.com' }, 422, sendingMessages.notVerified('someone@unverified.example.com')],
    ];
    for (const [body, code, message] of refusals) {
      const res = await send(account, body);
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(code);
      if (message) expect(res.body.message, JSON.stringify(body).slice(0, 120)).toBe(message);
    }
    // An archived transactional category is refused; with none left in use, the call says what to do.
    const notices = account.categories.find((c) => c.name === 'Account notices')!;
    expect((await account.owner.client.patch(`/v1/settings/communication-categories/${notices.id}`, { isArchived: true })).status).toBe(200);
    expect((await send(account, { emailId: account.emailId, to, categoryId: notices.id })).body.message).toBe(transactionalMessages.categoryArchived(notices.name));
    expect((await send(account, { emailId: account.emailId, to })).body.message).toBe(transactionalMessages.noTransactionalCategory);
    expect(await deliveriesOf(account.accountId)).toEqual([]);
    expect(await ctx.services.db.selectFrom('transactionalSends').select('id').where('accountId', '=', account.accountId).execute()).toEqual([]);
    expect(mailsTo(to)).toHaveLength(0);
  });

  it('an ad-hoc send with no sender named and none verified is refused clearly', async () => {
    const owner = await registerUser(ctx.app, { origin });
    const apiKey = (await owner.client.post('/v1/accounts/rotate-api-key')).body.apiKey as string;
    const res = await send({ apiKey }, { emailId: adHocEmailId, to: uniqueEmail('x'), subject: 'Hi', html: '<p>Hi</p>' });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(transactionalMessages.noSender);
    // A test account skips the sending rule, as it does for broadcasts.
    await ctx.services.db.updateTable('accounts').set({ testAccount: true }).where('id', '=', owner.account.accountId).execute();
    const to = uniqueEmail('tester');
    const fromTest = await send({ apiKey }, { emailId: adHocEmailId, to, subject: 'Hi', html: '<p>Hi</p>', fromEmail: 'qa@unverified.example.com' });
    expect(fromTest.status).toBe(200);
    expect((await smtp.waitFor(to)).from?.value[0]?.address).toBe('qa@unverified.example.com');
  });

  it('works with a session too; a wrong key is 401, a member without broadcasts:write is 403, another account cannot read a delivery', async () => {
    const account = await setup();
    const other = await setup();
    const to = uniqueEmail('session');
    const bySession = await account.owner.client.post('/v1/transactional/send', { emailId: account.emailId, to, data: { orderId: 'S-1' } });
    expect(bySession.status).toBe(200);
    await smtp.waitFor(to);
    expect((await account.owner.client.get(`/v1/transactional/${bySession.body.deliveryId}`)).body).toMatchObject({ deliveryId: bySession.body.deliveryId });

    const wrongKey = await send({ apiKey: 'hk_not-a-real-key' }, { emailId: account.emailId, to });
    expect(wrongKey.status).toBe(401);
    expect((await new Client(ctx.app, origin).post('/v1/transactional/send', { emailId: account.emailId, to })).status).toBe(401);
    const reader = await addMember(account.owner, ['emails:read', 'broadcasts:read']);
    const forbidden = await reader.post('/v1/transactional/send', { emailId: account.emailId, to });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.message).toBe('You need the broadcasts:write permission to do this.');
    expect((await reader.get(`/v1/transactional/${bySession.body.deliveryId}`)).status).toBe(200);

    expect((await status(other, bySession.body.deliveryId)).status).toBe(404);
    expect((await status(account, 999_999_999)).body.message).toBe(transactionalMessages.notFound);
    // Only transactional deliveries answer here, not a broadcast's.
    const broadcastRow = await ctx.services.db.insertInto('deliveries').values({ accountId: account.accountId, sourceKind: 'broadcast', sourceId: 1, emailId: account.emailId, toAddress: to, status: 'canceled' }).returning('id').executeTakeFirstOrThrow();
    expect((await status(account, Number(broadcastRow.id))).status).toBe(404);
    expect(mailsTo(to)).toHaveLength(1);
  });
});
