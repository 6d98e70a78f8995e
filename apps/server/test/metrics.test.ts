import { metricsMessages, scopeIds, type EmailStatsResponse } from '@herald/contracts';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember } from './email-helpers.ts';
import { Client, registerUser, uniqueEmail } from './helpers.ts';
import {
  accountOf,
  ctx,
  record,
  roll,
  smtp,
  stats,
  useMetricsContext,
  type Owner,
} from './metrics-fixtures.ts';

useMetricsContext();

/** A broadcast of email 11 to people 1-4 (variant 1 or 2), 26 to 30 hours ago, with opens, clicks and feedback. */
async function seed(accountId: number, broadcastId = 7) {
  const b = { broadcastId, emailId: 11 };
  await record(accountId, [
    ...[1, 2, 3, 4].map((person) => ({
      person,
      name: 'sent',
      data: { ...b, messageId: `m${person}`, variant: person <= 2 ? 1 : 2 },
      ago: 30,
    })),
    { person: 1, name: 'opened', data: { ...b, variant: 1, machine: false }, ago: 29 },
    { person: 1, name: 'opened', data: { ...b, variant: 1, machine: false }, ago: 28 },
    { person: 2, name: 'opened', data: { ...b, variant: 1, machine: true }, ago: 29 },
    { person: 3, name: 'opened', data: { ...b, variant: 2, machine: false }, ago: 27 },
    {
      person: 1,
      name: 'clicked',
      data: { ...b, variant: 1, machine: false, link: 'https://example.com/a' },
      ago: 28,
    },
    {
      person: 1,
      name: 'clicked',
      data: { ...b, variant: 1, machine: false, link: 'https://example.com/b' },
      ago: 28,
    },
    {
      person: 2,
      name: 'clicked',
      data: { ...b, variant: 1, machine: true, link: 'https://example.com/a' },
      ago: 29,
    },
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
    expect(s.startDate).toBe(
      `${new Date(Date.parse(s.endDate) - 29 * 86_400_000).toISOString().slice(0, 10)}T00:00:00.000Z`,
    );
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
    const expected = {
      last7Days: 'hour',
      lastWeek: 'hour',
      thisWeek: 'hour',
      last90Days: 'day',
      lastMonth: 'day',
      thisQuarter: 'day',
      lastYear: 'week',
      thisYear: 'week',
    } as const;
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
    expect(week.startDate).toBe(
      `${new Date(Date.parse(week.endDate) - 6 * 86_400_000).toISOString().slice(0, 10)}T00:00:00.000Z`,
    );
    expect(week.series).toHaveLength(
      Math.ceil((Date.parse(week.endDate) - Date.parse(week.startDate)) / 3_600_000),
    );
    expect(week.totals.sent).toBe(4);
  });

  it('filters by broadcast, email and step; an unknown broadcast gives empty figures', async () => {
    expect((await stats(owner.client, 'broadcastId=7')).body.stats.totals.sent).toBe(4);
    // The account-wide rollups (read when nothing is filtered) agree with the detailed ones: all mail here is broadcast 7.
    const everything = await stats(owner.client, 'period=last30Days');
    const broadcast = await stats(owner.client, 'period=last30Days&broadcastId=7');
    expect(everything.body.stats.totals).toEqual(broadcast.body.stats.totals);
    // Both end at the moment each was asked: the buckets' starts and figures agree.
    const figures = (series: EmailStatsResponse['stats']['series']) =>
      series.map(({ end: _end, ...bucket }) => bucket);
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
    for (const query of [
      'flowIds=9007199254740991&emailIds=9007199254740991',
      'flowIds[]=9007199254740991&emailIds[]=11',
    ]) {
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
    expect(res.body.stats.emails).toEqual([
      expect.objectContaining({ emailId: 11, sent: 4, uniqueOpens: 2 }),
    ]);
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
    const open = (person: number, ago: number) => ({
      person,
      name: 'opened',
      data: { broadcastId: 3, emailId: 4 },
      ago,
    });
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
    const allTime = await stats(
      owner.client,
      `endDate=${new Date().toISOString().slice(0, 10)}&timezone=UTC`,
    );
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
    for (const query of [
      'emailIds=abc',
      'broadcastId=-1',
      'abTest=maybe',
      `stepId=${'x'.repeat(200)}`,
      `flowIds=${'1,'.repeat(600)}`,
    ]) {
      expect((await stats(owner.client, query)).status, query).toBe(400);
    }
  });

  it('needs a session and the emailMetrics:read scope', async () => {
    expect((await new Client(ctx.app).get('/v1/emails/stats')).status).toBe(401);
    const without = await addMember(
      ctx,
      smtp,
      owner,
      scopeIds.filter((id) => id !== 'emailMetrics:read'),
    );
    expect((await stats(without, '')).status).toBe(403);
    const withScope = await addMember(ctx, smtp, owner, ['emailMetrics:read']);
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
    const add = async () =>
      (await owner.client.post('/v1/people/?source=manual', { email: uniqueEmail('reader') })).body.user as {
        id: number;
      };
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
    await sql`insert into events (account_id, person_id, type, name, source) values (${accountOf(owner)}, ${person.id}, 'custom', 'opened', 'api')`.execute(
      ctx.services.db,
    );
    // No rollup ran: the figures are there as soon as the events are.
    const res = await owner.client.get(`/v1/people/metrics/${person.id}`);
    expect(res.status).toBe(200);
    expect(res.body.metrics).toEqual({ sent: 1, opened: 2, clicked: 1, bounced: 1, unsubscribed: 0 });
    const stranger = await registerUser(ctx.app);
    expect((await stranger.client.get(`/v1/people/metrics/${person.id}`)).status).toBe(404);
  });
});
