import type { EmailStatsResponse } from '@herald/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollUpEmailMetrics } from '../src/features/metrics/metrics.jobs.ts';
import { newEmail } from './email-helpers.ts';
import { createTestContext, registerUser, uniqueEmail, type Client, type TestContext } from './helpers.ts';
import { startSmtpServer } from './smtp.ts';
import { until } from './until.ts';

/**
 * The rolling presets include today (docs/tracking-and-metrics.md, Email metrics, "Periods"): a broadcast sent a moment ago
 * shows in GET /v1/emails/stats with the default period, by broadcast and by email.
 */

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  ctx = await createTestContext({ SMTP_URL: smtp.url });
  // The worker sends the broadcast and runs the rollup poller.
  await ctx.startWorker();
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

const accountOf = (owner: Awaited<ReturnType<typeof registerUser>>) => owner.account.accountId as number;
const stats = (client: Client, query: string) => client.get<EmailStatsResponse>(`/v1/emails/stats?${query}`);
const roll = () => rollUpEmailMetrics(ctx.services.db, { wait: true });

describe('a broadcast sent today', () => {
  it('counts at once in the default period, by broadcast and by email, whatever the time zone', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = accountOf(owner);
    for (const name of ['ada', 'grace', 'edsger'])
      expect(
        (await owner.client.post('/v1/people/?source=manual', { email: uniqueEmail(name) })).status,
      ).toBe(201);
    const fromEmail = uniqueEmail('sender');
    await ctx.services.db
      .insertInto('senderAddresses')
      .values({ accountId, email: fromEmail, status: 'verified' })
      .execute();
    const email = await owner.client.post('/v1/emails', newEmail({ fromEmail }));
    expect(email.status).toBe(201);
    const emailId = email.body.email.id as number;
    const broadcast = await owner.client.post('/v1/broadcasts', { name: 'Today', emailId });
    const broadcastId = broadcast.body.item.id as number;
    // Sent for real: the worker sends through the SMTP server and writes a `sent` event for each message.
    expect((await owner.client.post(`/v1/broadcasts/${broadcastId}/send`)).status).toBe(200);
    await until(
      async () => (await owner.client.get(`/v1/broadcasts/${broadcastId}`)).body.item.status === 'sent',
      { timeout: 20_000, message: 'the broadcast sent' },
    );
    await roll();
    const sentAt = (
      await sql<{
        at: Date;
      }>`select max(created_at) as at from events where account_id = ${accountId} and name = 'sent'`.execute(
        ctx.services.db,
      )
    ).rows[0]!.at.getTime();

    const queries = [
      '',
      `broadcastId=${broadcastId}`,
      `emailIds=${emailId}`,
      `emailIds[]=${emailId}&broadcastId=${broadcastId}`,
      'period=last7Days',
      'period=last90Days',
    ];
    // The account's zone (Europe/London), and zones whose today began long ago or a moment ago.
    for (const zone of [
      '',
      '&timezone=Pacific/Kiritimati',
      '&timezone=Pacific/Pago_Pago',
      '&timezone=America/Santiago',
    ]) {
      for (const query of queries) {
        const res = await stats(owner.client, `${query}${zone}`);
        expect(res.status, query + zone).toBe(200);
        const s = res.body.stats;
        expect(s.totals.sent, query + zone).toBe(3);
        expect(s.totals.delivered, query + zone).toBe(3);
        // The send's hour falls in the period's bucket of today: the last, unless a local midnight passed meanwhile.
        const hourOfSend = Math.floor(sentAt / 3_600_000) * 3_600_000;
        const bucket = s.series.find(
          (b) => Date.parse(b.start) <= hourOfSend && hourOfSend < Date.parse(b.end),
        );
        expect(bucket?.sent, query + zone).toBe(3);
      }
    }
    // A calendar preset still ends where today starts: last week never holds today's send.
    expect(
      (await stats(owner.client, `period=lastWeek&broadcastId=${broadcastId}`)).body.stats.totals.sent,
    ).toBe(0);
  });
});
