import fs from 'node:fs';
import { sendingMessages } from '@herald/contracts';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility } from '../support/accessibility.ts';
import { api, launchBrowser, logIn, newPage, screenshot, uniqueEmail } from '../support/browser.ts';
import { invitationToken } from '../support/mailbox.ts';
import { owner, phone } from './preferences-setup.ts';

// The suppression list, and what a teammate who may only read sees of it and of the categories
// (preferences.journey.ts has the categories and the recipient's choices).

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

describe('suppression list', () => {
  it('adds, searches, removes with a note and exports suppressed addresses', async () => {
    const user = await owner();
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, '/settings/email/suppressions');
    await page.getByRole('heading', { name: 'No suppressed addresses' }).waitFor();

    const first = uniqueEmail('bounced');
    const second = uniqueEmail('asked');
    await page.getByRole('button', { name: 'Add addresses' }).click();
    const dialog = page.getByRole('dialog', { name: 'Suppress addresses' });
    await dialog.getByRole('textbox', { name: 'Addresses' }).fill(`${first}\nnot-an-address, ${second}`);
    await dialog.getByRole('button', { name: 'Suppress' }).click();
    await dialog.getByText('Not valid address: not-an-address').waitFor();
    await dialog.getByRole('textbox', { name: 'Addresses' }).fill(`${first}\n${second}`);
    await dialog.getByRole('textbox', { name: 'Reason' }).click();
    await page.getByRole('option', { name: 'Hard bounce' }).click();
    await dialog.getByRole('textbox', { name: 'Note' }).fill('From the old provider');
    await checkAccessibility(page);
    await dialog.getByRole('button', { name: 'Suppress' }).click();
    await page.getByText(sendingMessages.suppressionAdded(2)).first().waitFor();
    await page.getByText('2 addresses', { exact: true }).waitFor();

    await page.getByRole('searchbox', { name: 'Search' }).fill(second.slice(0, 12));
    await page.waitForURL(/search=/);
    await page.getByText('1 address', { exact: true }).waitFor();
    await page.getByRole('cell', { name: second, exact: true }).waitFor();
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await page.getByText('2 addresses', { exact: true }).waitFor();

    await page.getByRole('button', { name: `Remove ${first}` }).click();
    const remove = page.getByRole('dialog', { name: 'Remove from the suppression list?' });
    await remove.getByRole('textbox', { name: 'Note (optional)' }).fill('Fixed their mailbox');
    await checkAccessibility(page);
    await remove.getByRole('button', { name: 'Remove' }).click();
    await page.getByText(sendingMessages.suppressionRemoved).first().waitFor();
    await page.getByText('1 address', { exact: true }).waitFor();

    await page.getByRole('button', { name: `History of ${second}` }).click();
    const drawer = page.getByRole('dialog', { name: `History of ${second}` });
    await drawer.getByText('Added').waitFor();
    await drawer.getByText('From the old provider').waitFor();
    await checkAccessibility(page);
    await page.keyboard.press('Escape');
    const history = await api(
      'GET',
      `/v1/suppressions/history?email=${encodeURIComponent(first)}`,
      undefined,
      user.cookie,
    );
    expect(history.body.history.map((h: { action: string }) => h.action)).toEqual(['removed', 'added']);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    const csv = fs.readFileSync((await download.path())!, 'utf8');
    expect(csv.split(/\r?\n/)[0]).toBe('email,reason,source,note,createdAt');
    expect(csv).toContain(second);
    expect(csv).not.toContain(first);
    await screenshot(page, 'suppressions');

    const narrow = (await newPage(browser, phone)).page;
    await logIn(narrow, user.email, user.password, '/settings/email/suppressions');
    await narrow.getByText('1 address', { exact: true }).waitFor();
    await screenshot(narrow, 'suppressions-narrow');
  });

  it('a teammate with only people:read sees categories and the suppression list read-only', async () => {
    const user = await owner();
    await api(
      'POST',
      '/v1/suppressions',
      { emails: ['gone@example.com'], note: 'Asked by phone' },
      user.cookie,
    );
    const readerEmail = uniqueEmail('viewer');
    const readable = new Set(['people:read', 'emails:read']);
    const scopes = (await api('GET', '/v1/accounts', undefined, user.cookie)).body.teamMember.accountData
      .scopes as { id: string }[];
    await api(
      'POST',
      '/v1/team-members',
      {
        name: 'Vera Viewer',
        email: readerEmail,
        scopes: scopes.map((scope) => ({ id: scope.id, enabled: readable.has(scope.id) })),
      },
      user.cookie,
    );
    const token = await invitationToken(readerEmail);
    expect(
      (
        await api('POST', '/v1/team-members/invitations/accept', {
          token,
          password: 'viewer password 1',
        })
      ).status,
    ).toBe(200);

    const { page } = await newPage(browser);
    await logIn(page, readerEmail, 'viewer password 1', '/settings/communication-categories');
    await page.getByText('You can see the categories.').waitFor();
    expect(await page.getByRole('button', { name: 'New Category' }).count()).toBe(0);
    await page.getByRole('button', { name: 'View Newsletter' }).click();
    const dialog = page.getByRole('dialog', { name: 'Category' });
    expect(await dialog.getByRole('textbox', { name: 'Name' }).getAttribute('readonly')).not.toBeNull();
    expect(await dialog.getByRole('button', { name: 'Save' }).count()).toBe(0);
    expect(await dialog.getByRole('button', { name: 'Archive' }).count()).toBe(0);
    await checkAccessibility(page);
    await dialog.getByRole('button', { name: 'Close' }).last().click();

    await page.goto('/settings/email/suppressions');
    await page.getByRole('cell', { name: 'gone@example.com', exact: true }).waitFor();
    await page.getByText('You can see the suppression list.').waitFor();
    expect(await page.getByRole('button', { name: 'Add addresses' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Remove gone@example.com' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Export CSV' }).count()).toBe(0);
    const status = await page.evaluate(
      async () => (await fetch('/v1/suppressions/gone%40example.com', { method: 'DELETE' })).status,
    );
    expect(status).toBe(403);
  });
});
