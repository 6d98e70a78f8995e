import { sendingMessages } from '@herald/contracts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/until.ts';
import { sealToken } from '../../apps/server/src/lib/sealed-tokens.ts';
import { checkAccessibility } from '../support/accessibility.ts';
import { api, launchBrowser, logIn, newPage, screenshot, uniqueEmail } from '../support/browser.ts';
import { e2eSessionSecret } from '../support/global-setup.ts';
import { owner, phone } from './preferences-setup.ts';

// Communication categories and the recipient's choices; the suppression list is suppressions.journey.ts.

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

interface Category {
  id: number;
  name: string;
  type: string;
  isDefault: boolean;
}

async function addPerson(cookie: string, email: string): Promise<number> {
  const created = await api('POST', '/v1/people/?source=manual', { email }, cookie);
  if (created.status >= 300) throw new Error(JSON.stringify(created.body));
  return created.body.user.id as number;
}

async function categories(cookie: string): Promise<Category[]> {
  return (await api('GET', '/v1/settings/communication-categories', undefined, cookie)).body
    .categories as Category[];
}

/** The link token an email to this person would carry (the server's payload: a, p, c, s). */
function tokenFor(accountId: number, personId: number, categoryId?: number): string {
  return sealToken(
    { a: accountId, p: personId, ...(categoryId ? { c: categoryId } : {}), s: 'test' },
    e2eSessionSecret,
    'preferences',
    3600,
  );
}

/** Mantine's switch input sits under its track; a click on the input is what a tap on the switch does. */
/**
 * Turn a switch (its input is visually hidden, so it is clicked from the page) and wait until it shows the change.
 * Turned right after the page painted, in CI (no screenshot before it), the change was sometimes gone again with
 * nothing saved: the switch is then turned once more. Why the form lost it is not known yet.
 */
async function toggle(page: Page, name: string) {
  const input = page.getByRole('switch', { name });
  const before = await input.isChecked();
  for (let attempt = 0; attempt < 3; attempt++) {
    await input.evaluate((element: HTMLInputElement) => element.click());
    const changed = await until(async () => ((await input.isChecked()) !== before ? true : undefined), {
      timeout: 2_000,
      interval: 100,
      message: `the switch ${name} turned`,
    }).catch(() => false);
    await page.waitForTimeout(300);
    if (changed && (await input.isChecked()) !== before) return;
  }
  throw new Error(`The switch ${name} did not stay turned.`);
}

describe('communication preferences', () => {
  it('creates a category, edits it through the popup URL, makes it default and archives another', async () => {
    const user = await owner();
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, '/settings/communication-categories');
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
    await page
      .getByRole('dialog', { name: 'Edit Category' })
      .getByRole('button', { name: 'Make default' })
      .click();
    await expect
      .poll(async () => (await categories(user.cookie)).find((c) => c.isDefault)?.name)
      .toBe('Product news');
    await page.keyboard.press('Escape');
    await page
      .getByRole('row')
      .filter({ hasText: 'Product news' })
      .getByText('Default', { exact: true })
      .waitFor();

    // An email is filed under a category from the editor's settings.
    const email = await api(
      'POST',
      '/v1/emails',
      { name: 'Launch', subject: 'We launched', fromEmail: user.email },
      user.cookie,
    );
    expect(email.status).toBe(201);
    await page.goto(`/emails/${email.body.email.id}`);
    await page.getByRole('textbox', { name: 'Category' }).click();
    await page.getByRole('option', { name: 'Newsletter' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Email saved.').first().waitFor();
    await screenshot(page, 'email-category');
    const newsletterId = (await categories(user.cookie)).find((c) => c.name === 'Newsletter')!.id;
    expect(
      (await api('GET', `/v1/emails/${email.body.email.id}`, undefined, user.cookie)).body.email.categoryId,
    ).toBe(newsletterId);
    await page.goto('/settings/communication-categories');

    // The old default can go now.
    await page.getByRole('button', { name: 'Edit Newsletter' }).click();
    await page
      .getByRole('dialog', { name: 'Edit Category' })
      .getByRole('button', { name: 'Archive' })
      .click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'Newsletter', exact: true }).waitFor({ state: 'detached' });
    await page.getByText('Archived (1)').click();
    await page.getByRole('cell', { name: 'Newsletter', exact: true }).waitFor();
    await screenshot(page, 'categories-archived');

    const narrow = (await newPage(browser, phone)).page;
    await logIn(narrow, user.email, user.password, '/settings/communication-categories');
    await narrow.getByRole('button', { name: 'Edit Product news' }).waitFor();
    await screenshot(narrow, 'categories-narrow');
  });

  it('a recipient opts out of a category, keeps it after a reload and unsubscribes from all', async () => {
    const user = await owner();
    const email = uniqueEmail('reader');
    const personId = await addPerson(user.cookie, email);
    const created = await api(
      'POST',
      '/v1/settings/communication-categories',
      { name: 'Events', description: 'Invitations to our webinars.' },
      user.cookie,
    );
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
    const counts = (await api('GET', '/v1/settings/communication-categories/counts', undefined, user.cookie))
      .body.counts as { id: number; optedOut: number }[];
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
    await logIn(app, user.email, user.password, `/people/${personId}`);
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
    const list = await api(
      'GET',
      `/v1/suppressions?search=${encodeURIComponent(email)}`,
      undefined,
      user.cookie,
    );
    expect(list.body.suppressions).toMatchObject([
      { email, reason: 'unsubscribed', source: 'link', personId },
    ]);

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
});
