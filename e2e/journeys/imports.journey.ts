import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, launchBrowser, logIn, newPage, screenshot, uniqueEmail } from '../support/browser.ts';

let browser: Browser;
let dir: string;
beforeAll(async () => {
  browser = await launchBrowser();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-import-'));
});
afterAll(async () => {
  await browser.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Chooses an option of a Mantine Select by its visible label. */
async function choose(page: Page, selectName: string, option: string) {
  await page.getByRole('textbox', { name: selectName }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

describe('imports', () => {
  it('an owner imports people from a CSV file, maps a new field, tags them and downloads the failed rows', async () => {
    const owner = await createUser();
    const { page } = await newPage(browser);
    await logIn(page, owner.email, owner.password);

    const ada = uniqueEmail('ada');
    const csv = [
      'E-mail,First Name,Plan',
      `${ada},Ada,gold`,
      `${uniqueEmail('grace')},Grace,"silver, yearly"`,
      `${uniqueEmail('alan')},Alan,bronze`,
      'not-an-email,Broken,gold',
    ].join('\r\n');
    const file = path.join(dir, 'webinar-leads.csv');
    fs.writeFileSync(file, `\uFEFF${csv}\r\n`);

    await page.goto('/people/imports');
    await page.getByText('No imports yet').waitFor();
    await screenshot(page, 'imports-empty');

    // /new goes to the first stage and keeps the query string.
    await page.goto('/people/imports/new?from=journey');
    await page.waitForURL(
      (url) => url.pathname === '/people/imports/new/upload' && url.search === '?from=journey',
    );
    // A later stage without a file goes back to the upload.
    await page.goto('/people/imports/new/confirm?from=journey');
    await page.waitForURL(
      (url) => url.pathname === '/people/imports/new/upload' && url.search === '?from=journey',
    );

    await page.getByLabel('CSV file').setInputFiles(file);
    await page.getByText('4 rows').waitFor();
    await page.getByText('Uploaded').waitFor();
    await page.getByRole('cell', { name: 'not-an-email' }).waitFor();
    await screenshot(page, 'import-upload');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.waitForURL(/\/people\/imports\/new\/mapping\?from=journey$/);

    // Suggested: E-mail → Email, First Name → First name; Plan is not imported yet.
    expect(await page.getByRole('textbox', { name: 'Field for column E-mail' }).inputValue()).toBe('Email');
    expect(await page.getByRole('textbox', { name: 'Field for column First Name' }).inputValue()).toBe(
      'First name',
    );
    expect(await page.getByRole('textbox', { name: 'Field for column Plan' }).inputValue()).toBe(
      "Don't import",
    );

    // Without an email column the import cannot go on.
    await choose(page, 'Field for column E-mail', "Don't import");
    await page.getByText('Map a column to Email: every person needs an email.').waitFor();
    expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await choose(page, 'Field for column E-mail', 'Email');

    await choose(page, 'Field for column Plan', 'New field…');
    const dialog = page.getByRole('dialog', { name: 'New field' });
    await dialog.getByRole('textbox', { name: 'Field title' }).fill('Plan');
    await dialog.getByRole('button', { name: 'Add field' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByRole('textbox', { name: 'Field for column Plan' }).inputValue()).toBe(
      'New: Plan (Text)',
    );
    await screenshot(page, 'import-mapping');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.waitForURL(/\/people\/imports\/new\/tags/);

    await page.getByRole('textbox', { name: 'Tags' }).fill('webinar');
    await page.keyboard.press('Enter');
    expect(await page.getByRole('textbox', { name: 'Import name' }).inputValue()).toBe('webinar-leads');
    expect(await page.getByRole('radio', { name: 'Update existing people' }).isChecked()).toBe(true);
    await page.getByRole('radio', { name: 'Skip existing people' }).check();
    await page.getByRole('radio', { name: 'Update existing people' }).check();
    await screenshot(page, 'import-tags');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.waitForURL(/\/people\/imports\/new\/confirm/);

    await page.getByText('Plan → Plan (new text field)').waitFor();
    await page.getByText('webinar', { exact: true }).waitFor();
    await screenshot(page, 'import-confirm');
    // Back keeps what was chosen.
    await page.getByRole('button', { name: 'Back' }).click();
    await page.waitForURL(/\/people\/imports\/new\/tags/);
    expect(await page.getByRole('textbox', { name: 'Import name' }).inputValue()).toBe('webinar-leads');
    await page.getByRole('button', { name: 'Next' }).click();

    await page.getByRole('button', { name: 'Start import' }).click();
    await page.waitForURL(/\/people\/imports\/\d+$/);
    const importPath = new URL(page.url()).pathname;
    await page.getByRole('heading', { name: 'webinar-leads' }).waitFor();
    await page.getByText('Done', { exact: true }).waitFor({ timeout: 30_000 });
    const count = async (label: string) =>
      (await page.getByRole('group', { name: label }).innerText()).split('\n').pop();
    expect(await count('Created')).toBe('3');
    expect(await count('Failed')).toBe('1');
    await screenshot(page, 'import-done');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download failed rows' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/failed-rows\.csv$/);
    const saved = path.join(dir, 'failed.csv');
    await download.saveAs(saved);
    const failed = fs.readFileSync(saved, 'utf8');
    expect(failed).toMatch(/^row,reason/);
    expect(failed.trim().split('\n')).toHaveLength(2);

    // The wizard starts afresh after an import.
    await page.goto('/people/imports/new/mapping');
    await page.waitForURL((url) => url.pathname === '/people/imports/new/upload');

    await page.goto('/people/imports');
    await page.getByRole('link', { name: 'webinar-leads' }).waitFor();
    await page.getByText('3 created · 1 failed').waitFor();
    await screenshot(page, 'imports-list');

    await page.goto('/people');
    await page.getByRole('searchbox', { name: 'Search people' }).fill(ada.slice(0, 12));
    await page.getByRole('link', { name: ada }).waitFor();
    await page.getByRole('link', { name: ada }).click();
    await page.getByText('gold').first().waitFor();
    await page.getByRole('listitem').filter({ hasText: 'webinar' }).waitFor();

    // The pages at phone width.
    const narrow = (await newPage(browser, { width: 390, height: 844 })).page;
    await logIn(narrow, owner.email, owner.password, '/people/imports/new');
    await narrow.getByLabel('CSV file').setInputFiles(file);
    await narrow.getByText('Uploaded').waitFor();
    await screenshot(narrow, 'narrow-import-upload');
    await narrow.getByRole('button', { name: 'Next' }).click();
    await narrow.getByRole('textbox', { name: 'Field for column Plan' }).waitFor();
    await screenshot(narrow, 'narrow-import-mapping');
    await narrow.getByRole('button', { name: 'Next' }).click();
    await narrow.getByRole('textbox', { name: 'Import name' }).waitFor();
    await screenshot(narrow, 'narrow-import-tags');
    await narrow.getByRole('button', { name: 'Next' }).click();
    await narrow.getByRole('button', { name: 'Start import' }).waitFor();
    await screenshot(narrow, 'narrow-import-confirm');
    for (const p of ['/people/imports', importPath]) {
      await narrow.goto(p);
      await narrow.getByRole('heading', { level: 1 }).waitFor();
      await narrow.waitForTimeout(300); // the page's entrance transition (CSS, for the screenshot; no assertion follows)
      await screenshot(narrow, p === importPath ? 'narrow-import' : 'narrow-imports');
    }
    await narrow.context().close();
  });
});
