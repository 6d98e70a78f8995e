import type { Broadcast } from '@herald/contracts';
import { expect } from 'vitest';
import { newEmail } from './email-helpers.ts';
import { registerUser, uniqueEmail, type Client, type TestContext } from './helpers.ts';
import { useSmtpContext, type SmtpSink } from './smtp-context.ts';

/**
 * What the A/B test tests share: a server on PUBLIC_URL `origin` with a worker and an SMTP sink, accounts with people
 * and two emails, the test settings, drafts and the broadcast's delivery rows. `ctx` and `smtp` are the current file's:
 * each file calls useAbTestsContext(), whose hooks build them anew (the test worker shares this module between files).
 */
export const origin = 'https://herald.test';
export let ctx: TestContext;
export let smtp: SmtpSink;

export function useAbTestsContext(): void {
  useSmtpContext({ MAIL_FROM: 'Herald <no-reply@herald.test>', PUBLIC_URL: origin }, (server, sink) => {
    ctx = server;
    smtp = sink;
  });
}

/** An account with `people` people and two emails from a verified sender. */
export async function setup(people: number) {
  const owner = await registerUser(ctx.app, { origin });
  const accountId = owner.account.accountId as number;
  const fromEmail = uniqueEmail('sender');
  await ctx.services.db
    .insertInto('senderAddresses')
    .values({ accountId, email: fromEmail, status: 'verified' })
    .execute();
  const main = await owner.client.post('/v1/emails', newEmail({ fromEmail, subject: 'Main subject' }));
  const other = await owner.client.post(
    '/v1/emails',
    newEmail({
      fromEmail,
      subject: 'Other email',
      html: '<p>The other email.</p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>',
    }),
  );
  expect([main.status, other.status]).toEqual([201, 201]);
  const persons: { id: number; email: string }[] = [];
  for (let i = 0; i < people; i++) {
    const created = await owner.client.post('/v1/people/?source=manual', {
      email: uniqueEmail(`ab${i}`),
      firstName: `P${i}`,
    });
    persons.push(created.body.user);
  }
  return {
    owner,
    client: owner.client,
    accountId,
    fromEmail,
    emailId: main.body.email.id as number,
    otherEmailId: other.body.email.id as number,
    persons,
  };
}

export const abTest = (extra: Record<string, unknown> = {}) => ({
  variants: [{ subject: 'Subject A' }, { subject: 'Subject B' }],
  testShare: 50,
  metric: 'opens',
  waitHours: 4,
  ...extra,
});

export async function draft(client: Client, body: Record<string, unknown>): Promise<Broadcast> {
  const res = await client.post('/v1/broadcasts', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.item;
}

export const rowsOf = (accountId: number, id: number) =>
  ctx.services.db
    .selectFrom('deliveries')
    .select(['personId', 'variant', 'emailId', 'status'])
    .where('accountId', '=', accountId)
    .where('sourceKind', '=', 'broadcast')
    .where('sourceId', '=', id)
    .execute();
