import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, logOutThroughMenu, newPage, screenshot, uniqueEmail } from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

describe('registration wizard', () => {
  it('a newcomer registers step by step, lands on /start?register=1, logs out and back in', async () => {
    const { page } = await newPage(browser);
    const email = uniqueEmail('wizard');
    await page.goto('/register');
    await page.waitForURL(/\/register(\/email)?(\?|$)/);
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Convert More Leads' }).click();

    await page.getByRole('heading', { name: "Welcome! What's your name?" }).waitFor();
    expect(page.url()).toContain('/register/name');
    await page.getByLabel('Name').fill('Ada');
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.getByRole('heading', { name: 'Hey Ada! Can we get your phone number?' }).waitFor();
    const phoneButton = page.getByRole('button', { name: 'Continue' });
    expect(await phoneButton.isDisabled()).toBe(true);
    await page.getByLabel('Phone').fill('+49 30 1234567');
    await phoneButton.click();

    await page.getByRole('heading', { name: 'Ada, tell us about your business.' }).waitFor();
    await page.getByLabel('Site').fill('not a site');
    await page.getByLabel('Site').blur();
    await page.getByText('Double-check your site.').waitFor();
    await page.getByLabel('Site').fill('www.ada-analytics.io');
    await page.getByLabel('Industry').selectOption('SaaS');
    await page.getByLabel('Estimated contacts').selectOption('5,000 - 10,000');
    await screenshot(page, 'register-company');
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.getByRole('heading', { name: 'Almost there! Tell us about your goals.' }).waitFor();
    await page.getByLabel('Goals').fill('Onboard trial users with a welcome flow.');
    await page.getByLabel('Previous tool').fill('Spreadsheets');
    await page.getByRole('button', { name: 'To Final Step' }).click();

    await page.getByRole('heading', { name: 'Last step, we promise! Choose your password.' }).waitFor();
    await page.getByLabel('Password').fill('my secret password');
    await page.getByRole('button', { name: 'Take me to my account' }).click();

    await page.waitForURL((url) => url.pathname === '/start' && url.searchParams.get('register') === '1');
    await screenshot(page, 'start-after-register');

    // Log out through the profile menu, then log back in.
    await logOutThroughMenu(page);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('Wrong email or password.').waitFor();
    await page.getByLabel('Password').fill('my secret password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    expect(await page.title()).toMatch(/Herald$/);
  });

  it('an email that is already registered offers "Login instead?"', async () => {
    const { page } = await newPage(browser);
    const email = uniqueEmail('twice');
    await page.goto('/register');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Convert More Leads' }).click();
    await page.waitForURL(/\/register\/name/);
    await page.context().clearCookies();
    await page.goto('/register');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Convert More Leads' }).click();
    await page.getByText('This email is already registered').waitFor();
    await page.getByRole('link', { name: 'Login instead?' }).click();
    await page.waitForURL(/\/login/);
  });

  it('the wizard resumes at the first missing step and keeps the query string', async () => {
    const { page } = await newPage(browser);
    await page.goto('/register?after-register=%2Fsettings%2Fteam&utm_source=journey');
    await page.getByLabel('Email').fill(uniqueEmail('resume'));
    await page.getByRole('button', { name: 'Convert More Leads' }).click();
    await page.waitForURL(/\/register\/name\?/);
    expect(page.url()).toContain('utm_source=journey');
    await page.goto('/register/password?after-register=%2Fsettings%2Fteam');
    // The name is still missing, so the wizard goes back to it.
    await page.getByRole('heading', { name: "Welcome! What's your name?" }).waitFor();
  });
});
