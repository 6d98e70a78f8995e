import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { chromium, type Browser, type BrowserContext, type FrameLocator, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { watchAccessibility } from './accessibility.ts';

export const baseUrl = () => inject('baseUrl');

/**
 * The text of a frame's document (a rendered email), whatever its layout: Chromium need not lay out a frame out of
 * view, and text it has not laid out counts as hidden, so waiting for the text to be visible can time out on a busy
 * machine. Poll it: `await expect.poll(() => documentText(frame)).toContain(...)`.
 */
export function documentText(frame: FrameLocator): Promise<string | null> {
  return frame.locator('body').textContent();
}

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const shotsDir = path.resolve(import.meta.dirname, '../artifacts');

/** Debian's Chromium, headless, with the flags a closed network needs. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/** A page in a context of its own; every state it reaches is checked with axe (see accessibility.ts). */
export async function newPage(
  browser: Browser,
  viewport = { width: 1280, height: 800 },
): Promise<{ context: BrowserContext; page: Page }> {
  // Each page is a visitor of its own (the e2e server trusts X-Forwarded-For), so the whole suite's sign-ins stay
  // under the per-address limits, which the server tests check on their own.
  const context = await browser.newContext({
    baseURL: baseUrl(),
    viewport,
    timezoneId: 'Europe/Berlin',
    // The app then opens dialogs and drawers without a transition (docs/web-app.md, "Accessibility").
    reducedMotion: 'reduce',
    extraHTTPHeaders: { 'x-forwarded-for': visitorAddress() },
  });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  openPages.add(page);
  page.on('close', () => openPages.delete(page));
  await watchAccessibility(context, page);
  return { context, page };
}

const openPages = new Set<Page>();

/** What each open page shows (address, alerts, the start of its text), printed when a journey fails. */
export async function describeOpenPages(): Promise<string> {
  const parts: string[] = [];
  for (const page of openPages) {
    const text = await page
      .evaluate(() => {
        const alerts = Array.from(document.querySelectorAll('[role="alert"], [role="status"]'))
          .map((node) => (node as HTMLElement).innerText.trim())
          .filter(Boolean);
        return `alerts: ${JSON.stringify(alerts)}\ntext: ${document.body.innerText.replace(/\s+/g, ' ').slice(0, 600)}`;
      })
      .catch((error: unknown) => `(page not readable: ${String(error)})`);
    parts.push(`page ${page.url()}\n${text}`);
  }
  return parts.join('\n');
}

/**
 * Keep a screenshot of the page for people to look at (e2e/artifacts, not committed). `E2E_SCREENSHOTS=0` skips
 * them (CI does: nobody looks at its copies, and the 180 full-page captures took about 3% of the journeys' time).
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.E2E_SCREENSHOTS === '0') return;
  fs.mkdirSync(shotsDir, { recursive: true });
  await page.screenshot({ path: path.join(shotsDir, `${name}.png`), fullPage: true });
}

export function uniqueEmail(prefix = 'journey'): string {
  return `${prefix}-${crypto.randomBytes(5).toString('hex')}@example.com`;
}

/** A made-up client address (10.x.y.z) for X-Forwarded-For. */
export function visitorAddress(): string {
  const part = () => 1 + Math.floor(Math.random() * 250);
  return `10.${part()}.${part()}.${part()}`;
}

/** Call the API as a same-origin browser would, from an address of its own; returns the response and its session cookie. */
export async function api(
  method: string,
  url: string,
  body?: unknown,
  cookie?: string,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${baseUrl()}${url}`, {
    method,
    headers: {
      'content-type': 'application/json',
      origin: baseUrl(),
      'x-forwarded-for': visitorAddress(),
      ...(cookie ? { cookie } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const setCookie = res.headers.get('set-cookie');
  const session = setCookie?.split(';')[0];
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, cookie: session ?? cookie };
}

/** A fully registered user made through the API, for journeys that start after sign-up. */
export async function createUser(password = 'journey password 1') {
  const email = uniqueEmail();
  const created = await api('POST', '/v1/accounts/', { email, source: 'journey', timezone: 'Europe/Berlin' });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  const cookie = created.cookie;
  await api(
    'PATCH',
    '/v1/accounts/me',
    {
      name: 'Journey Tester',
      phone: '+49 30 000000',
      site: 'journey.example.com',
      industry: 'Agency',
      estimatedContacts: '0 - 500',
      goals: 'Test the product',
      flags: { hasFilledGoals: true },
    },
    cookie,
  );
  await api('POST', '/v1/accounts/initial-password', { password }, cookie);
  return { email, password, accountId: created.body.accountId as number };
}

/** Run SQL on the journeys' database (to move a trial's end into the past, say). */
export async function sql(text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

/**
 * Sign the page's visitor in and open the app at `to` (by default where a fresh sign-in lands). The sign-in is the
 * login page's own call (`POST /v1/accounts/login/`) from the page's context, so the session cookie is the page's:
 * typing into the login page is the subject of the registration, password-reset and navigation journeys, and costs
 * every other journey a page load and an accessibility check of a state those already check.
 */
export async function logIn(page: Page, email: string, password: string, to?: string): Promise<void> {
  // The page's own server (a journey may run one of its own, support/extra-server.ts), for the Origin header the
  // server's cross-site check reads.
  const origin = new URL((await page.request.get('/v1/heartbeat')).url()).origin;
  const signedIn = await page.request.post('/v1/accounts/login/', {
    data: { email, password },
    headers: { origin },
  });
  if (!signedIn.ok())
    throw new Error(`Sign-in of ${email} failed: ${signedIn.status()} ${await signedIn.text()}`);
  await page.goto(to ?? '/');
}

/**
 * Log out through the profile menu on the dashboard, as a user does. The menu arrives right after the top bar's first
 * paint (apps/web/src/app/shell/deferred.tsx); a click in that moment opens it once it is there.
 */
export async function logOutThroughMenu(page: Page): Promise<void> {
  await page.goto('/dashboard');
  await page.getByRole('button', { name: 'Profile menu' }).click();
  await page.getByRole('menuitem', { name: 'Log out' }).click();
  await page.waitForURL(/\/login/);
}
