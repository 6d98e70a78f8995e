import http from 'node:http';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEmail } from './email-helpers.ts';
import { createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { startSmtpServer } from './smtp.ts';
import { until } from './until.ts';

/**
 * A SIGTERM (server.stop) lets work in hand finish: a send stops claiming, sends and records the batches it holds
 * and leaves no row leased, so nothing waits for a lease to run out and nothing is sent twice when a worker takes
 * the rest; an HTTP request that is half received when the server closes is still answered.
 */
const origin = 'https://herald.test';
let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  // Batches of 250: the send is sized so that rows are still unclaimed when the stop lands (loops × batch < people).
  ctx = await createTestContext({
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Herald <no-reply@herald.test>',
    PUBLIC_URL: origin,
    SEND_BATCH_SIZE: '250',
  });
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

describe('graceful shutdown', () => {
  it('stops a send between batches: nothing left leased, every message sent is recorded, the rest goes once afterwards', async () => {
    const owner = await registerUser(ctx.app, { origin });
    const accountId = owner.account.accountId as number;
    const fromEmail = uniqueEmail('sender');
    const email = await owner.client.post('/v1/emails', newEmail({ fromEmail }));
    await ctx.services.db
      .insertInto('senderAddresses')
      .values({ accountId, email: fromEmail, status: 'verified' })
      .execute();
    const people = 3000;
    await sql`insert into people (account_id, email) select ${accountId}, 'stop-' || g || '-' || ${accountId} || '@example.com' from generate_series(1, ${people}) g`.execute(
      ctx.services.db,
    );
    const broadcast = await owner.client.post('/v1/broadcasts', {
      emailId: email.body.email.id,
      audience: { type: 'all' },
    });
    const mine = () =>
      smtp.received.filter((mail) => JSON.stringify(mail.to).includes(`-${accountId}@example.com`));

    const runner = await ctx.startWorker();
    expect((await owner.client.post(`/v1/broadcasts/${broadcast.body.item.id}/send`)).status).toBe(200);
    await until(() => mine().length >= 200, {
      timeout: 60_000,
      interval: 50,
      message: 'the send to be under way',
    });
    await runner.stop();

    const counts = async () =>
      (
        await sql<{
          status: string;
          count: number;
        }>`select status, count(*)::int as count from deliveries where account_id = ${accountId} group by status`.execute(
          ctx.services.db,
        )
      ).rows.reduce<Record<string, number>>((all, row) => ({ ...all, [row.status]: row.count }), {});
    const stopped = await counts();
    expect(stopped.sending ?? 0).toBe(0);
    expect(stopped.sent).toBeLessThan(people);
    // Every message the SMTP server accepted before the stop is recorded as sent, and nothing more.
    await smtp.idle();
    expect(mine().length).toBe(stopped.sent);

    await ctx.startWorker();
    await until(async () => (await counts()).sent === people, {
      timeout: 60_000,
      message: 'the rest of the send after the restart',
    });
    await until(() => mine().length >= people, { timeout: 60_000, message: 'the last messages to arrive' });
    const recipients = mine().map((mail) => JSON.stringify(mail.to));
    expect(recipients.length).toBe(people);
    expect(new Set(recipients).size).toBe(people);
  });

  it('answers a request that is still arriving when the server closes, then closes', async () => {
    const url = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const body = JSON.stringify({ email: 'halfway@example.com', password: 'not the password' });
    const arrived = new Promise((resolve) => ctx.app.server.once('request', resolve));
    const answer = new Promise<number>((resolve, reject) => {
      const request = http.request(
        `${url}/v1/auth/login`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), origin },
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      request.on('error', reject);
      request.write(body.slice(0, 10));
      // The rest of the body arrives after the close has begun: a slow client, part of what is tested, not a wait.
      setTimeout(() => request.end(body.slice(10)), 300);
    });
    // The server has the request's head: the close begins while its body is still arriving.
    await arrived;
    let closed = false;
    const closeStarted = Date.now();
    const closing = ctx.app.close().then(() => (closed = true));
    expect(closed).toBe(false);
    const status = await answer;
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
    await closing;
    expect(closed).toBe(true);
    // Its connection ended with the answer (Connection: close); kept alive, it would hold the close for 5 s.
    expect(Date.now() - closeStarted).toBeLessThan(2000);
  });
});
