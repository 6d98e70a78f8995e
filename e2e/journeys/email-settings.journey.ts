import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, launchBrowser, logIn, newPage, screenshot } from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

describe('email settings', () => {
  it('sets the mailing address, default sender and UTM tagging, and manages custom fonts', async () => {
    const user = await createUser();
    const session = await api('POST', '/v1/accounts/login/', { email: user.email, password: user.password });
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, '/settings/email/general');
    await page.getByRole('textbox', { name: 'Mailing address' }).fill('1 Engine Way, London');
    await page.getByRole('button', { name: 'Save address' }).click();
    await page.getByText('Mailing address saved.').first().waitFor();
    await page.getByRole('textbox', { name: 'From name' }).fill('Ada at Analytical');
    await page.getByRole('textbox', { name: 'From email' }).fill('not an address');
    await page.getByRole('button', { name: 'Save sender' }).click();
    await page.getByText('Enter a valid email address.').waitFor();
    await page.getByRole('textbox', { name: 'From email' }).fill('ada@analytical.example.com');
    await page.getByRole('button', { name: 'Save sender' }).click();
    await page.getByText('Default sender saved.').first().waitFor();
    await page
      .getByRole('switch', { name: 'Tag links in my emails' })
      .evaluate((input: HTMLInputElement) => input.click());
    await page.getByText('Links will be tagged with UTM parameters.').first().waitFor();
    await screenshot(page, 'email-settings-general');

    await page.reload();
    await expect
      .poll(() => page.getByRole('textbox', { name: 'Mailing address' }).inputValue())
      .toBe('1 Engine Way, London');
    expect(await page.getByRole('switch', { name: 'Tag links in my emails' }).isChecked()).toBe(true);
    const account = (await api('GET', '/v1/accounts', undefined, session.cookie)).body;
    expect(account).toMatchObject({
      mailingAddress: '1 Engine Way, London',
      defaultFromName: 'Ada at Analytical',
      defaultFromEmail: 'ada@analytical.example.com',
      linkUTMs: true,
    });

    // A new email starts with the default sender.
    await page.goto('/emails?new=1');
    await expect
      .poll(() =>
        page
          .getByRole('dialog', { name: 'New email' })
          .getByRole('textbox', { name: 'From email' })
          .inputValue(),
      )
      .toBe('ada@analytical.example.com');

    await page.goto('/settings/email/fonts');
    await page.getByRole('heading', { name: 'No custom fonts' }).waitFor();
    await page.getByRole('button', { name: 'Add Font' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add a font' });
    await dialog.getByRole('textbox', { name: 'Font family' }).fill('Inter');
    await dialog.getByRole('textbox', { name: 'Stylesheet URL' }).fill('http://fonts.example.com/inter.css');
    await dialog.getByRole('button', { name: 'Add font' }).click();
    await dialog.getByText('Enter the https address').waitFor();
    await dialog.getByRole('textbox', { name: 'Stylesheet URL' }).fill('https://fonts.example.com/inter.css');
    await dialog.getByRole('button', { name: 'Add font' }).click();
    await page.getByText('Inter added.').first().waitFor();
    await page.getByRole('cell', { name: 'Inter', exact: true }).waitFor();
    await screenshot(page, 'email-settings-fonts');
    await page.getByRole('button', { name: 'Delete Inter' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'No custom fonts' }).waitFor();

    const narrow = (await newPage(browser, { width: 390, height: 844 })).page;
    await logIn(narrow, user.email, user.password, '/settings/email/general');
    await narrow.getByRole('textbox', { name: 'Mailing address' }).waitFor();
    await screenshot(narrow, 'email-settings-narrow');
  });
});
