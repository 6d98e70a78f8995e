import { metricsMessages, scopeIds, type EmailStatsResponse, type ScopeId } from '@herald/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollUpEmailMetrics } from '../src/features/metrics/metrics.jobs.ts';
import { rollupLockKey } from '../src/db/migrations/0038-rollup-without-row-keys.ts';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { waitingOnALock } from './lock-waits.ts';
import { startSmtpServer } from './smtp.ts';
import { until } from './until.ts';

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  ctx = await createTestContext({ SMTP_URL: smtp.url });
  // Invitations leave through the worker, which also runs the rollup poller.
  await ctx.startWorker();
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

type Owner = Awaited<ReturnType<typeof registerUser>>;
const accountOf = (owner: Owner) => owner.account.accountId as number;

interface EventSpec {
  person: number;
  name: string;
  data: Record<string, unknown>;
  /** Hours before now. */
  ago?: number;
}

/** Email events written as the pipeline and tracking write them: one multi-row insert. */
async function record(accountId: number, events: EventSpec[]): Promise<void> {
  await ctx.services.db
    .insertInto('events')
    .values(
      events.map((e) => ({
        accountId,
        personId: e.person,
        type: 'email',
        name: e.name,
        source: 'email',
        data: JSON.stringify(e.data),
        createdAt: new Date(Date.now() - (e.ago ?? 0) * 3_600_000),
      })),
    )
    .execute();
}

const stats = (client: Client, query: string) => client.get<EmailStatsResponse>(`/v1/emails/stats?${query}`);
const roll = () => rollUpEmailMetrics(ctx.services.db, { wait: true });

/** A broadcast of email 11 to people 1-4 (variant 1 or 2), 26 to 30 hours ago, with opens, clicks and feedback. */
async function seed(accountId: number, broadcastId = 7) {
  const b = { broadcastId, emailId: 11 };
  await record(accountId, [
    ...[1, 2, 3, 4].map((person) => ({ person, name: 'sent', data: { ...b, messageId: `m${person}`, variant: person <= 2 ? 1 : 2 }, ago: 30 })),
    { person: 1, name: 'opened', data: { ...b, variant: 1, machine: false }, ago: 29 },
    { person: 1, name: 'opened', data: { ...b, variant: 1, machine: false }, ago: 28 },
    { person: 2, name: 'opened', data: { ...b, variant: 1, machine: true }, ago: 29 },
    { person: 3, name: 'opened', data: { ...b, variant: 2, machine: false }, ago: 27 },
    { person: 1, name: 'clicked', data: { ...b, variant: 1, machine: false, link: 'https://example.com/a' }, ago: 28 },
    { person: 1, name: 'clicked', data: { ...b, variant: 1, machine: false, link: 'https://example.com/b' }, ago: 28 },
    { person: 2, name: 'clicked', data: { ...b, variant: 1, machine: true, link: 'https://example.com/a' }, ago: 29 },
    { person: 4, name: 'bounced', data: { ...b, messageId: 'm4' }, ago: 30 },
    { person: 3, name: 'bounced', data: { ...b, messageId: 'm3', soft: true }, ago: 30 },
    { person: 3, name: 'unsubscribed', data: b, ago: 26 },
    { person: 2, name: 'complained', data: b, ago: 26 },
  ]);
}

