import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import copyStreams from 'pg-copy-streams';
import type pg from 'pg';
import { importMessages, type ColumnMapping } from '@herald/contracts';
import type { Services } from '../../services.ts';
import { listCustomFields } from '../fields/fields.queries.ts';
import { withAccount } from '../../db/tenancy.ts';
import { sniffCsv } from './csv-sniff.ts';
import { planColumns, toStagingRow, type StagingRow } from './import-plan.ts';

const chunkRows = 25_000;

/** A failure the whole import stops on, with the message the user sees. */
export class ImportFailure extends Error {}

/**
 * Run `work` on a pooled client in a transaction that sees only the account's rows. PostgreSQL
 * refuses COPY FROM under row-level security, so the staging COPY runs with `asOwner` and writes
 * the account id into every row itself.
 */
export async function withAccountClient<T>(pool: pg.Pool, accountId: number, work: (client: pg.PoolClient) => Promise<T>, options: { asOwner?: boolean } = {}): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query(
      options.asOwner ? "select set_config('herald.account_id', $1, true)" : "select set_config('herald.account_id', $1, true), set_config('role', 'herald_app', true)",
      [String(accountId)],
    );
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

const copyCell = (value: string | null) => (value === null ? '' : `"${value.replace(/"/g, '""')}"`);
const pgArray = (values: string[]) => `{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;

function copyLine(accountId: number, importId: number, row: StagingRow): string {
  const f = row.first;
  return `${[
    String(accountId), String(importId), String(row.rowNo), copyCell(f.email!), copyCell(f.email!.toLowerCase()),
    copyCell(f.firstName ?? null), copyCell(f.lastName ?? null), copyCell(f.phone ?? null), copyCell(f.company ?? null),
    copyCell(f.website ?? null), copyCell(f.userId ?? null), copyCell(JSON.stringify(row.fields)), copyCell(pgArray(row.tags)),
  ].join(',')}\n`;
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

/**
 * Parse the file into the staging table. Rows are committed in chunks together with the count of
 * rows parsed, so a restarted job skips what is already staged and nothing is lost or doubled.
 */
export async function parseImportFile(
  services: Services,
  imp: { accountId: number; id: number; fileKey: string; fieldMapping: ColumnMapping[]; parsedRows: number },
  onProgress: (parsed: number) => void,
): Promise<number> {
  const head = await readHead(services, imp.fileKey);
  if (head.length === 0) throw new ImportFailure(importMessages.noPeople);
  const shape = sniffCsv(head);
  if (shape.isBinary) throw new ImportFailure('This file is not a CSV text file.');
  const customFields = await withAccount(services.db, imp.accountId, (db) => listCustomFields(db, imp.accountId));
  const stream = (await services.storage.readStream(imp.fileKey))!;
  const parser = parse({ bom: true, delimiter: shape.delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, skip_records_with_error: true });
  let plans: ReturnType<typeof planColumns> | undefined;
  let rowNo = 0;
  let staged: string[] = [];
  let failures: { rowNo: number; reason: string }[] = [];

  const flush = async () => {
    if (rowNo <= imp.parsedRows) return;
    const lines = staged;
    const failed = failures;
    staged = [];
    failures = [];
    await withAccountClient(services.pool, imp.accountId, async (client) => {
      if (lines.length) {
        const copy = client.query(copyStreams.from('copy import_rows (account_id, import_id, row_no, email, email_lower, first_name, last_name, phone, company, website, external_id, fields, tags) from stdin with (format csv)'));
        await pipeline(Readable.from(lines), copy);
      }
      if (failed.length) {
        await client.query(
          'insert into import_failures (account_id, import_id, row_no, reason) select $1, $2, r, m from unnest($3::int[], $4::text[]) as t(r, m) on conflict do nothing',
          [imp.accountId, imp.id, failed.map((f) => f.rowNo), failed.map((f) => f.reason)],
        );
      }
      await client.query('update imports set parsed_rows = $3, failed = (select count(*) from import_failures where account_id = $1 and import_id = $2) where account_id = $1 and id = $2', [imp.accountId, imp.id, rowNo]);
    }, { asOwner: true });
    onProgress(rowNo);
  };

  parser.on('skip', (error: { message: string; lines?: number }) => {
    rowNo += 1;
    if (rowNo > imp.parsedRows) failures.push({ rowNo, reason: `Line ${error.lines ?? '?'} is not valid CSV: ${error.message}` });
  });
  // Latin-1 is one byte a character, so each chunk decodes on its own; UTF-8 goes through as bytes.
  const decoded = shape.encoding === 'latin1' ? stream.pipe(new Transform({ transform: (chunk: Buffer, _e, cb) => cb(null, chunk.toString('latin1')) })) : stream;
  decoded.pipe(parser);
  stream.on('error', (error) => parser.destroy(error));
  decoded.on('error', (error) => parser.destroy(error));
  for await (const record of parser as AsyncIterable<string[]>) {
    if (!plans) {
      plans = planColumns(record, imp.fieldMapping, customFields);
      if (!plans.some((p) => p.kind === 'first' && p.name === 'email')) throw new ImportFailure('No column of the file matches the column mapped to Email.');
      continue;
    }
    rowNo += 1;
    if (rowNo <= imp.parsedRows) continue;
    const row = toStagingRow(record, rowNo, plans);
    if ('reason' in row) failures.push({ rowNo, reason: row.reason });
    else staged.push(copyLine(imp.accountId, imp.id, row));
    if (staged.length + failures.length >= chunkRows) await flush();
  }
  await flush();
  if (rowNo === 0) throw new ImportFailure(importMessages.noPeople);
  return rowNo;
}
