import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  baseUrl,
  createUser,
  launchBrowser,
  logIn,
  newPage,
  screenshot,
  sql,
} from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

describe('transactional email', () => {
  it('shows how to send one from Settings, copies the example request, and shows the id an email is sent by', async () => {
    const user = await createUser();
    const session = await api('POST', '/v1/accounts/login/', { email: user.email, password: user.password });
    const email = await api(
      'POST',
      '/v1/emails',
      { name: 'Receipt', subject: 'Your receipt', fromEmail: 'shop@journey.example.com' },
      session.cookie,
    );
    expect(email.status).toBe(201);
    const { context, page } = await newPage(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl() });
    await logIn(page, user.email, user.password, '/settings/account');
    const card = page.getByRole('region', { name: 'Transactional email' });
    await card.getByRole('heading', { name: 'Transactional email' }).waitFor();
    const example = await card.getByTestId('transactional-example').innerText();
    expect(example).toContain(`curl -X POST ${baseUrl()}/v1/transactional/send`);
    expect(example).toContain('"emailId": -12345');
    await card.getByRole('button', { name: 'Copy example request' }).click();
    await card.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(example);
    // The example scrolls sideways on its own, reachable from the keyboard.
    await card.getByRole('region', { name: 'Example request' }).focus();
    await screenshot(page, 'transactional-settings');

    // The example works as written, once the account has a verified sender and its API key.
    await sql(
      "insert into sender_addresses (account_id, email, status, verified_at) values ($1, 'shop@journey.example.com', 'verified', now())",
      [user.accountId],
    );
    const apiKey = (await api('POST', '/v1/accounts/rotate-api-key', {}, session.cookie)).body
      .apiKey as string;
    const body = JSON.parse(/-d '([\s\S]*)'$/.exec(example)![1]!);
    const sent = await api('POST', '/v1/transactional/send', body, undefined, {
      authorization: `Bearer ${apiKey}`,
      'idempotency-key': 'order-A-1001',
    });
    expect(sent.status).toBe(200);
    await expect
      .poll(
        async () =>
          (
            await api('GET', `/v1/transactional/${sent.body.deliveryId}`, undefined, undefined, {
              authorization: `Bearer ${apiKey}`,
            })
          ).body.status,
        { timeout: 20_000 },
      )
      .toBe('sent');

    await page.goto(`/emails/${email.body.email.id}`);
    await page.getByTestId('email-id').getByText(`ID ${email.body.email.id}`).waitFor();
    await page.getByRole('button', { name: 'Copy email ID' }).click();
    await expect
      .poll(() => page.evaluate(() => navigator.clipboard.readText()))
      .toBe(String(email.body.email.id));

    const narrow = (await newPage(browser, { width: 390, height: 844 })).page;
    await logIn(narrow, user.email, user.password, '/settings/account');
    await narrow
      .getByRole('region', { name: 'Transactional email' })
      .getByTestId('transactional-example')
      .waitFor();
    await narrow.getByRole('heading', { name: 'Transactional email' }).scrollIntoViewIfNeeded();
    await screenshot(narrow, 'transactional-settings-narrow');
    await narrow.goto(`/emails/${email.body.email.id}`);
    await narrow.getByTestId('email-id').waitFor();
    await screenshot(narrow, 'transactional-email-id-narrow');
  });
});
