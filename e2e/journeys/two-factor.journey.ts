import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hotpCode, readTotpSecret, totpStep } from '../../apps/server/src/lib/totp.ts';
import {
  api,
  createUser,
  launchBrowser,
  logIn,
  logOutThroughMenu as logOut,
  newPage,
  screenshot,
} from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

/** What an authenticator app would show for the secret, `offset` steps from now. */
function codeFor(secret: string, offset = 0): string {
  return hotpCode(readTotpSecret(secret), totpStep(Date.now()) + offset);
}

async function typePassword(page: Page, email: string, password: string) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

/** Read the key under the QR code (shown in groups of four) and answer the app's current code. */
async function scanSecret(page: Page): Promise<string> {
  await page.getByRole('img', { name: 'QR code to add Herald to your authenticator app' }).waitFor();
  return ((await page.getByTestId('two-factor-secret').textContent()) ?? '').replace(/\s/g, '');
}

describe('two-factor sign-in', () => {
  it('enrol on the profile, sign out, sign in with a code, then with a recovery code, make new recovery codes, then turn it off', async () => {
    const user = await createUser();
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, '/settings/profile');
    await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const secret = await scanSecret(page);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await screenshot(page, 'two-factor-setup');
    // A wrong code is refused and changes nothing.
    await page.getByLabel('Code from your authenticator app').fill(codeFor(secret, 5));
    await page.getByRole('button', { name: 'Turn on two-factor' }).click();
    await page.getByRole('alert').getByText("That code isn't right").waitFor();
    await page.getByLabel('Code from your authenticator app').fill(codeFor(secret));
    await page.getByRole('button', { name: 'Turn on two-factor' }).click();
    await page.getByText('Save your recovery codes now').waitFor();
    const recoveryCodes = (await page.getByTestId('recovery-codes').locator('code').allTextContents()).map(
      (c) => c.trim(),
    );
    expect(recoveryCodes).toHaveLength(10);
    await screenshot(page, 'two-factor-recovery-codes');
    await page.getByRole('button', { name: 'I saved my codes' }).click();
    await page.getByText('Recovery codes left:').waitFor();
    await screenshot(page, 'two-factor-on');

    // The password alone is not enough any more: the code page follows.
    await logOut(page);
    await typePassword(page, user.email, user.password);
    await page.waitForURL(/\/login\/two-factor/);
    await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    await page.getByLabel('Code from your authenticator app').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('alert').waitFor();
    await screenshot(page, 'two-factor-sign-in-code');
    // The next step's code: the one used to turn it on is spent.
    await page.getByLabel('Code from your authenticator app').fill(codeFor(secret, 1));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));

    // Then with a recovery code.
    await logOut(page);
    await typePassword(page, user.email, user.password);
    await page.waitForURL(/\/login\/two-factor/);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(recoveryCodes[0]!);
    await screenshot(page, 'two-factor-sign-in-recovery');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    await page.goto('/settings/profile');
    await page.getByText('Recovery codes left:').waitFor();
    await expect.poll(() => page.getByText('Recovery codes left:').textContent()).toContain('9');

    // New recovery codes, proved with a recovery code (the app's codes of this step and the next are spent): ten
    // again, and the old ones void.
    await page.getByRole('button', { name: 'New recovery codes' }).click();
    const proof = page.getByRole('dialog');
    await proof.getByLabel('Code from your app, or a recovery code').fill('zzzzz-zzzzz');
    await proof.getByRole('button', { name: 'Make new codes' }).click();
    await proof.getByRole('alert').getByText("That code or password isn't right.").waitFor();
    await screenshot(page, 'two-factor-new-recovery-codes');
    await proof.getByLabel('Code from your app, or a recovery code').fill(recoveryCodes[1]!);
    await proof.getByRole('button', { name: 'Make new codes' }).click();
    await page.getByText('Save your recovery codes now').waitFor();
    const newCodes = (await page.getByTestId('recovery-codes').locator('code').allTextContents()).map((c) =>
      c.trim(),
    );
    expect(newCodes).toHaveLength(10);
    expect(newCodes).not.toContain(recoveryCodes[1]);
    await page.getByRole('button', { name: 'I saved my codes' }).click();
    await expect.poll(() => page.getByText('Recovery codes left:').textContent()).toContain('10');

    // Turned off with the password.
    await page.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Password', { exact: true }).click();
    await dialog.getByLabel('Your password').fill(user.password);
    await dialog.getByRole('button', { name: 'Turn off' }).click();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).waitFor();
    expect(
      (await api('POST', '/v1/accounts/login/', { email: user.email, password: user.password })).body.email,
    ).toBe(user.email);
  });

  it('a team that requires two-factor sends a member without it to setup at sign-in', async () => {
    const owner = await createUser();
    const member = await createUser();
    const { page } = await newPage(browser);
    await logIn(page, owner.email, owner.password, '/settings/profile');
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const ownerSecret = await scanSecret(page);
    await page.getByLabel('Code from your authenticator app').fill(codeFor(ownerSecret));
    await page.getByRole('button', { name: 'Turn on two-factor' }).click();
    await page.getByRole('button', { name: 'I saved my codes' }).click();
    await page.goto('/settings/account');
    const policy = page.getByRole('switch', { name: 'Require two-factor sign-in for all team members' });
    await policy.waitFor();
    // By keyboard: the switch takes focus and Space.
    await policy.focus();
    await page.keyboard.press('Space');
    await page.getByText('Team sign-in policy saved').waitFor();
    await expect.poll(() => policy.isChecked()).toBe(true);
    await screenshot(page, 'two-factor-team-policy');
    const invited = await page.request.post('/v1/team-members', {
      data: { name: 'Member', email: member.email },
      headers: { origin: new URL(page.url()).origin },
    });
    expect(invited.status()).toBe(201);

    const { page: memberPage } = await newPage(browser, { width: 390, height: 844 });
    await memberPage.goto('/login');
    await typePassword(memberPage, member.email, member.password);
    await memberPage.waitForURL(/\/login\/two-factor\/setup/);
    const secret = await scanSecret(memberPage);
    await screenshot(memberPage, 'two-factor-required-setup-narrow');
    await memberPage.getByLabel('Code from your authenticator app').fill(codeFor(secret));
    await memberPage.getByRole('button', { name: 'Turn on and sign in' }).click();
    await memberPage.getByText('Save your recovery codes now').waitFor();
    await memberPage.getByRole('button', { name: 'I saved my codes, continue' }).click();
    await memberPage.waitForURL((url) => !url.pathname.startsWith('/login'));
  });
});
