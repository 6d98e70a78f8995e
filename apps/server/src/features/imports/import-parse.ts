import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import copyStreams from 'pg-copy-streams';
import type pg from 'pg';
import { importMessages, type ColumnMapping } from '@herald/contracts';
import type { Services } from '../../services.ts';
import { listCustomFields } from '../fields/fields.queries.ts';
import { withAccount } from '../../db/tenancy.ts';
import { sniffCsv } from './csv-sniff.ts';
import { CsvReader, type CsvRecord } from './csv-reader.ts';
import { importBatching, type StagedBatch } from './import-merge-sql.ts';
import { planColumns, stagingLine, stagingLineColumns, type ColumnPlan } from './import-plan.ts';
import { SeenEmails } from './seen-emails.ts';
import { stagingTable } from './staging-table.ts';

/** Longest cell kept whole; a longer one (a broken quote, a 1 MB value) fails its row, memory stays bounded. */
const maxCellChars = 1_048_576;

/** A failure the whole import stops on, with the message the user sees. */
export class ImportFailure extends Error {}

/** Add tags to the account's tag list (those it has already are left as they are). */
export async function recordTags(client: pg.PoolClient, accountId: number, tags: string[]): Promise<void> {
  if (tags.length)
    await client.query(
      'insert into tags (account_id, tag) select $1, unnest($2::text[]) on conflict do nothing',
      [accountId, tags],
    );
}

async function readHead(services: Services, key: string): Promise<Buffer> {
  const stream = await services.storage.readStream(key);
  if (!stream) throw new ImportFailure(importMessages.fileMissing);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= 65_536) break;
  }
  stream.destroy();
  return Buffer.concat(chunks);
}

/** One chunk's transaction: staging lines stream into COPY as they are made, failures are kept for the commit. */
interface OpenChunk {
  client: pg.PoolClient;
  copy: NodeJS.WritableStream;
  failures: { rowNo: number; reason: string }[];
  /** Tags of the chunk's rows, recorded with it (the account's tag list shows them once imported). */
  tags: Set<string>;
  /** Staging lines not yet written to the COPY. */
  pending: string;
}

/** Write the chunk's pending lines to its COPY, waiting while PostgreSQL catches up. */
async function flush(chunk: OpenChunk): Promise<void> {
  if (!chunk.pending) return;
  const text = chunk.pending;
  chunk.pending = '';
  if (!chunk.copy.write(text)) await once(chunk.copy, 'drain');
}

async function openChunk(pool: pg.Pool, imp: { accountId: number; id: number }): Promise<OpenChunk> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    // The COPY lasts as long as reading its chunk of the file: the pool's request time limit does not fit it.
    await client.query(
      "select set_config('herald.account_id', $1, true), set_config('synchronous_commit', 'off', true), set_config('statement_timeout', '600000', true)",
      [String(imp.accountId)],
    );
    const copy = client.query(
      copyStreams.from(`copy ${stagingTable(imp.id)} (account_id, ${stagingLineColumns}) from stdin`),
    );
    // Errors surface where the chunk is written or committed (`once`, `finished`); none may go unheard.
    copy.on('error', () => undefined);
    return { client, copy, failures: [], tags: new Set(), pending: '' };
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    client.release();
    throw error;
  }
}

