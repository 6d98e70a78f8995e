import type { Browser } from 'playwright-core';
import { expect } from 'vitest';
import { api, createUser, newPage, uniqueEmail } from './browser.ts';

/**
 * An owner ready to send: signed in (a session cookie), a sender address verified through the link the mailbox
 * received, and the account's mailing address set. The journeys of broadcasts, A/B tests and send times start here.
 */
export async function verifiedMarketer(browser: Browser) {
  const user = await createUser();
  const cookie = (await api('POST', '/v1/accounts/login/', { email: user.email, password: user.password }))
    .cookie!;
  const sender = uniqueEmail('news');
  expect((await api('POST', '/v1/settings/email/addresses', { email: sender }, cookie)).status).toBeLessThan(
    300,
  );
  const inbox = (await newPage(browser)).page;
  await inbox.goto('/dev/mailbox');
  await inbox.getByText(sender).first().click({ timeout: 20_000 });
  const link = inbox.locator('a[href*="/public/verify-sender?token="]').first();
  await link.waitFor({ timeout: 20_000 });
  await inbox.goto((await link.getAttribute('href'))!);
  await inbox.getByRole('heading', { name: 'Address verified' }).waitFor();
  await inbox.close();
  expect(
    (await api('PATCH', '/v1/accounts/me', { mailingAddress: '1 Engine Way, London' }, cookie)).status,
  ).toBe(200);
  return { ...user, cookie, sender };
}
