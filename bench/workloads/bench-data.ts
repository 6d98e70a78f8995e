import { sql } from 'kysely';
import type { Database } from '../../apps/server/src/db/connection.ts';
import { holdSegmentRefreshes } from '../../apps/server/src/db/refresh-hold.ts';
import {
  benchAccountName,
  benchCounts,
  benchCredentials,
  benchEvents,
  benchPeople,
  findBenchAccountRow,
  startBench,
  unbounded,
  vacuumAnalyze,
  type Bench,
  type BenchAccount,
} from './lib.ts';

/**
 * The 1M-people / 10M-events account the other workloads run against, generated server-side with
 * INSERT ... SELECT FROM generate_series in chunks (no COPY client needed). Resumable: each chunk
 * commits on its own and the next run continues from the row counts; ANALYZE (with VACUUM, for
 * index-only scans) at the end.
 */

export const firstNames = [
  'Olivia',
  'Emma',
  'Amelia',
  'Sophia',
  'Isabella',
  'Mia',
  'Charlotte',
  'Ava',
  'Harper',
  'Evelyn',
  'Anna',
  'Lena',
  'Marie',
  'Sofia',
  'Laura',
  'Julia',
  'Chloe',
  'Zoe',
  'Nora',
  'Hannah',
  'Liam',
  'Noah',
  'Oliver',
  'James',
  'Elijah',
  'William',
  'Henry',
  'Lucas',
  'Benjamin',
  'Theodore',
  'Jack',
  'Leo',
  'Daniel',
  'Mateo',
  'David',
  'Samuel',
  'Jonas',
  'Felix',
  'Paul',
  'Luis',
  'Marco',
  'Ahmed',
  'Yuki',
  'Wei',
  'Priya',
  'Arjun',
  'Fatima',
  'Omar',
  'Ines',
  'Pedro',
];
export const lastNames = [
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Garcia',
  'Miller',
  'Davis',
  'Rodriguez',
  'Martinez',
  'Hernandez',
  'Lopez',
  'Gonzalez',
  'Wilson',
  'Anderson',
  'Thomas',
  'Taylor',
  'Moore',
  'Jackson',
  'Martin',
  'Lee',
  'Perez',
  'Thompson',
  'White',
  'Harris',
  'Sanchez',
  'Clark',
  'Ramirez',
  'Lewis',
  'Robinson',
  'Walker',
  'Young',
  'Allen',
  'King',
  'Wright',
  'Scott',
  'Torres',
  'Nguyen',
  'Hill',
  'Flores',
  'Mueller',
  'Schmidt',
  'Schneider',
  'Fischer',
  'Weber',
  'Rossi',
  'Russo',
  'Dubois',
  'Kowalski',
  'Tanaka',
];
export const domains = [
  'gmail.com',
  'yahoo.com',
  'outlook.com',
  'hotmail.com',
  'icloud.com',
  'proton.me',
  'gmx.de',
  'web.de',
  'acme.io',
  'globex.com',
  'initech.net',
  'umbrella.co',
  'stark.industries',
  'wayne.enterprises',
  'hooli.xyz',
  'example.org',
];
export const benchTags = [
  'customer',
  'lead',
  'trial',
  'newsletter',
  'vip',
  'churned',
  'webinar-2024',
  'beta',
  'partner',
  'enterprise',
  'smb',
  'eu',
  'us',
  'apac',
  'mobile',
  'desktop',
  'referral',
  'ads',
  'organic',
  'event-attendee',
];
const plans = ['free', 'starter', 'pro', 'enterprise'];
const cities = [
  'Berlin',
  'London',
  'Paris',
  'New York',
  'San Francisco',
  'Tokyo',
  'Madrid',
  'Toronto',
  'Sydney',
  'Lisbon',
];
const trackNames = [
  'Signed in',
  'Viewed product',
  'Added to cart',
  'Checkout started',
  'Order completed',
  'Searched',
  'Email opened',
  'Email clicked',
];
const paths = [
  '/',
  '/pricing',
  '/features',
  '/blog',
  '/blog/launch',
  '/docs',
  '/signup',
  '/login',
  '/contact',
  '/careers',
];

const peopleChunk = 50_000;
const eventsChunk = 250_000;

