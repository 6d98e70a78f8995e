import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, launchBrowser, newPage, screenshot } from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

describe('password reset through the built-in mailbox', () => {
  it('a user who forgot the password resets it from the email and signs in with the new one', async () => {
    const user = await createUser('the old password');
    const { page } = await newPage(browser);
    await page.goto('/login');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.waitForURL(/\/request-reset-password/);
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await page.getByLabel('Email').fill(user.email);
    await expect.poll(() => page.getByLabel('Email').inputValue()).toBe(user.email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    // The answer is the same whether or not the email has an account; an error would show as an alert instead.
    await page
      .getByText('If an account uses that email, a link to reset the password is on its way.')
      .waitFor({ timeout: 30_000 });

    await page.goto('/dev/mailbox');
    const row = page.getByText(user.email).first();
    await row.waitFor({ timeout: 20_000 });
    await row.click();
    await page.getByText('Reset your Herald password').first().waitFor();
    await screenshot(page, 'mailbox-reset-email');
    const link = page.locator('a[href*="/reset-password?token="]').first();
    await link.waitFor();
    const href = await link.getAttribute('href');
    await page.goto(href!);

    await page.getByLabel('New password').fill('the new password');
    await page.getByRole('button', { name: 'Save new password' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/reset-password'));

    expect(
      (await api('POST', '/v1/accounts/login/', { email: user.email, password: 'the old password' })).status,
    ).toBe(401);
    // The link works once.
    await page.context().clearCookies();
    await page.goto(href!);
    await page.getByLabel('New password').fill('yet another password');
    await page.getByRole('button', { name: 'Save new password' }).click();
    await page.getByText(/invalid or has expired/).waitFor();

    await page.goto('/login');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill('the new password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
  });
});
