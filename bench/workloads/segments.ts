import { sql } from 'kysely';
import type { ConditionNode, Segment } from '@herald/contracts';
import { ensureBenchData } from './bench-data.ts';
import { call, percentile, round1, startBench, type Bench, type BenchAccount } from './lib.ts';

/**
 * Segment workloads on the 1M-people / 10M-events account, over real HTTP with the account's API key:
 * `segment-count` and `segment-people` time the live count and the first page of a three-condition
 * segment; `segment-freshness` times a change to a person until membership shows it; `segment-refresh`
 * times a full refresh of 20 segments.
 */

/** Field + tag + event in the last 30 days: the issue's three-condition segment. */
export const threeConditions: ConditionNode[] = [
  { type: 'field', field: 'plan', operator: 'equals', value: 'pro' },
  { type: 'tag', operator: 'has', tag: 'customer' },
  {
    type: 'event',
    name: 'Order completed',
    count: { operator: 'atLeast', value: 1 },
    window: { type: 'inTheLast', days: 30 },
    properties: [],
  },
];

const runs = 15;

/**
 * The floor of `segment-count` and `segment-people`: `threeConditions` written by hand as one WHERE clause over the
 * account's people, run on the owner's connection (no row-level security, no compiler, no HTTP): the plan field, the
 * tag (through the tags index), an order completed in the last 30 days (through the events' person index), and not
 * archived, as a segment counts.
 */
const handWritten = (accountId: number) => sql`p.account_id = ${accountId} and p.archived_at is null
  and p.fields ->> 'plan' = 'pro' and p.tags @> array['customer']
  and exists (select 1 from events e where e.account_id = ${accountId} and e.person_id = p.id
    and e.type = 'track' and e.name = 'Order completed' and e.created_at >= now() - interval '30 days')`;

/** The named segment with these conditions, created or brought back to them. */
async function ensureSegment(
  bench: Bench,
  account: BenchAccount,
  name: string,
  conditions: ConditionNode[],
): Promise<Segment> {
  const { body } = await call<{ segments: Segment[] }>(bench, 'GET', '/v1/segments', {
    apiKey: account.apiKey,
  });
  const existing = body.segments.find((s) => s.name === name);
  if (existing) {
    const saved = await call<{ segment: Segment }>(bench, 'PATCH', `/v1/segments/${existing.id}`, {
      apiKey: account.apiKey,
      body: { id: existing.id, name, conditions },
    });
    return saved.body.segment;
  }
  const created = await call<{ segment: Segment }>(bench, 'POST', '/v1/segments/', {
    apiKey: account.apiKey,
    body: { name, conditions },
    expect: 201,
  });
  return created.body.segment;
}

/** Median and p95 of `runs` timed calls after two warm-up calls. */
async function timeCalls(label: string, fn: () => Promise<string>): Promise<number> {
  for (let i = 0; i < 2; i += 1) console.log(`  warm-up: ${await fn()}`);
  const timings: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    const what = await fn();
    const ms = performance.now() - started;
    timings.push(ms);
    if (i % 5 === 4) console.log(`  ${label} ${i + 1}/${runs}: ${round1(ms)} ms (${what})`);
  }
  timings.sort((a, b) => a - b);
  console.log(
    `  ${label}: median ${round1(percentile(timings, 50))} ms, p95 ${round1(percentile(timings, 95))} ms, max ${round1(timings.at(-1)!)} ms`,
  );
  return round1(percentile(timings, 50));
}

/**
 * `segment-count`: median ms of GET /v1/segments/{id}/preview for the three-condition segment; the floor is the same
 * count written by hand (`handWritten`).
 */