const list = (values: string[]) => `array[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(',')}]`;
/** A deterministic pseudo-random integer in [0, n) from the series value g and a salt (g * 7 + salt stays in int4). */
const h = (salt: number, n: number) => `((hashint4(g * 7 + ${salt})::bigint & 2147483647) % ${n})`;
const pick = (values: string[], salt: number) => `(${list(values)})[1 + ${h(salt, values.length)}]`;

async function insertPeople(db: Database, accountId: number, from: number, to: number) {
  await unbounded(db, (trx) =>
    sql`insert into people (account_id, email, first_name, last_name, company, fields, tags, created_at, updated_at)
      select ${accountId}, lower(f || '.' || l || g::text || '@' || d), f, l, c, fields, tags, at, at from (
        select g, ${sql.raw(pick(firstNames, 1))} as f, ${sql.raw(pick(lastNames, 2))} as l, ${sql.raw(pick(domains, 3))} as d,
          case when ${sql.raw(h(4, 3))} = 0 then ${sql.raw(pick(['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark'], 5))} end as c,
          jsonb_build_object('plan', ${sql.raw(pick(plans, 6))}, 'city', ${sql.raw(pick(cities, 7))},
            'score', ${sql.raw(h(8, 100))}, 'newsletter', ${sql.raw(h(9, 2))} = 1) as fields,
          array(select distinct t from unnest((array[${sql.raw(pick(benchTags, 10))}, ${sql.raw(pick(benchTags, 11))}, ${sql.raw(pick(benchTags, 12))}])[1:${sql.raw(h(13, 4))}]) t) as tags,
          now() - interval '1 second' * (730 * 86400.0 * (${benchPeople} - g) / ${benchPeople}) as at
        from generate_series(${from}::int, ${to}::int) g
      ) s`.execute(trx),
  );
}

async function insertEvents(
  db: Database,
  accountId: number,
  firstPersonId: number,
  from: number,
  to: number,
) {
  await unbounded(db, (trx) =>
    sql`insert into events (account_id, person_id, type, name, url, data, source, created_at)
      select ${accountId}, case when ${sql.raw(h(21, 50))} = 0 then null else ${firstPersonId}::bigint + ${sql.raw(h(22, benchPeople))} end,
        ty, case ty when 'page' then 'Page viewed' when 'track' then ${sql.raw(pick(trackNames, 23))} end,
        case ty when 'page' then 'https://www.example.com' || ${sql.raw(pick(paths, 24))} end,
        case ty when 'track' then jsonb_build_object('productId', ${sql.raw(h(25, 500))}, 'price', ${sql.raw(h(26, 20000))} / 100.0)
          when 'identify' then jsonb_build_object('plan', ${sql.raw(pick(plans, 27))}) else '{}'::jsonb end,
        case when ${sql.raw(h(28, 10))} = 0 then 'form' else 'api' end,
        now() - interval '1 second' * (180 * 86400.0 * (${benchEvents} - g) / ${benchEvents} + ${sql.raw(h(29, 600))})
      from (select g, case when ${sql.raw(h(20, 20))} < 14 then 'track' when ${sql.raw(h(20, 20))} < 19 then 'page' else 'identify' end as ty
        from generate_series(${from}::int, ${to}::int) g) s`.execute(trx),
  );
}

