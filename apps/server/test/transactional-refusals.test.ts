import { adHocEmailId, emailMessages, sendingMessages, transactionalMessages } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { addMember } from './email-helpers.ts';
import { Client, registerUser, uniqueEmail } from './helpers.ts';
import {
  ctx,
  deliveriesOf,
  mailsTo,
  origin,
  send,
  setup,
  smtp,
  status,
  useTransactionalContext,
} from './transactional-fixtures.ts';

useTransactionalContext();

describe('transactional sends', () => {
  it('refuses bad input with a 4xx and sends nothing', async () => {
    const account = await setup();
    const other = await setup();
    const marketing = account.categories.find((c) => c.type === 'marketing')!;
    const to = uniqueEmail('nobody');
    const refusals: [unknown, number, string?][] = [
      [{ emailId: 999_999_999, to }, 400, emailMessages.notFound],
      [{ emailId: other.emailId, to }, 400, emailMessages.notFound],
      [
        { emailId: account.emailId, to, categoryId: marketing.id },
        400,
        transactionalMessages.categoryNotTransactional(marketing.name),
      ],
      [
        { emailId: account.emailId, to, categoryId: other.categories[1]!.id },
        400,
        sendingMessages.categoryNotFound,
      ],
      [{ emailId: adHocEmailId, to, html: '<p>x</p>' }, 400, transactionalMessages.adHocNeeds('subject')],
      [{ emailId: adHocEmailId, to, subject: 'x' }, 400, transactionalMessages.adHocNeeds('html')],
      [{ emailId: account.emailId, to, subject: 'x' }, 400, transactionalMessages.adHocOnly('subject')],
      [
        { emailId: account.emailId, to, fromEmail: account.fromEmail },
        400,
        transactionalMessages.adHocOnly('fromEmail'),
      ],
      [{ emailId: 0, to }, 400, transactionalMessages.emailIdInvalid],
      [{ emailId: -1, to }, 400, transactionalMessages.emailIdInvalid],
      [{ emailId: account.emailId, to: 'not an address' }, 400, 'Enter a valid email address.'],
      [{ emailId: account.emailId }, 400],
      [
        { emailId: account.emailId, to, data: { big: 'x'.repeat(70_000) } },
        400,
        transactionalMessages.dataTooLarge,
      ],
      [
        {
          emailId: account.emailId,
          to,
          data: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])),
        },
        400,
        transactionalMessages.dataTooManyKeys,
      ],
      [{ emailId: account.emailId, to, data: { 'bad key': 1 } }, 400, transactionalMessages.dataKeyInvalid],
      [{ emailId: account.emailId, to, data: [1, 2] }, 400],
      [{ emailId: account.emailId, to, extra: true }, 400],
      [{ emailId: adHocEmailId, to, subject: 'Hi {{ person.name', html: '<p>x</p>' }, 422],
      [
        {
          emailId: adHocEmailId,
          to,
          subject: 'Hi',
          html: '<p>x</p>',
          fromEmail: 'someone@unverified.example.com',
        },
        422,
        sendingMessages.notVerified('someone@unverified.example.com'),
      ],
    ];
    for (const [body, code, message] of refusals) {
      const res = await send(account, body);
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(code);
      if (message) expect(res.body.message, JSON.stringify(body).slice(0, 120)).toBe(message);
    }
    // An archived transactional category is refused; with none left in use, the call says what to do.
    const notices = account.categories.find((c) => c.name === 'Account notices')!;
    expect(
      (
        await account.owner.client.patch(`/v1/settings/communication-categories/${notices.id}`, {
          isArchived: true,
        })
      ).status,
    ).toBe(200);
    expect((await send(account, { emailId: account.emailId, to, categoryId: notices.id })).body.message).toBe(
      transactionalMessages.categoryArchived(notices.name),
    );
    expect((await send(account, { emailId: account.emailId, to })).body.message).toBe(
      transactionalMessages.noTransactionalCategory,
    );
    expect(await deliveriesOf(account.accountId)).toEqual([]);
    expect(
      await ctx.services.db
        .selectFrom('transactionalSends')
        .select('id')
        .where('accountId', '=', account.accountId)
        .execute(),
    ).toEqual([]);
    expect(mailsTo(to)).toHaveLength(0);
  });

  it('an ad-hoc send with no sender named and none verified is refused clearly', async () => {
    const owner = await registerUser(ctx.app, { origin });
    const apiKey = (await owner.client.post('/v1/accounts/rotate-api-key')).body.apiKey as string;
    const res = await send(
      { apiKey },
      { emailId: adHocEmailId, to: uniqueEmail('x'), subject: 'Hi', html: '<p>Hi</p>' },
    );
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(transactionalMessages.noSender);
    // A test account skips the sending rule, as it does for broadcasts.
    await ctx.services.db
      .updateTable('accounts')
      .set({ testAccount: true })
      .where('id', '=', owner.account.accountId)
      .execute();
    const to = uniqueEmail('tester');
    const fromTest = await send(
      { apiKey },
      { emailId: adHocEmailId, to, subject: 'Hi', html: '<p>Hi</p>', fromEmail: 'qa@unverified.example.com' },
    );
    expect(fromTest.status).toBe(200);
    expect((await smtp.waitFor(to)).from?.value[0]?.address).toBe('qa@unverified.example.com');
  });

  it('works with a session too; a wrong key is 401, a member without broadcasts:write is 403, another account cannot read a delivery', async () => {
    const account = await setup();
    const other = await setup();
    const to = uniqueEmail('session');
    const bySession = await account.owner.client.post('/v1/transactional/send', {
      emailId: account.emailId,
      to,
      data: { orderId: 'S-1' },
    });
    expect(bySession.status).toBe(200);
    await smtp.waitFor(to);
    expect(
      (await account.owner.client.get(`/v1/transactional/${bySession.body.deliveryId}`)).body,
    ).toMatchObject({ deliveryId: bySession.body.deliveryId });

    const wrongKey = await send({ apiKey: 'hk_not-a-real-key' }, { emailId: account.emailId, to });
    expect(wrongKey.status).toBe(401);
    expect(
      (await new Client(ctx.app, origin).post('/v1/transactional/send', { emailId: account.emailId, to }))
        .status,
    ).toBe(401);
    const reader = await addMember(ctx, smtp, account.owner, ['emails:read', 'broadcasts:read'], origin);
    const forbidden = await reader.post('/v1/transactional/send', { emailId: account.emailId, to });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.message).toBe('You need the broadcasts:write permission to do this.');
    expect((await reader.get(`/v1/transactional/${bySession.body.deliveryId}`)).status).toBe(200);

    expect((await status(other, bySession.body.deliveryId)).status).toBe(404);
    expect((await status(account, 999_999_999)).body.message).toBe(transactionalMessages.notFound);
    // Only transactional deliveries answer here, not a broadcast's.
    const broadcastRow = await ctx.services.db
      .insertInto('deliveries')
      .values({
        accountId: account.accountId,
        sourceKind: 'broadcast',
        sourceId: 1,
        emailId: account.emailId,
        toAddress: to,
        status: 'canceled',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect((await status(account, Number(broadcastRow.id))).status).toBe(404);
    expect(mailsTo(to)).toHaveLength(1);
  });
});