describe('GET /v1/emails/stats', () => {
  let owner: Owner;
  beforeAll(async () => {
    owner = await registerUser(ctx.app);
    await owner.client.patch('/v1/accounts/me', { timezone: 'UTC' });
    await seed(accountOf(owner));
    await roll();
  });

  it('answers the default period (last 30 days with today, by day) with every figure', async () => {
    const before = Date.now();
    const res = await stats(owner.client, '');
    expect(res.status).toBe(200);
    const { stats: s, clicks } = res.body;
    expect(s.period).toBe('last30Days');
    expect(s.bucket).toBe('day');
    expect(s.series).toHaveLength(30);
    // It ends now, and starts at midnight (UTC here) 29 days before today.
    expect(Date.parse(s.endDate)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(s.endDate)).toBeLessThanOrEqual(Date.now());
    expect(s.startDate).toBe(`${new Date(Date.parse(s.endDate) - 29 * 86_400_000).toISOString().slice(0, 10)}T00:00:00.000Z`);
    expect(s.totals).toEqual({
      sent: 4,
      delivered: 3,
      opened: 4,
      clicked: 3,
      uniqueOpens: 2,
      uniqueClicks: 1,
      openRate: 0.6667,
      clickRate: 0.3333,
      unsubscribed: 1,
      bounced: 1,
      complained: 1,
    });
    expect(s.series.reduce((n, bucket) => n + bucket.sent, 0)).toBe(4);
    expect(clicks).toEqual([
      { link: 'https://example.com/a', clicks: 2 },
      { link: 'https://example.com/b', clicks: 1 },
    ]);
  });

  it('cuts each preset into its buckets in the time zone asked for', async () => {
    const expected = { last7Days: 'hour', lastWeek: 'hour', thisWeek: 'hour', last90Days: 'day', lastMonth: 'day', thisQuarter: 'day', lastYear: 'week', thisYear: 'week' } as const;
    for (const [period, bucket] of Object.entries(expected)) {
      const res = await stats(owner.client, `period=${period}&timezone=America/New_York`);
      expect(res.status, period).toBe(200);
      expect(res.body.stats.bucket, period).toBe(bucket);
      expect(res.body.stats.timezone).toBe('America/New_York');
      const series = res.body.stats.series;
      expect(series[0]!.start).toBe(res.body.stats.startDate);
      expect(series.at(-1)!.end).toBe(res.body.stats.endDate);
    }
    // Six whole days and the hours of today begun so far.
    const week = (await stats(owner.client, 'period=last7Days')).body.stats;
    expect(week.startDate).toBe(`${new Date(Date.parse(week.endDate) - 6 * 86_400_000).toISOString().slice(0, 10)}T00:00:00.000Z`);
    expect(week.series).toHaveLength(Math.ceil((Date.parse(week.endDate) - Date.parse(week.startDate)) / 3_600_000));
    expect(week.totals.sent).toBe(4);
  });

  it('filters by broadcast, email and step; an unknown broadcast gives empty figures', async () => {
    expect((await stats(owner.client, 'broadcastId=7')).body.stats.totals.sent).toBe(4);
    // The account-wide rollups (read when nothing is filtered) agree with the detailed ones: all mail here is broadcast 7.
    const everything = await stats(owner.client, 'period=last30Days');
    const broadcast = await stats(owner.client, 'period=last30Days&broadcastId=7');
    expect(everything.body.stats.totals).toEqual(broadcast.body.stats.totals);
    // Both end at the moment each was asked: the buckets' starts and figures agree.
    const figures = (series: EmailStatsResponse['stats']['series']) => series.map(({ end: _end, ...bucket }) => bucket);
    expect(figures(everything.body.stats.series)).toEqual(figures(broadcast.body.stats.series));
    expect(everything.body.clicks).toEqual(broadcast.body.clicks);
    expect((await stats(owner.client, 'emailIds=11,12')).body.stats.totals.uniqueOpens).toBe(2);
    const other = await stats(owner.client, 'broadcastId=999');
    expect(other.status).toBe(200);
    expect(other.body.stats.totals.sent).toBe(0);
    expect(other.body.clicks).toEqual([]);
    const flows = await stats(owner.client, 'flowIds[]=3');
    expect(flows.body.stats.totals.sent).toBe(0);
    // The largest id the query takes (the largest safe integer) finds nothing and fails nothing; past it, a 400.
    for (const query of ['flowIds=9007199254740991&emailIds=9007199254740991', 'flowIds[]=9007199254740991&emailIds[]=11']) {
      const far = await stats(owner.client, query);
      expect(far.status).toBe(200);
      expect(far.body.stats.totals.sent).toBe(0);
    }
    expect((await stats(owner.client, 'flowIds=9007199254740992')).status).toBe(400);
    const step = await stats(owner.client, 'stepId[]=s1&stepId[]=s2');
    expect(step.status).toBe(200);
    expect(step.body.clicks).toBeUndefined();
  });

  it('groups by email and by A/B variant when asked', async () => {
    const res = await stats(owner.client, 'groupByEmail=true&abTest=true');
    expect(res.body.stats.emails).toEqual([expect.objectContaining({ emailId: 11, sent: 4, uniqueOpens: 2 })]);
    // Feedback events (bounces, complaints, unsubscribes) name no variant: they count under variant 0.
    expect(res.body.stats.variants).toEqual([
      expect.objectContaining({ variant: 0, sent: 0, bounced: 1, unsubscribed: 1, complained: 1 }),
      expect.objectContaining({ variant: 1, sent: 2, opened: 3, uniqueOpens: 1, uniqueClicks: 1 }),
      expect.objectContaining({ variant: 2, sent: 2, opened: 1, uniqueOpens: 1 }),
    ]);
  });

  it('counts a later open of the same recipient as an open but not a unique open', async () => {
    const other = await registerUser(ctx.app);
    const accountId = accountOf(other);
    await record(accountId, [{ person: 5, name: 'opened', data: { broadcastId: 1, emailId: 2 } }]);
    await roll();
    await record(accountId, [{ person: 5, name: 'opened', data: { broadcastId: 1, emailId: 2 } }]);
    await roll();
    const totals = (await stats(other.client, 'period=thisYear')).body.stats.totals;
    expect([totals.opened, totals.uniqueOpens]).toEqual([2, 1]);
  });

  it("counts a unique open in the hour of the recipient's earliest open in a batch, in whatever order the batch holds them", async () => {
    const other = await registerUser(ctx.app);
    const accountId = accountOf(other);
    const open = (person: number, ago: number) => ({ person, name: 'opened', data: { broadcastId: 3, emailId: 4 }, ago });
    // Later opens first, and recipients out of order: the rollup sorts them itself.
    await record(accountId, [open(9, 1), open(8, 1), open(9, 5), open(8, 3), open(9, 3)]);
    await roll();
    const { rows } = await sql<{ ago: number; opened: string; uniq: string }>`
      select round(extract(epoch from now() - hour) / 3600)::int as ago, opened, unique_opens as uniq from email_metrics_hourly
      where account_id = ${accountId} order by hour`.execute(ctx.services.db);
    // Hour buckets start on the hour: an open n hours ago falls n or n+1 hours after its bucket's start.
    const byAgo = rows.map((r) => ({ ago: r.ago, opened: Number(r.opened), unique: Number(r.uniq) }));
    const at = (hoursAgo: number) => byAgo.find((r) => r.ago === hoursAgo || r.ago === hoursAgo + 1);
    expect(at(5)).toMatchObject({ opened: 1, unique: 1 });
    expect(at(3)).toMatchObject({ opened: 2, unique: 1 });
    expect(at(1)).toMatchObject({ opened: 2, unique: 0 });
  });

  it('takes dates: an end date names its whole day; a missing start is all time', async () => {
    const day = new Date(Date.now() - 30 * 3_600_000).toISOString().slice(0, 10);
    const res = await stats(owner.client, `startDate=${day}&endDate=${day}&timezone=UTC`);
    expect(res.status).toBe(200);
    expect(res.body.stats.period).toBeNull();
    expect(res.body.stats.bucket).toBe('hour');
    expect(res.body.stats.series).toHaveLength(24);
    const allTime = await stats(owner.client, `endDate=${new Date().toISOString().slice(0, 10)}&timezone=UTC`);
    expect(allTime.body.stats.startDate).toBe('2017-01-01T00:00:00.000Z');
    expect(allTime.body.stats.bucket).toBe('week');
    expect(allTime.body.stats.totals.sent).toBe(4);
  });

  it('refuses bad input with a clear 400 and never a 500', async () => {
    const cases: [string, string][] = [
      ['period=nextCentury', metricsMessages.unknownPreset],
      ['startDate=2026-03-02&endDate=2026-03-01', metricsMessages.startAfterEnd],
      ['startDate=2026-03-01T10:00:00Z&endDate=2026-03-01T09:00:00Z', metricsMessages.startAfterEnd],
      ['timezone=Mars/Olympus_Mons', metricsMessages.unknownTimeZone],
      ['startDate=yesterday', metricsMessages.badDate],
      ['startDate=2026-02-30', metricsMessages.badDate],
    ];
    for (const [query, message] of cases) {
      const res = await stats(owner.client, query);
      expect(res.status, query).toBe(400);
      expect(JSON.stringify(res.body), query).toContain(message);
    }
    for (const query of ['emailIds=abc', 'broadcastId=-1', 'abTest=maybe', `stepId=${'x'.repeat(200)}`, `flowIds=${'1,'.repeat(600)}`]) {
      expect((await stats(owner.client, query)).status, query).toBe(400);
    }
  });

  it('needs a session and the emailMetrics:read scope', async () => {
    expect((await new Client(ctx.app).get('/v1/emails/stats')).status).toBe(401);
    const without = await addMember(owner, scopeIds.filter((id) => id !== 'emailMetrics:read'));
    expect((await stats(without, '')).status).toBe(403);
    const withScope = await addMember(owner, ['emailMetrics:read']);
    expect((await stats(withScope, '')).body.stats.totals.sent).toBe(4);
  });

  it("shows no other account's figures", async () => {
    const stranger = await registerUser(ctx.app);
    const res = await stats(stranger.client, 'broadcastId=7&period=last90Days');
    expect(res.status).toBe(200);
    expect(res.body.stats.totals.sent).toBe(0);
  });
});

