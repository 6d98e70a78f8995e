import fs from 'node:fs/promises';
import { loadConfig } from '../config.ts';
import { connectDatabase } from '../db/database.ts';
import type { Database } from '../db/connection.ts';
import {
  addCodes,
  CodeEntryError,
  describeCodes,
  marketplaceBands,
  type AddCodesResult,
  type CodeEntry,
} from '../features/marketplace/marketplace-codes.service.ts';
import { CliError, type CliCommand } from './cli-command.ts';
import { CsvReader } from '../features/imports/csv-reader.ts';

const usage = 'marketplace-codes add <peopleUpperLimit> <code…> | import <file.csv> | list';
const limitPattern = /^\d{1,9}$/;

/** `npm run cli -- marketplace-codes …`: load the codes sold on a deal marketplace, and see which are used. */
export const marketplaceCodesCommand: CliCommand = {
  name: 'marketplace-codes',
  usage,
  async run(args) {
    const [action, ...rest] = args;
    if (action === 'add') return withDatabase((db) => add(db, rest));
    if (action === 'import') return withDatabase((db) => importFile(db, rest));
    if (action === 'list') return withDatabase((db) => list(db, rest));
    throw new CliError(`Usage: npm run cli -- ${usage}`);
  },
};

/** The server's own database: DATABASE_URL, or the embedded PostgreSQL the server starts (migrated either way). */
async function withDatabase(work: (db: Database) => Promise<void>): Promise<void> {
  const database = await connectDatabase(loadConfig(), () => undefined);
  try {
    await work(database.db);
  } finally {
    await database.close();
  }
}

async function add(db: Database, args: string[]): Promise<void> {
  const [limit, ...codes] = args;
  if (!limit || !limitPattern.test(limit) || codes.length === 0) {
    throw new CliError(
      `Usage: npm run cli -- marketplace-codes add <peopleUpperLimit> <code…>\nThe bands are ${marketplaceBands.join(', ')}.`,
    );
  }
  report(
    await load(
      db,
      codes.map((code) => ({ code, peopleUpperLimit: Number(limit) })),
    ),
  );
}

/**
 * A CSV with one code per row: `code,peopleUpperLimit`. A first row whose second cell is not a number is a header
 * and is skipped. Blank rows are ignored.
 */
async function importFile(db: Database, args: string[]): Promise<void> {
  const [file, ...extra] = args;
  if (!file || extra.length)
    throw new CliError(
      'Usage: npm run cli -- marketplace-codes import <file.csv> (rows: code,peopleUpperLimit)',
    );
  const text = await fs.readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new CliError(`Cannot read ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
  });
  // The importer's CSV reader: quoted cells, CRLF or LF, empty lines skipped; a broken record names its problem.
  let rows: string[][] = [];
  const broken: string[] = [];
  const reader = new CsvReader(44, 1000, (record) => {
    if (record.error) broken.push(record.error);
    else rows.push(record.cells.map((cell) => cell.trim()));
  });
  reader.write(text.replace(/^\uFEFF/, ''));
  reader.end();
  if (broken.length) throw new CliError(`${file} is not a readable CSV: ${broken[0]}`);
  if (rows.length && !limitPattern.test(rows[0]?.[1] ?? '')) rows = rows.slice(1);
  const problems: string[] = [];
  const entries: CodeEntry[] = [];
  rows.forEach((row, index) => {
    const [code = '', limit = ''] = row;
    if (row.length !== 2 || !limitPattern.test(limit))
      problems.push(`Row ${index + 1}: expected code,peopleUpperLimit, got ${JSON.stringify(row.join(','))}`);
    else entries.push({ code, peopleUpperLimit: Number(limit) });
  });
  if (problems.length) throw new CliError(`Nothing was imported.\n${problems.join('\n')}`);
  if (entries.length === 0) throw new CliError(`${file} has no codes.`);
  report(await load(db, entries));
}

async function load(db: Database, entries: CodeEntry[]): Promise<AddCodesResult> {
  try {
    return await addCodes(db, entries);
  } catch (error) {
    if (error instanceof CodeEntryError) throw new CliError(`Nothing was added.\n${error.message}`);
    throw error;
  }
}

function report(result: AddCodesResult): void {
  console.log(`Added ${result.added} code${result.added === 1 ? '' : 's'}.`);
  if (result.alreadyKnown.length)
    console.log(`Already loaded, left as they were: ${result.alreadyKnown.join(', ')}`);
}

async function list(db: Database, args: string[]): Promise<void> {
  if (args.length) throw new CliError('Usage: npm run cli -- marketplace-codes list');
  const { codes, byBand } = await describeCodes(db);
  if (codes.length === 0) {
    console.log(
      'No marketplace codes yet. Add some with: npm run cli -- marketplace-codes add <peopleUpperLimit> <code…>',
    );
    return;
  }
  console.log(['code', 'people', 'added', 'redeemed', 'account'].join('\t'));
  for (const code of codes) {
    const redeemed = code.redeemedAt ? code.redeemedAt.toISOString() : 'not yet';
    console.log(
      [
        code.codeHint,
        code.peopleUpperLimit,
        code.createdAt.toISOString(),
        redeemed,
        code.redeemedByAccountId ?? '-',
      ].join('\t'),
    );
  }
  console.log('');
  for (const band of byBand) {
    console.log(
      `Up to ${band.peopleUpperLimit} people: ${band.total} code${band.total === 1 ? '' : 's'}, ${band.redeemed} redeemed, ${band.total - band.redeemed} free`,
    );
  }
}
