import { adHocEmailId, transactionalMessages } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { uniqueEmail } from './helpers.ts';
import { queueDrained } from './job-queue.ts';
import {
  ctx,
  deliveriesOf,
  mailsTo,
  send,
  setup,
  smtp,
  status,
  useTransactionalContext,
  type Setup,
} from './transactional-fixtures.ts';
import { until } from './until.ts';

useTransactionalContext();

async function waitForStatus(account: Setup, deliveryId: number, wanted: string, timeoutMs = 20_000) {
  let last: unknown;
  return until(
    async () => {
      const res = await status(account, deliveryId);
      last = res.body;
      return res.body.status === wanted && res.body;
    },
    { timeout: timeoutMs, message: () => `delivery ${deliveryId} ${wanted} (it is ${JSON.stringify(last)})` },
  );
}

describe('transactional sends', () => {
  it('sends a saved email to a person with merge data laid over their fields, and reports it sent', async () => {
    const account = await setup();
    const to = uniqueEmail('buyer');
    const person = await account.owner.client.post('/v1/people/?source=manual', {
      email: to,
      firstName: 'Grace',
    });
    const res = await send(account, {
      emailId: account.emailId,
      to: to.toUpperCase(),
      data: { orderId: 'A-1001', items: [{ name: 'tomorrow' }] },
    });
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
    expect(sent).toMatchObject({
      to,
      emailId: account.emailId,
      categoryId: notices.id,
      lastError: null,
      attempts: 1,
      nextAttemptAt: null,
      messageId: mail.messageId,
    });
    expect(Date.parse(sent.sentAt)).toBeGreaterThanOrEqual(Date.parse(sent.createdAt));
    const row = await ctx.services.db
      .selectFrom('deliveries')
      .select(['personId', 'sourceKind'])
      .where('accountId', '=', account.accountId)
      .where('id', '=', res.body.deliveryId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ personId: person.body.user.id, sourceKind: 'transactional' });
  });

  it(`sends ad-hoc content (emailId ${adHocEmailId}) to an address nobody in the account holds, from the account's first verified sender`, async () => {
    const account = await setup();
    const to = uniqueEmail('stranger');
    const replyTo = uniqueEmail('support');
    const res = await send(account, {
      emailId: adHocEmailId,
      to,
      subject: 'Your code is {{ person.code }}',
      preheader: 'Sign-in code',
      html: '<p>Code: <b>{{ person.code }}</b> for {{ person.email }}</p>',
      fromName: 'Security',
      replyTo,
      data: { code: '493 112' },
    });
    expect(res.status).toBe(200);
    const mail = await smtp.waitFor(to);
    expect(mail.subject).toBe('Your code is 493 112');
    expect(mail.html).toContain(`Code: <b>493 112</b> for ${to}`);
    expect(mail.from?.value[0]).toMatchObject({ address: account.fromEmail, name: 'Security' });
    expect(mail.replyTo?.value[0]?.address).toBe(replyTo);
    expect(await waitForStatus(account, res.body.deliveryId, 'sent')).toMatchObject({
      emailId: adHocEmailId,
      to,
    });
    const row = await ctx.services.db
      .selectFrom('deliveries')
      .select(['personId', 'emailId'])
      .where('accountId', '=', account.accountId)
      .where('id', '=', res.body.deliveryId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ personId: null, emailId: adHocEmailId });
  });

  it('an Idempotency-Key sends once: the same key and body answer the first delivery, another body is a 409', async () => {
    const account = await setup();
    const to = uniqueEmail('retry');
    const body = {
      emailId: adHocEmailId,
      to,
      subject: 'Receipt',
      html: '<p>Paid</p>',
      data: { amount: 12, currency: 'EUR' },
    };
    const first = await send(account, body, 'order-77');
    expect(first.status).toBe(200);
    // The same request, its keys in another order, as a client retrying after a timeout sends it.
    const again = await send(
      account,
      {
        data: { currency: 'EUR', amount: 12 },
        html: '<p>Paid</p>',
        subject: 'Receipt',
        to: to.toUpperCase(),
        emailId: adHocEmailId,
      },
      'order-77',
    );
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
    expect((await send(account, body, 'k'.repeat(201))).body.message).toBe(
      transactionalMessages.idempotencyKeyInvalid,
    );

    // Calls racing with one key: one send, every answer naming it.
    const racer = uniqueEmail('race');
    const raced = await Promise.all(
      Array.from({ length: 5 }, () => send(account, { ...body, to: racer }, 'order-79')),
    );
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
    await db
      .insertInto('suppressions')
      .values([
        { accountId: account.accountId, email: unsubscribed, reason: 'unsubscribed', source: 'test' },
        { accountId: account.accountId, email: bounced, reason: 'hard-bounce', source: 'test' },
        { accountId: account.accountId, email: complained, reason: 'complaint', source: 'test' },
      ])
      .execute();
    const delivered = await send(account, {
      emailId: account.emailId,
      to: unsubscribed,
      data: { orderId: 'U-1' },
    });
    expect((await smtp.waitFor(unsubscribed)).subject).toBe('Order U-1 for Una');
    await waitForStatus(account, delivered.body.deliveryId, 'sent');

    const stopped = await send(account, { emailId: account.emailId, to: bounced });
    expect(stopped.body.status).toBe('canceled');
    expect((await status(account, stopped.body.deliveryId)).body).toMatchObject({
      status: 'canceled',
      lastError: transactionalMessages.stoppedBySuppression(bounced, 'hard bounce'),
      sentAt: null,
    });
    const complaint = await send(account, {
      emailId: adHocEmailId,
      to: complained,
      subject: 'Hi',
      html: '<p>Hi</p>',
    });
    expect((await status(account, complaint.body.deliveryId)).body).toMatchObject({
      status: 'canceled',
      lastError: transactionalMessages.stoppedBySuppression(complained, 'spam complaint'),
    });
    await queueDrained(ctx.database.pool);
    expect(mailsTo(bounced)).toHaveLength(0);
    expect(mailsTo(complained)).toHaveLength(0);
  });
});
