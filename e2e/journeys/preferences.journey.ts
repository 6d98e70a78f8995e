import fs from 'node:fs';
import { sendingMessages } from '@herald/contracts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealToken } from '../../apps/server/src/lib/sealed-tokens.ts';
import { checkAccessibility } from '../support/accessibility.ts';
import { api, createUser, launchBrowser, logIn, newPage, screenshot, uniqueEmail } from '../support/browser.ts';
import { e2eSessionSecret } from '../support/global-setup.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

const phone = { width: 390, height: 844 };

interface Category {
  id: number;
  name: string;
  type: string;
  isDefault: boolean;
}

/** An owner signed in through the API, with a session cookie for setting the scene. */
async function owner() {
  const user = await createUser();
  const session = await api('POST', '/v1/accounts/login/', { email: user.email, password: user.password });
  const cookie = session.cookie!;
  const account = (await api('GET', '/v1/accounts', undefined, cookie)).body as { name: string };
  return { ...user, cookie, accountName: account.name };
}

async function addPerson(cookie: string, email: string): Promise<number> {
  const created = await api('POST', '/v1/people/?source=manual', { email }, cookie);
  if (created.status >= 300) throw new Error(JSON.stringify(created.body));
  return created.body.user.id as number;
}

async function categories(cookie: string): Promise<Category[]> {
  return (await api('GET', '/v1/settings/communication-categories', undefined, cookie)).body.categories as Category[];
}

/** The link token an email to this person would carry (the server's payload: a, p, c, s). */
function tokenFor(accountId: number, personId: number, categoryId?: number): string {
  return sealToken({ a: accountId, p: personId, ...(categoryId ? { c: categoryId } : {}), s: 'test' }, e2eSessionSecret, 'preferences', 3600);
}

/** Mantine's switch input sits under its track; a click on the input is what a tap on the switch does. */
async function toggle(page: Page, name: string) {
  await page.getByRole('switch', { name }).evaluate((input: HTMLInputElement) => input.click());
}

