import crypto from 'node:crypto';
import { allPlans } from '@herald/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, providerEnv, stockProviders } from '../../apps/server/test/billing-standins.ts';
import {
  chargebeeAuthHeader,
  startChargebeeStandIn,
  type ChargebeeStandIn,
} from '../../apps/server/test/chargebee-standin.ts';
import { startPaypalStandIn, type PaypalStandIn } from '../../apps/server/test/paypal-standin.ts';
import { adminDatabaseUrl, createDatabase, dropDatabase } from '../../apps/server/test/test-database.ts';
import { watchAccessibility } from '../support/accessibility.ts';
import { launchBrowser, logIn, screenshot, uniqueEmail, visitorAddress } from '../support/browser.ts';
import { startExtraServer, type ExtraServer } from '../support/extra-server.ts';

/**
 * Paying for a plan (issue 21): the shared e2e server has no payment provider, so this journey starts a server of
 * its own whose Chargebee and PayPal are local stand-ins, and follows the browser to the provider's page.
 */

let browser: Browser;
let chargebee: ChargebeeStandIn;
let paypal: PaypalStandIn;
let server: ExtraServer | undefined;
let base: string;
let admin: Awaited<ReturnType<typeof adminDatabaseUrl>>;
const databaseName = `herald_e2e_checkout_${process.pid}`;

beforeAll(async () => {
  chargebee = await startChargebeeStandIn();
  paypal = await startPaypalStandIn();
  stockProviders(chargebee, paypal, allPlans);
  // The dialog offers the growth and premium plans for either way to pay: PayPal sells the first one too.
  paypal.plans.push({ id: 'P-3GR0WTH2000MONTHLY', name: 'growth-monthly-v1-2000', status: 'ACTIVE' });
  admin = await adminDatabaseUrl();
  const databaseUrl = await createDatabase(admin.url, databaseName);
  server = await startExtraServer({ name: 'checkout', databaseUrl, env: providerEnv(chargebee, paypal) });
  base = server.base;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await dropDatabase(admin.url, databaseName);
  await admin.stop();
  await Promise.all([chargebee?.close(), paypal?.close()]);
});

/** A call to this journey's server as a same-origin browser would make it. */
async function call(method: string, url: string, body?: unknown, cookie?: string) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      'content-type': 'application/json',
      origin: base,
      'x-forwarded-for': visitorAddress(),
      ...(cookie ? { cookie } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text ? JSON.parse(text) : undefined,
    cookie: res.headers.get('set-cookie')?.split(';')[0] ?? cookie,
  };
}

async function owner() {
  const email = uniqueEmail('checkout');
  const password = 'journey password 1';
  const created = await call('POST', '/v1/accounts/', {
    email,
    source: 'journey',
    timezone: 'Europe/Berlin',
  });
  expect(created.status).toBe(201);
  const profile = {
    name: 'Journey Tester',
    phone: '+49 30 000000',
    site: 'journey.example.com',
    industry: 'Agency',
    estimatedContacts: '0 - 500',
    goals: 'Test the product',
    flags: { hasFilledGoals: true },
  };
  await call('PATCH', '/v1/accounts/me', profile, created.cookie);
  await call('POST', '/v1/accounts/initial-password', { password }, created.cookie);
  return { email, password, accountId: created.body.accountId as number };
}

/** A browser page on this journey's server; the providers' hosts answer with a page of their own. */
async function openPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    baseURL: base,
    viewport: { width: 1280, height: 800 },
    extraHTTPHeaders: { 'x-forwarded-for': visitorAddress() },
  });
  const providerPage = (title: string) =>
    `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1></main></body></html>`;
  await context.route('https://herald-test.chargebee.com/**', (route) =>
    route.fulfill({ contentType: 'text/html', body: providerPage('Chargebee checkout') }),
  );
  await context.route('https://www.sandbox.paypal.com/**', (route) =>
    route.fulfill({ contentType: 'text/html', body: providerPage('PayPal approval') }),
  );
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await watchAccessibility(context, page);
  return { context, page };
}

