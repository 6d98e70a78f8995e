import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../src/db/connection.ts';
import { newEmail } from '../email-helpers.ts';
import { registerUser, type TestContext } from '../helpers.ts';
import { waitUntil } from './herald-process.ts';
import type { Sink } from './sink.ts';

/**
 * An account with `people` people at `@<domain>` (written in one statement), a verified sender and an email with a
 * merge tag; returns the owner, the account and the email.
 */
export async function prepareSendAccount(ctx: TestContext, people: number, domain: string) {
  const owner = await registerUser(ctx.app);
  const accountId = owner.account.accountId as number;
  const fromEmail = `news@${domain}`;
  const email = await owner.client.post(
    '/v1/emails',
    newEmail({ fromEmail, subject: 'News for {{ person.firstName | default: "you" }}' }),
  );
  expect(email.status).toBe(201);
  await ctx.services.db
    .insertInto('senderAddresses')
    .values({ accountId, email: fromEmail, status: 'verified' })
    .execute();
  await sql`insert into people (account_id, email, first_name)
    select ${accountId}, 'reader' || i || '@' || ${domain}, 'Reader ' || i from generate_series(1, ${people}) as i`.execute(
    ctx.services.db,
  );
  const addresses = Array.from({ length: people }, (_, i) => `reader${i + 1}@${domain}`);
  return { owner, accountId, emailId: email.body.email.id as number, addresses };
}

/** Create a broadcast of the email to everyone and send it now; its id. */
export async function sendBroadcast(
  owner: Awaited<ReturnType<typeof registerUser>>,
  emailId: number,
): Promise<number> {
  const created = await owner.client.post('/v1/broadcasts', {
    name: 'Under fire',
    emailId,
    audience: { type: 'all' },
  });
  expect(created.status).toBe(201);
  const sent = await owner.client.post(`/v1/broadcasts/${created.body.item.id}/send`);
  expect(sent.status).toBe(200);
  return created.body.item.id as number;
}

/** The broadcast's status and its deliveries by status, with the `sent` events recorded for it. */
export async function broadcastState(ctx: TestContext, accountId: number, broadcastId: number) {
  const { rows } = await sql<{
    status: string;
    pending: number;
    sending: number;
    sent: number;
    failed: number;
    other: number;
    events: number;
  }>`
    select b.status,
      count(d.id) filter (where d.status = 'pending')::int as pending, count(d.id) filter (where d.status = 'sending')::int as sending,
      count(d.id) filter (where d.status = 'sent')::int as sent, count(d.id) filter (where d.status = 'failed')::int as failed,
      count(d.id) filter (where d.status not in ('pending', 'sending', 'sent', 'failed'))::int as other,
      (select count(*) from events e where e.account_id = ${accountId} and e.type = 'email' and e.name = 'sent' and e.data->>'broadcastId' = ${String(broadcastId)})::int as events
    from broadcasts b left join deliveries d on d.account_id = b.account_id and d.source_kind = 'broadcast' and d.source_id = b.id
    where b.account_id = ${accountId} and b.id = ${broadcastId}
    group by b.status`.execute(ctx.services.db);
  return rows[0]!;
}

/** The broadcast's state once it is no longer sending and no row is pending or in flight (at most 240 s). */
export function broadcastDone(ctx: TestContext, accountId: number, broadcastId: number) {
  const state = () => broadcastState(ctx, accountId, broadcastId);
  return waitUntil(
    async () => {
      const now = await state();
      return now.status !== 'sending' && now.pending + now.sending === 0 ? now : undefined;
    },
    240_000,
    async () => JSON.stringify(await state()),
    500,
  );
}

/**
 * What the sink says of a send to `addresses`: people who got nothing (`lost`, and apart from them `lostAtDot`: those
 * whose message was cut at its final dot, see Sink.wasCutAtDot), and messages beyond one per person or Message-ID.
 */
export function sendTotals(sink: Sink, addresses: string[]) {
  const counts = sink.counts();
  let lost = 0;
  let duplicated = 0;
  let lostAtDot = 0;
  for (const address of addresses) {
    const got = sink.receivedBy(address);
    if (got === 0 && sink.wasCutAtDot(address)) lostAtDot++;
    else if (got === 0) lost++;
    else duplicated += got - 1;
  }
  return {
    received: counts.received,
    lost,
    lostAtDot,
    duplicated: Math.max(duplicated, counts.duplicateMessageIds),
  };
}

/**
 * The deliveries of a send recorded as sent, by `<person> <Message-ID>`: each should have one `sent` email event
 * (recordSent writes it with the row, naming the message in `data.messageId`). `sourceId`: one broadcast; none: every
 * delivery of that kind in the account.
 */
export async function sentDeliveries(
  db: Database,
  accountId: number,
  sourceKind: 'broadcast' | 'flow',
  sourceId?: number,
): Promise<Map<string, number>> {
  const { rows } = await sql<{ key: string; n: number }>`
    select coalesce(person_id::text, '') || ' ' || coalesce(message_id, '') as key, count(*)::int as n
    from deliveries
    where account_id = ${accountId} and source_kind = ${sourceKind} and status = 'sent'
      and (${sourceId ?? null}::bigint is null or source_id = ${sourceId ?? null}::bigint)
    group by 1`.execute(db);
  return new Map(rows.map((row) => [row.key, row.n]));
}
