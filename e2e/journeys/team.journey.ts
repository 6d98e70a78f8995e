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

describe('team members', () => {
  it('an owner invites a teammate, who accepts from the email and cannot change people or the account', async () => {
    const owner = await createUser();
    const ownerSession = await api('POST', '/v1/accounts/login/', {
      email: owner.email,
      password: owner.password,
    });
    const person = await api(
      'POST',
      '/v1/people/',
      { email: uniqueEmail('customer'), firstName: 'Carla', lastName: 'Customer' },
      ownerSession.cookie,
    );
    const { page } = await newPage(browser);
    await logIn(page, owner.email, owner.password, '/settings/team');
    await page.getByRole('button', { name: 'Invite team member' }).click();
    await page.waitForURL(/team-member=new/);
    const inviteeEmail = uniqueEmail('teammate');
    await page.getByRole('textbox', { name: 'Name' }).fill('Tina Teammate');
    await page.getByRole('textbox', { name: 'Email' }).fill(inviteeEmail);
    await page.getByRole('checkbox', { name: 'Add and edit people' }).uncheck();
    await screenshot(page, 'team-invite');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('Team member invited').first().waitFor();
    await page.getByText('Invitation pending').first().waitFor();

    // The teammate, in their own browser, reads the invitation in the mailbox and accepts it.
    const invitee = (await newPage(browser)).page;
    await invitee.goto('/dev/mailbox');
    await invitee.getByText(inviteeEmail).first().click();
    const link = invitee.locator('a[href*="/public/accept-invite?token="]').first();
    await link.waitFor({ timeout: 20_000 });
    await invitee.goto((await link.getAttribute('href'))!);
    await invitee.getByLabel('Password').fill('teammate password');
    await invitee.getByRole('button', { name: 'Accept invitation' }).click();
    await invitee.waitForURL((url) => !url.pathname.startsWith('/public/'));

    // Without people:write the person page offers no editing, and the server refuses it anyway.
    await invitee.goto(`/people/${person.body.user.id}`);
    await invitee.getByRole('heading', { name: 'Carla Customer' }).waitFor();
    expect(await invitee.getByRole('button', { name: 'Edit' }).count()).toBe(0);
    expect(await invitee.getByRole('button', { name: 'Add tag' }).count()).toBe(0);
    await screenshot(invitee, 'teammate-person-readonly');
    const status = await invitee.evaluate(async () => {
      const res = await fetch('/v1/people/', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'someone@example.com' }),
      });
      return res.status;
    });
    expect(status).toBe(403);
    // Without account:write the account page is read-only.
    await invitee.goto('/settings/account');
    await invitee.getByRole('textbox', { name: 'Name' }).waitFor();
    expect(await invitee.getByRole('button', { name: 'Save changes' }).count()).toBe(0);
    await screenshot(invitee, 'teammate-account-readonly');

    await page.reload();
    await page.getByText('Tina Teammate').first().waitFor();
    expect(await page.getByText('Invitation pending').count()).toBe(0);
  });

  it('an owner creates a sub-account, switches to it, finds its data separate, and switches back', async () => {
    const owner = await createUser();
    const { page } = await newPage(browser);
    await logIn(page, owner.email, owner.password, '/settings/accounts');
    await page.getByRole('button', { name: 'New account' }).click();
    await page.getByRole('dialog').getByRole('textbox', { name: 'Name' }).fill('Client Co');
    await page.getByRole('dialog').getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('button', { name: 'Switch to Client Co' }).click();
    await page.waitForURL(
      (url) => url.pathname === '/' || url.pathname === '/dashboard' || url.pathname.startsWith('/start'),
    );

    await page.goto('/settings/account');
    await expect.poll(() => page.getByRole('textbox', { name: 'Name' }).inputValue()).toBe('Client Co');
    await page.getByRole('textbox', { name: 'Mailing address' }).fill('1 Client Street');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Settings saved.').first().waitFor();
    await screenshot(page, 'subaccount-settings');

    await page.getByRole('button', { name: 'Profile menu' }).click();
    await page.getByRole('menuitem', { name: 'Switch to Journey Tester' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/settings'));
    await page.goto('/settings/account');
    await expect.poll(() => page.getByRole('textbox', { name: 'Name' }).inputValue()).toBe('Journey Tester');
    expect(await page.getByRole('textbox', { name: 'Mailing address' }).inputValue()).toBe('');
  });
});
