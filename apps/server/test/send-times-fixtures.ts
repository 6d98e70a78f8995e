import type { Broadcast, ScopeId } from '@herald/contracts';
import { expect } from 'vitest';
import { addMember as addTeamMember, newEmail } from './email-helpers.ts';
import { Client, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { useSmtpContext, type SmtpSink } from './smtp-context.ts';

/**
 * What the send-time tests share: a server with a worker and an SMTP sink, accounts in a time zone with a verified
 * sender, and the reads of a broadcast's deliveries and mail. `ctx` and `smtp` are the current file's: each file
 * calls useSendTimesContext(), whose hooks build them anew (the test worker shares this module between files).
 */
export let ctx: TestContext;
export let smtp: SmtpSink;

export function useSendTimesContext(): void {
  // Batches of 250: the pause test's audience is sized so the first claims (loops × batch) leave people pending.
  useSmtpContext({ SEND_BATCH_SIZE: '250' }, (server, sink) => {
    ctx = server;
    smtp = sink;
  });
}

type Owner = Awaited<ReturnType<typeof registerUser>>;
const accountOf = (owner: Owner) => owner.account.accountId as number;

/** An account in `timeZone` with a verified sender and an email. */
export async function setup(timeZone: string) {
  const owner = await registerUser(ctx.app);
  const { client } = owner;
  expect((await client.patch('/v1/accounts/me', { timezone: timeZone })).status).toBe(200);
  // People carry their zone in the custom field `timezone`.
  expect(
    (await client.post('/v1/fields', { items: [{ name: 'timezone', title: 'Time zone', type: 'string' }] }))
      .status,
  ).toBe(201);
  const fromEmail = uniqueEmail('sender');
  const email = await client.post('/v1/emails', newEmail({ fromEmail }));
  expect(email.status).toBe(201);
  await ctx.services.db
    .insertInto('senderAddresses')
    .values({ accountId: accountOf(owner), email: fromEmail, status: 'verified' })
    .execute();
  return { owner, client, accountId: accountOf(owner), emailId: email.body.email.id as number };
}

export async function person(client: Client, name: string, timezone?: string) {
  const created = await client.post('/v1/people/?source=manual', {
    email: uniqueEmail(name.toLowerCase()),
    firstName: name,
    ...(timezone !== undefined ? { timezone } : {}),
  });
  expect(created.status).toBe(201);
  return created.body.user as { id: number; email: string };
}

export async function broadcast(client: Client, body: Record<string, unknown>): Promise<Broadcast> {
  const res = await client.post('/v1/broadcasts', body);
  expect(res.status).toBe(201);
  return res.body.item;
}

export const rowsOf = (accountId: number, sourceId: number) =>
  ctx.services.db
    .selectFrom('deliveries')
    .select(['personId', 'status', 'notBefore', 'timeZone'])
    .where('accountId', '=', accountId)
    .where('sourceKind', '=', 'broadcast')
    .where('sourceId', '=', sourceId)
    .execute();

export const receivedBy = (address: string) =>
  smtp.received.filter((m) => JSON.stringify(m.to).toLowerCase().includes(address.toLowerCase())).length;

/** A team member holding exactly `enabled`, signed in through the mailed invitation. */
export const addMember = (owner: Owner, enabled: ScopeId[]): Promise<Client> =>
  addTeamMember(ctx, smtp, owner, enabled);
