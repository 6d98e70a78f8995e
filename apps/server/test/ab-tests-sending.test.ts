import { abTestMessages, abTestSplit } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { decideJobKey, runAbTestDecide } from '../src/features/broadcasts/ab-tests.jobs.ts';
import { enqueueJob } from '../src/jobs/enqueue.ts';
import { abTest, ctx, draft, rowsOf, setup, smtp, useAbTestsContext } from './ab-tests-fixtures.ts';
import type { Client } from './helpers.ts';
import { queueDrained } from './job-queue.ts';
import { until } from './until.ts';

// Sending an A/B test: the exact split, the rest held until the decision, the winner sent, and a cancel, a pause and a
// scheduled start on the way (the settings and the decision rules are ab-tests.test.ts).
useAbTestsContext();

const statusOf = async (client: Client, id: number) => (await client.get(`/v1/broadcasts/${id}/status`)).body;
const received = (address: string) =>
  smtp.received.filter((m) => JSON.stringify(m.to).toLowerCase().includes(address.toLowerCase()));
const decisionJobs = async (accountId: number, id: number) =>
  (
    await ctx.database.pool.query<{ run_at: Date }>(
      'select run_at from graphile_worker.jobs where key = $1',
      [decideJobKey(accountId, id)],
    )
  ).rows;
/** Move the decision to now: the real worker runs it. */
const decideNow = (accountId: number, broadcastId: number) =>
  withAccount(ctx.services.db, accountId, (db) =>
    enqueueJob(
      db,
      'ab-test-decide',
      { accountId, broadcastId },
      { jobKey: decideJobKey(accountId, broadcastId), runAt: new Date() },
    ),
  );

