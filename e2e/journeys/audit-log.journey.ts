import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, launchBrowser, logIn, newPage, screenshot } from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

describe('audit log', () => {
  it('a change shows in the audit log with before → after; the filters narrow it and the CSV holds it', async () => {
    const user = await createUser();
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, '/settings/account');

    // The change: the account's name.
    const name = page.getByRole('textbox', { name: 'Name' });
    await name.fill('Audit Journey Co');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Settings saved.').waitFor();

    // Reached from the profile menu.
    await page.getByRole('button', { name: 'Profile menu' }).click();
    await page.getByRole('menuitem', { name: 'Audit Log' }).click();
    await page.waitForURL(/\/settings\/audit-log/);
    const table = page.getByRole('table', { name: 'Audit log entries' });
    await table.waitFor();

    // Filter: what (account settings), then who (this user).
    await page.getByRole('textbox', { name: 'What' }).click();
    await page.getByRole('option', { name: 'account-settings' }).click();
    await page.waitForURL(/resourceType=account-settings/);
    await page.getByRole('textbox', { name: 'Who' }).click();
    await page.getByRole('option', { name: user.email }).click();
    await page.waitForURL(/actor=/);
    const entry = table.getByRole('row').filter({ hasText: 'Audit Journey Co' }).first();
    await entry.getByText('Journey Tester → Audit Journey Co').waitFor();
    await expect(entry.getByText('PATCH /v1/accounts/me')).toBeTruthy();
    await screenshot(page, 'audit-log');

    // A day range that ends before today matches nothing; clearing the filters brings the entries back.
    await page.getByLabel('To').fill('2020-01-01');
    await page.getByText('No matching entries').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await table.getByText('Journey Tester → Audit Journey Co').first().waitFor();

    // The export holds what the page shows.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('audit-log.csv');
    const csv = fs.readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\r\n')[0]).toBe('at,actor,actorKind,ip,action,resourceType,resourceId,changes');
    expect(csv).toContain('Audit Journey Co');
    expect(csv).toContain('PATCH /v1/accounts/me');

    // Retention: kept 12 months instead of 24; the change is itself an entry.
    await page.getByLabel('Keep entries for (months)').fill('12');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Retention saved.').waitFor();
    await page.getByText('they are kept 12 months').waitFor();
    await table.getByText('auditLogRetentionMonths').waitFor();
    await table.getByText('24 → 12').waitFor();

    // Narrow screens: one column per entry.
    const { page: phone } = await newPage(browser, { width: 390, height: 844 });
    await logIn(phone, user.email, user.password, '/settings/audit-log?resourceType=account-settings');
    await phone.getByText('Journey Tester → Audit Journey Co').first().waitFor();
    await screenshot(phone, 'audit-log-narrow');
  });
});
