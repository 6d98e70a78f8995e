import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, launchBrowser, newPage, screenshot, sql } from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

async function logIn(page: import('playwright-core').Page, email: string, password: string) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

/** A new user signed in through the login page on a phone-sized screen. */
async function narrowSignedIn() {
  const user = await createUser();
  const { page } = await newPage(browser, { width: 390, height: 844 });
  await page.goto('/login');
  await logIn(page, user.email, user.password);
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
  return page;
}

describe('navigation and account states', () => {
  it('an unauthenticated deep link goes to login and back to the deep link', async () => {
    const user = await createUser();
    const { page } = await newPage(browser);
    await page.goto('/settings/team?team-member=new');
    await page.waitForURL(/\/login\?/);
    await logIn(page, user.email, user.password);
    await page.waitForURL(
      (url) => url.pathname === '/settings/team' && url.searchParams.get('team-member') === 'new',
    );
  });

  it('an unknown path goes to /dashboard inside the shell', async () => {
    const user = await createUser();
    const { page } = await newPage(browser);
    await page.goto('/login');
    await logIn(page, user.email, user.password);
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    await page.goto('/no/such/page');
    await page.waitForURL((url) => url.pathname === '/dashboard');
    await page.getByRole('link', { name: 'Flows' }).first().waitFor();
    expect(await page.title()).toMatch(/Dashboard.*Herald/);
    await screenshot(page, 'dashboard');
  });

  it('the narrow screen shows a single menu', async () => {
    const page = await narrowSignedIn();
    await page.goto('/dashboard');
    await page.getByRole('button', { name: 'Open navigation' }).click();
    await page.getByRole('menuitem', { name: 'Broadcasts' }).click();
    await page.waitForURL((url) => url.pathname === '/broadcasts');
    await screenshot(page, 'dashboard-narrow-menu');
  });

  it('the narrow menu opens when the press comes before the menu is there and the release after', async () => {
    const page = await narrowSignedIn();
    // Hold the top bar's popups back (docs/web-app.md, "A lighter web app") until the button is pressed.
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/assets/shell-popups-*.js', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto('/dashboard');
    const plain = page.locator('button[aria-label="Open navigation"]:not([aria-haspopup])');
    const box = await plain.boundingBox();
    if (!box) throw new Error('the navigation button has no box');
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    release();
    await page.locator('button[aria-label="Open navigation"][aria-haspopup="menu"]').waitFor();
    await page.mouse.up();
    await page.getByRole('menuitem', { name: 'Broadcasts' }).click();
    await page.waitForURL((url) => url.pathname === '/broadcasts');
  });

  it('an account whose trial ended sees the trial-expired screen', async () => {
    const user = await createUser();
    await sql("update accounts set trial_ends_at = now() - interval '1 day' where id = $1", [user.accountId]);
    const { page } = await newPage(browser);
    await page.goto('/login');
    await logIn(page, user.email, user.password);
    await page.getByText('Oh no! Your trial has expired').waitFor();
    await page
      .getByRole('link', { name: /Choose a plan/ })
      .or(page.getByRole('button', { name: /Choose a plan/ }))
      .first()
      .waitFor();
    await screenshot(page, 'trial-expired');
  });
});
