import { DashboardResponse, type EmailStatsResponse, type ScopeId } from '@herald/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, newEmail } from './email-helpers.ts';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { startSmtpServer } from './smtp.ts';
import { until } from './until.ts';

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  ctx = await createTestContext({ SMTP_URL: smtp.url, MAIL_FROM: 'Herald <no-reply@herald.test>' });
  await ctx.startWorker();
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

type Owner = Awaited<ReturnType<typeof registerUser>>;

async function dashboard(client: Client): Promise<DashboardResponse> {
  const res = await client.get('/v1/dashboard');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return DashboardResponse.parse(res.body);
}

async function addPeople(owner: Owner, count: number, prefix = 'dash'): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const created = await owner.client.post('/v1/people/?source=manual', {
      email: uniqueEmail(`${prefix}${i}`),
      firstName: `P${i}`,
    });
    expect(created.status).toBe(201);
    ids.push(created.body.user.id as number);
  }
  return ids;
}

/** Today in a time zone, 'YYYY-MM-DD'. */
const todayIn = (timeZone: string) =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(),
  );

/** A broadcast to everyone, sent for real through the worker and the SMTP server; answers its id once it is sent. */
async function sendBroadcast(owner: Owner, name: string): Promise<number> {
  const accountId = owner.account.accountId as number;
  const fromEmail = uniqueEmail('sender');
  await ctx.services.db
    .insertInto('senderAddresses')
    .values({ accountId, email: fromEmail, status: 'verified' })
    .execute();
  const email = await owner.client.post('/v1/emails', newEmail({ fromEmail }));
  expect(email.status).toBe(201);
  const created = await owner.client.post('/v1/broadcasts', { name, emailId: email.body.email.id });
  expect(created.status).toBe(201);
  const id = created.body.item.id as number;
  expect((await owner.client.post(`/v1/broadcasts/${id}/send`)).status).toBe(200);
  await until(async () => (await owner.client.get(`/v1/broadcasts/${id}`)).body.item.status === 'sent', {
    timeout: 20_000,
    message: `broadcast ${id} sent`,
  });
  return id;
}

/** Email events as the tracking endpoints record them (an open or a click naming the broadcast). */
async function track(
  accountId: number,
  broadcastId: number,
  personId: number,
  name: 'opened' | 'clicked',
  machine = false,
) {
  const data = { broadcastId, emailId: 1, ...(machine ? { machine: true } : {}) };
  await ctx.services.db
    .insertInto('events')
    .values({ accountId, personId, type: 'email', name, data: JSON.stringify(data), source: 'tracking' })
    .execute();
}

