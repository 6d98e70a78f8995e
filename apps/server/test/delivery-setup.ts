/** A sending account for the pipeline's tests: a verified domain, an email from it, people, and a queued send. */
import { sql } from 'kysely';
import { expect } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { defaultCategory } from '../src/features/categories/categories.service.ts';
import { enqueueDeliveries } from '../src/features/deliveries/deliveries.service.ts';
import type { startDnsServer } from './dns-server.ts';
import { newEmail } from './email-helpers.ts';
import { registerUser, uniqueEmail, type TestContext } from './helpers.ts';

type Owner = Awaited<ReturnType<typeof registerUser>>;
type Dns = Awaited<ReturnType<typeof startDnsServer>>;

/** An account with a verified domain, an email from it, and `n` people; returns what a send needs. */
export async function sendingAccount(ctx: TestContext, dns: Dns, n: number) {
  const owner: Owner = await registerUser(ctx.app);
  const { client } = owner;
  const accountId = owner.account.accountId as number;
  const name = `pipeline-${Date.now()}-${Math.floor(Math.random() * 1e6)}.example.org`;
  const domain = (await client.post('/v1/settings/email/domains', { domain: name })).body.domain;
  for (const record of domain.records)
    if (record.type === 'TXT')
      dns.zone[record.host] = { TXT: [...(dns.zone[record.host]?.TXT ?? []), record.value] };
  expect((await client.post(`/v1/settings/email/domains/${domain.id}/verify`)).body.domain.status).toBe(
    'verified',
  );
  const email = (await client.post('/v1/emails', newEmail({ fromEmail: `news@${name}` }))).body.email;
  const people = [];
  for (let i = 0; i < n; i++)
    people.push(
      (
        await client.post('/v1/people/?source=manual', {
          email: uniqueEmail('reader'),
          firstName: `Reader${i}`,
        })
      ).body.user,
    );
  return { owner, accountId, email, people, name };
}

/** Queue a broadcast of `emailId` as source `sourceId` to every person of the account. */
export async function enqueueBroadcast(
  ctx: TestContext,
  accountId: number,
  sourceId: number,
  emailId: number,
) {
  return withAccount(ctx.services.db, accountId, async (db) => {
    const category = (await defaultCategory(db, accountId))!;
    return enqueueDeliveries(db, {
      accountId,
      kind: 'broadcast',
      sourceId,
      emailId,
      category: { id: Number(category.id), type: 'marketing' },
      audience: sql`true`,
    });
  });
}
