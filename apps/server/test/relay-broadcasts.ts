import type { Broadcast, BroadcastProgress } from '@herald/contracts';
import { expect } from 'vitest';
import { newEmail } from './email-helpers.ts';
import { registerUser, uniqueEmail, type Client, type TestContext } from './helpers.ts';

/**
 * A new account sends a broadcast "Relay news" to `addresses` (people it adds), from a sender marked verified: what
 * the tests of sending through a real relay start from (postfix-relay*.test.ts).
 */
export async function sendBroadcastTo(ctx: TestContext, origin: string, addresses: string[]) {
  const owner = await registerUser(ctx.app, { origin });
  const accountId = owner.account.accountId as number;
  const fromEmail = uniqueEmail('sender');
  const email = await owner.client.post('/v1/emails', newEmail({ fromEmail, subject: 'Relay news' }));
  await ctx.services.db
    .insertInto('senderAddresses')
    .values({ accountId, email: fromEmail, status: 'verified' })
    .execute();
  for (const address of addresses)
    expect(
      (await owner.client.post('/v1/people/?source=manual', { email: address, firstName: 'Reader' })).status,
    ).toBe(201);
  const created = await owner.client.post('/v1/broadcasts', {
    name: 'Through Postfix',
    emailId: email.body.email.id,
  });
  const id = (created.body.item as Broadcast).id;
  expect((await owner.client.post(`/v1/broadcasts/${id}/send`, {})).status).toBe(200);
  return { owner, accountId, id, fromEmail };
}

/** The broadcast's status answer: the item and its progress (with the mail server's problem, if any). */
export async function broadcastStatus(client: Client, id: number) {
  return (await client.get(`/v1/broadcasts/${id}/status`)).body as {
    item: Broadcast;
    progress: BroadcastProgress;
  };
}
