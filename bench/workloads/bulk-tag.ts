import { sql } from 'kysely';
import { ensureBenchData } from './bench-data.ts';
import { call, round1, startBench, unbounded, vacuumAnalyze } from './lib.ts';

const tag = 'bench-bulk';
const target = 100_000;

/**
 * `bulk-tag`: seconds from POST /v1/tags/bulk with 100,000 ids of the 1M account (every tenth
 * person, so the rows are spread over the whole table) until GET /v1/bulk-actions/{id} says done.
 * The tag is removed from everyone first (not timed) so each run does the same work.
 */
export async function bulkTag(): Promise<{ figure: number; unit: string }> {
  const bench = await startBench();
  try {
    const { accountId, apiKey } = await ensureBenchData(bench);
    const people = await unbounded(bench.db, async (trx) => {
      const cleared = await sql`update people set tags = array_remove(tags, ${tag})
        where account_id = ${accountId} and tags @> array[${tag}]::text[]`.execute(trx);
      console.log(`  cleared the tag from ${Number(cleared.numAffectedRows ?? 0)} people`);
      const { rows } = await sql<{
        id: number;
      }>`select id from people where account_id = ${accountId} and id % 10 = 3
        order by id limit ${target}`.execute(trx);
      return rows.map((r) => r.id);
    });
    if (people.length < target) throw new Error(`only ${people.length} people to tag`);
    await vacuumAnalyze(bench.db, ['people']);

    const started = performance.now();
    const accepted = await call<{ bulkActionId: number }>(bench, 'POST', '/v1/tags/bulk', {
      apiKey,
      body: { tag, people },
      expect: 202,
    });
    const id = accepted.body.bulkActionId;
    console.log(`  accepted as bulk action ${id} after ${round1(performance.now() - started)} ms`);
    let lastDone = -1;
    for (;;) {
      const { body } = await call<{ status: string; done: number; total: number | null; result: unknown }>(
        bench,
        'GET',
        `/v1/bulk-actions/${id}`,
        { apiKey },
      );
      if (body.done !== lastDone) {
        console.log(
          `  ${body.status} ${body.done}/${body.total} (${round1((performance.now() - started) / 1000)} s)`,
        );
        lastDone = body.done;
      }
      if (body.status === 'done') break;
      if (body.status === 'failed') throw new Error(`bulk action failed: ${JSON.stringify(body.result)}`);
      if (performance.now() - started > 180_000) throw new Error('bulk action not done after 180 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from people where account_id = ${accountId} and tags @> array[${tag}]::text[]`.execute(
      bench.db,
    );
    console.log(`  ${rows[0]!.n} people carry the tag`);
    if (rows[0]!.n !== target) throw new Error(`expected ${target} tagged people, found ${rows[0]!.n}`);
    return { figure: round1(seconds), unit: 's' };
  } finally {
    await bench.stop();
  }
}