describe('communication preferences', () => {
  it('creates a category, edits it through the popup URL, makes it default and archives another', async () => {
    const user = await owner();
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password);

    await page.goto('/settings/communication-categories');
    const newsletterRow = page.getByRole('row').filter({ hasText: 'Newsletter' });
    await newsletterRow.getByText('Default', { exact: true }).waitFor();
    await newsletterRow.getByText('Marketing').waitFor();
    await page.getByRole('row').filter({ hasText: 'Account notices' }).getByText('Transactional').waitFor();

    await page.getByRole('button', { name: 'New Category' }).click();
    await page.waitForURL(/communication-category=new/);
    const dialog = page.getByRole('dialog', { name: 'New Category' });
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByText(sendingMessages.categoryNameNeeded).waitFor();
    await dialog.getByRole('textbox', { name: 'Name' }).fill('newsletter');
    await dialog.getByText(sendingMessages.categoryNameTaken).waitFor();
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Product news');
    await dialog.getByRole('textbox', { name: 'Description' }).fill('What is new in the product.');
    await checkAccessibility(page);
    await screenshot(page, 'category-modal');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByText(sendingMessages.categoryCreated).first().waitFor();
    await page.getByRole('cell', { name: 'Product news', exact: true }).waitFor();

    const created = (await categories(user.cookie)).find((c) => c.name === 'Product news')!;
    expect(created).toMatchObject({ type: 'marketing', isDefault: false });
    await page.goto(`/settings/communication-categories?communication-category=${created.id}`);
    const edit = page.getByRole('dialog', { name: 'Edit Category' });
    await expect.poll(() => edit.getByRole('textbox', { name: 'Name' }).inputValue()).toBe('Product news');
    await edit.getByRole('textbox', { name: 'Description' }).fill('Releases and new features, once a month.');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByText(sendingMessages.categoryUpdated).first().waitFor();
    await page.getByRole('cell', { name: 'Releases and new features, once a month.', exact: true }).waitFor();
    expect(new URL(page.url()).searchParams.has('communication-category')).toBe(false);

    await page.getByRole('button', { name: 'Edit Product news' }).click();
    await page.getByRole('dialog', { name: 'Edit Category' }).getByRole('button', { name: 'Make default' }).click();
    await expect.poll(async () => (await categories(user.cookie)).find((c) => c.isDefault)?.name).toBe('Product news');
    await page.keyboard.press('Escape');
    await page.getByRole('row').filter({ hasText: 'Product news' }).getByText('Default', { exact: true }).waitFor();

    // An email is filed under a category from the editor's settings.
    const email = await api('POST', '/v1/emails', { name: 'Launch', subject: 'We launched', fromEmail: user.email }, user.cookie);
    expect(email.status).toBe(201);
    await page.goto(`/emails/${email.body.email.id}`);
    await page.getByRole('textbox', { name: 'Category' }).click();
    await page.getByRole('option', { name: 'Newsletter' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Email saved.').first().waitFor();
    await screenshot(page, 'email-category');
    const newsletterId = (await categories(user.cookie)).find((c) => c.name === 'Newsletter')!.id;
    expect((await api('GET', `/v1/emails/${email.body.email.id}`, undefined, user.cookie)).body.email.categoryId).toBe(newsletterId);
    await page.goto('/settings/communication-categories');

    // The old default can go now.
    await page.getByRole('button', { name: 'Edit Newsletter' }).click();
    await page.getByRole('dialog', { name: 'Edit Category' }).getByRole('button', { name: 'Archive' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'Newsletter', exact: true }).waitFor({ state: 'detached' });
    await page.getByText('Archived (1)').click();
    await page.getByRole('cell', { name: 'Newsletter', exact: true }).waitFor();
    await screenshot(page, 'categories-archived');

    const narrow = (await newPage(browser, phone)).page;
    await logIn(narrow, user.email, user.password);
    await narrow.goto('/settings/communication-categories');
    await narrow.getByRole('button', { name: 'Edit Product news' }).waitFor();
    await screenshot(narrow, 'categories-narrow');
  });

  it('a recipient opts out of a category, keeps it after a reload and unsubscribes from all', async () => {
    const user = await owner();
    const email = uniqueEmail('reader');
    const personId = await addPerson(user.cookie, email);
    const created = await api('POST', '/v1/settings/communication-categories', { name: 'Events', description: 'Invitations to our webinars.' }, user.cookie);
    expect(created.status).toBe(201);
    const newsletter = (await categories(user.cookie)).find((c) => c.name === 'Newsletter')!;
    const token = tokenFor(user.accountId, personId, newsletter.id);

    const { page } = await newPage(browser, phone);
    await page.goto(`/public/subscription-preferences?token=${token}`);
    await page.getByRole('heading', { name: 'Email preferences' }).waitFor();
    await page.getByText(email).waitFor();
    if (user.accountName) await page.getByText(user.accountName).first().waitFor();
    expect(await page.getByRole('switch', { name: 'Newsletter' }).isChecked()).toBe(true);
    expect(await page.getByRole('switch', { name: 'Events' }).isChecked()).toBe(true);
    await page.getByText('This email').waitFor();
    await page.getByText('Account notices').waitFor();
    expect(await page.getByRole('switch', { name: 'Account notices' }).count()).toBe(0);
    await screenshot(page, 'preference-centre-phone');

    await toggle(page, 'Events');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(sendingMessages.preferencesUpdated).first().waitFor();
    await page.reload();
    await page.getByRole('switch', { name: 'Events' }).waitFor();
    expect(await page.getByRole('switch', { name: 'Events' }).isChecked()).toBe(false);
    expect(await page.getByRole('switch', { name: 'Newsletter' }).isChecked()).toBe(true);
    const counts = (await api('GET', '/v1/settings/communication-categories/counts', undefined, user.cookie)).body.counts as { id: number; optedOut: number }[];
    expect(counts.find((c) => c.id === created.body.category.id)?.optedOut).toBe(1);

    await page.getByRole('button', { name: 'Unsubscribe from all' }).click();
    const confirm = page.getByRole('dialog', { name: 'Unsubscribe from all?' });
    await checkAccessibility(page);
    await confirm.getByRole('button', { name: 'Unsubscribe from all' }).click();
    await page.getByText(sendingMessages.unsubscribed).first().waitFor();
    await page.getByText(/You are unsubscribed from all marketing emails/).waitFor();
    expect(await page.getByRole('switch', { name: 'Newsletter' }).isChecked()).toBe(false);
    await screenshot(page, 'preference-centre-unsubscribed');

    const { page: app } = await newPage(browser);
    await logIn(app, user.email, user.password);
    await app.goto(`/people/${personId}`);
    await app.getByText('Suppressed: Unsubscribed').waitFor();
    await screenshot(app, 'person-suppressed');
    await app.getByRole('link', { name: 'See it on the suppression list' }).click();
    await app.waitForURL(/\/settings\/email\/suppressions\?search=/);
    const row = app.getByRole('row').filter({ hasText: email });
    await row.getByText('Unsubscribed').waitFor();
    await row.getByText('preference-centre').waitFor();

    // A preview link from a test send explains the page; a broken link shows the server's message and no form.
    await page.goto('/public/subscription-preferences?preview=1');
    await page.getByText('This is a preview').waitFor();
    await page.goto('/public/subscription-preferences?token=not-a-real-token-at-all');
    await page.getByText(sendingMessages.linkInvalid).waitFor();
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
  });

  it('the unsubscribe link unsubscribes at once and leads to the preferences', async () => {
    const user = await owner();
    const email = uniqueEmail('leaver');
    const personId = await addPerson(user.cookie, email);
    const token = tokenFor(user.accountId, personId);

    const { page } = await newPage(browser, phone);
    await page.goto(`/public/unsubscribe?token=${token}`);
    await page.getByText(sendingMessages.unsubscribed).waitFor();
    if (user.accountName) await page.getByText(user.accountName).waitFor();
    await screenshot(page, 'unsubscribe-phone');
    const list = await api('GET', `/v1/suppressions?search=${encodeURIComponent(email)}`, undefined, user.cookie);
    expect(list.body.suppressions).toMatchObject([{ email, reason: 'unsubscribed', source: 'link', personId }]);

    await page.getByRole('link', { name: 'Manage your preferences' }).click();
    await page.waitForURL(/\/public\/subscription-preferences\?token=/);
    await page.getByText(/You are unsubscribed from all marketing emails/).waitFor();
    // Opting in again lifts the unsubscribe.
    await toggle(page, 'Newsletter');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(sendingMessages.preferencesUpdated).first().waitFor();
    await page.getByText(/You are unsubscribed from all/).waitFor({ state: 'detached' });

    const desktop = (await newPage(browser)).page;
    await desktop.goto(`/public/subscription-preferences?token=${token}&preview=1`);
    await desktop.getByText('This is a preview').waitFor();
    await desktop.getByRole('switch', { name: 'Newsletter' }).waitFor();
    await screenshot(desktop, 'preference-centre-desktop');

    await page.goto('/public/unsubscribe?preview=1');
    await page.getByText('This is a preview').waitFor();
    await page.goto('/public/unsubscribe?token=not-a-real-token-at-all');
    await page.getByText(sendingMessages.linkInvalid).waitFor();
  });

  it('adds, searches, removes with a note and exports suppressed addresses', async () => {
    const user = await owner();
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password);
    await page.goto('/settings/email/suppressions');
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
    const history = await api('GET', `/v1/suppressions/history?email=${encodeURIComponent(first)}`, undefined, user.cookie);
    expect(history.body.history.map((h: { action: string }) => h.action)).toEqual(['removed', 'added']);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    const csv = fs.readFileSync((await download.path())!, 'utf8');
    expect(csv.split(/\r?\n/)[0]).toBe('email,reason,source,note,createdAt');
    expect(csv).toContain(second);
    expect(csv).not.toContain(first);
    await screenshot(page, 'suppressions');

    const narrow = (await newPage(browser, phone)).page;
    await logIn(narrow, user.email, user.password);
    await narrow.goto('/settings/email/suppressions');
    await narrow.getByText('1 address', { exact: true }).waitFor();
    await screenshot(narrow, 'suppressions-narrow');
  });

  it('a teammate with only people:read sees categories and the suppression list read-only', async () => {
    const user = await owner();
    await api('POST', '/v1/suppressions', { emails: ['gone@example.com'], note: 'Asked by phone' }, user.cookie);
    const readerEmail = uniqueEmail('viewer');
    const readable = new Set(['people:read', 'emails:read']);
    const scopes = (await api('GET', '/v1/accounts', undefined, user.cookie)).body.teamMember.accountData.scopes as { id: string }[];
    await api('POST', '/v1/team-members', { name: 'Vera Viewer', email: readerEmail, scopes: scopes.map((scope) => ({ id: scope.id, enabled: readable.has(scope.id) })) }, user.cookie);
    let token = '';
    await expect
      .poll(async () => {
        const messages = (await api('GET', '/v1/dev/mailbox')).body.messages as { to: string; text: string }[];
        token = /accept-invite\?token=([^\s&"<>]+)/.exec(messages.find((m) => m.to.includes(readerEmail))?.text ?? '')?.[1] ?? '';
        return token;
      }, { timeout: 20_000 })
      .not.toBe('');
    expect((await api('POST', '/v1/team-members/invitations/accept', { token: decodeURIComponent(token), password: 'viewer password 1' })).status).toBe(200);

    const { page } = await newPage(browser);
    await logIn(page, readerEmail, 'viewer password 1');
    await page.goto('/settings/communication-categories');
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
    const status = await page.evaluate(async () => (await fetch('/v1/suppressions/gone%40example.com', { method: 'DELETE' })).status);
    expect(status).toBe(403);
  });
});
