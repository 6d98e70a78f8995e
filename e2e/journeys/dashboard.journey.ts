import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  createUser,
  launchBrowser,
  logIn,
  newPage,
  screenshot,
  sql,
  uniqueEmail,
} from '../support/browser.ts';
import { verifiedMarketer } from '../support/marketer.ts';
import { until } from '../support/until.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

/** The number a key-number card shows. */
async function cardValue(page: Page, label: string): Promise<string> {
  const card = page
    .locator('.mantine-Paper-root')
    .filter({ has: page.getByText(label, { exact: true }) })
    .first();
  return (await card.locator('p').nth(1).textContent()) ?? '';
}

async function waitForDashboard(page: Page) {
  await page.goto('/dashboard');
  // The first visit loads the page's code: on a busy machine that can take longer than a click.
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor({ timeout: 30_000 });
  await page
    .getByRole('status', { name: 'Loading the dashboard' })
    .waitFor({ state: 'detached', timeout: 30_000 });
}

describe('dashboard and quick start', () => {
  it('a new marketer sees the empty dashboard, adds a person, completes a Quick Start stage and sees progress and numbers move', async () => {
    const owner = await createUser();
    const { page } = await newPage(browser);
    await logIn(page, owner.email, owner.password);

    // A brand-new account: friendly first steps, zeros, nothing sent, flows not set up, 20% getting started.
    await waitForDashboard(page);
    await page.getByRole('heading', { name: /Welcome to Herald/ }).waitFor();
    expect(await cardValue(page, 'People')).toBe('0');
    await page.getByText('Nobody new in the last 30 days').waitFor();
    await page.getByText('No broadcasts sent yet').waitFor();
    await page.getByText('No flows are set up yet.', { exact: false }).waitFor();
    await page.getByRole('progressbar', { name: 'Getting started: 20% done' }).waitFor();
    await page.getByRole('link', { name: 'Next: Import People' }).first().waitFor();
    await screenshot(page, 'dashboard-empty');

    // Add a person by hand on the People page.
    await page.goto('/people');
    await page.getByRole('button', { name: 'Add person' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: 'Email' }).fill(uniqueEmail('first'));
    await dialog.getByRole('textbox', { name: 'First name' }).fill('Ada');
    await dialog.getByRole('button', { name: 'Add person' }).click();
    await page.getByText('Person added.').first().waitFor();

    // Back on the dashboard: one person, arrived today; the welcome card is gone.
    await waitForDashboard(page);
    await page.getByRole('group', { name: /^New people per day: 1 from/ }).waitFor();
    expect(await cardValue(page, 'People')).toBe('1');
    expect(await cardValue(page, 'New in the last 30 days')).toBe('1');
    expect(await page.getByRole('heading', { name: /Welcome to Herald/ }).count()).toBe(0);

    // The getting-started card leads to the Quick Start's import stage; marking it done moves on to the next stage.
    await page.getByRole('main').getByRole('link', { name: 'Next: Import People' }).click();
    await page.waitForURL('**/start/import');
    await page.getByText('Your account holds 1 person.').waitFor();
    await page.getByRole('button', { name: 'Mark as done' }).click();
    await page.waitForURL('**/start/apps');
    await page.getByRole('progressbar', { name: 'Getting started: 40% done' }).waitFor();
    await page.getByRole('heading', { name: 'Connect your apps' }).waitFor();
    await screenshot(page, 'start-apps');

    // The dashboard and the top bar both show the next step.
    await page.getByRole('link', { name: 'Go to dashboard' }).click();
    await page.waitForURL('**/dashboard');
    await page.getByRole('progressbar', { name: 'Getting started: 40% done' }).waitFor();
    await page.getByRole('main').getByRole('link', { name: 'Next: Connect Apps' }).waitFor();
    await page.getByRole('link', { name: 'Getting started 40%. Next: Connect Apps' }).waitFor();
    await screenshot(page, 'dashboard-progress');

    // Saved on the account: a reload keeps it.
    const account = await page.evaluate(async () => (await fetch('/v1/accounts')).json());
    expect(account.onboarding).toEqual({ import: true });

    // Opening the developer docs from the help stage is the help action: saved without a click on "Mark as done"
    // (exact: the name "Done" alone also matches "Mark as done", there before the save has answered).
    await page.goto('/start/help');
    const [docs] = await Promise.all([
      page.waitForEvent('popup'),
      page.getByRole('link', { name: 'Read the developer docs' }).click(),
    ]);
    await docs.close();
    await page.getByRole('button', { name: 'Done', exact: true }).waitFor();
    const helped = await page.evaluate(async () => (await fetch('/v1/accounts')).json());
    expect(helped.onboarding).toEqual({ import: true, help: true });

    // Narrow screen: the same page in one column.
    const phone = await newPage(browser, { width: 390, height: 844 });
    await logIn(phone.page, owner.email, owner.password);
    await waitForDashboard(phone.page);
    await phone.page.getByRole('heading', { name: 'Getting started' }).waitFor();
    await screenshot(phone.page, 'dashboard-phone');
    await phone.context.close();
  });

  it('a marketer who sent a broadcast sees its sent count and open and click rates, and opens it from the dashboard', async () => {
    const marketer = await verifiedMarketer();
    const { cookie } = marketer;
    const people: number[] = [];
    for (const name of ['Ada', 'Grace', 'Katherine', 'Dorothy']) {
      const created = await api(
        'POST',
        '/v1/people/?source=manual',
        { email: uniqueEmail(name.toLowerCase()), firstName: name },
        cookie,
      );
      expect(created.status).toBe(201);
      people.push(created.body.user.id as number);
    }
    const email = await api(
      'POST',
      '/v1/emails',
      {
        name: 'Launch',
        subject: 'We launched',
        fromName: 'Herald',
        fromEmail: marketer.sender,
        html: '<p>Hello</p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>',
      },
      cookie,
    );
    expect(email.status).toBe(201);
    const created = await api(
      'POST',
      '/v1/broadcasts',
      { name: 'Launch news', emailId: email.body.email.id },
      cookie,
    );
    const id = created.body.item.id as number;
    expect((await api('POST', `/v1/broadcasts/${id}/send`, {}, cookie)).status).toBe(200);
    await until(
      async () => (await api('GET', `/v1/broadcasts/${id}`, undefined, cookie)).body.item.status === 'sent',
      { timeout: 30_000, interval: 300, message: 'the broadcast sent' },
    );
    // Two of the four opened and one clicked, recorded as email events as the tracking endpoints record them.
    for (const [personId, name] of [
      [people[0], 'opened'],
      [people[1], 'opened'],
      [people[1], 'clicked'],
    ] as const) {
      await sql(
        `insert into events (account_id, person_id, type, name, data, source) values ($1, $2, 'email', $3, $4, 'tracking')`,
        [marketer.accountId, personId, name, JSON.stringify({ broadcastId: id })],
      );
    }

    // The rates come from the email-metrics rollups, which the worker brings up to date within seconds.
    await until(
      async () =>
        (
          (await api('GET', '/v1/dashboard', undefined, cookie)).body.broadcasts.recent as {
            clicks: number;
          }[]
        )[0]?.clicks === 1,
      {
        timeout: 30_000,
        interval: 300,
        message: 'the click in the rollups',
      },
    );

    const { page } = await newPage(browser);
    await logIn(page, marketer.email, marketer.password);
    await waitForDashboard(page);
    const section = page.getByRole('region', { name: 'Recent broadcasts' });
    await section.getByRole('link', { name: 'Launch news' }).waitFor();
    await section.getByText('50.0%').waitFor();
    await section.getByText('25.0%').waitFor();
    expect(await cardValue(page, 'People')).toBe('4');
    await screenshot(page, 'dashboard-broadcasts');
    await section.getByRole('link', { name: 'Launch news' }).click();
    await page.waitForURL(`**/broadcasts/${id}`);
    await page.getByRole('heading', { name: 'Launch news' }).waitFor();
  });
});
