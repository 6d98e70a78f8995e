import { abTestMessages, abTestSplit, sendingMessages, type Broadcast } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { decideJobKey, runAbTestDecide } from '../src/features/broadcasts/ab-tests.jobs.ts';
import { decideWinner } from '../src/features/broadcasts/ab-tests.service.ts';
import { enqueueJob } from '../src/jobs/enqueue.ts';
import { newEmail } from './email-helpers.ts';
import { createTestContext, registerUser, uniqueEmail, type Client, type TestContext } from './helpers.ts';
import { queueDrained } from './job-queue.ts';
import { startSmtpServer } from './smtp.ts';
import { until } from './until.ts';

const origin = 'https://herald.test';
let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  ctx = await createTestContext({ SMTP_URL: smtp.url, MAIL_FROM: 'Herald <no-reply@herald.test>', PUBLIC_URL: origin });
  await ctx.startWorker();
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

/** An account with `people` people and two emails from a verified sender. */
async function setup(people: number) {
  const owner = await registerUser(ctx.app, { origin });
  const accountId = owner.account.accountId as number;
  const fromEmail = uniqueEmail('sender');
  await ctx.services.db.insertInto('senderAddresses').values({ accountId, email: fromEmail, status: 'verified' }).execute();
  const main = await owner.client.post('/v1/emails', newEmail({ fromEmail, subject: 'Main subject' }));
  const other = await owner.client.post('/v1/emails', newEmail({ fromEmail, subject: 'Other email', html: '<p>The other email.</p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>' }));
  expect([main.status, other.status]).toEqual([201, 201]);
  const persons: { id: number; email: string }[] = [];
  for (let i = 0; i < people; i++) {
    const created = await owner.client.post('/v1/people/?source=manual', { email: uniqueEmail(`ab${i}`), firstName: `P${i}` });
    persons.push(created.body.user);
  }
  return { owner, client: owner.client, accountId, fromEmail, emailId: main.body.email.id as number, otherEmailId: other.body.email.id as number, persons };
}

const abTest = (extra: Record<string, unknown> = {}) => ({ variants: [{ subject: 'Subject A' }, { subject: 'Subject B' }], testShare: 50, metric: 'opens', waitHours: 4, ...extra });

