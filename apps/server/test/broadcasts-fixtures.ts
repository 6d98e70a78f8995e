import type { Broadcast } from '@herald/contracts';
import { expect } from 'vitest';
import { newEmail } from './email-helpers.ts';
import { Client, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { useSmtpContext, type SmtpSink } from './smtp-context.ts';

/**
 * What the broadcast tests share: a server on PUBLIC_URL `origin` with a worker and an SMTP sink, accounts with an
 * email (its sender verified unless asked otherwise), people and drafts. `ctx` and `smtp` are the current file's: each
 * file calls useBroadcastsContext(), whose hooks build them anew (the test worker shares this module between files).
 */
export const origin = 'https://herald.test';
export let ctx: TestContext;
export let smtp: SmtpSink;

export function useBroadcastsContext(): void {
  useSmtpContext({ MAIL_FROM: 'Herald <no-reply@herald.test>', PUBLIC_URL: origin }, (server, sink) => {
    ctx = server;
    smtp = sink;
  });
}

export type Owner = Awaited<ReturnType<typeof registerUser>>;
export const accountOf = (owner: Owner) => owner.account.accountId as number;
export const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

/** An account with an email whose sender is verified (or not, when asked). */
export async function setup(options: { verified?: boolean } = {}) {
  const owner = await registerUser(ctx.app, { origin });
  const fromEmail = uniqueEmail('sender');
  const email = await owner.client.post(
    '/v1/emails',
    newEmail({ fromEmail, subject: 'News for {{ person.firstName | default: "you" }}' }),
  );
  expect(email.status).toBe(201);
  if (options.verified !== false) {
    await ctx.services.db
      .insertInto('senderAddresses')
      .values({ accountId: accountOf(owner), email: fromEmail, status: 'verified' })
      .execute();
  }
  return { owner, client: owner.client, emailId: email.body.email.id as number, fromEmail };
}

export async function person(client: Client, values: { firstName: string; tags?: string[] }) {
  const created = await client.post('/v1/people/?source=manual', {
    email: uniqueEmail(values.firstName.toLowerCase()),
    firstName: values.firstName,
  });
  expect(created.status).toBe(201);
  const user = created.body.user as { id: number; email: string };
  for (const tag of values.tags ?? [])
    expect((await client.post('/v1/tags/', { tag, id: user.id })).status).toBeLessThan(300);
  return user;
}

export async function create(client: Client, body: Record<string, unknown> = {}): Promise<Broadcast> {
  const res = await client.post('/v1/broadcasts', body);
  expect(res.status).toBe(201);
  return res.body.item;
}
