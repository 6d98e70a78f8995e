import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'kysely';
import { from as copyFrom } from 'pg-copy-streams';
import { round1, type Bench } from './lib.ts';

const linesPerChunk = 10_000;

/**
 * The floor of `event-ingest`: as many event rows as the load stored, of the same shape (a person of the account, a
 * type and name, a small JSON of properties, the source and a time), written by one bare `COPY` into a table of the
 * events table's columns and indexes (no triggers, no row-level security, no references), in one transaction.
 * Nothing resolves people or reads the messages: it is what storing the rows alone costs on this database. Returns
 * rows a second.
 */
export async function eventsCopyFloor(bench: Bench, accountId: number, personIds: number[], count: number) {
  await sql`drop table if exists events_copy_floor`.execute(bench.db);
  await sql`create table events_copy_floor (like events including defaults including indexes)`.execute(
    bench.db,
  );
  const names = ['Signed in', 'Viewed product', 'Added to cart', 'Checkout started', 'Order completed'];
  const now = Date.now();
  function* chunks() {
    for (let first = 0; first < count; first += linesPerChunk) {
      const lines: string[] = [];
      for (let i = first; i < Math.min(count, first + linesPerChunk); i += 1) {
        const at = new Date(now - (i % 3_600_000)).toISOString();
        const data = JSON.stringify({ productId: i % 500, price: 19.9 });
        lines.push(
          `${accountId}\t${i + 1}\t${personIds[i % personIds.length]}\ttrack\t${names[i % names.length]}\t\\N\t${data}\tapi\t${at}\n`,
        );
      }
      yield lines.join('');
    }
  }
  const client = await bench.server.services.pool.connect();
  const started = performance.now();
  try {
    await client.query('set statement_timeout = 0');
    await pipeline(
      Readable.from(chunks()),
      client.query(
        copyFrom(
          'copy events_copy_floor (account_id, id, person_id, type, name, url, data, source, created_at) from stdin',
        ),
      ),
    );
  } finally {
    client.release();
  }
  const seconds = (performance.now() - started) / 1000;
  await sql`drop table events_copy_floor`.execute(bench.db);
  const rate = Math.round(count / seconds);
  console.log(
    `  floor: ${count} rows copied into a table of the events' shape in ${round1(seconds)} s (${rate}/s)`,
  );
  return rate;
}
