import { sql } from 'kysely';
import { ensureBenchData } from './bench-data.ts';
import { call, percentile, round1, startBench, type Bench } from './lib.ts';

/**
 * `people-search`: latency of GET /v1/people/search on the 1M account over real HTTP, one request
 * at a time (what a user typing into the search box sees). Queries are what people type: email
 * fragments, first and last names, domains, digits from an address, mixed case, no match at all,
 * and the empty query (the first page of everyone).
 */
export const searchQueries = [
  '',
  'an',
  'li',
  'emma',
  'Olivia',
  'noah',
  'mia',
  'jonas',
  'Priya',
  'ahmed',
  'anna.s',
  'liam.g',
  'garcia',
  'smith',
  'Nguyen',
  'mueller',
  'tanaka',
  'kowalski',
  'lee',
  'gmail',
  'gmail.com',
  'yahoo.com',
  '@acme.io',
  'proton.me',
  'hooli',
  'stark.ind',
  '@web.de',
  '1234',
  '98765',
  '42@',
  'emma.lee7',
  'sofia.rossi12',
  'zzqx',
  'nobody@none',
  'marco.',
  'felix.weber',
  'chloe.mart',
  'ines',
  'wei.tan',
  'example.org',
];

/**
 * The floor: the same page (the newest 101 people, a page of 100 and one more to know there are more; not archived;
 * email or name holding the term) asked straight of PostgreSQL on the owner's connection, no HTTP, no row-level
 * security, no function: each search both through the index of three-character pieces (people_search, then the
 * people; one statement OR-ing a lookup for every stretch of person ids the account has, migration 0063) and by
 * walking the entries from the newest, and the faster of the two counts. A term of fewer than three characters has no
 * piece: it is walked only. Milliseconds a search.
 */
/** The account's stretches of person ids, read at the first floor search of a run. */
let stretches: Promise<number[]> | undefined;

async function floorSearch(bench: Bench, accountId: number, query: string): Promise<number> {
  const pattern = `%${query.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const columns = sql`p.id, p.email, p.first_name, p.last_name, p.fields, p.tags, p.created_at`;
  const timed = async (run: () => Promise<unknown>) => {
    const started = performance.now();
    await run();
    return performance.now() - started;
  };
  if (query === '')
    return timed(() =>
      sql`select ${columns} from people p where p.account_id = ${accountId} and p.archived_at is null
        order by p.id desc limit 101`.execute(bench.db),
    );
  const term = query.toLowerCase();
  // The account's stretches are read once; each becomes one lookup of the index, OR-ed in one statement.
  stretches ??= sql<{
    stretch: number;
  }>`select generate_series(min(person_id) >> 17, max(person_id) >> 17) as stretch
    from people_search where account_id = ${accountId}`
    .execute(bench.db)
    .then((r) => r.rows.map((row) => Number(row.stretch)));
  const inStretches = sql.join(
    (await stretches).map(
      (b) => sql`herald_search_grams(s.account_id, s.person_id, s.search)
        @> herald_search_grams(${accountId}, ${b}::bigint << 17, ${term})`,
    ),
    sql` or `,
  );
  const byIndex =
    term.length < 3
      ? Infinity
      : await timed(() =>
          sql`select ${columns} from people p
            where p.account_id = ${accountId} and p.archived_at is null and p.id in (
              select s.person_id from people_search s
              where (${inStretches}) and s.account_id = ${accountId} and s.search like ${pattern})
            order by p.id desc limit 101`.execute(bench.db),
        );
  const byWalk = await timed(() =>
    sql`select ${columns} from people p join people_search s on s.account_id = p.account_id and s.person_id = p.id
      where p.account_id = ${accountId} and p.archived_at is null and s.search like ${pattern}
      order by s.person_id desc limit 101`.execute(bench.db),
  );
  return Math.min(byIndex, byWalk);
}

export async function peopleSearch(): Promise<{ figure: number; unit: string; floor: number }> {
  const bench = await startBench();
  try {
    const { apiKey, accountId } = await ensureBenchData(bench);
    const search = async (query: string) => {
      const started = performance.now();
      const { body } = await call<{ users: unknown[] }>(
        bench,
        'GET',
        `/v1/people/search?query=${encodeURIComponent(query)}&page=0`,
        { apiKey },
      );
      return { ms: performance.now() - started, hits: body.users.length };
    };
    console.log('  warm-up: 40 searches');
    for (const q of searchQueries) await search(q);

    const total = 200;
    const timings: number[] = [];
    const byQuery = new Map<string, { ms: number[]; hits: number }>();
    const deadline = Date.now() + 120_000;
    for (let i = 0; i < total; i += 1) {
      if (Date.now() > deadline) throw new Error(`searches too slow: only ${i}/${total} in 120 s`);
      const query = searchQueries[i % searchQueries.length]!;
      const { ms, hits } = await search(query);
      timings.push(ms);
      const entry = byQuery.get(query) ?? { ms: [], hits };
      entry.ms.push(ms);
      byQuery.set(query, entry);
      if ((i + 1) % 50 === 0) console.log(`  ${i + 1}/${total} searches`);
    }
    const slowest = [...byQuery.entries()]
      .map(([q, e]) => ({
        q,
        median: percentile(
          [...e.ms].sort((a, b) => a - b),
          50,
        ),
        hits: e.hits,
      }))
      .sort((a, b) => b.median - a.median)
      .slice(0, 8);
    console.log('  slowest queries (median ms, hits on page 0):');
    for (const s of slowest)
      console.log(`    ${JSON.stringify(s.q).padEnd(16)} ${round1(s.median)} ms  ${s.hits} hits`);
    timings.sort((a, b) => a - b);
    console.log(
      `  p50 ${round1(percentile(timings, 50))} ms, p95 ${round1(percentile(timings, 95))} ms, max ${round1(timings[timings.length - 1]!)} ms`,
    );
    const floorTimings: number[] = [];
    stretches = undefined;
    for (const q of searchQueries) await floorSearch(bench, accountId, q);
    for (let i = 0; i < total; i += 1)
      floorTimings.push(await floorSearch(bench, accountId, searchQueries[i % searchQueries.length]!));
    floorTimings.sort((a, b) => a - b);
    const floor = round1(percentile(floorTimings, 95));
    console.log(
      `  floor (the same searches straight from PostgreSQL, the faster of two plans): p50 ${round1(percentile(floorTimings, 50))} ms, p95 ${floor} ms`,
    );
    return { figure: round1(percentile(timings, 95)), unit: 'ms', floor };
  } finally {
    await bench.stop();
  }
}