/** Finish the COPY and commit it with the chunk's failures and the count of rows parsed so far. */
async function commitChunk(
  chunk: OpenChunk,
  imp: { accountId: number; id: number },
  parsedRows: number,
): Promise<void> {
  const { client, copy, failures, tags } = chunk;
  try {
    await flush(chunk);
    copy.end();
    await finished(copy);
    if (tags.size) await recordTags(client, imp.accountId, [...tags]);
    if (failures.length) {
      await client.query(
        'insert into import_failures (account_id, import_id, row_no, reason) select $1, $2, r, m from unnest($3::int[], $4::text[]) as t(r, m) on conflict do nothing',
        [imp.accountId, imp.id, failures.map((f) => f.rowNo), failures.map((f) => f.reason)],
      );
    }
    await client.query(
      'update imports set parsed_rows = $3, failed = (select count(*) from import_failures where account_id = $1 and import_id = $2) where account_id = $1 and id = $2',
      [imp.accountId, imp.id, parsedRows],
    );
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

async function abandonChunk(chunk: OpenChunk | undefined): Promise<void> {
  if (!chunk) return;
  // Dropping the connection aborts the COPY and its transaction; nothing of the chunk is kept.
  chunk.client.release(true);
}

/**
 * Parse the file into the import's staging table (made before). The file streams through a decoder and the CSV reader
 * into one COPY per chunk of rows, so PostgreSQL loads while the next rows are read (two chunks at a
 * time, on two connections); each chunk commits, in file order, with the count of rows parsed, so a
 * restarted job skips what is already staged and nothing is lost or doubled. Each committed chunk goes to
 * `onStaged` with whether it may repeat an email of its own or of an earlier chunk (always so after a restart,
 * whose parse did not see the rows staged before it), so it can merge while later chunks are read. It answers
 * the number of data rows.
 */
export async function parseImportFile(
  services: Services,
  imp: { accountId: number; id: number; fileKey: string; fieldMapping: ColumnMapping[]; parsedRows: number },
  onStaged: (batch: StagedBatch) => void,
): Promise<{ totalRows: number }> {
  const head = await readHead(services, imp.fileKey);
  if (head.length === 0) throw new ImportFailure(importMessages.noPeople);
  const shape = sniffCsv(head);
  if (shape.isBinary) throw new ImportFailure('This file is not a CSV text file.');
  const customFields = await withAccount(services.db, imp.accountId, (db) =>
    listCustomFields(db, imp.accountId),
  );
  const stream = await services.storage.readStream(imp.fileKey);
  if (!stream) throw new ImportFailure(importMessages.fileMissing);

  const prefix = `${imp.accountId}\t`;
  let plans: ColumnPlan[] | undefined;
  let rowNo = 0;
  let chunk: OpenChunk | undefined;
  let chunkCount = 0;
  let records: CsvRecord[] = [];
  let committing: Promise<void> = Promise.resolve();
  const reader = new CsvReader(shape.delimiter.charCodeAt(0), maxCellChars, (record) => records.push(record));
  const decoder = new TextDecoder(shape.encoding === 'utf8' ? 'utf-8' : 'latin1');
  const seen = new SeenEmails();
  const chunkRows = importBatching.rows;
  const resumed = imp.parsedRows > 0;
  let first = true;
  /** The chunk's place in the file and what the parse saw of its emails, as the merge needs it. */
  const staged = (upTo: number): StagedBatch => {
    const batch = Math.floor((upTo - 1) / chunkRows);
    return {
      batch,
      from: batch * chunkRows,
      to: upTo,
      repeatsInBatch: resumed || seen.repeatedInBatch,
      repeatsEarlier: resumed || seen.repeatedFromEarlier,
    };
  };

  const take = async () => {
    const batch = records;
    records = [];
    for (const record of batch) {
      if (!plans) {
        plans = planColumns(record.cells, imp.fieldMapping, customFields);
        if (!plans.some((p) => p.kind === 'first' && p.name === 'email'))
          throw new ImportFailure('No column of the file matches the column mapped to Email.');
        continue;
      }
      rowNo += 1;
      if (rowNo <= imp.parsedRows) continue;
      if (chunkCount === 0) seen.startBatch(Math.floor((rowNo - 1) / chunkRows));
      chunk ??= await openChunk(services.pool, imp);
      const line = record.error
        ? { reason: `This row is not valid CSV: ${record.error}` }
        : stagingLine(record.cells, rowNo, plans, chunk.tags, seen);
      if (typeof line === 'string') {
        // Lines go to COPY in blocks of about 64 KB: a write per line costs a buffer and a message each.
        chunk.pending += prefix + line;
        if (chunk.pending.length >= 65_536) await flush(chunk);
      } else {
        chunk.failures.push({ rowNo, reason: line.reason });
      }
      chunkCount += 1;
      if (chunkCount >= chunkRows) {
        const full = chunk;
        chunk = undefined;
        chunkCount = 0;
        const parsedUpTo = rowNo;
        const done = staged(parsedUpTo);
        // PostgreSQL finishes this chunk's COPY while the next chunk is read into a second connection;
        // commits stay in file order (at most two chunks in flight), so `parsed_rows` only moves forward.
        const previous = committing;
        committing = previous.then(
          async () => {
            await commitChunk(full, imp, parsedUpTo);
            onStaged(done);
          },
          async (error: unknown) => {
            // The chunk before failed: this one is never committed, and its connection goes back now.
            await abandonChunk(full);
            throw error;
          },
        );
        committing.catch(() => undefined);
        await previous;
      }
    }
  };

  try {
    for await (const bytes of stream) {
      let text = decoder.decode(bytes as Buffer, { stream: true });
      if (first && text.length > 0) {
        first = false;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      reader.write(text);
      await take();
    }
    reader.write(decoder.decode());
    reader.end();
    await take();
    await committing;
    if (chunk) {
      const last = chunk;
      chunk = undefined;
      const done = staged(rowNo);
      await commitChunk(last, imp, rowNo);
      onStaged(done);
    }
  } catch (error) {
    await abandonChunk(chunk);
    // A chunk still committing ends either way before the job reports the failure.
    await committing.catch(() => undefined);
    throw error;
  } finally {
    stream.destroy();
  }
  if (!plans) throw new ImportFailure(importMessages.noPeople);
  if (rowNo === 0) throw new ImportFailure(importMessages.noPeople);
  return { totalRows: Math.max(rowNo, imp.parsedRows) };
}
