import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, launchBrowser, logIn, newPage, screenshot } from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

describe('sessions', () => {
  it('the profile lists where you are signed in; signing another session out signs that browser out', async () => {
    const user = await createUser();
    const { page: laptop } = await newPage(browser);
    const { page: phone } = await newPage(browser, { width: 390, height: 844 });
    await logIn(phone, user.email, user.password, '/settings/profile');
    await logIn(laptop, user.email, user.password, '/settings/profile');
    await laptop.getByRole('heading', { name: "Where you're signed in" }).waitFor();
    // The laptop, the phone, and the sign-up's own session (made through the API by createUser).
    await expect.poll(() => laptop.getByTestId('session').count()).toBe(3);
    await laptop.getByText('This device').waitFor();
    await screenshot(laptop, 'sessions-profile');
    await phone.getByRole('heading', { name: "Where you're signed in" }).waitFor();
    await screenshot(phone, 'sessions-profile-narrow');

    // The laptop signs the phone out.
    await laptop.getByRole('button', { name: /^Sign out Headless Chrome on Linux at / }).click();
    await laptop.getByText('Session signed out.').waitFor();
    await expect.poll(() => laptop.getByTestId('session').count()).toBe(2);
    await phone.reload();
    await phone.waitForURL(/\/login/);
    await phone.getByRole('heading', { name: /log in/i }).waitFor();
    // Then every other one at once.
    await laptop.getByRole('button', { name: 'Sign out all other sessions' }).click();
    await laptop.getByRole('dialog').getByRole('button', { name: 'Sign out others' }).click();
    await laptop.getByText("You're not signed in anywhere else.").waitFor();
    await expect.poll(() => laptop.getByTestId('session').count()).toBe(1);

    // A password change signs every other session out too.
    await logIn(phone, user.email, user.password, '/settings/profile');
    await laptop.reload();
    await expect.poll(() => laptop.getByTestId('session').count()).toBe(2);
    await laptop.getByLabel('Current password').fill(user.password);
    await laptop.getByLabel('New password').fill('password1');
    await laptop.getByRole('button', { name: 'Change password' }).click();
    await laptop.getByRole('alert').getByText('on a list of commonly used passwords').waitFor();
    await laptop.getByLabel('New password').fill('Ox-lantern 47 rivers');
    await laptop.getByRole('button', { name: 'Change password' }).click();
    await laptop.getByText('Password changed.').waitFor();
    await expect.poll(() => laptop.getByTestId('session').count()).toBe(1);
    await phone.reload();
    await phone.waitForURL(/\/login/);
  });

  it('a team admin signs a member out of the account from the team page', async () => {
    const owner = await createUser();
    const member = await createUser();
    const ownerSession = await api('POST', '/v1/accounts/login/', {
      email: owner.email,
      password: owner.password,
    });
    expect(
      (
        await api(
          'POST',
          '/v1/team-members',
          { name: 'Mia Member', email: member.email },
          ownerSession.cookie,
        )
      ).status,
    ).toBe(201);
    const { page: memberPage } = await newPage(browser);
    await logIn(memberPage, member.email, member.password);
    const switched = await memberPage.request.post(`/v1/accounts/${owner.accountId}/switch`, {
      headers: { origin: new URL(memberPage.url()).origin },
    });
    expect(switched.ok()).toBe(true);
    await memberPage.goto('/settings/profile');
    await memberPage.getByRole('heading', { name: 'Your Profile' }).waitFor();

    const { page } = await newPage(browser);
    await logIn(page, owner.email, owner.password, '/settings/team');
    await page.getByRole('button', { name: 'Sign out Mia Member' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('Team member signed out everywhere in this account.').waitFor();
    await screenshot(page, 'sessions-team-sign-out');
    await memberPage.reload();
    await memberPage.waitForURL(/\/login/);

    // The account page tells when the API key was last used.
    await page.goto('/settings/account');
    await page.getByRole('heading', { name: 'API key' }).scrollIntoViewIfNeeded();
    await page.getByText('No API key yet.').waitFor();
    const key = (await api('POST', '/v1/accounts/rotate-api-key', {}, ownerSession.cookie)).body
      .apiKey as string;
    await page.reload();
    await page.getByText('never used').waitFor();
    expect(
      (await api('GET', '/v1/accounts', undefined, undefined, { authorization: `Bearer ${key}` })).status,
    ).toBe(200);
    await page.reload();
    await page.getByText(/last used (just now|\d+ seconds? ago)/).waitFor();
    await screenshot(page, 'sessions-api-key-last-used');
  });
});
