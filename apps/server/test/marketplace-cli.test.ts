import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { marketplaceMessages } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { codeHashOf } from '../src/features/marketplace/marketplace-codes.service.ts';
import { Client, testDatabaseUrl, uniqueEmail } from './helpers.ts';
import { codeRow, ctx, newCode, useMarketplaceContext } from './marketplace-fixtures.ts';

useMarketplaceContext();

// Each test starts the CLI (a Node process loading the server through tsx) up to six times: 1–2 s each on a quiet
// machine, 7–10 s with the cores busy, so these tests get four times the suite's 30 s.
describe('npm run cli -- marketplace-codes', { timeout: 120_000 }, () => {
  const serverDir = path.resolve(import.meta.dirname, '..');
  const cli = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'src/cli/index.ts', 'marketplace-codes', ...args],
        {
          cwd: serverDir,
          env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: testDatabaseUrl() },
        },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });
  const unique = (label: string) => `${label}-${crypto.randomBytes(5).toString('hex').toUpperCase()}`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-market-'));

  it('add: loads codes for a band (hashed), leaves known ones as they were, refuses a band that does not exist', async () => {
    const [one, two] = [unique('ADD'), unique('add')];
    const added = await cli('add', '15000', one, two, one);
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(added.stdout).toContain('Added 2 codes.');
    expect(added.stdout).toContain(`Already loaded, left as they were: ${one}`);
    const row = await codeRow(two);
    expect(row).toMatchObject({
      peopleUpperLimit: 15000,
      planName: 'marketplace-growth-monthly-v1',
      redeemedAt: null,
      codeHint: `…${two.slice(-4)}`,
    });
    expect(row.codeHash).not.toContain(two.toUpperCase());

    const badBand = unique('BAND');
    const refused = await cli('add', '15001', badBand);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'No marketplace plan has the people upper limit 15001. The bands are 2000, 5000',
    );
    const badCode = await cli('add', '5000', unique('GOOD'), 'bad code!');
    expect(badCode.code).toBe(2);
    expect(badCode.stderr).toContain(marketplaceMessages.codeCharacters);
    const none = await ctx.services.db
      .selectFrom('marketplaceCodes')
      .select('codeHash')
      .where('codeHash', '=', codeHashOf(badBand))
      .execute();
    expect(none).toEqual([]);
    expect((await cli('add', 'many', one)).code).toBe(2);
    const short = await cli('add', '5000', 'AB-12');
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('A code needs at least 8 characters, so that it cannot be guessed.');
  });

  it('import: a CSV of code,peopleUpperLimit (header optional); one bad row imports nothing; a redeemed code stays redeemed', async () => {
    const redeemed = await newCode(2000);
    const visitor = await new Client(ctx.app).post('/v1/marketplace/redeem', {
      code: redeemed,
      email: uniqueEmail(),
    });
    expect(visitor.status).toBe(200);
    const [a, b] = [unique('CSV'), unique('CSV')];
    const file = path.join(tmp, 'codes.csv');
    fs.writeFileSync(file, `code,people_upper_limit\n${a},2000\n\n${b},70000\n${redeemed},2000\n`);
    const imported = await cli('import', file);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('Added 2 codes.');
    expect((await codeRow(b)).peopleUpperLimit).toBe(70000);
    expect((await codeRow(redeemed)).redeemedByAccountId).toBe(visitor.body.account.accountId);

    const broken = path.join(tmp, 'broken.csv');
    const c = unique('CSV');
    fs.writeFileSync(broken, `${c},5000\nno-limit-here\n${unique('CSV')},123\n`);
    const refused = await cli('import', broken);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('Nothing was imported.');
    expect(refused.stderr).toContain('Row 2: expected code,peopleUpperLimit');
    const partly = await cli('import', path.join(tmp, 'bands.csv.missing'));
    expect(partly.code).toBe(2);
    expect(partly.stderr).toContain('no such file');
    fs.writeFileSync(broken, `${c},5000\n${unique('CSV')},123\n`);
    const wrongBand = await cli('import', broken);
    expect(wrongBand.code).toBe(2);
    expect(wrongBand.stderr).toContain('No marketplace plan has the people upper limit 123');
    expect(
      await ctx.services.db
        .selectFrom('marketplaceCodes')
        .select('codeHash')
        .where('codeHash', '=', codeHashOf(c))
        .execute(),
    ).toEqual([]);
  });

  it('list: every code by its last characters, when and onto which account it was redeemed, and counts per band', async () => {
    const code = await newCode(25000);
    const free = await newCode(25000);
    const visitor = await new Client(ctx.app).post('/v1/marketplace/redeem', { code, email: uniqueEmail() });
    const listed = await cli('list');
    expect(listed.code).toBe(0);
    const lineOf = (c: string) =>
      listed.stdout
        .split('\n')
        .find((line) => line.startsWith(`…${c.slice(-4)}\t25000`) && !line.includes(c));
    expect(lineOf(code)).toMatch(new RegExp(`\\t${visitor.body.account.accountId}$`));
    expect(lineOf(free)).toMatch(/\tnot yet\t-$/);
    expect(listed.stdout).toMatch(/Up to 25000 people: \d+ codes?, \d+ redeemed, \d+ free/);
    expect(listed.stdout).not.toContain(code);
    const wrong = await cli('remove', code);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(
      'Usage: npm run cli -- marketplace-codes add <peopleUpperLimit> <code…> | import <file.csv> | list',
    );
  });
});
