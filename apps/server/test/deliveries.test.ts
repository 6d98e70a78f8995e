import { Resolver } from 'node:dns/promises';
import { sql } from 'kysely';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { defaultCategory } from '../src/features/categories/categories.service.ts';
import { runDeliver } from '../src/features/deliveries/deliveries.jobs.ts';
import { recordFailed, recordSent, renewLeases } from '../src/features/deliveries/deliveries.queries.ts';
import { enqueueDeliveries, sourceProgress } from '../src/features/deliveries/deliveries.service.ts';
import { enqueueBroadcast, sendingAccount } from './delivery-setup.ts';
import { startDnsServer } from './dns-server.ts';
import { newEmail } from './email-helpers.ts';
import { createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { startSmtpServer } from './smtp.ts';
import { until } from './until.ts';

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let dns: Awaited<ReturnType<typeof startDnsServer>>;
/** Addresses the SMTP server refuses: 4xx once (then accepts), or 5xx always. */
const softOnce = new Set<string>();
const hard = new Set<string>();
beforeAll(async () => {
  smtp = await startSmtpServer({
    refuse: (address) => {
      if (hard.has(address)) return { code: 550, message: 'No such user' };
      if (softOnce.delete(address)) return { code: 451, message: 'Try again later' };
      return null;
    },
  });
  dns = await startDnsServer();
  ctx = await createTestContext({ SMTP_URL: smtp.url, DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: '300' });
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
  await dns.close();
});

const setUp = (n: number) => sendingAccount(ctx, dns, n);
const enqueue = (accountId: number, sourceId: number, emailId: number) =>
  enqueueBroadcast(ctx, accountId, sourceId, emailId);

const progress = (accountId: number, sourceId: number) =>
  withAccount(ctx.services.db, accountId, (db) => sourceProgress(db, accountId, 'broadcast', sourceId));

describe('the sending pipeline', () => {
  it('sends each queued person one personalised, DKIM-signed message; a second enqueue or run sends nothing again', async () => {
    const { accountId, email, people, name } = await setUp(3);
    await ctx.services.db
      .insertInto('suppressions')
      .values({ accountId, email: people[2].email, reason: 'unsubscribed', source: 'test' })
      .execute();
    expect(await enqueue(accountId, 1, email.id)).toEqual({ queued: 2, excluded: 1 });
    expect(await enqueue(accountId, 1, email.id)).toEqual({ queued: 0, excluded: 3 });
    await runDeliver(ctx.services, { accountId, kind: 'broadcast', sourceId: 1 });
    await runDeliver(ctx.services, { accountId, kind: 'broadcast', sourceId: 1 });
    expect(await progress(accountId, 1)).toMatchObject({ total: 2, sent: 2, pending: 0 });
    const mails = await Promise.all(people.slice(0, 2).map((p) => smtp.waitFor(p.email)));
    expect(smtp.received.filter((m) => JSON.stringify(m.to).includes(people[0].email))).toHaveLength(1);
    expect(smtp.received.some((m) => JSON.stringify(m.to).includes(people[2].email))).toBe(false);
    expect(mails[1]!.html).toContain('Hi Reader1');
    const raw = smtp.raw.get(mails[0]!)!.toString();
    expect(raw).toMatch(/List-Unsubscribe: <http:\/\/localhost:3000\/public\/unsubscribe\?token=[\w-]+>/);
    const resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([dns.server]);
    const verified = await dkimVerify(smtp.raw.get(mails[0]!)!, {
      resolver: (host, rr) => resolver.resolve(host, rr as 'TXT'),
    });
    expect(verified.results.find((r) => r.signingDomain === name)?.status.result).toBe('pass');
    const events = await withAccount(ctx.services.db, accountId, (db) =>
      db
        .selectFrom('events')
        .select(['personId', 'data'])
        .where('type', '=', 'email')
        .where('name', '=', 'sent')
        .execute(),
    );
    expect(events).toHaveLength(2);
    expect(events[0]!.data).toMatchObject({ broadcastId: 1, emailId: email.id });
  });

  it("tracks a person's message (open pixel, click redirects for the email's links, not Herald's own) but not a test send", async () => {
    const { accountId, email, people } = await setUp(1);
    await ctx.services.db
      .updateTable('emails')
      .set({
        html: '<html><body><p>Hi</p><a href="https://example.com/news?a=1&amp;b=2">News</a><a href="{{ unsubscribe_url }}">Unsubscribe</a></body></html>',
      })
      .where('id', '=', email.id)
      .execute();
    await enqueue(accountId, 7, email.id);
    await runDeliver(ctx.services, { accountId, kind: 'broadcast', sourceId: 7 });
    const html = (await smtp.waitFor(people[0].email)).html as string;
    expect(html).toMatch(/<img [^>]*src="http:\/\/localhost:3000\/t\/o\/[\w.-]+"/);
    const link = /href="(http:\/\/localhost:3000\/t\/c\/[^"]+)"/.exec(html)?.[1];
    expect(decodeURIComponent(link!.replace(/&amp;/g, '&').split('?u=')[1]!)).toBe(
      'https://example.com/news?a=1&b=2',
    );
    expect(html).toMatch(/href="http:\/\/localhost:3000\/public\/unsubscribe\?token=/);
    const before = smtp.received.length;
    await withAccount(ctx.services.db, accountId, async (db) => {
      const category = (await defaultCategory(db, accountId))!;
      await enqueueDeliveries(db, {
        accountId,
        kind: 'test',
        sourceId: 8,
        emailId: email.id,
        category: { id: Number(category.id), type: 'marketing' },
        audience: sql`true`,
      });
    });
    await runDeliver(ctx.services, { accountId, kind: 'test', sourceId: 8 });
    const previewOf = () =>
      smtp.received.slice(before).find((m) => JSON.stringify(m.to).includes(people[0].email));
    const preview = await until(previewOf, { timeout: 10_000, message: 'the preview mail' });
    expect(preview.html).toContain('href="https://example.com/news?a=1&amp;b=2"');
    expect(preview.html).not.toContain('/t/o/');
  });

  it('re-checks each person at claim: who was suppressed, archived or opted out since being queued is skipped, the others get their own message', async () => {
    const { accountId, email, people } = await setUp(5);
    expect(await enqueue(accountId, 3, email.id)).toEqual({ queued: 5, excluded: 0 });
    const db = ctx.services.db;
    const category = (await withAccount(db, accountId, (scoped) => defaultCategory(scoped, accountId)))!;
    await db
      .insertInto('suppressions')
      .values({ accountId, email: people[0].email, reason: 'unsubscribed', source: 'test' })
      .execute();
    await db
      .updateTable('people')
      .set({ archivedAt: new Date() })
      .where('accountId', '=', accountId)
      .where('id', '=', people[2].id)
      .execute();
    await db
      .insertInto('communicationPreferences')
      .values({ accountId, personId: people[3].id, categoryId: category.id, value: 'optOut' })
      .execute();
    await runDeliver(ctx.services, { accountId, kind: 'broadcast', sourceId: 3 });
    const rows = await db
      .selectFrom('deliveries')
      .select(['personId', 'status', 'lastError'])
      .where('accountId', '=', accountId)
      .where('sourceId', '=', 3)
      .orderBy('personId')
      .execute();
    const statusOf = new Map(rows.map((r) => [Number(r.personId), r.status]));
    expect(people.map((p) => statusOf.get(p.id))).toEqual([
      'canceled',
      'sent',
      'canceled',
      'canceled',
      'sent',
    ]);
    expect(rows.find((r) => r.status === 'canceled')!.lastError).toMatch(/No longer receives this mail/);
    const mails = await Promise.all([people[1], people[4]].map((p) => smtp.waitFor(p.email)));
    expect(mails.map((m) => m!.html)).toEqual([
      expect.stringContaining('Hi Reader1'),
      expect.stringContaining('Hi Reader4'),
    ]);
    for (const p of [people[0], people[2], people[3]])
      expect(smtp.received.some((m) => JSON.stringify(m.to).includes(p.email))).toBe(false);
  });

  it('retries a temporary refusal, fails a permanent one, and re-sends rows whose lease ran out but never rows marked sent', async () => {
    const { accountId, email, people } = await setUp(4);
    softOnce.add(people[0].email);
    hard.add(people[1].email);
    await enqueue(accountId, 2, email.id);
    // A crashed worker's claim: leased, lease already run out, never sent. And a row already sent must stay so.
    await ctx.services.db
      .updateTable('deliveries')
      .set({ status: 'sending', leaseUntil: new Date(Date.now() - 1000), attempts: 1 })
      .where('accountId', '=', accountId)
      .where('personId', '=', people[2].id)
      .execute();
    await ctx.services.db
      .updateTable('deliveries')
      .set({ status: 'sent', sentAt: new Date() })
      .where('accountId', '=', accountId)
      .where('personId', '=', people[3].id)
      .execute();
    await runDeliver(ctx.services, { accountId, kind: 'broadcast', sourceId: 2 });
    expect(await progress(accountId, 2)).toMatchObject({ sent: 2, failed: 1, pending: 1 });
    const failed = await ctx.services.db
      .selectFrom('deliveries')
      .select(['lastError', 'status'])
      .where('accountId', '=', accountId)
      .where('personId', '=', people[1].id)
      .executeTakeFirstOrThrow();
    expect(failed.lastError).toMatch(/No such user/);
    await smtp.waitFor(people[2].email);
    expect(smtp.received.some((m) => JSON.stringify(m.to).includes(people[3].email))).toBe(false);
    // The temporary refusal waits for its backoff; once due it goes.
    await ctx.services.db
      .updateTable('deliveries')
      .set({ notBefore: new Date() })
      .where('accountId', '=', accountId)
      .where('status', '=', 'pending')
      .execute();
    await runDeliver(ctx.services, { accountId, kind: 'broadcast', sourceId: 2 });
    await smtp.waitFor(people[0].email);
    expect(await progress(accountId, 2)).toMatchObject({ sent: 3, failed: 1, pending: 0 });
  });

  it("records each row's own outcome of a batch, and leaves a row already sent as it was", async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    const db = ctx.services.db;
    const inserted = await sql<{
      id: string;
    }>`insert into deliveries (account_id, source_kind, source_id, email_id, to_address, status, lease_until)
      select ${accountId}, 'broadcast', 9, 1, 'r' || i || '@example.com', 'sending', now() + interval '1 minute' from generate_series(1, 60) as i returning id`.execute(
      db,
    );
    const claimed = inserted.rows.map((r) => Number(r.id)).sort((a, b) => a - b);
    const sent = claimed.slice(0, 50).map((id, i) => ({
      id,
      messageId: `<m${id}@example.com>`,
      response: i % 2 ? `250 queued as ${id}` : null,
    }));
    const failed = claimed
      .slice(50, 52)
      .map((id, i) => ({ id, error: `550 no user ${id}`, retryInSeconds: i ? 30 : null }));
    await withAccount(db, accountId, async (scoped) => {
      await recordSent(scoped, accountId, sent);
      await recordFailed(scoped, accountId, failed);
    });
    const rows = await db
      .selectFrom('deliveries')
      .select(['id', 'status', 'messageId', 'providerResponse', 'lastError', 'notBefore', 'leaseUntil'])
      .where('accountId', '=', accountId)
      .orderBy('id')
      .execute();
    expect(
      rows.slice(0, 50).map((r) => [Number(r.id), r.status, r.messageId, r.providerResponse, r.leaseUntil]),
    ).toEqual(sent.map((s) => [s.id, 'sent', s.messageId, s.response, null]));
    expect(rows.slice(50).map((r) => [r.status, r.lastError])).toEqual([
      ['failed', `550 no user ${failed[0]!.id}`],
      ['pending', `550 no user ${failed[1]!.id}`],
      ...Array(8).fill(['sending', null]),
    ]);
    expect(rows[51]!.notBefore.getTime()).toBeGreaterThan(Date.now() + 20_000);
    expect(rows[50]!.notBefore.getTime()).toBeLessThan(Date.now());
    // Sent once only: a second report of a sent row changes nothing, and a failure after it neither.
    await withAccount(db, accountId, async (scoped) => {
      await recordSent(scoped, accountId, [
        { id: sent[0]!.id, messageId: '<again@example.com>', response: 'again' },
      ]);
      await recordFailed(scoped, accountId, [{ id: sent[1]!.id, error: 'late', retryInSeconds: 5 }]);
    });
    const again = await db
      .selectFrom('deliveries')
      .select(['messageId', 'status'])
      .where('accountId', '=', accountId)
      .where('id', 'in', [sent[0]!.id, sent[1]!.id])
      .orderBy('id')
      .execute();
    expect(again).toEqual([
      { messageId: sent[0]!.messageId, status: 'sent' },
      { messageId: sent[1]!.messageId, status: 'sent' },
    ]);
    await db.deleteFrom('deliveries').where('accountId', '=', accountId).execute();
  });

  it('renews the leases of rows a worker still holds under its own claim, and not of rows claimed again since', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    const db = ctx.services.db;
    // Three rows in hand, their leases about to run out; the third was claimed again by another worker meanwhile
    // (its attempts moved on), and the fourth is not in hand at all. The fifth, in hand too, was just recorded as
    // sent by this worker: not renewed, and not lost either.
    const { rows } = await sql<{ id: string }>`
      insert into deliveries (account_id, source_kind, source_id, email_id, to_address, status, attempts, lease_until)
      select ${accountId}, 'broadcast', 9, 1, 'lease' || i || '@example.com', case when i = 5 then 'sent' else 'sending' end,
        case when i = 3 then 2 else 1 end, case when i < 5 then now() + interval '2 seconds' end
      from generate_series(1, 5) as i order by i returning id`.execute(db);
    const [first, second, third, fourth, fifth] = rows.map((r) => Number(r.id));
    const held = new Map([
      [first!, 1],
      [second!, 1],
      [third!, 1],
      [fifth!, 1],
    ]);
    const renewed = await withAccount(db, accountId, (scoped) => renewLeases(scoped, accountId, held));
    expect(renewed).toEqual({ lost: [third] });
    const leases = await db
      .selectFrom('deliveries')
      .select(['id', 'leaseUntil'])
      .where('accountId', '=', accountId)
      .orderBy('id')
      .execute();
    const secondsLeft = leases.map((r) => Math.round(((r.leaseUntil?.getTime() ?? 0) - Date.now()) / 1000));
    expect(secondsLeft[0]).toBeGreaterThan(25);
    expect(secondsLeft[1]).toBeGreaterThan(25);
    expect(secondsLeft[2]).toBeLessThan(5);
    expect(secondsLeft[3]).toBeLessThan(5);
    expect(leases[4]!.leaseUntil).toBeNull();
    expect(leases.map((r) => Number(r.id))).toEqual([first, second, third, fourth, fifth]);
    await db.deleteFrom('deliveries').where('accountId', '=', accountId).execute();
  });

  it('refuses to send from an address that is neither verified nor on a verified domain', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    const email = (
      await owner.client.post('/v1/emails', newEmail({ fromEmail: 'someone@unverified.example.com' }))
    ).body.email;
    await owner.client.post('/v1/people/?source=manual', { email: uniqueEmail('reader') });
    await enqueue(accountId, 3, email.id);
    await runDeliver(ctx.services, { accountId, kind: 'broadcast', sourceId: 3 });
    expect(await progress(accountId, 3)).toMatchObject({ failed: 1, sent: 0 });
    const row = await ctx.services.db
      .selectFrom('deliveries')
      .select('lastError')
      .where('accountId', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(row.lastError).toBe(
      'Address someone@unverified.example.com has not been verified for sending email.',
    );
  });

  it('marks recipients for a segment re-check only when some segment of the account reads the sent activity', async () => {
    const { owner, accountId, email, people } = await setUp(2);
    const dirty = async () => {
      const rows = await ctx.services.db
        .selectFrom('segmentDirtyPeople')
        .select('personId')
        .where('accountId', '=', accountId)
        .execute();
      return rows.map((r) => Number(r.personId));
    };
    await ctx.services.db.deleteFrom('segmentDirtyPeople').where('accountId', '=', accountId).execute();
    await enqueue(accountId, 4, email.id);
    await runDeliver(ctx.services, { accountId, kind: 'broadcast', sourceId: 4 });
    expect(await dirty()).toEqual([]);
    const segment = await owner.client.post('/v1/segments', {
      name: 'Got an email',
      conditions: [{ type: 'emailActivity', activity: 'sent', performed: true }],
    });
    expect(segment.status).toBe(201);
    await ctx.services.db.deleteFrom('segmentDirtyPeople').where('accountId', '=', accountId).execute();
    await enqueue(accountId, 5, email.id);
    await runDeliver(ctx.services, { accountId, kind: 'broadcast', sourceId: 5 });
    expect((await dirty()).sort()).toEqual(people.map((p: { id: number }) => p.id).sort());
  });
});