describe('GET /v1/people/metrics/{id}', () => {
  it("answers a person's email activity, counted from the person's email events as they are written", async () => {
    const owner = await registerUser(ctx.app);
    const add = async () => (await owner.client.post('/v1/people/?source=manual', { email: uniqueEmail('reader') })).body.user as { id: number };
    const person = await add();
    const other = await add();
    const b = { broadcastId: 8, emailId: 9 };
    await record(accountOf(owner), [
      { person: person.id, name: 'sent', data: b },
      { person: person.id, name: 'opened', data: b },
      { person: person.id, name: 'opened', data: { ...b, machine: true } },
      { person: person.id, name: 'clicked', data: { ...b, link: 'https://example.com' } },
      { person: person.id, name: 'bounced', data: b },
      // A soft bounce is not counted, as in the rollups.
      { person: person.id, name: 'bounced', data: { ...b, soft: 'true' } },
      { person: other.id, name: 'opened', data: b },
    ]);
    // An event of another type with an email event's name is not email activity.
    await sql`insert into events (account_id, person_id, type, name, source) values (${accountOf(owner)}, ${person.id}, 'custom', 'opened', 'api')`.execute(ctx.services.db);
    // No rollup ran: the figures are there as soon as the events are.
    const res = await owner.client.get(`/v1/people/metrics/${person.id}`);
    expect(res.status).toBe(200);
    expect(res.body.metrics).toEqual({ sent: 1, opened: 2, clicked: 1, bounced: 1, unsubscribed: 0 });
    const stranger = await registerUser(ctx.app);
    expect((await stranger.client.get(`/v1/people/metrics/${person.id}`)).status).toBe(404);
  });
});