describe('A/B tests: sending', () => {
  it('splits the test share exactly and disjointly, holds the rest until the decision, then sends the winner to the rest once; no data: A wins', async () => {
    const { client, accountId, emailId, persons } = await setup(21);
    const broadcast = await draft(client, {
      name: 'Split',
      emailId,
      abTest: abTest({ testShare: 50, waitHours: 2 }),
    });
    const sent = await client.post(`/v1/broadcasts/${broadcast.id}/send`);
    expect(sent.status).toBe(200);
    expect(sent.body.item.status).toBe('ab-testing');

    const split = abTestSplit(21, 50, 2);
    expect(split).toEqual({ variants: [6, 5], test: 11, rest: 10 });
    await until(
      async () => {
        const s = await statusOf(client, broadcast.id);
        return s.progress.sent === split.test && s;
      },
      { timeout: 30_000, message: 's.progress.sent === split.test' },
    );
    const rows = await rowsOf(accountId, broadcast.id);
    expect(rows).toHaveLength(split.test);
    expect(new Set(rows.map((r) => r.personId)).size).toBe(split.test);
    expect(rows.filter((r) => r.variant === 1)).toHaveLength(split.variants[0]!);
    expect(rows.filter((r) => r.variant === 2)).toHaveLength(split.variants[1]!);
    expect(rows.every((r) => Number(r.emailId) === emailId)).toBe(true);
    const byPerson = new Map(persons.map((p) => [p.id, p.email]));
    for (const row of rows) {
      const mails = await until(
        async () => {
          const m = received(byPerson.get(Number(row.personId))!);
          return m.length === 1 && m;
        },
        { timeout: 30_000, message: 'm.length === 1' },
      );
      expect(mails[0]!.subject).toBe(row.variant === 1 ? 'Subject A' : 'Subject B');
    }
    // The test share is out, and it stays A/B testing (not sent) until the decision (a job hours ahead).
    await queueDrained(ctx.database.pool);
    const testing = await statusOf(client, broadcast.id);
    expect(testing.item.status).toBe('ab-testing');
    expect(testing.item.abTest.decidesAt).not.toBeNull();
    expect(testing.abTest.variants).toEqual([
      { variant: 1, name: 'A', queued: 6, sent: 6, opens: 0, clicks: 0 },
      { variant: 2, name: 'B', queued: 5, sent: 5, opens: 0, clicks: 0 },
    ]);
    const jobs = await decisionJobs(accountId, broadcast.id);
    expect(jobs).toHaveLength(1);
    expect(
      Math.abs(jobs[0]!.run_at.getTime() - new Date(testing.item.abTest.decidesAt).getTime()),
    ).toBeLessThan(1000);
    expect(jobs[0]!.run_at.getTime() - Date.now()).toBeGreaterThan(3_600_000);

    await decideNow(accountId, broadcast.id);
    const done = await until(
      async () => {
        const s = await statusOf(client, broadcast.id);
        return s.item.status === 'sent' && s;
      },
      { timeout: 30_000, message: `s.item.status === 'sent'` },
    );
    expect(done.item.abTest).toMatchObject({ winner: 0, explanation: abTestMessages.noData('opens', 'A') });
    expect(done.item.abTest.decidedAt).not.toBeNull();
    expect(done.item.stats).toMatchObject({ queued: 21, sent: 21, excluded: 0 });
    const all = await rowsOf(accountId, broadcast.id);
    expect(all.filter((r) => r.variant === 0)).toHaveLength(split.rest);
    for (const person of persons) {
      const mails = await until(
        async () => {
          const m = received(person.email);
          return m.length >= 1 && m;
        },
        { timeout: 30_000, message: 'm.length >= 1' },
      );
      if (all.find((r) => Number(r.personId) === person.id)!.variant === 0)
        expect(mails[0]!.subject).toBe('Subject A');
    }
    await queueDrained(ctx.database.pool);
    expect(persons.map((p) => received(p.email).length)).toEqual(persons.map(() => 1));
    // A second decision does nothing.
    await runAbTestDecide(ctx.services, accountId, broadcast.id);
    expect((await rowsOf(accountId, broadcast.id)).length).toBe(21);

    // Duplicate: the settings without the decision.
    const copy = await client.post(`/v1/broadcasts/${broadcast.id}/duplicate`);
    expect(copy.body.item.abTest).toEqual({
      ...done.item.abTest,
      decidesAt: null,
      winner: null,
      decidedAt: null,
      explanation: null,
    });
  }, 90_000);

  it('sends the rest the variant with the better open rate, with its own email and subject', async () => {
    const { client, accountId, emailId, otherEmailId, persons } = await setup(12);
    const broadcast = await draft(client, {
      emailId,
      abTest: abTest({
        variants: [{ subject: 'Plain' }, { name: 'Fancy', emailId: otherEmailId, subject: 'Fancy subject' }],
        testShare: 50,
      }),
    });
    expect((await client.post(`/v1/broadcasts/${broadcast.id}/send`)).body.item.status).toBe('ab-testing');
    await until(
      async () => {
        const s = await statusOf(client, broadcast.id);
        return s.progress.sent === 6 && s;
      },
      { timeout: 30_000, message: 's.progress.sent === 6' },
    );
    const rows = await rowsOf(accountId, broadcast.id);
    expect(rows.filter((r) => r.variant === 2).every((r) => Number(r.emailId) === otherEmailId)).toBe(true);
    // Two of variant 2's three open, one of variant 1's three (and that one twice: people count once).
    const opener = (variant: number, n: number) => rows.filter((r) => r.variant === variant).slice(0, n);
    const events = [...opener(1, 1), ...opener(1, 1), ...opener(2, 2)].map((r) => ({
      accountId,
      personId: Number(r.personId),
      type: 'email',
      name: 'opened',
      source: 'email',
      data: JSON.stringify({ broadcastId: broadcast.id, variant: r.variant, emailId: Number(r.emailId) }),
    }));
    await ctx.services.db.insertInto('events').values(events).execute();
    // The figures are the metrics rollup's: the worker's rollup takes the opens within seconds.
    const opensOf = (s: { abTest: { variants: { opens: number }[] } }) =>
      s.abTest.variants.map((v) => v.opens);
    expect(
      opensOf(
        await until(
          async () => {
            const s = await statusOf(client, broadcast.id);
            return opensOf(s).join() === '1,2' && s;
          },
          { timeout: 30_000, message: `opensOf(s).join() === '1,2'` },
        ),
      ),
    ).toEqual([1, 2]);

    await decideNow(accountId, broadcast.id);
    const done = await until(
      async () => {
        const s = await statusOf(client, broadcast.id);
        return s.item.status === 'sent' && s;
      },
      { timeout: 30_000, message: `s.item.status === 'sent'` },
    );
    expect(done.item.abTest).toMatchObject({
      winner: 1,
      explanation: abTestMessages.won('opens', 'Fancy', '66.7%', 'A', '33.3%'),
    });
    const rest = (await rowsOf(accountId, broadcast.id)).filter((r) => r.variant === 0);
    expect(rest).toHaveLength(6);
    expect(rest.every((r) => Number(r.emailId) === otherEmailId)).toBe(true);
    const restPeople = persons.filter((p) => rest.some((r) => Number(r.personId) === p.id));
    for (const person of restPeople) {
      const mail = (
        await until(
          async () => {
            const m = received(person.email);
            return m.length === 1 && m;
          },
          { timeout: 30_000, message: 'm.length === 1' },
        )
      )[0]!;
      expect(mail.subject).toBe('Fancy subject');
      expect(mail.html).toContain('The other email.');
    }
  }, 90_000);

  it('cancel while A/B testing removes the decision and stops the rest; the decision job then does nothing', async () => {
    const { client, accountId, emailId, persons } = await setup(6);
    const broadcast = await draft(client, { emailId, abTest: abTest({ testShare: 50 }) });
    await client.post(`/v1/broadcasts/${broadcast.id}/send`);
    await until(
      async () => {
        const jobs = await decisionJobs(accountId, broadcast.id);
        return jobs.length === 1 && jobs;
      },
      { timeout: 30_000, message: 'jobs.length === 1' },
    );
    const canceled = await client.post(`/v1/broadcasts/${broadcast.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.item.status).toBe('canceled');
    expect(await decisionJobs(accountId, broadcast.id)).toEqual([]);
    await runAbTestDecide(ctx.services, accountId, broadcast.id);
    await queueDrained(ctx.database.pool);
    const rows = await rowsOf(accountId, broadcast.id);
    expect(rows.length).toBe(3);
    expect(rows.every((r) => r.status === 'sent' || r.status === 'canceled')).toBe(true);
    expect(rows.some((r) => r.variant === 0)).toBe(false);
    expect((await client.get(`/v1/broadcasts/${broadcast.id}`)).body.item).toMatchObject({
      status: 'canceled',
      abTest: { winner: null },
    });
    expect(persons.reduce((n, p) => n + received(p.email).length, 0)).toBe(
      rows.filter((r) => r.status === 'sent').length,
    );
  }, 60_000);

  it('a test paused while A/B testing is decided, and the rest waits, held, until it is resumed', async () => {
    const { client, accountId, emailId, persons } = await setup(4);
    const broadcast = await draft(client, { emailId, abTest: abTest({ testShare: 50 }) });
    await client.post(`/v1/broadcasts/${broadcast.id}/send`);
    await until(
      async () => {
        const s = await statusOf(client, broadcast.id);
        return s.progress.sent === 2 && s;
      },
      { timeout: 30_000, message: 's.progress.sent === 2' },
    );
    expect((await client.post(`/v1/broadcasts/${broadcast.id}/pause`)).status).toBe(200);
    await decideNow(accountId, broadcast.id);
    const held = await until(
      async () => {
        const s = await statusOf(client, broadcast.id);
        return s.item.status === 'ab-test-sending-winner' && s;
      },
      { timeout: 30_000, message: `s.item.status === 'ab-test-sending-winner'` },
    );
    expect(held.item.abTest.winner).toBe(0);
    await queueDrained(ctx.database.pool);
    expect(
      (await rowsOf(accountId, broadcast.id)).filter((r) => r.variant === 0).map((r) => r.status),
    ).toEqual(['paused', 'paused']);
    expect((await statusOf(client, broadcast.id)).item.status).toBe('ab-test-sending-winner');
    expect((await client.post(`/v1/broadcasts/${broadcast.id}/resume`)).status).toBe(200);
    await until(
      async () => {
        const s = await statusOf(client, broadcast.id);
        return s.item.status === 'sent' && s;
      },
      { timeout: 30_000, message: `s.item.status === 'sent'` },
    );
    for (const person of persons)
      await until(
        async () => {
          const m = received(person.email);
          return m.length === 1 && m;
        },
        { timeout: 30_000, message: 'm.length === 1' },
      );
  }, 60_000);

  it('a scheduled test starts A/B testing at its time', async () => {
    const { client, accountId, emailId } = await setup(4);
    const broadcast = await draft(client, {
      emailId,
      sendAt: new Date(Date.now() + 3_600_000).toISOString(),
      abTest: abTest({ testShare: 50 }),
    });
    expect((await client.post(`/v1/broadcasts/${broadcast.id}/send`)).body.item.status).toBe('scheduled');
    await ctx.services.db
      .updateTable('broadcasts')
      .set({ sendAt: new Date(Date.now() - 1000) })
      .where('id', '=', broadcast.id)
      .execute();
    await withAccount(ctx.services.db, accountId, (db) =>
      enqueueJob(
        db,
        'start-broadcast',
        { accountId, broadcastId: broadcast.id },
        { jobKey: `start-broadcast:${accountId}:${broadcast.id}`, runAt: new Date() },
      ),
    );
    const testing = await until(
      async () => {
        const s = await statusOf(client, broadcast.id);
        return s.progress.sent === 2 && s;
      },
      { timeout: 30_000, message: 's.progress.sent === 2' },
    );
    expect(testing.item.status).toBe('ab-testing');
    expect(testing.item.stats.queued).toBe(2);
  }, 60_000);
});
