import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { watchAccessibility } from '../support/accessibility.ts';
import { launchBrowser, screenshot, sql, uniqueEmail, visitorAddress } from '../support/browser.ts';
import { startExtraServer, type ExtraServer } from '../support/extra-server.ts';

/**
 * BILLING_MODE=off, the self-hosting default: an API process of its own on the journeys' database (the shared server
 * runs with plans on), so the same kind of account is seen with billing off.
 */

let browser: Browser;
let server: ExtraServer | undefined;
let base: string;

beforeAll(async () => {
  server = await startExtraServer({
    name: 'billing-off',
    databaseUrl: inject('databaseUrl'),
    role: 'api',
    env: { BILLING_MODE: 'off' },
  });
  base = server.base;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

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

async function openPage(): Promise<Page> {
  const context = await browser.newContext({
    baseURL: base,
    viewport: { width: 1280, height: 800 },
    extraHTTPHeaders: { 'x-forwarded-for': visitorAddress() },
  });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await watchAccessibility(context, page);
  return page;
}

describe('billing off (self-hosting)', () => {
  it('no star, no expiry: /billing says every account is unlimited, and Plan and Billing still leads there', async () => {
    const email = uniqueEmail('selfhost');
    const password = 'journey password 1';
    const created = await call('POST', '/v1/accounts/', {
      email,
      source: 'journey',
      timezone: 'Europe/Berlin',
    });
    expect(created.status).toBe(201);
    expect(created.body.payment).toBeNull();
    const profile = {
      name: 'Self Hoster',
      phone: '+49 30 000000',
      site: 'selfhost.example.com',
      industry: 'Agency',
      estimatedContacts: '0 - 500',
      goals: 'Run my own',
      flags: { hasFilledGoals: true },
    };
    await call('PATCH', '/v1/accounts/me', profile, created.cookie);
    await call('POST', '/v1/accounts/initial-password', { password }, created.cookie);
    // Long past the 14 days: still nothing blocks.
    await sql("update accounts set trial_ends_at = now() - interval '60 days' where id = $1", [
      created.body.accountId,
    ]);

    const page = await openPage();
    await page.goto('/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    await page.goto('/dashboard');
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(await page.getByText('Oh no! Your trial has expired').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Upgrade' }).count()).toBe(0);

    await page.getByRole('button', { name: /Profile menu/ }).click();
    await page.getByRole('menuitem', { name: 'Plan and Billing' }).click();
    await page.waitForURL(/\/billing$/);
    await page.getByText('Billing is off on this server').waitFor();
    await page
      .getByText('Every account here is unlimited: no trial end, no people limit and nothing to pay.')
      .waitFor();
    await screenshot(page, 'billing-off');
  });
});
