import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../config.ts';
import { findPgTool, withConfiguredDatabase } from '../db/pg-tools.ts';
import { CliError, type CliCommand } from './cli-command.ts';

/** Where `npm run backup` puts its file when not told: ./backups under the directory npm was run from. */
const defaultDirectory = () => path.resolve(process.env.INIT_CWD ?? process.cwd(), 'backups');
const stamp = (date: Date) =>
  date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
    .replace('T', '-');

function run(binary: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'inherit', 'pipe'] });
    const errors: string[] = [];
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => errors.push(chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new CliError(`${path.basename(binary)} failed (exit ${code}):\n${errors.join('').trim()}`)),
    );
  });
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

/**
 * `npm run backup [-- --file <path>]`: the whole configured database (DATABASE_URL or the embedded one) with
 * pg_dump's custom format, consistent as of its start, while Herald keeps running.
 */
export const backupCommand: CliCommand = {
  name: 'backup',
  usage: 'backup [--file <path>]   (npm run backup): dump the configured database with pg_dump',
  async run(args) {
    const fileFlag = args.indexOf('--file');
    if (args.some((a, i) => a !== '--file' && i !== fileFlag + 1) || (fileFlag >= 0 && !args[fileFlag + 1])) {
      throw new CliError('Usage: npm run backup [-- --file <path>]');
    }
    const file = path.resolve(
      process.env.INIT_CWD ?? process.cwd(),
      fileFlag >= 0 ? args[fileFlag + 1]! : path.join(defaultDirectory(), `herald-${stamp(new Date())}.dump`),
    );
    const pgDump = findPgTool('pg_dump');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const started = Date.now();
    await withConfiguredDatabase(loadConfig(), console.log, (url) =>
      run(pgDump, ['--format=custom', '--no-owner', `--file=${file}`, `--dbname=${url}`]),
    );
    console.log(
      `Backup written to ${file} (${(fs.statSync(file).size / 1024 / 1024).toFixed(1)} MB in ${((Date.now() - started) / 1000).toFixed(1)} s).`,
    );
  },
};

/**
 * `npm run restore -- <file> [--replace]`: load a backup into the configured database. A database that already
 * holds Herald's tables is left alone unless --replace says to drop them first. Stop Herald before a restore.
 */
export const restoreCommand: CliCommand = {
  name: 'restore',
  usage: 'restore <file> [--replace]   (npm run restore -- <file>): load a backup made by npm run backup',
  async run(args) {
    const replace = args.includes('--replace');
    const rest = args.filter((a) => a !== '--replace');
    if (rest.length !== 1 || rest[0]!.startsWith('--'))
      throw new CliError('Usage: npm run restore -- <file> [--replace]');
    const file = path.resolve(process.env.INIT_CWD ?? process.cwd(), rest[0]!);
    if (!fs.existsSync(file)) throw new CliError(`No backup at ${file}.`);
    const pgRestore = findPgTool('pg_restore');
    const started = Date.now();
    await withConfiguredDatabase(loadConfig(), console.log, async (url) => {
      const [found] = await query<{ accounts: string | null }>(
        url,
        "select to_regclass('public.accounts')::text as accounts",
      );
      if (found?.accounts && !replace) {
        throw new CliError(
          'This database already holds Herald data. Restoring would mix two databases: add --replace to drop its tables first (stop Herald before), or point DATABASE_URL at an empty database.',
        );
      }
      if (replace) {
        // Every schema of the database goes (Herald's, the job queue's, the import staging area), then an empty public.
        const schemas = await query<{ name: string }>(
          url,
          "select quote_ident(nspname) as name from pg_namespace where nspname !~ '^pg_' and nspname <> 'information_schema'",
        );
        await query(
          url,
          `${schemas.map(({ name }) => `drop schema ${name} cascade;`).join(' ')} create schema public;`,
        );
      }
      // The tenant role is cluster-wide, not part of a dump: a fresh cluster needs it before the grants are restored.
      await query(
        url,
        `do $$ begin
           if not exists (select 1 from pg_roles where rolname = 'herald_app') then create role herald_app nologin; end if;
         end $$;
         grant herald_app to current_user;`,
      );
      await run(pgRestore, [
        '--no-owner',
        '--exit-on-error',
        '--single-transaction',
        `--dbname=${url}`,
        file,
      ]);
    });
    console.log(
      `Restored ${file} in ${((Date.now() - started) / 1000).toFixed(1)} s. Start Herald: it brings the schema up to date if the backup is older.`,
    );
  },
};
