import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmailStatsQuery, metricsPresets } from '@herald/contracts';
import type { Session } from '../src/http/route.ts';
import { clickhouseMetrics } from '../src/features/metrics/metrics-clickhouse.queries.ts';
import { rollUpEmailMetrics } from '../src/features/metrics/metrics.jobs.ts';
import { postgresMetrics } from '../src/features/metrics/metrics.queries.ts';
import { emailStats } from '../src/features/metrics/metrics.service.ts';
import { createTestContext, registerUser, type TestContext } from './helpers.ts';

/**
 * The email metrics answer the same from PostgreSQL's rollups and from ClickHouse's (EVENT_STORE=clickhouse): for
 * generated email events (sends, opens and clicks, machine ones among them, hard and soft bounces, unsubscribes,
 * complaints; broadcasts, flow steps and A/B variants; times over the last months, ties included), every preset and
 * a custom period, in several time zones, with each filter, grouped by email and by variant. One server on the
 * ClickHouse store holds both: its spool's trigger fills PostgreSQL's rollups, its views fill ClickHouse's.
 */
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-metrics-parity-'));

beforeAll(async () => {
  ctx = await createTestContext({ EVENT_STORE: 'clickhouse', CLICKHOUSE_URL: `chdb:${directory}` });
  owner = await registerUser(ctx.app);
});
afterAll(async () => {
  await ctx?.close();
  fs.rmSync(directory, { recursive: true, force: true });
});

const hour = 3_600_000;
const names = ['sent', 'opened', 'clicked', 'bounced', 'complained', 'unsubscribed'] as const;
const links = ['https://shop.example/a', 'https://shop.example/b', 'https://blog.example/post'];
const zones = ['UTC', 'Europe/Berlin', 'Asia/Kolkata', 'America/New_York'];

/** Where a message came from: one of two broadcasts (one an A/B test) or two steps of one flow, or none. */
const source = fc.oneof(
  fc.record({ broadcastId: fc.constantFrom(1, 2) }),
  fc.record({ flowId: fc.constant(7), stepId: fc.constantFrom('step-a', 'step-b') }),
  fc.constant({}),
);

const event = fc.record({
  // Few people and emails, so that recipients open and click the same message again, in later batches too.
  person: fc.integer({ min: 0, max: 3 }),
  name: fc.constantFrom(...names),
  source,
  emailId: fc.constantFrom(11, 12),
  machine: fc.boolean(),
  soft: fc.boolean(),
  link: fc.constantFrom(...links),
  // Hours before now, from the last hour to about four months, on a coarse grid so that some events tie.
  hoursAgo: fc.oneof(fc.integer({ min: 0, max: 3000 }), fc.constantFrom(0, 1, 24, 24 * 7, 24 * 30)),
  minute: fc.constantFrom(0, 15, 30, 59),
});

const filters: Record<string, string>[] = [
  {},
  { broadcastId: '1' },
  { 'flowIds[]': '7' },
  { emailIds: '11,12' },
  { stepId: 'step-a' },
  { broadcastId: '2', 'flowIds[]': '7' },
  { groupByEmail: 'true', abTest: 'true' },
];

describe('email metrics on ClickHouse', () => {
  it('answer every preset, period, zone and filter the same as PostgreSQL', async () => {
    const accountId = owner.account.accountId as number;
    const { rows: people } = await sql<{ id: number }>`
      insert into people (account_id, email, created_at, updated_at)
      select ${accountId}, 'parity-' || g || '@metrics.example', now(), now() from generate_series(1, 6) g
      returning id`.execute(ctx.services.db);
    const personIds = people.map((p) => Number(p.id));
    const session = { accountId } as Session;
    const clickhouse = ctx.services.events.clickhouse!;
    let run = 0;

    await fc.assert(
      fc.asyncProperty(
        fc.array(event, { minLength: 20, maxLength: 80 }),
        fc.constantFrom(...zones),
        // Which (period, filter) pairs the run asks: every period and every filter over the runs, a dozen a run.
        fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 12, maxLength: 12 }),
        fc.array(fc.integer({ min: 10, max: 90 }), { minLength: 1, maxLength: 2 }),
        async (events, timezone, asked, batchCuts) => {
          run += 1;
          // Each run's events under emails of its own: ids offset by the run, so the runs' figures do not mix.
          const offset = run * 100;
          const now = Date.now();
          const rows = events.map((e) => {
            const data: Record<string, unknown> = { ...e.source, emailId: e.emailId + offset };
            if ('broadcastId' in e.source) data.broadcastId = e.source.broadcastId + offset;
            if ('flowId' in e.source) data.flowId = e.source.flowId + offset;
            // A/B variant of the first broadcast: one per recipient, as the pipeline assigns it.
            if ('broadcastId' in e.source && e.source.broadcastId === 1) data.variant = 1 + (e.person % 2);
            if (e.name === 'opened' || e.name === 'clicked') data.machine = e.machine;
            if (e.name === 'clicked') data.link = e.link;
            if (e.name === 'bounced') data.soft = e.soft;
            return {
              accountId,
              personId: personIds[e.person]!,
              type: 'email',
              name: e.name,
              source: 'email',
              data: JSON.stringify(data),
              createdAt: new Date(now - e.hoursAgo * hour - e.minute * 60_000),
            };
          });
          // Written in up to three statements, each rolled up and forwarded before the next, oldest first (as
          // sends, opens and clicks arrive): a recipient's later opens come in a later batch than the first.
          rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
          const cuts = [
            0,
            ...batchCuts.map((c) => Math.floor((c / 100) * rows.length)).sort((a, b) => a - b),
            rows.length,
          ];
          for (let i = 0; i + 1 < cuts.length; i += 1) {
            const batch = rows.slice(cuts[i], cuts[i + 1]);
            if (batch.length === 0) continue;
            await ctx.services.db.insertInto('events').values(batch).execute();
            await rollUpEmailMetrics(ctx.services.db, { wait: true });
            await ctx.services.events.settle();
          }
          const readers = {
            postgres: postgresMetrics(ctx.services.db),
            clickhouse: clickhouseMetrics(clickhouse, ctx.services.db),
          };
          const shifted = (filter: Record<string, string>) =>
            Object.fromEntries(
              Object.entries(filter).map(([key, value]) => [
                key,
                /^(broadcastId|flowIds\[\]|emailIds)$/.test(key)
                  ? value
                      .split(',')
                      .map((v) => String(Number(v) + offset))
                      .join(',')
                  : value,
              ]),
            );
          const periods: Record<string, string>[] = [
            ...metricsPresets.map((period) => ({ period })),
            {
              startDate: new Date(now - 40 * 24 * hour).toISOString().slice(0, 10),
              endDate: new Date(now - 2 * 24 * hour).toISOString().slice(0, 10),
            },
          ];
          const pairs = [
            ...periods.map((period, i) => [period, filters[i % filters.length]!] as const),
            ...asked.map(([p, f]) => [periods[p % periods.length]!, filters[f % filters.length]!] as const),
          ];
          for (const [period, filter] of pairs) {
            const query = EmailStatsQuery.parse({ ...period, ...shifted(filter), timezone });
            const [fromPostgres, fromClickHouse] = await Promise.all([
              emailStats(ctx.services.db, session, query, readers.postgres, now),
              emailStats(ctx.services.db, session, query, readers.clickhouse, now),
            ]);
            expect(fromClickHouse, JSON.stringify({ period, filter, timezone })).toEqual(fromPostgres);
          }
        },
      ),
      { numRuns: 6 },
    );
  }, 240_000);
});