async function createAccount(bench: Bench): Promise<{ accountId: number; writeKey: string; apiKey: string }> {
  const res = await fetch(`${bench.base}/v1/accounts/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: bench.config.publicUrl },
    body: JSON.stringify({ email: `bench-1m-${Date.now()}@example.com` }),
  });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
  const account = (await res.json()) as { accountId: number; writeKey: string };
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  const rotated = await fetch(`${bench.base}/v1/accounts/rotate-api-key`, {
    method: 'POST',
    headers: { cookie, origin: bench.config.publicUrl },
  });
  if (rotated.status !== 200) throw new Error(`rotate-api-key: ${rotated.status} ${await rotated.text()}`);
  const { apiKey } = (await rotated.json()) as { apiKey: string };
  const id = account.accountId;
  await sql`update accounts set name = ${benchAccountName} where id = ${id}`.execute(bench.db);
  await sql`insert into person_fields (account_id, name, type, title) values
    (${id}, 'plan', 'string', 'Plan'), (${id}, 'city', 'string', 'City'), (${id}, 'score', 'number', 'Score'), (${id}, 'newsletter', 'boolean', 'Newsletter')
    on conflict do nothing`.execute(bench.db);
  await sql`insert into tags (account_id, tag) select ${id}, unnest(${benchTags}::text[]) on conflict do nothing`.execute(
    bench.db,
  );
  return { accountId: id, writeKey: account.writeKey, apiKey };
}

/** The marker account with all its rows, loading what is missing; returns its credentials and what was loaded. */
export async function ensureBenchData(
  bench: Bench,
): Promise<BenchAccount & { loadedRows: number; loadSeconds: number }> {
  let row = await findBenchAccountRow(bench.db);
  let apiKey: string | undefined;
  if (!row) {
    const created = await createAccount(bench);
    apiKey = created.apiKey;
    row = { id: created.accountId, writeKey: created.writeKey, apiKeyHash: null };
    console.log(`  created account ${row.id} (${benchAccountName})`);
  }
  const accountId = row.id;
  const credentials = await benchCredentials(bench, accountId, row.writeKey, apiKey);
  const counts = await benchCounts(bench.db, accountId);
  if (counts.people >= benchPeople && counts.events >= benchEvents) {
    console.log(
      `  account ${accountId} already holds ${counts.people} people and ${counts.events} events: reused`,
    );
    return { ...credentials, loadedRows: 0, loadSeconds: 0 };
  }
  console.log(`  account ${accountId}: ${counts.people} people, ${counts.events} events; loading the rest`);
  // The account's segment refreshes wait for the load, as they wait for an import's merge: a rebuild that began
  // mid-load was planned on the statistics of nearly empty tables, and its check of each person's events scanned
  // the events table as the load grew it (one ran for over ten minutes, and held up the bench's stop).
  const releaseRefreshes = await holdSegmentRefreshes(bench.server.services.pool, accountId);
  try {
    return await load(bench, accountId, credentials, counts);
  } finally {
    await releaseRefreshes();
  }
}

/** Load the people and events `counts` says are missing, then analyze the two tables. */
async function load(
  bench: Bench,
  accountId: number,
  credentials: BenchAccount,
  counts: { people: number; events: number },
): Promise<BenchAccount & { loadedRows: number; loadSeconds: number }> {
  const started = performance.now();
  let loaded = 0;
  const elapsed = () => ((performance.now() - started) / 1000).toFixed(0);
  for (let from = counts.people + 1; from <= benchPeople; from += peopleChunk) {
    const to = Math.min(benchPeople, from + peopleChunk - 1);
    await insertPeople(bench.db, accountId, from, to);
    loaded += to - from + 1;
    if (to % 100_000 === 0 || to === benchPeople)
      console.log(`  people ${to}/${benchPeople} (${elapsed()} s)`);
  }
  // Events point at the first 1M people of the account by offset: their ids must be contiguous.
  const { rows: ids } = await unbounded(bench.db, (trx) =>
    sql<{ first: number; last: number }>`select min(id) as first, max(id) as last from (
      select id from people where account_id = ${accountId} order by id limit ${benchPeople}) p`.execute(trx),
  );
  const first = ids[0]!.first;
  if (ids[0]!.last - first + 1 !== benchPeople)
    throw new Error(`people ids of account ${accountId} are not contiguous; drop the account and reload`);
  for (let from = counts.events + 1; from <= benchEvents; from += eventsChunk) {
    const to = Math.min(benchEvents, from + eventsChunk - 1);
    await insertEvents(bench.db, accountId, first, from, to);
    loaded += to - from + 1;
    if (to % 1_000_000 === 0 || to === benchEvents)
      console.log(`  events ${to}/${benchEvents} (${elapsed()} s)`);
  }
  const loadSeconds = (performance.now() - started) / 1000;
  console.log(`  loaded ${loaded} rows in ${loadSeconds.toFixed(1)} s`);
  await vacuumAnalyze(bench.db, ['people', 'events']);
  return { ...credentials, loadedRows: loaded, loadSeconds };
}

/** `bench-data`: rows per second of the load (0 when the data was already there). */
export async function benchData(): Promise<{ figure: number; unit: string }> {
  const bench = await startBench();
  try {
    const result = await ensureBenchData(bench);
    const figure = result.loadedRows ? Math.round(result.loadedRows / result.loadSeconds) : 0;
    return { figure, unit: 'rows/s' };
  } finally {
    await bench.stop();
  }
}
