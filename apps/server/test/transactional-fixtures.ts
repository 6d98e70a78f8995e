import { expect } from 'vitest';
import { newEmail } from './email-helpers.ts';
import { Client, registerUser, uniqueEmail, type ApiResponse, type TestContext } from './helpers.ts';
import { useSmtpContext, type SmtpSink } from './smtp-context.ts';

/**
 * What the transactional send tests share: a server (on its own public URL) with a worker and an SMTP sink, an account
 * ready to send, and the calls a customer's system makes. A test file calls useTransactionalContext() once: its own
 * beforeAll builds the server and its afterAll closes it; `ctx` and `smtp`, read live by the importers, name the
 * current file's.
 */
export const origin = 'https://herald.test';
export let ctx: TestContext;
export let smtp: SmtpSink;

export function useTransactionalContext(): void {
  useSmtpContext({ MAIL_FROM: 'Herald <no-reply@herald.test>', PUBLIC_URL: origin }, (server, sink) => {
    ctx = server;
    smtp = sink;
  });
}

/** An account with a verified sender, a saved email from it, and its API key. */
export async function setup() {
  const owner = await registerUser(ctx.app, { origin });
  const accountId = owner.account.accountId as number;
  const fromEmail = uniqueEmail('sender');
  await ctx.services.db
    .insertInto('senderAddresses')
    .values({ accountId, email: fromEmail, status: 'verified', verifiedAt: new Date() })
    .execute();
  const email = await owner.client.post(
    '/v1/emails',
    newEmail({
      fromEmail,
      subject: 'Order {{ person.orderId }} for {{ person.firstName | default: "you" }}',
      html: '<p>Hi {{ person.firstName | default: "there" }}, order {{ person.orderId }} ships {{ person.items[0].name }}.</p>',
    }),
  );
  expect(email.status).toBe(201);
  const apiKey = (await owner.client.post('/v1/accounts/rotate-api-key')).body.apiKey as string;
  const categories = (await owner.client.get('/v1/settings/communication-categories')).body.categories as {
    id: number;
    name: string;
    type: string;
  }[];
  return { owner, accountId, fromEmail, emailId: email.body.email.id as number, apiKey, categories };
}
export type Setup = Awaited<ReturnType<typeof setup>>;

/** A call as a customer's system makes it: API key, no cookie, no Origin. */
export function send(account: Pick<Setup, 'apiKey'>, body: unknown, key?: string): Promise<ApiResponse> {
  return new Client(ctx.app).post('/v1/transactional/send', body, {
    origin: null,
    headers: {
      authorization: `Bearer ${account.apiKey}`,
      ...(key !== undefined ? { 'idempotency-key': key } : {}),
    },
  });
}

export function status(account: Pick<Setup, 'apiKey'>, deliveryId: number) {
  return new Client(ctx.app).get(`/v1/transactional/${deliveryId}`, {
    origin: null,
    headers: { authorization: `Bearer ${account.apiKey}` },
  });
}

export const mailsTo = (address: string) =>
  smtp.received.filter((m) => JSON.stringify(m.to).toLowerCase().includes(address.toLowerCase()));
export const deliveriesOf = (accountId: number) =>
  ctx.services.db
    .selectFrom('deliveries')
    .select(['id', 'status'])
    .where('accountId', '=', accountId)
    .execute();
