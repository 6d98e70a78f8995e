import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  createUser,
  launchBrowser,
  logIn,
  newPage,
  screenshot,
  uniqueEmail,
} from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

describe('a person’s data on request', () => {
  it('exports a person as JSON, erases them, erases others from a CSV; an erased address comes back suppressed', async () => {
    const user = await createUser();
    const { cookie } = await api('POST', '/v1/accounts/login/', {
      email: user.email,
      password: user.password,
    });
    const add = async (email: string) =>
      (await api('POST', '/v1/people/?source=manual', { email, firstName: 'Erin' }, cookie)).body.user
        .id as number;
    const email = uniqueEmail('erin');
    const id = await add(email);
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, `/people/${id}`);
    await page.getByRole('heading', { name: 'Erin' }).waitFor();

    // Export: the whole record as one JSON file.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export data' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`person-${id}.json`);
    const document_ = JSON.parse(fs.readFileSync((await download.path())!, 'utf8'));
    expect(document_.person).toMatchObject({ id, email, firstName: 'Erin' });

    // Erase: the modal names the consequences and waits for the address to be typed.
    await page.getByRole('button', { name: 'Erase person' }).click();
    const dialog = page.getByRole('dialog', { name: `Erase ${email}?` });
    await dialog.getByText('This cannot be undone.').waitFor();
    const confirm = dialog.getByRole('button', { name: 'Erase for good' });
    expect(await confirm.isDisabled()).toBe(true);
    await screenshot(page, 'person-erase');
    await dialog.getByRole('textbox').fill(email);
    await confirm.click();
    await page.waitForURL(/\/people$/);
    await page.getByText('Person erased.').first().waitFor();
    expect((await api('GET', `/v1/people/${id}`, undefined, cookie)).status).toBe(404);

    // In bulk from a CSV, on the suppression list page: how many, and which addresses were not found.
    const second = uniqueEmail('bulk');
    await add(second);
    const unknown = uniqueEmail('nobody');
    await page.goto('/settings/email/suppressions');
    await page.getByRole('button', { name: 'Erase people…' }).click();
    const bulk = page.getByRole('dialog', { name: 'Erase people from a CSV' });
    await bulk.locator('input[type="file"]').setInputFiles({
      name: 'erase.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`email\n${second}\n${unknown}\n`),
    });
    await bulk.getByRole('textbox', { name: 'Type ERASE to confirm' }).fill('ERASE');
    await bulk.getByRole('button', { name: 'Erase everyone in the file' }).click();
    await bulk.getByText('1 person erased.').waitFor();
    await bulk.getByRole('list', { name: 'Not found in this account' }).getByText(unknown).waitFor();
    await screenshot(page, 'bulk-erase-outcome');
    await bulk.getByRole('button', { name: 'Done' }).click();

    // Added again, the erased address arrives suppressed, and shows so on the list.
    const back = await api('POST', '/v1/people/?source=manual', { email }, cookie);
    expect(back.body.user).toMatchObject({ unsubscribed: true, unsubscribeReason: 'erased' });
    await page.reload();
    await page.getByRole('row').filter({ hasText: email }).getByText('Erased on request').waitFor();
  });
});
