import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  createUser,
  launchBrowser,
  logIn,
  newPage,
  screenshot,
  sql,
  uniqueEmail,
} from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

const serverDir = path.resolve(import.meta.dirname, '../../apps/server');

/** Codes loaded the way an operator does: `npm run cli -- marketplace-codes add <peopleUpperLimit> <code…>`. */
function addCodes(peopleUpperLimit: number, ...codes: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/index.ts', 'marketplace-codes', 'add', String(peopleUpperLimit), ...codes],
      {
        cwd: serverDir,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: inject('databaseUrl') },
      },
      (error, stdout, stderr) => (error ? reject(new Error(`${stderr}${stdout}`)) : resolve(stdout)),
    );
  });
}

const newCode = () => `DEAL-${crypto.randomBytes(4).toString('hex').toUpperCase()}`;

describe('marketplace registration', () => {
  it('a visitor with a code registers at /public/register/appsumo, goes through the wizard and has the marketplace plan; the code then works no more', async () => {
    const code = newCode();
    expect(await addCodes(5000, code)).toContain('Added 1 code.');
    const { page } = await newPage(browser);
    await page.goto('/public/register/appsumo');
    await page.getByRole('heading', { name: 'Redeem your marketplace deal' }).waitFor();
    expect(await page.title()).toMatch(/^Register/);

    // Nothing filled in: both fields say what they need, and nothing is sent.
    await page.getByRole('button', { name: 'Redeem and create my account' }).click();
    await page.getByText('Enter your marketplace code.').waitFor();
    await page.getByText('Missing registration email.').waitFor();

    // A code that was never sold: the server's clear message, still on the page.
    const email = uniqueEmail('deal');
    await page.getByLabel('Marketplace code').fill('NOT-A-REAL-CODE');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Redeem and create my account' }).click();
    await page.getByRole('alert').getByText("We don't know this code.").waitFor();
    await screenshot(page, 'marketplace-unknown-code');

    // The real code, typed in lower case.
    await page.getByLabel('Marketplace code').fill(` ${code.toLowerCase()} `);
    await page.getByRole('button', { name: 'Redeem and create my account' }).click();
    await page.getByRole('heading', { name: "Welcome! What's your name?" }).waitFor();
    expect(page.url()).toContain('/register/name');
    await page.getByText('✅ Code redeemed: Growth (marketplace), up to 5,000 people.').waitFor();
    await screenshot(page, 'marketplace-wizard-name');

    await page.getByLabel('Name').fill('Mara');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Hey Mara! Can we get your phone number?' }).waitFor();
    await page.getByLabel('Phone').fill('+49 30 7654321');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Mara, tell us about your business.' }).waitFor();
    await page.getByLabel('Site').fill('www.mara-deals.io');
    await page.getByLabel('Industry').selectOption('eCommerce');
    await page.getByLabel('Estimated contacts').selectOption('2,000 - 5,000');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Almost there! Tell us about your goals.' }).waitFor();
    await page.getByLabel('Goals').fill('Welcome buyers from the deal.');
    await page.getByRole('button', { name: 'To Final Step' }).click();
    await page.getByRole('heading', { name: 'Last step, we promise! Choose your password.' }).waitFor();
    await page.getByLabel('Password').fill('marketplace password');
    await page.getByRole('button', { name: 'Take me to my account' }).click();
    await page.waitForURL((url) => url.pathname === '/start');

    // The account has the marketplace plan, and the page now offers to redeem onto it, listing the code used.
    const account = await sql(
      'select id, status, plan_name, plan_people_upper_limit, plan_provider from accounts where email = $1',
      [email],
    );
    expect(account.rows[0]).toMatchObject({
      status: 'active',
      plan_name: 'marketplace-growth-monthly-v1',
      plan_people_upper_limit: 5000,
      plan_provider: 'marketplace',
    });
    await page.goto('/public/register/appsumo');
    await page.getByRole('heading', { name: 'Redeem a marketplace code' }).waitFor();
    await page.getByText('Codes on this account').waitFor();
    await page.getByRole('cell', { name: `…${code.slice(-4)}` }).waitFor();
    await page.getByRole('cell', { name: 'up to 5,000' }).waitFor();

    // A second visitor with the same code: the clear message, and no account for them.
    const second = await newPage(browser);
    const secondEmail = uniqueEmail('deal-again');
    await second.page.goto('/public/register/appsumo');
    await second.page.getByLabel('Marketplace code').fill(code);
    await second.page.getByLabel('Email').fill(secondEmail);
    await second.page.getByRole('button', { name: 'Redeem and create my account' }).click();
    await second.page.getByRole('alert').getByText('This code has already been redeemed.').waitFor();
    expect(new URL(second.page.url()).pathname).toBe('/public/register/appsumo');
    await screenshot(second.page, 'marketplace-code-used');
    expect(
      (await sql('select count(*)::int as n from users where lower(email) = lower($1)', [secondEmail]))
        .rows[0].n,
    ).toBe(0);
  });

  it('a signed-in owner redeems a code onto the current account; a used code shows the message', async () => {
    const [code, used] = [newCode(), newCode()];
    await addCodes(10000, code, used);
    const owner = await createUser();
    const other = await createUser();
    await sql(
      'update marketplace_codes set redeemed_at = now(), redeemed_by_account_id = $1 where code_hash = $2',
      [other.accountId, crypto.createHash('sha256').update(used).digest('hex')],
    );
    const { page } = await newPage(browser);
    await logIn(page, owner.email, owner.password, '/public/register/appsumo');
    await page.getByRole('heading', { name: 'Redeem a marketplace code' }).waitFor();
    await page.getByText('No code has been redeemed on this account yet.').waitFor();

    await page.getByLabel('Marketplace code').fill(used);
    await page.getByRole('button', { name: 'Redeem onto this account' }).click();
    await page.getByRole('alert').getByText('This code has already been redeemed.').waitFor();

    await page.getByLabel('Marketplace code').fill(code);
    await page.getByRole('button', { name: 'Redeem onto this account' }).click();
    await page.getByText('Code redeemed.', { exact: true }).waitFor();
    await page.getByText('now has the Growth (marketplace) plan for up to 10,000 people.').waitFor();
    await page.getByRole('cell', { name: `…${code.slice(-4)}` }).waitFor();
    await screenshot(page, 'marketplace-signed-in');
    const row = await sql('select plan_people_upper_limit, plan_provider from accounts where id = $1', [
      owner.accountId,
    ]);
    expect(row.rows[0]).toEqual({ plan_people_upper_limit: 10000, plan_provider: 'marketplace' });

    expect(await page.getByRole('link', { name: 'Go to the dashboard' }).getAttribute('href')).toBe(
      '/dashboard',
    );

    // Someone who wanted a separate account logs out here and gets the visitor form.
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Redeem your marketplace deal' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/public/register/appsumo');
  });

  it('the visitor form reads well on a phone', async () => {
    const { page } = await newPage(browser, { width: 390, height: 844 });
    await page.goto('/public/register/appsumo');
    await page.getByRole('heading', { name: 'Redeem your marketplace deal' }).waitFor();
    await page.getByLabel('Marketplace code').fill('abc');
    await page.getByRole('button', { name: 'Redeem and create my account' }).click();
    await page.getByText('Missing registration email.').waitFor();
    await screenshot(page, 'marketplace-phone');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
});