describe('the rollup', () => {
  it('counts a batch whose transaction commits after later batches were rolled up', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = accountOf(owner);
    const client = await ctx.database.pool.connect();
    try {
      await client.query('begin');
      await client.query(`insert into events (account_id, person_id, type, name, source, data) values ($1, 1, 'email', 'sent', 'email', '{"broadcastId": 3, "emailId": 4}')`, [accountId]);
      // A later insert commits first and is rolled up while the first is still open.
      await record(accountId, [{ person: 2, name: 'sent', data: { broadcastId: 3, emailId: 4 } }]);
      await roll();
      expect((await stats(owner.client, 'period=thisYear')).body.stats.totals.sent).toBe(1);
      await client.query('commit');
    } finally {
      client.release();
    }
    await roll();
    expect((await stats(owner.client, 'period=thisYear')).body.stats.totals.sent).toBe(2);
  });

  it('adds concurrent batches of the pipeline without losing or doubling any', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = accountOf(owner);
    const batches = Array.from({ length: 8 }, (_, b) => Array.from({ length: 250 }, (_, i) => ({ person: b * 250 + i + 1, name: 'sent', data: { broadcastId: 9, emailId: 4 } })));
    await Promise.all([...batches.map((batch) => record(accountId, batch)), roll(), roll()]);
    await roll();
    expect((await stats(owner.client, 'broadcastId=9&period=thisYear')).body.stats.totals.sent).toBe(2000);
  });

  it("leaves out the queued events of an account deleted meanwhile and rolls up the others' figures", async () => {
    const gone = await registerUser(ctx.app);
    const kept = await registerUser(ctx.app);
    // The queue has no key to accounts: the gone account's events wait there after its delete. The rollup's lock
    // is held meanwhile, so that the worker's poller cannot take them before the delete.
    const lock = await ctx.database.pool.connect();
    try {
      await lock.query('select pg_advisory_lock($1)', [rollupLockKey]);
      await record(accountOf(gone), [{ person: 1, name: 'opened', data: { broadcastId: 3, emailId: 4, machine: false } }]);
      await record(accountOf(kept), [{ person: 1, name: 'opened', data: { broadcastId: 3, emailId: 4, machine: false } }]);
      // Deleting an account takes the rollup's lock too: on this connection, which holds it already.
      await lock.query('delete from accounts where id = $1', [accountOf(gone)]);
    } finally {
      await lock.query('select pg_advisory_unlock($1)', [rollupLockKey]);
      lock.release();
    }
    await roll();
    const totals = (await stats(kept.client, 'period=thisYear')).body.stats.totals;
    expect(totals.opened).toBe(1);
    expect(totals.uniqueOpens).toBe(1);
    const left = await sql<{ n: string }>`select count(*)::text as n from email_metric_queue where account_id = ${accountOf(gone)}`.execute(ctx.services.db);
    expect(left.rows[0]!.n).toBe('0');
  });

  it("deletes an account's per-recipient rollup rows with it, a rollup under way included", async () => {
    const gone = await registerUser(ctx.app);
    const id = accountOf(gone);
    await record(id, [{ person: 1, name: 'opened', data: { broadcastId: 3, emailId: 4, machine: false } }]);
    await roll();
    const rowsOf = async () =>
      (await sql<{ n: string }>`select count(*)::text as n from email_metric_firsts where account_id = ${id}`.execute(ctx.services.db)).rows[0]!.n;
    expect(await rowsOf()).toBe('1');
    // A rollup that holds its lock while the account is deleted: the delete waits for it, then takes its rows too.
    await record(id, [{ person: 2, name: 'clicked', data: { broadcastId: 3, emailId: 4, machine: false, link: 'https://example.com/' } }]);
    const rollup = await ctx.database.pool.connect();
    try {
      await rollup.query('begin');
      await rollup.query('select pg_advisory_xact_lock($1)', [rollupLockKey]);
      const deleted = sql`delete from accounts where id = ${id}`.execute(ctx.services.db);
      await waitingOnALock(ctx.database.pool, 'delete from accounts');
      await rollup.query(
        `insert into email_metric_firsts (account_id, source_kind, source_id, email_id, step_id, person_id, name, first_at, variant)
         values ($1, 'broadcast', 3, 4, '', 2, 'clicked', now(), 0)`,
        [id],
      );
      await rollup.query('commit');
      await deleted;
    } finally {
      rollup.release();
    }
    expect(await rowsOf()).toBe('0');
  });

  it('runs in the worker: figures include new events within seconds', async () => {
    const owner = await registerUser(ctx.app);
    await record(accountOf(owner), [{ person: 1, name: 'sent', data: { broadcastId: 5, emailId: 6 } }]);
    const sent = await until(async () => (await stats(owner.client, 'period=thisYear')).body.stats.totals.sent as number, { timeout: 15_000, interval: 250, message: 'the sent event in the figures' });
    expect(sent).toBe(1);
  });
});

/** A team member holding exactly `enabled`, signed in through the mailed invitation. */
async function addMember(owner: Owner, enabled: ScopeId[]): Promise<Client> {
  const email = uniqueEmail('member');
  const invited = await owner.client.post('/v1/team-members', { name: 'Member', email, scopes: scopeIds.map((id) => ({ id, enabled: enabled.includes(id) })) });
  expect(invited.status).toBe(201);
  const token = decodeURIComponent(/accept-invite\?token=([^\s"<]+)/.exec((await smtp.waitFor(email)).text ?? '')![1]!);
  const member = new Client(ctx.app);
  expect((await member.post('/v1/team-members/invitations/accept', { token, password: 'member password 1' })).status).toBe(200);
  return member;
}
