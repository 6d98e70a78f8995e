import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility } from '../support/accessibility.ts';
import {
  api,
  baseUrl,
  createUser,
  launchBrowser,
  logIn,
  newPage,
  screenshot,
  uniqueEmail,
} from '../support/browser.ts';
import { until } from '../support/until.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

/** analytics.js (@segment/analytics-next) as published: its UMD build and the chunks it loads on demand. */
const bundleDir = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@segment/analytics-next/package.json')),
  'dist/umd',
);

/**
 * The customer's own site: one page that loads analytics.js from the site itself (`cdnURL`, so nothing comes from
 * Segment) with the Segment.io settings copied from Herald's account page, then sends a page view, an identify and
 * a track, as a product page would.
 */
async function customerSite(
  settings: { writeKey: string; apiHost: string; protocol: string },
  email: string,
) {
  const server = http.createServer((request, response) => {
    request.resume();
    const file = /^\/analytics-next\/bundles\/([\w.-]+\.js)$/.exec(request.url ?? '')?.[1];
    if (file && fs.existsSync(path.join(bundleDir, file))) {
      response.writeHead(200, { 'content-type': 'application/javascript' });
      response.end(fs.readFileSync(path.join(bundleDir, file)));
      return;
    }
    const load = {
      writeKey: settings.writeKey,
      cdnURL: `http://${request.headers.host}`,
      cdnSettings: { integrations: { 'Segment.io': { apiKey: settings.writeKey, ...settings } } },
    };
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pricing</title>
      <script src="/analytics-next/bundles/index.js"></script></head>
      <body><main><h1>Pricing</h1><p id="state">loading</p></main>
      <script>
        const analytics = AnalyticsNext.AnalyticsBrowser.load(${JSON.stringify(load)});
        (async () => {
          await analytics.page();
          await analytics.identify('browser-user-1', { email: ${JSON.stringify(email)}, name: 'Ada Lovelace' });
          await analytics.track('Plan Chosen', { plan: 'pro' });
          document.getElementById('state').textContent = 'sent';
        })().catch((error) => { document.getElementById('state').textContent = 'failed: ' + error; });
      </script></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('the Segment-compatible Tracking API from the browser', () => {
  it("a team copies analytics.js's settings from the account page; a site's visitor then appears in Herald", async () => {
    const user = await createUser();
    const { context, page } = await newPage(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl() });
    await logIn(page, user.email, user.password);
    const cookie = (await api('POST', '/v1/accounts/login', { email: user.email, password: user.password }))
      .cookie;

    await page.goto('/settings/account');
    await page.getByRole('heading', { name: 'Segment and RudderStack' }).waitFor();
    await page.getByRole('tab', { name: 'Browser (analytics.js)' }).click();
    await page.getByRole('button', { name: 'Copy the Browser (analytics.js) example' }).click();
    const snippet = await page.evaluate(() => navigator.clipboard.readText());
    await checkAccessibility(page);
    await screenshot(page, 'tracking-api-snippets');
    const setting = (name: string) => new RegExp(`${name}: '([^']+)'`).exec(snippet)?.[1];
    const settings = {
      writeKey: setting('writeKey')!,
      apiHost: setting('apiHost')!,
      protocol: setting('protocol')!,
    };
    expect(settings.apiHost).toBe(`${new URL(baseUrl()).host}/v1`);

    const email = uniqueEmail('browser');
    const site = await customerSite(settings, email);
    try {
      const visitor = await browser.newContext();
      const visit = await visitor.newPage();
      await visit.goto(site.url);
      await expect.poll(() => visit.locator('#state').textContent()).toBe('sent');
      await visitor.close();

      const person = await until(
        async () => {
          const res = await api(
            'GET',
            `/v1/people/search?query=${encodeURIComponent(email)}`,
            undefined,
            cookie,
          );
          return res.body.users[0];
        },
        { timeout: 10_000, interval: 200, message: 'the identified visitor' },
      );
      expect(person).toMatchObject({
        email,
        userId: 'browser-user-1',
        firstName: 'Ada',
        lastName: 'Lovelace',
      });
      // The person's segment entries (the "New" segment, say) come from the segments worker whenever its next look
      // runs, before or after this read: only what analytics.js sent is compared.
      const events = (
        await api('GET', `/v1/people/${person.id}/events`, undefined, cookie)
      ).body.events.filter((e: { type: string }) => e.type !== 'segment');
      // The page view sent before the identify (anonymous then) belongs to the person now.
      const shown = JSON.stringify(
        events.map((e: { type: string; name: string | null; data: unknown }) => e),
      );
      expect(
        events.map((e: { type: string; name: string | null }) => [e.type, e.name]),
        shown,
      ).toEqual([
        ['track', 'Plan Chosen'],
        ['identify', null],
        ['page', 'Page viewed'],
      ]);
      const pageView = events[2];
      expect(pageView.url).toBe(`${site.url}/`);
      expect(pageView.data.$segment.context.page).toMatchObject({ title: 'Pricing' });
      expect(pageView.data.$segment.context.userAgent).toContain('Chrome');
      expect(events[0].data).toMatchObject({ plan: 'pro' });
    } finally {
      await site.close();
      await context.close();
    }
  });
});
