import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility } from '../support/accessibility.ts';
import { api, launchBrowser, logIn, newPage, screenshot, sql, uniqueEmail } from '../support/browser.ts';
import { verifiedMarketer } from '../support/marketer.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

/** A marketer who sent one broadcast of "Spring sale" to three people, through the real send pipeline. */
async function marketerWithSentBroadcast() {
  const { cookie, sender, ...user } = await verifiedMarketer();
  const html =
    '<p>Spring is here: <a href="https://shop.example.com/sale">see the sale</a>.</p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>';
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
  const emailId = email.body.email.id as number;
  for (const name of ['Ada', 'Grace', 'Edsger']) {
    const person = await api(
      'POST',
      '/v1/people/?source=manual',
      { email: uniqueEmail(name.toLowerCase()), firstName: name },
      cookie,
    );
    expect(person.status).toBeLessThan(300);
  }
  const broadcast = await api('POST', '/v1/broadcasts', { name: 'Spring sale broadcast' }, cookie);
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
  return { ...user, cookie, emailId, broadcastId };
}

describe('metrics', () => {
  it('a marketer reads how a broadcast did: key numbers, the chart, figures by email and links; changes the period and filters; on a phone too', async () => {
    const user = await marketerWithSentBroadcast();
    // Two recipients open (one twice) and one clicks, recorded as the tracking endpoints record them.
    await sql(
      `insert into events (account_id, person_id, type, name, source, data)
       select e.account_id, e.person_id, 'email', v.name, 'email', jsonb_build_object('broadcastId', $2::bigint, 'emailId', $3::bigint, 'machine', false)
         || case when v.name = 'clicked' then jsonb_build_object('link', 'https://shop.example.com/sale') else '{}'::jsonb end
       from (select account_id, person_id, row_number() over (order by id) as n from events where account_id = $1 and type = 'email' and name = 'sent') e
       join (values (1, 'opened'), (1, 'opened'), (2, 'opened'), (1, 'clicked')) v(n, name) on v.n = e.n`,
      [user.accountId, user.broadcastId, user.emailId],
    );
    // Figures come from the rollups, which the worker brings up to date every two seconds.
    await expect
      .poll(
        async () =>
          (await api('GET', '/v1/emails/stats?period=thisWeek', undefined, user.cookie)).body.stats.totals
            .uniqueClicks,
        { timeout: 20_000 },
      )
      .toBe(1);

    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, '/metrics');
    await page.getByRole('heading', { name: 'Metrics', level: 1 }).waitFor();
    // Last 30 days includes today: today's send is in it (metrics-today.journey.ts looks closer).
    await page
      .getByRole('table', { name: 'Figures by email' })
      .getByRole('link', { name: 'Spring sale' })
      .waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'metrics-default');

    await page.getByRole('textbox', { name: 'Period' }).click();
    await page.getByRole('option', { name: 'This week' }).click();
    await page.waitForURL(/period=thisWeek/);
    const card = (label: string) =>
      page
        .locator('.mantine-Paper-root')
        .filter({ has: page.getByText(label, { exact: true }) })
        .first();
    await card('Sent').getByText('3', { exact: true }).waitFor();
    await card('Open rate').getByText('66.7%').waitFor();
    await card('Click rate').getByText('33.3%').waitFor();
    await card('Open rate').getByText('2 people opened (3 opens)').waitFor();
    await card('Click rate').getByText('1 person clicked (1 click)').waitFor();
    const byEmail = page.getByRole('table', { name: 'Figures by email' });
    await byEmail.getByRole('link', { name: 'Spring sale' }).waitFor();
    await page
      .getByRole('table', { name: 'Clicks by link' })
      .getByText('https://shop.example.com/sale')
      .waitFor();
    // The chart draws its areas, or only its dots when the week so far is one bucket (Monday's first hour: CI once).
    await page.locator('.recharts-area-area:visible, .recharts-area-dot:visible').first().waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'metrics-this-week');

    // Filter to the broadcast, then to an email it did not send: the page says there is nothing.
    await page.getByRole('textbox', { name: 'Broadcast' }).click();
    await page.getByRole('option', { name: 'Spring sale broadcast' }).click();
    await page.waitForURL(new RegExp(`broadcast=${user.broadcastId}`));
    await card('Sent').getByText('3', { exact: true }).waitFor();
    const other = await api(
      'POST',
      '/v1/emails',
      {
        name: 'Autumn news',
        subject: 'Autumn news',
        fromEmail: 'x@example.com',
        html: '<p>x</p>',
        editor: { type: 'html', state: null, html: '<p>x</p>' },
      },
      user.cookie,
    );
    expect(other.status).toBeLessThan(300);
    await page.goto(`/metrics?period=thisWeek&emails=${other.body.email.id}`);
    await page.getByRole('heading', { name: 'Nothing to report yet' }).waitFor();
    await checkAccessibility(page);

    // A phone: filters stack, cards in one column, the tables scroll sideways.
    const phone = await newPage(browser, { width: 390, height: 844 });
    await logIn(
      phone.page,
      user.email,
      user.password,
      `/metrics?period=thisWeek&broadcast=${user.broadcastId}`,
    );
    await phone.page
      .locator('.mantine-Paper-root')
      .filter({ has: phone.page.getByText('Sent', { exact: true }) })
      .first()
      .getByText('3', { exact: true })
      .waitFor();
    await checkAccessibility(phone.page);
    await screenshot(phone.page, 'metrics-phone');
    await phone.context.close();
  });
});