async function draft(client: Client, body: Record<string, unknown>): Promise<Broadcast> {
  const res = await client.post('/v1/broadcasts', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.item;
}

const statusOf = async (client: Client, id: number) => (await client.get(`/v1/broadcasts/${id}/status`)).body;
const rowsOf = (accountId: number, id: number) =>
  ctx.services.db.selectFrom('deliveries').select(['personId', 'variant', 'emailId', 'status']).where('accountId', '=', accountId).where('sourceKind', '=', 'broadcast').where('sourceId', '=', id).execute();
const received = (address: string) => smtp.received.filter((m) => JSON.stringify(m.to).toLowerCase().includes(address.toLowerCase()));
const decisionJobs = async (accountId: number, id: number) =>
  (await ctx.database.pool.query<{ run_at: Date }>('select run_at from graphile_worker.jobs where key = $1', [decideJobKey(accountId, id)])).rows;
/** Move the decision to now: the real worker runs it. */
const decideNow = (accountId: number, broadcastId: number) =>
  withAccount(ctx.services.db, accountId, (db) => enqueueJob(db, 'ab-test-decide', { accountId, broadcastId }, { jobKey: decideJobKey(accountId, broadcastId), runAt: new Date() }));

describe('A/B tests: the API', () => {
  it('stores a test on a draft (names A–D by default), refuses bad settings with a 400 and no change, and clears it', async () => {
    const { client, emailId, otherEmailId } = await setup(0);
    const broadcast = await draft(client, { name: 'Test me', emailId, abTest: abTest() });
    expect(broadcast.abTest).toEqual({
      variants: [{ name: 'A', subject: 'Subject A', emailId: null }, { name: 'B', subject: 'Subject B', emailId: null }],
      testShare: 50, metric: 'opens', waitHours: 4, decidesAt: null, winner: null, decidedAt: null, explanation: null,
    });
    const refusals: [unknown, string][] = [
      [abTest({ variants: [{ subject: 'Only' }] }), abTestMessages.tooFewVariants],
      [abTest({ variants: ['1', '2', '3', '4', '5'].map((subject) => ({ subject })) }), abTestMessages.tooManyVariants],
      [abTest({ testShare: 60 }), abTestMessages.testShare],
      [abTest({ testShare: 2.5 }), abTestMessages.testShare],
      [abTest({ waitHours: 0 }), abTestMessages.waitHours],
      [abTest({ waitHours: 100 }), abTestMessages.waitHours],
      [abTest({ metric: 'revenue' }), abTestMessages.metric],
      [abTest({ variants: [{ subject: 'Same' }, { subject: 'Same' }] }), abTestMessages.sameAsAnother('B')],
      [abTest({ variants: [{ name: 'Bold', subject: 'x' }, { name: 'bold', subject: 'y' }] }), abTestMessages.duplicateNames],
      [abTest({ variants: [{ subject: '' }, { subject: 'y' }] }), abTestMessages.subjectEmpty],
      [abTest({ variants: [{ subject: 'x' }, { emailId: 999_999 }] }), abTestMessages.variantEmailGone('B')],
      [abTest({ seed: 4 }), 'Unrecognized key: "seed"'],
    ];
    for (const [body, message] of refusals) {
      const res = await client.patch(`/v1/broadcasts/${broadcast.id}`, { abTest: body });
      expect(res.status, message).toBe(400);
      expect(res.body.message).toContain(message);
    }
    expect((await client.post('/v1/broadcasts', { abTest: abTest({ testShare: 0 }) })).status).toBe(400);
    expect((await client.get(`/v1/broadcasts/${broadcast.id}`)).body.item.abTest.testShare).toBe(50);

    const changed = await client.patch(`/v1/broadcasts/${broadcast.id}`, { abTest: abTest({ variants: [{ name: 'Plain' }, { name: 'Other', emailId: otherEmailId, subject: 'Look' }], metric: 'clicks', testShare: 10, waitHours: 72 }) });
    expect(changed.status).toBe(200);
    expect(changed.body.item.abTest).toMatchObject({ variants: [{ name: 'Plain', subject: null, emailId: null }, { name: 'Other', subject: 'Look', emailId: otherEmailId }], metric: 'clicks', testShare: 10, waitHours: 72 });
    // The item as it came back is a valid body (the decision fields are ignored).
    expect((await client.patch(`/v1/broadcasts/${broadcast.id}`, changed.body.item)).status).toBe(200);
    expect((await client.patch(`/v1/broadcasts/${broadcast.id}`, { abTest: null })).body.item.abTest).toBeNull();

    // Another account's email is not there for this one.
    const other = await setup(0);
    const foreign = await client.patch(`/v1/broadcasts/${broadcast.id}`, { abTest: abTest({ variants: [{ subject: 'x' }, { emailId: other.emailId }] }) });
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toBe(abTestMessages.variantEmailGone('B'));
    expect((await other.client.patch(`/v1/broadcasts/${broadcast.id}`, { abTest: abTest() })).status).toBe(404);
  });

  it('refuses to send a test with too few recipients or a variant email from an unverified sender; keeps it a draft', async () => {
    const { client, accountId, emailId, persons } = await setup(2);
    const three = await draft(client, { emailId, abTest: abTest({ variants: [{ subject: '1' }, { subject: '2' }, { subject: '3' }] }) });
    const few = await client.post(`/v1/broadcasts/${three.id}/send`);
    expect(few.status).toBe(400);
    expect(few.body.message).toBe(abTestMessages.tooFewRecipients(3, 2));
    const zoned = await draft(client, { emailId, sendAt: new Date(Date.now() + 3_600_000).toISOString(), time: { type: 'recipient' }, abTest: abTest() });
    const local = await client.post(`/v1/broadcasts/${zoned.id}/send`);
    expect(local.status).toBe(400);
    expect(local.body.message).toBe(abTestMessages.recipientTime);

    const stranger = await client.post('/v1/emails', newEmail({ fromEmail: 'someone@unverified.example.com' }));
    const unverified = await draft(client, { emailId, abTest: abTest({ variants: [{ subject: 'x' }, { emailId: stranger.body.email.id }] }) });
    const refused = await client.post(`/v1/broadcasts/${unverified.id}/send`);
    expect(refused.status).toBe(422);
    expect(refused.body.message).toBe(sendingMessages.notVerified('someone@unverified.example.com'));
    expect((await client.get(`/v1/broadcasts/${unverified.id}`)).body.item.status).toBe('draft');
    expect(await rowsOf(accountId, unverified.id)).toEqual([]);
    expect(persons).toHaveLength(2);
  });
});

describe('A/B tests: sending', () => {
  it('splits the test share exactly and disjointly, holds the rest until the decision, then sends the winner to the rest once; no data: A wins', async () => {
    const { client, accountId, emailId, persons } = await setup(21);
    const broadcast = await draft(client, { name: 'Split', emailId, abTest: abTest({ testShare: 50, waitHours: 2 }) });
    const sent = await client.post(`/v1/broadcasts/${broadcast.id}/send`);
    expect(sent.status).toBe(200);
    expect(sent.body.item.status).toBe('ab-testing');

    const split = abTestSplit(21, 50, 2);
    expect(split).toEqual({ variants: [6, 5], test: 11, rest: 10 });
    await until(async () => { const s = await statusOf(client, broadcast.id); return s.progress.sent === split.test && s; }, { timeout: 30_000, message: 's.progress.sent === split.test' });
    const rows = await rowsOf(accountId, broadcast.id);
    expect(rows).toHaveLength(split.test);
    expect(new Set(rows.map((r) => r.personId)).size).toBe(split.test);
    expect(rows.filter((r) => r.variant === 1)).toHaveLength(split.variants[0]!);
    expect(rows.filter((r) => r.variant === 2)).toHaveLength(split.variants[1]!);
    expect(rows.every((r) => Number(r.emailId) === emailId)).toBe(true);
    const byPerson = new Map(persons.map((p) => [p.id, p.email]));
    for (const row of rows) {
      const mails = await until(async () => { const m = received(byPerson.get(Number(row.personId))!); return m.length === 1 && m; }, { timeout: 30_000, message: 'm.length === 1' });
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
    expect(Math.abs(jobs[0]!.run_at.getTime() - new Date(testing.item.abTest.decidesAt).getTime())).toBeLessThan(1000);
    expect(jobs[0]!.run_at.getTime() - Date.now()).toBeGreaterThan(3_600_000);

    await decideNow(accountId, broadcast.id);
    const done = await until(async () => { const s = await statusOf(client, broadcast.id); return s.item.status === 'sent' && s; }, { timeout: 30_000, message: `s.item.status === 'sent'` });
    expect(done.item.abTest).toMatchObject({ winner: 0, explanation: abTestMessages.noData('opens', 'A') });
    expect(done.item.abTest.decidedAt).not.toBeNull();
    expect(done.item.stats).toMatchObject({ queued: 21, sent: 21, excluded: 0 });
    const all = await rowsOf(accountId, broadcast.id);
    expect(all.filter((r) => r.variant === 0)).toHaveLength(split.rest);
    for (const person of persons) {
      const mails = await until(async () => { const m = received(person.email); return m.length >= 1 && m; }, { timeout: 30_000, message: 'm.length >= 1' });
      if (all.find((r) => Number(r.personId) === person.id)!.variant === 0) expect(mails[0]!.subject).toBe('Subject A');
    }
    await queueDrained(ctx.database.pool);
    expect(persons.map((p) => received(p.email).length)).toEqual(persons.map(() => 1));
    // A second decision does nothing.
    await runAbTestDecide(ctx.services, accountId, broadcast.id);
    expect((await rowsOf(accountId, broadcast.id)).length).toBe(21);

    // Duplicate: the settings without the decision.
    const copy = await client.post(`/v1/broadcasts/${broadcast.id}/duplicate`);
    expect(copy.body.item.abTest).toEqual({ ...done.item.abTest, decidesAt: null, winner: null, decidedAt: null, explanation: null });
  }, 90_000);

  it('sends the rest the variant with the better open rate, with its own email and subject', async () => {
    const { client, accountId, emailId, otherEmailId, persons } = await setup(12);
    const broadcast = await draft(client, { emailId, abTest: abTest({ variants: [{ subject: 'Plain' }, { name: 'Fancy', emailId: otherEmailId, subject: 'Fancy subject' }], testShare: 50 }) });
    expect((await client.post(`/v1/broadcasts/${broadcast.id}/send`)).body.item.status).toBe('ab-testing');
    await until(async () => { const s = await statusOf(client, broadcast.id); return s.progress.sent === 6 && s; }, { timeout: 30_000, message: 's.progress.sent === 6' });
    const rows = await rowsOf(accountId, broadcast.id);
    expect(rows.filter((r) => r.variant === 2).every((r) => Number(r.emailId) === otherEmailId)).toBe(true);
    // Two of variant 2's three open, one of variant 1's three (and that one twice: people count once).
    const opener = (variant: number, n: number) => rows.filter((r) => r.variant === variant).slice(0, n);
    const events = [...opener(1, 1), ...opener(1, 1), ...opener(2, 2)].map((r) => ({
      accountId, personId: Number(r.personId), type: 'email', name: 'opened', source: 'email', data: JSON.stringify({ broadcastId: broadcast.id, variant: r.variant, emailId: Number(r.emailId) }),
    }));
    await ctx.services.db.insertInto('events').values(events).execute();
    // The figures are the metrics rollup's: the worker's rollup takes the opens within seconds.
    const opensOf = (s: { abTest: { variants: { opens: number }[] } }) => s.abTest.variants.map((v) => v.opens);
    expect(opensOf(await until(async () => { const s = await statusOf(client, broadcast.id); return opensOf(s).join() === '1,2' && s; }, { timeout: 30_000, message: `opensOf(s).join() === '1,2'` }))).toEqual([1, 2]);

    await decideNow(accountId, broadcast.id);
    const done = await until(async () => { const s = await statusOf(client, broadcast.id); return s.item.status === 'sent' && s; }, { timeout: 30_000, message: `s.item.status === 'sent'` });
    expect(done.item.abTest).toMatchObject({ winner: 1, explanation: abTestMessages.won('opens', 'Fancy', '66.7%', 'A', '33.3%') });
    const rest = (await rowsOf(accountId, broadcast.id)).filter((r) => r.variant === 0);
    expect(rest).toHaveLength(6);
    expect(rest.every((r) => Number(r.emailId) === otherEmailId)).toBe(true);
    const restPeople = persons.filter((p) => rest.some((r) => Number(r.personId) === p.id));
    for (const person of restPeople) {
      const mail = (await until(async () => { const m = received(person.email); return m.length === 1 && m; }, { timeout: 30_000, message: 'm.length === 1' }))[0]!;
      expect(mail.subject).toBe('Fancy subject');
      expect(mail.html).toContain('The other email.');
    }
  }, 90_000);

  it('cancel while A/B testing removes the decision and stops the rest; the decision job then does nothing', async () => {
    const { client, accountId, emailId, persons } = await setup(6);
    const broadcast = await draft(client, { emailId, abTest: abTest({ testShare: 50 }) });
    await client.post(`/v1/broadcasts/${broadcast.id}/send`);
    await until(async () => { const jobs = await decisionJobs(accountId, broadcast.id); return jobs.length === 1 && jobs; }, { timeout: 30_000, message: 'jobs.length === 1' });
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
    expect((await client.get(`/v1/broadcasts/${broadcast.id}`)).body.item).toMatchObject({ status: 'canceled', abTest: { winner: null } });
    expect(persons.reduce((n, p) => n + received(p.email).length, 0)).toBe(rows.filter((r) => r.status === 'sent').length);
  }, 60_000);

  it('a test paused while A/B testing is decided, and the rest waits, held, until it is resumed', async () => {
    const { client, accountId, emailId, persons } = await setup(4);
    const broadcast = await draft(client, { emailId, abTest: abTest({ testShare: 50 }) });
    await client.post(`/v1/broadcasts/${broadcast.id}/send`);
    await until(async () => { const s = await statusOf(client, broadcast.id); return s.progress.sent === 2 && s; }, { timeout: 30_000, message: 's.progress.sent === 2' });
    expect((await client.post(`/v1/broadcasts/${broadcast.id}/pause`)).status).toBe(200);
    await decideNow(accountId, broadcast.id);
    const held = await until(async () => { const s = await statusOf(client, broadcast.id); return s.item.status === 'ab-test-sending-winner' && s; }, { timeout: 30_000, message: `s.item.status === 'ab-test-sending-winner'` });
    expect(held.item.abTest.winner).toBe(0);
    await queueDrained(ctx.database.pool);
    expect((await rowsOf(accountId, broadcast.id)).filter((r) => r.variant === 0).map((r) => r.status)).toEqual(['paused', 'paused']);
    expect((await statusOf(client, broadcast.id)).item.status).toBe('ab-test-sending-winner');
    expect((await client.post(`/v1/broadcasts/${broadcast.id}/resume`)).status).toBe(200);
    await until(async () => { const s = await statusOf(client, broadcast.id); return s.item.status === 'sent' && s; }, { timeout: 30_000, message: `s.item.status === 'sent'` });
    for (const person of persons) await until(async () => { const m = received(person.email); return m.length === 1 && m; }, { timeout: 30_000, message: 'm.length === 1' });
  }, 60_000);

  it('a scheduled test starts A/B testing at its time', async () => {
    const { client, accountId, emailId } = await setup(4);
    const broadcast = await draft(client, { emailId, sendAt: new Date(Date.now() + 3_600_000).toISOString(), abTest: abTest({ testShare: 50 }) });
    expect((await client.post(`/v1/broadcasts/${broadcast.id}/send`)).body.item.status).toBe('scheduled');
    await ctx.services.db.updateTable('broadcasts').set({ sendAt: new Date(Date.now() - 1000) }).where('id', '=', broadcast.id).execute();
    await withAccount(ctx.services.db, accountId, (db) => enqueueJob(db, 'start-broadcast', { accountId, broadcastId: broadcast.id }, { jobKey: `start-broadcast:${accountId}:${broadcast.id}`, runAt: new Date() }));
    const testing = await until(async () => { const s = await statusOf(client, broadcast.id); return s.progress.sent === 2 && s; }, { timeout: 30_000, message: 's.progress.sent === 2' });
    expect(testing.item.status).toBe('ab-testing');
    expect(testing.item.stats.queued).toBe(2);
  }, 60_000);
});

describe('A/B tests: the decision', () => {
  const test = (metric: 'opens' | 'clicks') => ({ variants: [{ name: 'A' }, { name: 'B' }, { name: 'C' }], metric });
  const figures = (...rows: [number, number, number][]) => rows.map(([sent, opens, clicks]) => ({ sent, opens, clicks }));
  it('no data: the first variant, said so', () => {
    expect(decideWinner(test('clicks'), figures([10, 3, 0], [10, 5, 0], [10, 0, 0]))).toEqual({ winner: 0, explanation: abTestMessages.noData('clicks', 'A') });
  });
  it('a tie: the first of the tied, naming them', () => {
    expect(decideWinner(test('opens'), figures([10, 1, 0], [10, 4, 0], [10, 4, 0]))).toEqual({ winner: 1, explanation: abTestMessages.tie('opens', 'B and C', 'B', '40.0%') });
    // Equal rates from different sizes tie too.
    expect(decideWinner(test('opens'), figures([4, 2, 0], [2, 1, 0], [3, 0, 0])).winner).toBe(0);
    expect(decideWinner(test('opens'), figures([4, 2, 0], [2, 1, 0], [4, 2, 0])).explanation).toBe(abTestMessages.tie('opens', 'A, B and C', 'A', '50.0%'));
  });
  it('the best rate wins, not the biggest count', () => {
    expect(decideWinner(test('clicks'), figures([10, 0, 3], [4, 0, 2], [10, 0, 1]))).toEqual({ winner: 1, explanation: abTestMessages.won('clicks', 'B', '50.0%', 'A', '30.0%') });
  });
});
