import crypto from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProvider, type TestProvider } from '../../apps/server/test/oidc-test-provider.ts';
import { baseUrl, createUser, launchBrowser, logIn, newPage, screenshot, sql } from '../support/browser.ts';

// Single sign-on against a real OpenID provider (oidc-provider, the server tests' own) started here, on loopback,
// which the journeys' server trusts for outgoing calls (OUTGOING_TRUSTED_ADDRESSES, support/global-setup.ts).

let browser: Browser;
let provider: TestProvider;
beforeAll(async () => {
  browser = await launchBrowser();
  provider = await startTestProvider({ redirectUris: [`${baseUrl()}/sso/callback`] });
});
afterAll(async () => {
  await browser.close();
  await provider.close();
});

describe('single sign-on', () => {
  it('the owner sets it up; a new colleague signs in through the provider and joins with the default permissions', async () => {
    const owner = await createUser();
    const domain = `acme-${crypto.randomBytes(4).toString('hex')}.example`;
    const { page } = await newPage(browser);
    await logIn(page, owner.email, owner.password, '/settings/account');
    await page.getByRole('heading', { name: 'Single sign-on' }).waitFor();
    await page.getByRole('button', { name: 'Set up single sign-on' }).click();
    const form = page.getByRole('form', { name: 'Single sign-on settings' });
    await form.getByRole('textbox', { name: 'Issuer URL' }).fill(provider.issuer);
    await form.getByRole('textbox', { name: 'Client ID' }).fill(provider.clientId);
    await form.getByLabel('Client secret').fill(provider.clientSecret);
    const domains = form.getByRole('textbox', { name: 'Email domains' });
    await domains.fill(domain);
    await domains.press('Enter');
    // The owner's pick: new members cannot export people.
    await form.getByRole('checkbox', { name: 'Export people' }).uncheck();
    await screenshot(page, 'sso-settings-form');
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(domain).waitFor();
    await page.getByText(`${baseUrl()}/sso/callback`).waitFor();
    await screenshot(page, 'sso-settings-saved');

    const colleague = await newPage(browser);
    const email = `new.colleague@${domain}`;
    await colleague.page.goto('/login');
    await colleague.page.getByRole('button', { name: 'Sign in with SSO' }).click();
    await colleague.page.getByRole('textbox', { name: 'Email' }).fill(email);
    await screenshot(colleague.page, 'sso-login');
    await colleague.page.getByRole('button', { name: 'Continue with SSO' }).click();
    await colleague.page.getByRole('heading', { name: 'Test identity provider' }).waitFor();
    expect(await colleague.page.getByLabel('Email').inputValue()).toBe(email);
    await colleague.page.getByRole('button', { name: 'Sign in to the test provider' }).click();
    await colleague.page.waitForURL((url) => url.origin === baseUrl() && !url.pathname.startsWith('/sso'));
    await colleague.page.getByRole('button', { name: 'Profile menu' }).waitFor();
    await screenshot(colleague.page, 'sso-signed-in');

    const member = await sql(
      `select m.account_id, m.is_owner, m.scopes from team_members m join users u on u.id = m.user_id
       where u.email = $1`,
      [email],
    );
    expect(member.rows).toHaveLength(1);
    expect(Number(member.rows[0].account_id)).toBe(owner.accountId);
    expect(member.rows[0].is_owner).toBe(false);
    const scopes = member.rows[0].scopes as { id: string; enabled: boolean }[];
    expect(scopes.find((s) => s.id === 'people:export')?.enabled).toBe(false);
    expect(scopes.find((s) => s.id === 'people:read')?.enabled).toBe(true);
    expect(scopes.find((s) => s.id === 'account:write')?.enabled).toBe(false);

    // With "require single sign-on", a password sign-in of the domain says to use SSO and turns the form to it.
    await page.getByRole('button', { name: 'Change single sign-on' }).click();
    await form.getByRole('switch', { name: /Require single sign-on/ }).check();
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Off for these domains').waitFor();
    await sql(
      `update users set password_hash = (select password_hash from users where email = $1) where email = $2`,
      [owner.email, email],
    );
    const other = await newPage(browser);
    await other.page.goto('/login');
    await other.page.getByRole('textbox', { name: 'Email' }).fill(email);
    await other.page.getByLabel('Password').fill(owner.password);
    await other.page.getByRole('button', { name: 'Log in' }).click();
    await other.page.getByRole('alert').getByText('Your organisation signs in with single sign-on').waitFor();
    await other.page.getByRole('button', { name: 'Continue with SSO' }).waitFor();
    await screenshot(other.page, 'sso-required');
    await colleague.context.close();
    await other.context.close();

    // On a phone: the settings read in one column, and a provider answer that arrives without its attempt (another
    // browser, or too late) says so with a way back.
    const phone = await newPage(browser, { width: 390, height: 844 });
    await logIn(phone.page, owner.email, owner.password, '/settings/account');
    await phone.page.getByRole('button', { name: 'Change single sign-on' }).waitFor();
    await phone.page.getByRole('heading', { name: 'Single sign-on' }).scrollIntoViewIfNeeded();
    await screenshot(phone.page, 'sso-settings-phone');
    await phone.page.goto('/sso/callback?code=stale&state=stale');
    await phone.page.getByRole('alert').getByText('Your single sign-on attempt expired').waitFor();
    await phone.page.getByRole('link', { name: 'Back to log in' }).waitFor();
    await screenshot(phone.page, 'sso-callback-expired');
    await phone.context.close();
  });
});
