import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { watchAccessibility } from '../support/accessibility.ts';
import { launchBrowser, screenshot, sql, uniqueEmail, visitorAddress } from '../support/browser.ts';
import { e2eSessionSecret } from '../support/global-setup.ts';

/**
 * BILLING_MODE=off, the self-hosting default: an API process of its own on the journeys' database (the shared server
 * runs with plans on), so the same kind of account is seen with billing off.
 */

const root = path.resolve(import.meta.dirname, '../..');
let browser: Browser;
let server: ChildProcess;
let base: string;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://localhost:${port}`;
  const output: string[] = [];
  server = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts', '--role=api'], {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'development', DATABASE_URL: inject('databaseUrl'), PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, LOG_LEVEL: 'warn', SMTP_URL: '', TRUST_PROXY: 'true', SESSION_SECRET: e2eSessionSecret, BILLING_MODE: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (d: Buffer) => output.push(d.toString()));
  server.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`the billing-off server stopped while starting:\n${output.join('')}`);
    if (await fetch(`${base}/v1/heartbeat`).then((r) => r.ok, () => false)) break;
    if (Date.now() > deadline) throw new Error(`the billing-off server did not start within 60 s:\n${output.join('')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
});

async function call(method: string, url: string, body?: unknown, cookie?: string) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { 'content-type': 'application/json', origin: base, 'x-forwarded-for': visitorAddress(), ...(cookie ? { cookie } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, cookie: res.headers.get('set-cookie')?.split(';')[0] ?? cookie };
}

async function openPage(): Promise<Page> {
  const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 }, extraHTTPHeaders: { 'x-forwarded-for': visitorAddress() } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await watchAccessibility(context, page);
  return page;
}

describe('billing off (self-hosting)', () => {
  it('no star, no expiry: /billing says every account is unlimited, and Plan and Billing still leads there', async () => {
    const email = uniqueEmail('selfhost');
    const password = 'journey password 1';
    const created = await call('POST', '/v1/accounts/', { email, source: 'journey', timezone: 'Europe/Berlin' });
    expect(created.status).toBe(201);
    expect(created.body.payment).toBeNull();
    const profile = { name: 'Self Hoster', phone: '+49 30 000000', site: 'selfhost.example.com', industry: 'Agency', estimatedContacts: '0 - 500', goals: 'Run my own', flags: { hasFilledGoals: true } };
    await call('PATCH', '/v1/accounts/me', profile, created.cookie);
    await call('POST', '/v1/accounts/initial-password', { password }, created.cookie);
    // Long past the 14 days: still nothing blocks.
    await sql("update accounts set trial_ends_at = now() - interval '60 days' where id = $1", [created.body.accountId]);

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
    await page.getByText('Every account here is unlimited: no trial end, no people limit and nothing to pay.').waitFor();
    await screenshot(page, 'billing-off');
  });
});