async function openDialog(page: Page) {
  await page.goto('/billing');
  await page.getByRole('button', { name: 'Choose a plan' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Upgrade to this plan' }).waitFor();
  return dialog;
}

describe('paying for a plan', () => {
  it('an owner picks a plan, pays by card on Chargebee, and comes back to an active plan with its invoice', async () => {
    const user = await owner();
    const { context, page } = await openPage();
    await logIn(page, user.email, user.password);
    const dialog = await openDialog(page);
    await dialog.getByRole('radio', { name: 'Card' }).evaluate((radio: HTMLInputElement) => radio.click());
    await page.waitForTimeout(300); // the opening transition
    await screenshot(page, 'billing-checkout-dialog');
    await dialog.getByRole('button', { name: 'Upgrade to this plan' }).click();
    await page.waitForURL(/^https:\/\/herald-test\.chargebee\.com\/pages\/v3\/[0-9a-f]+\/$/);
    await page.getByRole('heading', { name: 'Chargebee checkout' }).waitFor();

    const form = chargebee.form(chargebee.requests.at(-1)!);
    expect(form).toMatchObject({
      'subscription_items[item_price_id][0]': 'growth-monthly-v1-2000',
      'customer[email]': user.email,
      'customer[id]': `herald-${user.accountId}`,
      redirect_url: `${base}/billing?checkout=done`,
    });

    // Chargebee tells Herald the subscription is paid, then sends the browser back.
    const values = {
      subscriptionId: form['subscription[id]']!,
      customerId: form['customer[id]']!,
      email: user.email,
      itemPriceId: 'growth-monthly-v1-2000',
      eventId: `ev_${crypto.randomBytes(8).toString('hex')}`,
    };
    chargebee.invoices.set(values.customerId, [
      {
        id: 'inv_journey_1',
        customer_id: values.customerId,
        status: 'paid',
        date: Math.floor(Date.now() / 1000),
        total: 4900,
        currency_code: 'USD',
      },
    ]);
    const hook = await fetch(`${base}/v1/hooks/billing/chargebee`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...chargebeeAuthHeader() },
      body: fixture('chargebee-subscription-created.json', values),
    });
    expect(hook.status).toBe(200);
    await page.goto('/billing?checkout=done');
    await page.getByRole('status').filter({ hasText: 'Thank you: your payment is on its way' }).waitFor();
    await page.getByRole('heading', { name: 'Growth', exact: true }).waitFor();
    await page.getByText('Active', { exact: true }).first().waitFor();
    await page.getByRole('table', { name: 'Invoices' }).getByText('$49.00').waitFor();
    await screenshot(page, 'billing-checkout-paid');
    await page.getByRole('button', { name: 'Dismiss' }).click();
    await page.getByText('Thank you: your payment is on its way').waitFor({ state: 'detached' });
    expect(new URL(page.url()).search).toBe('');
    // Back from a canceled checkout: nothing charged, the plan unchanged.
    await page.goto('/billing?checkout=canceled');
    await page
      .getByRole('status')
      .filter({ hasText: 'Checkout canceled' })
      .getByText('Nothing was charged and your plan is unchanged.')
      .waitFor();
    await context.close();
  });

  it('an owner who pays by PayPal is sent to the PayPal approval page of the subscription Herald created', async () => {
    const user = await owner();
    const { context, page } = await openPage();
    await logIn(page, user.email, user.password);
    const dialog = await openDialog(page);
    await dialog.getByRole('radio', { name: 'PayPal' }).evaluate((radio: HTMLInputElement) => radio.click());
    await dialog.getByRole('button', { name: 'Upgrade to this plan' }).click();
    await page.waitForURL(
      /^https:\/\/www\.sandbox\.paypal\.com\/webapps\/billing\/subscriptions\?ba_token=BA-/,
    );
    await page.getByRole('heading', { name: 'PayPal approval' }).waitFor();
    const created = paypal.requests.filter((r) => r.path === '/v1/billing/subscriptions').at(-1)!;
    expect(JSON.parse(created.body)).toMatchObject({
      custom_id: String(user.accountId),
      subscriber: { email_address: user.email },
    });
    await context.close();
  });
});
