import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { checkAccessibility, watchAccessibility } from '../support/accessibility.ts';
import { verifiedMarketer } from '../support/marketer.ts';
import { until } from '../support/until.ts';
import {
  api,
  baseUrl,
  documentText,
  launchBrowser,
  logIn,
  newPage,
  screenshot,
  uniqueEmail,
  visitorAddress,
} from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

const shop = 'https://shop.example/spring-sale';
const readerAgent =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';

describe('email tracking', () => {
  it('a reader opens a broadcast in the mailbox (its pixel loads) and follows its link to the shop; the person page shows the open and the click; a changed link gets a page of its own', async () => {
    const { cookie, sender, ...user } = await verifiedMarketer();
    const html = `<p>Hi {{ person.firstName | default: "there" }}, the spring sale starts today.</p><p><a href="${shop}">See the spring sale</a></p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>`;
    const email = await api(
      'POST',
      '/v1/emails',
      {
        name: 'Spring sale',
        subject: 'Spring sale',
        fromEmail: sender,
        html,
        editor: { type: 'html', state: null, html },
      },
      cookie,
    );
    expect(email.status).toBeLessThan(300);
    const reader = uniqueEmail('reader');
    const person = await api(
      'POST',
      '/v1/people/?source=manual',
      { email: reader, firstName: 'Ada' },
      cookie,
    );
    expect(person.status).toBe(201);
    const personId = person.body.user.id as number;
    const broadcast = await api(
      'POST',
      '/v1/broadcasts',
      { name: 'Spring sale', emailId: email.body.email.id, audience: { type: 'all' } },
      cookie,
    );
    expect(broadcast.status).toBe(201);

    // The marketer sends it from its page.
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, `/broadcasts/${broadcast.body.item.id}`);
    await expect.poll(async () => page.getByTestId('recipient-count').textContent()).toBe('1 recipient');
    await page.getByRole('button', { name: 'Send now' }).last().click();
    await page
      .getByRole('dialog', { name: 'Send “Spring sale” now?' })
      .getByRole('button', { name: 'Send now' })
      .click();
    await page.getByRole('heading', { name: 'Results' }).waitFor({ timeout: 30_000 });

    // The reader opens the message: its HTML loads the open pixel, like a mail client showing images.
    // A reader's browser. Headless Chromium says so in its user agent (tracking takes that for a link scanner), and a
    // sandboxed frame's requests ignore a context's user agent: the reader's Chromium is started with its own.
    const readerBrowser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
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
        `--user-agent=${readerAgent}`,
      ],
    });
    onTestFinished(() => readerBrowser.close());
    const readerContext = await readerBrowser.newContext({
      baseURL: baseUrl(),
      userAgent: readerAgent,
      viewport: { width: 1280, height: 800 },
      timezoneId: 'Europe/Berlin',
      extraHTTPHeaders: { 'x-forwarded-for': visitorAddress() },
    });
    const inbox = await readerContext.newPage();
    inbox.setDefaultTimeout(15_000);
    await watchAccessibility(readerContext, inbox);
    // The shop is another company's site: the browser gets its page from here instead of the network.
    await inbox.route('https://shop.example/**', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: '<!doctype html><html lang="en"><title>Spring sale</title><h1>Spring sale</h1></html>',
      }),
    );
    await inbox.goto('/dev/mailbox');
    await inbox.getByText(`To ${reader}`).first().click({ timeout: 20_000 });
    const message = inbox.frameLocator('iframe[title="HTML part of the message"]');
    await expect.poll(() => documentText(message)).toContain('Hi Ada, the spring sale starts today.');
    const pixelUrl = (await message.locator('img[width="1"][height="1"]').getAttribute('src'))!;
    expect(pixelUrl).toMatch(/\/t\/o\/b\./);
    // The browser fetched it for the frame (Playwright does not report a sandboxed frame's requests): the open is recorded.
    const emailEvents = async () =>
      (
        (await api('GET', `/v1/people/${personId}/events`, undefined, cookie)).body.events as {
          type: string;
          name: string;
          data: Record<string, unknown>;
        }[]
      ).filter((e) => e.type === 'email' && e.name !== 'sent');
    await expect
      .poll(async () => (await emailEvents()).map((e) => [e.name, e.data.userAgent, e.data.machine]), {
        timeout: 10_000,
        interval: 500,
      })
      .toEqual([['opened', 'desktop', false]]);
    // The same URL answers a GIF that no cache keeps.
    const pixel = await inbox.request.get(pixelUrl);
    expect([pixel.status(), pixel.headers()['content-type'], pixel.headers()['cache-control']]).toEqual([
      200,
      'image/gif',
      'no-store, max-age=0',
    ]);
    await checkAccessibility(inbox);
    await screenshot(inbox, 'tracking-mailbox');

    // Every link of the message goes through the click redirect, except the unsubscribe link.
    const tracked = inbox.getByRole('link', { name: /\/t\/c\// });
    expect(await tracked.count()).toBe(1);
    const clickUrl = (await tracked.getAttribute('href'))!;
    expect(clickUrl).toContain('/t/c/');
    expect(await inbox.getByRole('link', { name: /\/public\/unsubscribe\?token=/ }).count()).toBe(1);
    await tracked.click();
    await inbox.waitForURL((url) => url.href.startsWith(shop));
    await inbox.getByRole('heading', { name: 'Spring sale' }).waitFor();

    // The person page shows the two opens (the mail view and the direct fetch) and the click once they are written.
    await page.goto(`/people/${personId}`);
    const activity = page
      .locator('.mantine-Card-root')
      .filter({ has: page.getByRole('heading', { name: 'Activity' }) });
    await expect
      .poll(
        async () => {
          await page.reload();
          await activity
            .getByText('clicked', { exact: true })
            .or(activity.getByText('No activity yet.', { exact: false }))
            .first()
            .waitFor({ timeout: 10_000 });
          return [
            await activity.getByText('opened', { exact: true }).count(),
            await activity.getByText('clicked', { exact: true }).count(),
          ];
        },
        { timeout: 20_000, interval: 1000 },
      )
      .toEqual([2, 1]);
    await checkAccessibility(page);
    await screenshot(page, 'tracking-person-timeline');

    // A click link changed by hand goes nowhere but Herald's own page, and nothing more is recorded.
    const tampered = clickUrl.replace(/u=[^&]+/, `u=${encodeURIComponent('https://evil.example/')}`);
    const stray = (await newPage(browser, { width: 390, height: 844 })).page;
    const answer = await stray.goto(tampered);
    expect(answer?.status()).toBe(404);
    expect(stray.url()).toBe(tampered);
    await stray.getByRole('heading', { name: 'This link is not available' }).waitFor();
    await checkAccessibility(stray);
    await screenshot(stray, 'tracking-link-not-available-phone');
    // A sentinel after it: the pixel once more. Hits are written in the order they came, a second at a time (the
    // server's hit buffer), so once this open is recorded, a hit of the tampered link would have been too.
    expect((await inbox.request.get(pixelUrl)).status()).toBe(200);
    const recorded = await until(
      async () => {
        const events = await emailEvents();
        return events.filter((e) => e.name === 'opened').length === 3 && events;
      },
      { timeout: 10_000, interval: 200, message: 'the third open recorded' },
    );
    expect(recorded.map((e) => e.name).sort()).toEqual(['clicked', 'opened', 'opened', 'opened']);
    expect(recorded.find((e) => e.name === 'clicked')!.data).toMatchObject({
      link: shop,
      emailId: email.body.email.id,
      broadcastId: broadcast.body.item.id,
      machine: false,
    });
  }, 150_000);
});