describe('GET /v1/dashboard', () => {
  it('answers a brand-new account with zeros, 30 empty days and the first getting-started step', async () => {
    const owner = await registerUser(ctx.app);
    const answer = await dashboard(owner.client);
    expect(answer.timezone).toBe('Europe/London');
    expect(answer.people).toMatchObject({
      total: 0,
      active: 0,
      unsubscribed: 0,
      newLast30: 0,
      newPrevious30: 0,
    });
    expect(answer.people!.daily).toHaveLength(30);
    expect(answer.people!.daily.every((day) => day.count === 0)).toBe(true);
    expect(answer.people!.daily.at(-1)!.date).toBe(todayIn('Europe/London'));
    expect(answer.broadcasts).toEqual({ recent: [] });
    expect(answer.gettingStarted).toEqual({
      percent: 20,
      next: { label: 'Import People', to: '/start/import' },
      done: { import: false, apps: false, flow: false, help: false },
    });
  });

  it('counts people, unsubscribed ones and arrivals per day in the account time zone, this 30 days against the 30 before', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    await owner.client.patch('/v1/accounts/me', { timezone: 'Pacific/Kiritimati' });
    const ids = await addPeople(owner, 6);
    const [unsubscribed, archived, old, older, ancient] = [ids[0]!, ids[1]!, ids[2]!, ids[3]!, ids[4]!];
    const set = (id: number, changes: Record<string, unknown>) =>
      ctx.services.db
        .updateTable('people')
        .set(changes)
        .where('accountId', '=', accountId)
        .where('id', '=', id)
        .execute();
    await set(unsubscribed, { unsubscribedAt: new Date() });
    await set(archived, { archivedAt: new Date() });
    await set(old, { createdAt: sql<Date>`now() - interval '10 days'` });
    await set(older, { createdAt: sql<Date>`now() - interval '40 days'` });
    await set(ancient, { createdAt: sql<Date>`now() - interval '400 days'` });

    const { people, gettingStarted } = await dashboard(owner.client);
    // Archived people leave the totals but still count as arrivals on the day they came.
    expect(people).toMatchObject({ total: 5, active: 4, unsubscribed: 1, newLast30: 4, newPrevious30: 1 });
    expect(people!.daily.at(-1)).toEqual({ date: todayIn('Pacific/Kiritimati'), count: 3 });
    expect(people!.daily.reduce((sum, day) => sum + day.count, 0)).toBe(4);
    expect(people!.daily.filter((day) => day.count > 0)).toHaveLength(2);
    // More than one person: the import step is done however they came.
    expect(gettingStarted).toMatchObject({ percent: 40, next: { label: 'Connect Apps', to: '/start/apps' } });
    expect(gettingStarted.done.import).toBe(true);
  });

  it('lists the last broadcasts that went out with sent, unique opens and clicks and their rates; drafts and other accounts stay out', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    const people = await addPeople(owner, 4, 'reader');
    const id = await sendBroadcast(owner, 'November news');
    await owner.client.post('/v1/broadcasts', { name: 'Still a draft' });
    // Two people open (one of them twice), one clicks; a mail client's privacy proxy "opens" for a third.
    await track(accountId, id, people[0]!, 'opened');
    await track(accountId, id, people[0]!, 'opened');
    await track(accountId, id, people[1]!, 'opened');
    await track(accountId, id, people[1]!, 'clicked');
    await track(accountId, id, people[2]!, 'opened', true);

    // The figures come from the email-metrics rollups, which the worker brings up to date within seconds.
    const { broadcasts } = await until(
      async () => {
        const answer = await dashboard(owner.client);
        return answer.broadcasts!.recent[0]?.clicks === 1 && answer;
      },
      { timeout: 30_000, message: 'the click on the dashboard' },
    );
    expect(broadcasts!.recent).toHaveLength(1);
    expect(broadcasts!.recent[0]).toMatchObject({
      id,
      name: 'November news',
      status: 'sent',
      sent: 4,
      opens: 2,
      clicks: 1,
      openRate: 0.5,
      clickRate: 0.25,
    });
    expect(broadcasts!.recent[0]!.startedAt).not.toBeNull();
    // The Metrics page's default period (the last 30 days with today) agrees with the card on a broadcast sent today.
    const metrics = (await owner.client.get<EmailStatsResponse>(`/v1/emails/stats?broadcastId=${id}`)).body
      .stats.totals;
    expect([metrics.sent, metrics.uniqueOpens, metrics.uniqueClicks]).toEqual([4, 2, 1]);

    // A broadcast still going out counts `sent` live from its delivery rows (two of three sent so far).
    const going = await ctx.services.db
      .insertInto('broadcasts')
      .values({ accountId, name: 'Going out', status: 'sending', startedAt: new Date(), queued: 3 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const emailId = (
      await ctx.services.db
        .selectFrom('emails')
        .select('id')
        .where('accountId', '=', accountId)
        .executeTakeFirstOrThrow()
    ).id;
    await ctx.services.db
      .insertInto('deliveries')
      .values(
        people.slice(0, 3).map((personId, index) => ({
          accountId,
          sourceKind: 'broadcast',
          sourceId: going.id,
          personId,
          emailId,
          toAddress: `p${index}@example.com`,
          status: index < 2 ? 'sent' : 'pending',
          notBefore: new Date(Date.now() + 3_600_000),
        })),
      )
      .execute();
    const both = (await dashboard(owner.client)).broadcasts!.recent;
    expect(both.map((item) => [item.name, item.sent])).toEqual([
      ['Going out', 2],
      ['November news', 4],
    ]);

    const stranger = await registerUser(ctx.app);
    const theirs = await dashboard(stranger.client);
    expect(theirs.broadcasts!.recent).toEqual([]);
    expect(theirs.people!.total).toBe(0);
  }, 60_000);

  it('hides the cards a team member has no scope for, without failing', async () => {
    const owner = await registerUser(ctx.app);
    await addPeople(owner, 2, 'scoped');
    const cases: [ScopeId[], { people: boolean; broadcasts: boolean }][] = [
      [['emails:read'], { people: false, broadcasts: false }],
      [['people:read'], { people: true, broadcasts: false }],
      [['emails:read', 'broadcasts:read'], { people: false, broadcasts: true }],
    ];
    for (const [scopes, shown] of cases) {
      const member = await addMember(ctx, smtp, owner, scopes);
      const answer = await dashboard(member);
      expect(answer.people !== null, `people card with ${scopes.join(', ')}`).toBe(shown.people);
      expect(answer.broadcasts !== null, `broadcasts card with ${scopes.join(', ')}`).toBe(shown.broadcasts);
      expect(answer.gettingStarted.done.import).toBe(true);
    }
  });

  it('follows the onboarding map: each action saved once moves the progress on, until it is complete', async () => {
    const owner = await registerUser(ctx.app);
    const steps: [string, number, string | null][] = [
      ['import', 40, 'Connect Apps'],
      ['apps', 60, 'Create Flow'],
      ['flow', 80, 'Get Help'],
      ['help', 100, null],
    ];
    for (const [action, percent, next] of steps) {
      expect((await owner.client.patch('/v1/accounts/me', { onboarding: { [action]: true } })).status).toBe(
        200,
      );
      const { gettingStarted } = await dashboard(owner.client);
      expect(gettingStarted.percent).toBe(percent);
      expect(gettingStarted.next?.label ?? null).toBe(next);
    }
    expect((await dashboard(owner.client)).gettingStarted.done).toEqual({
      import: true,
      apps: true,
      flow: true,
      help: true,
    });
    // An onboarding value other than true is refused and changes nothing.
    expect((await owner.client.patch('/v1/accounts/me', { onboarding: { apps: false } })).status).toBe(400);
    expect((await owner.client.patch('/v1/accounts/me', { onboarding: { tour: true } })).status).toBe(400);
    expect((await dashboard(owner.client)).gettingStarted.percent).toBe(100);
  });

  it('needs a session', async () => {
    const anonymous = new Client(ctx.app);
    expect((await anonymous.get('/v1/dashboard')).status).toBe(401);
  });
});