export async function segmentCount(): Promise<{ figure: number; unit: string; floor: number }> {
  const bench = await startBench();
  try {
    const account = await ensureBenchData(bench);
    const segment = await ensureSegment(
      bench,
      account,
      'bench: pro customers who ordered lately',
      threeConditions,
    );
    const figure = await timeCalls('count', async () => {
      const { body } = await call<{ totalCount: number }>(
        bench,
        'GET',
        `/v1/segments/${segment.id}/preview`,
        { apiKey: account.apiKey },
      );
      return `${body.totalCount} people`;
    });
    const floor = await timeCalls('hand-written count', async () => {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from people p
        where ${handWritten(account.accountId)}`.execute(bench.db);
      return `${rows[0]!.n} people`;
    });
    return { figure, unit: 'ms', floor };
  } finally {
    await bench.stop();
  }
}

/**
 * `segment-people`: median ms of the first page (100, newest first) of the three-condition segment; the floor is the
 * same page written by hand (`handWritten`).
 */
export async function segmentPeople(): Promise<{ figure: number; unit: string; floor: number }> {
  const bench = await startBench();
  try {
    const account = await ensureBenchData(bench);
    const segment = await ensureSegment(
      bench,
      account,
      'bench: pro customers who ordered lately',
      threeConditions,
    );
    const figure = await timeCalls('first page', async () => {
      const { body } = await call<{ users: unknown[]; hasMore: boolean }>(
        bench,
        'GET',
        `/v1/segments/${segment.id}/people?limit=100&offset=0`,
        {
          apiKey: account.apiKey,
        },
      );
      return `${body.users.length} people, hasMore ${body.hasMore}`;
    });
    const floor = await timeCalls('hand-written first page', async () => {
      const { rows } = await sql<{
        id: number;
      }>`select p.id, p.email, p.first_name, p.last_name, p.fields, p.tags,
          p.created_at from people p where ${handWritten(account.accountId)} order by p.id desc limit 101`.execute(
        bench.db,
      );
      return `${Math.min(rows.length, 100)} people, hasMore ${rows.length > 100}`;
    });
    return { figure, unit: 'ms', floor };
  } finally {
    await bench.stop();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Wait until `check` is true, polling every 50 ms; seconds waited. */
async function waitFor(what: string, check: () => Promise<boolean>, limitSeconds: number): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > limitSeconds * 1000)
      throw new Error(`${what}: not after ${limitSeconds} s`);
    await sleep(50);
  }
  return (performance.now() - started) / 1000;
}

/** True when every segment has been built at least once. */
async function built3(bench: Bench, accountId: number, ids: number[]): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from segments
    where account_id = ${accountId} and id = any(${ids}::bigint[]) and refreshed_at is not null`.execute(
    bench.db,
  );
  return rows[0]!.n === ids.length;
}

async function isMember(
  bench: Bench,
  accountId: number,
  segmentId: number,
  personId: number,
): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from segment_members
    where account_id = ${accountId} and segment_id = ${segmentId} and person_id = ${personId}`.execute(
    bench.db,
  );
  return rows[0]!.n === 1;
}

/**
 * `segment-freshness`: seconds from a change to a person (a field edit, a tag, an event, each through
 * the API) until the person is a member of a segment that the change makes them match; the median
 * of three changes of each kind.
 */
export async function segmentFreshness(): Promise<{ figure: number; unit: string }> {
  const bench = await startBench();
  try {
    const account = await ensureBenchData(bench);
    const { apiKey, accountId } = account;
    const marker = `fresh-${Date.now()}`;
    const byField = await ensureSegment(bench, account, 'bench: freshness by city', [
      { type: 'field', field: 'city', operator: 'equals', value: 'Freshville' },
    ]);
    const byTag = await ensureSegment(bench, account, 'bench: freshness by tag', [
      { type: 'tag', operator: 'has', tag: 'bench-fresh' },
    ]);
    const byEvent = await ensureSegment(bench, account, 'bench: freshness by event', [
      {
        type: 'event',
        name: 'Bench fresh',
        count: { operator: 'atLeast', value: 1 },
        window: { type: 'inTheLast', days: 1 },
        properties: [],
      },
    ]);
    const ids = [byField.id, byTag.id, byEvent.id];
    console.log('  waiting for the three segments to be built');
    const built = await waitFor('first build', () => built3(bench, accountId, ids), 300);
    console.log(`  built in ${round1(built)} s`);

    // Nine people no earlier run has used: a random stretch of the account, none of them a member yet.
    const offset = 1000 + Math.floor(Math.random() * 900_000);
    const { rows: people } = await sql<{ id: number; email: string }>`select id, email from people p
      where account_id = ${accountId} and archived_at is null and email is not null
        and not exists (select 1 from segment_members m where m.account_id = ${accountId} and m.segment_id = any(${ids}::bigint[]) and m.person_id = p.id)
      order by id desc offset ${offset} limit 9`.execute(bench.db);
    const seconds: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const changes: [string, number, () => Promise<unknown>][] = [
        [
          'field',
          byField.id,
          () => call(bench, 'PATCH', `/v1/people/${people[i]!.id}`, { apiKey, body: { city: 'Freshville' } }),
        ],
        [
          'tag',
          byTag.id,
          () =>
            call(bench, 'POST', '/v1/tags/', { apiKey, body: { tag: 'bench-fresh', id: people[3 + i]!.id } }),
        ],
        [
          'event',
          byEvent.id,
          () =>
            call(bench, 'POST', '/v1/ingest', {
              writeKey: account.writeKey,
              body: {
                type: 'track',
                email: people[6 + i]!.email,
                name: 'Bench fresh',
                properties: { marker },
              },
            }),
        ],
      ];
      for (const [kind, segmentId, change] of changes) {
        const person = people[(kind === 'field' ? 0 : kind === 'tag' ? 3 : 6) + i]!;
        const started = performance.now();
        await change();
        await waitFor(`${kind} change`, () => isMember(bench, accountId, segmentId, person.id), 60);
        const s = (performance.now() - started) / 1000;
        seconds.push(s);
        console.log(`  ${kind} change of person ${person.id}: member after ${round1(s)} s`);
      }
    }
    // Put the people back so the next run starts from the same state (not timed).
    await call(bench, 'DELETE', '/v1/tags/', {
      apiKey,
      body: { tag: 'bench-fresh', id: people.slice(3, 6).map((p) => p.id) },
    });
    for (const p of people.slice(0, 3))
      await call(bench, 'PATCH', `/v1/people/${p.id}`, { apiKey, body: { city: 'Berlin' } });
    seconds.sort((a, b) => a - b);
    console.log(`  worst ${round1(seconds.at(-1)!)} s`);
    return { figure: round1(percentile(seconds, 50)), unit: 's' };
  } finally {
    await bench.stop();
  }
}

/** Twenty segments of the shapes marketers build: fields, tags, events, pages, groups, nesting. */
export function refreshSegments(): { name: string; conditions: ConditionNode[] }[] {
  const plans = ['free', 'starter', 'pro', 'enterprise'];
  const cities = ['Berlin', 'London', 'Paris', 'Tokyo', 'Lisbon'];
  const tags = ['customer', 'lead', 'trial', 'vip', 'newsletter'];
  const list: { name: string; conditions: ConditionNode[] }[] = [];
  for (let i = 0; i < 20; i += 1) {
    const conditions: ConditionNode[] = [
      { type: 'field', field: 'plan', operator: 'equals', value: plans[i % 4]! },
    ];
    if (i % 2 === 0) conditions.push({ type: 'tag', operator: 'has', tag: tags[i % 5]! });
    if (i % 3 === 0)
      conditions.push({ type: 'field', field: 'score', operator: 'greaterThan', value: 10 + i * 3 });
    if (i % 4 === 1)
      conditions.push({
        type: 'event',
        name: 'Viewed product',
        count: { operator: 'atLeast', value: 1 },
        window: { type: 'inTheLast', days: 30 + i },
        properties: [],
      });
    if (i % 5 === 2)
      conditions.push({
        type: 'pageVisited',
        performed: true,
        match: 'contains',
        url: '/pricing',
        window: { type: 'inTheLast', days: 60 },
      });
    if (i % 6 === 3)
      conditions.push({
        type: 'group',
        operator: 'or',
        conditions: [
          { type: 'field', field: 'city', operator: 'equals', value: cities[i % 5]! },
          { type: 'created', operator: 'withinLast', value: 90 },
        ],
      });
    list.push({ name: `bench-refresh-${String(i + 1).padStart(2, '0')}`, conditions });
  }
  return list;
}

/**
 * `segment-refresh`: seconds until 20 new segments over the 1M account are built by the worker (full
 * refresh of each, from saving to `refreshed_at`). The previous run's segments are deleted first.
 */
export async function segmentRefresh(): Promise<{ figure: number; unit: string }> {
  const bench = await startBench();
  try {
    const account = await ensureBenchData(bench);
    const { apiKey, accountId } = account;
    const { body } = await call<{ segments: Segment[] }>(bench, 'GET', '/v1/segments', { apiKey });
    const old = body.segments.filter((s) => s.name.startsWith('bench-refresh-'));
    for (const s of old) await call(bench, 'DELETE', `/v1/segments/${s.id}`, { apiKey });
    if (old.length) console.log(`  deleted ${old.length} segments of the previous run`);

    const since = new Date();
    const started = performance.now();
    const ids: number[] = [];
    for (const s of refreshSegments()) {
      const created = await call<{ segment: Segment }>(bench, 'POST', '/v1/segments/', {
        apiKey,
        body: s,
        expect: 201,
      });
      ids.push(created.body.segment.id);
    }
    console.log(`  saved 20 segments in ${round1((performance.now() - started) / 1000)} s`);
    let last = -1;
    await waitFor(
      'refresh of 20 segments',
      async () => {
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from segments
          where account_id = ${accountId} and id = any(${ids}::bigint[]) and refreshed_at >= ${since}`.execute(
          bench.db,
        );
        if (rows[0]!.n !== last) {
          last = rows[0]!.n;
          console.log(`  ${last}/20 built (${round1((performance.now() - started) / 1000)} s)`);
        }
        return last === ids.length;
      },
      600,
    );
    const seconds = (performance.now() - started) / 1000;
    const { rows } = await sql<{ name: string; memberCount: number }>`select name, member_count from segments
      where account_id = ${accountId} and id = any(${ids}::bigint[]) order by name`.execute(bench.db);
    console.log(`  members: ${rows.map((r) => `${r.name.slice(-2)}=${r.memberCount}`).join(' ')}`);
    return { figure: round1(seconds), unit: 's' };
  } finally {
    await bench.stop();
  }
}
