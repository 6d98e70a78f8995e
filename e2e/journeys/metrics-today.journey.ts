import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility } from '../support/accessibility.ts';
import { api, launchBrowser, logIn, newPage, screenshot, sql, uniqueEmail } from '../support/browser.ts';
import { verifiedMarketer } from '../support/marketer.ts';

/**
 * Issue 51: the rolling periods include today (docs/tracking-and-metrics.md, Email metrics, "Periods"). A broadcast sent a
 * moment ago shows on /metrics, on the dashboard and on its own page with every period left as it opens.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

/** Users of the journeys live in Europe/Berlin (support/browser.ts). */
const timeZone = 'Europe/Berlin';

/** "Nov 6 – Dec 5, 2026" on Dec 5: the 30 local days up to and including today, as en-US writes a range of days. */
function last30DaysLine(now: number): string {
  const [year, month, day] = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  })
    .format(now)
    .split('-')
    .map(Number);
  const days = new Intl.DateTimeFormat('en-US', {
    timeZone: 'UTC',
    month: 'short',
    day: 'numeric',
    year: 'numeric',
  });
  return days
    .formatRange(
      new Date(Date.UTC(year!, month! - 1, day! - 29)),
      new Date(Date.UTC(year!, month! - 1, day!)),
    )
    .replace(/\s+/g, ' ');
}

/** A key-number card of the Metrics page, found by its label. */
const card = (page: Page, label: string) =>
  page
    .locator('.mantine-Paper-root')
    .filter({ has: page.getByText(label, { exact: true }) })
    .first();

describe('metrics of today', () => {
  it('a marketer sends a broadcast and finds its figures of today on Metrics, the dashboard and the broadcast, with the periods as they open', async () => {
    const user = await verifiedMarketer();
    const { cookie } = user;
    const html =
      '<p>Fresh today: <a href="https://shop.example.com/today">see what is new</a>.</p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>';
    const email = await api(
      'POST',
      '/v1/emails',
      {
        name: 'Fresh today',
        subject: 'Fresh today',
        fromEmail: user.sender,
        html,
        editor: { type: 'html', state: null, html },
      },
      cookie,
    );
    expect(email.status).toBeLessThan(300);
    const emailId = email.body.email.id as number;
    for (const name of ['Ada', 'Grace', 'Edsger']) {
      expect(
        (
          await api(
            'POST',
            '/v1/people/?source=manual',
            { email: uniqueEmail(name.toLowerCase()), firstName: name },
            cookie,
          )
        ).status,
      ).toBeLessThan(300);
    }
    const broadcast = await api('POST', '/v1/broadcasts', { name: 'Fresh today broadcast' }, cookie);
    const broadcastId = broadcast.body.item.id as number;
    expect(
      (await api('PATCH', `/v1/broadcasts/${broadcastId}`, { emailId, audience: { type: 'all' } }, cookie))
        .status,
    ).toBe(200);
    expect((await api('POST', `/v1/broadcasts/${broadcastId}/send`, {}, cookie)).status).toBeLessThan(300);
    await expect
      .poll(
        async () => (await api('GET', `/v1/broadcasts/${broadcastId}`, undefined, cookie)).body.item.status,
        { timeout: 30_000 },
      )
      .toBe('sent');
    // Two recipients open and one clicks, a moment after the send, as the tracking endpoints record them.
    await sql(
      `insert into events (account_id, person_id, type, name, source, data)
       select e.account_id, e.person_id, 'email', v.name, 'email', jsonb_build_object('broadcastId', $2::bigint, 'emailId', $3::bigint, 'machine', false)
         || case when v.name = 'clicked' then jsonb_build_object('link', 'https://shop.example.com/today') else '{}'::jsonb end
       from (select account_id, person_id, row_number() over (order by id) as n from events where account_id = $1 and type = 'email' and name = 'sent') e
       join (values (1, 'opened'), (2, 'opened'), (1, 'clicked')) v(n, name) on v.n = e.n`,
      [user.accountId, broadcastId, emailId],
    );
    // The default period (no `period` asked) already holds them once the worker's rollup has run.
    await expect
      .poll(
        async () => (await api('GET', '/v1/emails/stats', undefined, cookie)).body.stats.totals.uniqueClicks,
        { timeout: 20_000 },
      )
      .toBe(1);

    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password);

    // Metrics, as it opens: Last 30 days, ending today, with today's send in it.
    await page.goto('/metrics');
    await page.getByRole('heading', { name: 'Metrics', level: 1 }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Period' }).inputValue()).toBe('Last 30 days');
    await card(page, 'Sent').getByText('3', { exact: true }).waitFor();
    await card(page, 'Open rate').getByText('66.7%').waitFor();
    await card(page, 'Click rate').getByText('1 person clicked (1 click)').waitFor();
    await page
      .getByRole('table', { name: 'Figures by email' })
      .getByRole('link', { name: 'Fresh today' })
      .waitFor();
    await page
      .getByRole('table', { name: 'Clicks by link' })
      .getByText('https://shop.example.com/today')
      .waitFor();
    expect(await page.getByRole('heading', { name: 'Nothing to report yet' }).count()).toBe(0);
    const line = (await page.getByText(/· times in Europe\/Berlin$/).textContent())!.replace(/\s+/g, ' ');
    expect(line).toBe(`${last30DaysLine(Date.now())} · times in ${timeZone}`);
    await checkAccessibility(page);
    await screenshot(page, 'metrics-today');

    // Last 7 days, by hour, ends with the hour under way: the send is in it too.
    await page.getByRole('textbox', { name: 'Period' }).click();
    await page.getByRole('option', { name: 'Last 7 days' }).click();
    await page.waitForURL(/period=last7Days/);
    await card(page, 'Sent').getByText('3', { exact: true }).waitFor();
    await page.getByText('(by hour)').waitFor();
    await checkAccessibility(page);

    // The dashboard: the broadcast with today's sent count and rates.
    await page.goto('/dashboard');
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor({ timeout: 30_000 });
    const recent = page.getByRole('region', { name: 'Recent broadcasts' });
    await recent.getByRole('link', { name: 'Fresh today broadcast' }).waitFor();
    await recent.getByText('66.7%').waitFor();
    await recent.getByText('33.3%').waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'dashboard-today');

    // The broadcast's page: its results, then its figures on Metrics with the period as it opens.
    await recent.getByRole('link', { name: 'Fresh today broadcast' }).click();
    await page.waitForURL(`**/broadcasts/${broadcastId}`);
    await page.getByRole('heading', { name: 'Results' }).waitFor();
    const figures = page.getByLabel('Opens and clicks');
    await figures.getByText('66.7%').waitFor();
    await figures.getByText('33.3%').waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'broadcast-today');
    await page.getByRole('link', { name: 'Open in Metrics' }).click();
    await page.waitForURL(new RegExp(`/metrics\\?broadcast=${broadcastId}$`));
    await card(page, 'Sent').getByText('3', { exact: true }).waitFor();
    await card(page, 'Open rate').getByText('66.7%').waitFor();
    await checkAccessibility(page);
  });
});
