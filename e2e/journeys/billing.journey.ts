import { scopeIds } from '@herald/contracts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, launchBrowser, logIn, newPage, screenshot, sql } from '../support/browser.ts';

/** Plans, trial and limits (issue 21) on the shared e2e server: BILLING_MODE=plans, no payment provider. */

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

const groups = [
  'Monthly Growth',
  'Monthly Premium',
  'Annual Growth - 2 Months Free',
  'Annual Premium - 2 Months Free',
];

/** The dialog's plan picker: open it and read the group headings and options. */
async function readPicker(page: Page) {
  const dialog = page.getByRole('dialog', { name: 'Upgrade your plan' });
  await dialog.getByRole('textbox', { name: 'Plan' }).click();
  const listbox = page.getByRole('listbox');
  await listbox.waitFor();
  const options = await listbox.getByRole('option').allTextContents();
  const text = (await listbox.textContent()) ?? '';
  return { dialog, listbox, options, text };
}

describe('plan and billing', () => {
  it('an owner on a trial sees the days left, opens the upgrade dialog with the grouped plans, and reads how to pay', async () => {
    const user = await createUser();
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password);
    // The upgrade star: no paid plan yet.
    await page.getByRole('link', { name: 'Upgrade' }).click();
    await page.waitForURL(/\/billing$/);
    await page.getByRole('heading', { name: 'Plan and Billing', level: 1 }).waitFor();
    await page.getByText(/Free trial with every feature on: 14 days left/).waitFor();
    await page.getByText('There is no people limit until you choose a plan.').waitFor();
    await page.getByText('No invoices yet').waitFor();
    await screenshot(page, 'billing-trial');

    await page.getByRole('button', { name: 'Choose a plan' }).click();
    await page.waitForURL(/upgrade=1/);
    const { dialog, options, text } = await readPicker(page);
    for (const group of groups) expect(text).toContain(group);
    expect(options).toContain('0 - 2,000 People: $49 per month');
    expect(options).toContain('0 - 2,000 People: $59 per month');
    expect(options).toContain('2,001 - 5,000 People: $82.33 per month (billed yearly) - 2 Months Free!');
    expect(options).toContain('250,001 - 300,000 People: $1,599 per month');
    await screenshot(page, 'billing-upgrade-dialog-options');
    await page.getByRole('option', { name: '5,001 - 10,000 People: $199 per month' }).click();
    await dialog.getByText('Monthly Premium: $199 billed every month.').waitFor();
    await dialog.getByText('Online payment is not set up on this server').waitFor();
    await dialog.getByRole('link', { name: 'support@herald.test' }).waitFor();
    expect(
      await dialog.getByText(`npm run cli -- plan ${user.accountId} premium-monthly-v3 10000`).count(),
    ).toBe(1);
    // Without a provider nothing can be confirmed here.
    expect(await dialog.getByRole('button', { name: 'Upgrade to this plan' }).count()).toBe(0);
    await screenshot(page, 'billing-upgrade-dialog-how-to-pay');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL((url) => !url.search.includes('upgrade'));

    // The operator assigns the plan; the page shows it, people against the limit, and the star goes away.
    await sql(
      "update accounts set plan_name = 'growth-monthly-v1', plan_people_upper_limit = 2000, plan_period = 'month', plan_price = 49, plan_provider = 'operator', plan_set_at = now(), status = 'active' where id = $1",
      [user.accountId],
    );
    await sql(
      "insert into people (account_id, email) select $1, 'person' || g || '@example.com' from generate_series(1, 1850) g",
      [user.accountId],
    );
    await page.reload();
    await page.getByText('0 - 2,000 People: $49 per month').waitFor();
    await page.getByText('Your account is close to its people limit').waitFor();
    await page.getByRole('progressbar', { name: '1850 of 2000 people' }).waitFor();
    expect(await page.getByRole('link', { name: 'Upgrade' }).count()).toBe(0);
    await screenshot(page, 'billing-plan-warning');

    // The dialog offers only larger plans.
    await page.getByRole('button', { name: 'Upgrade plan' }).click();
    const larger = await readPicker(page);
    expect(larger.options).not.toContain('0 - 2,000 People: $49 per month');
    expect(larger.options[0]).toBe('2,001 - 5,000 People: $99 per month');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');

    // At 100% the billing sweep opens a people-limit issue; the modal says nothing is paused and links to the plans.
    await sql(
      "insert into people (account_id, email) select $1, 'more' || g || '@example.com' from generate_series(1, 150) g",
      [user.accountId],
    );
    await sql(
      "insert into account_issues (account_id, kind, message) values ($1, 'people-limit', 'Your account has 2,000 people and your plan includes 2,000. Nothing has stopped and nothing is deleted.')",
      [user.accountId],
    );
    await page.goto('/dashboard');
    await page.getByText('your account has reached its plan').waitFor();
    await page.getByRole('button', { name: 'Account issues' }).click();
    const issues = page.getByRole('dialog', { name: 'Pending Account Issues' });
    await issues.getByText('Nothing has stopped and nothing is deleted.').waitFor();
    expect(await issues.getByText('Email sending from your account is paused').count()).toBe(0);
    await screenshot(page, 'billing-people-limit-issue');
    await issues.getByRole('link', { name: 'See larger plans' }).click();
    await page.getByRole('dialog', { name: 'Upgrade your plan' }).waitFor();
  });

  it('narrow screens: the billing page stacks its cards', async () => {
    const user = await createUser();
    const { page } = await newPage(browser, { width: 390, height: 844 });
    await logIn(page, user.email, user.password, '/settings/billing');
    await page.getByText(/Free trial with every feature on/).waitFor();
    await screenshot(page, 'billing-narrow');
    await page.getByRole('button', { name: 'Choose a plan' }).click();
    await page
      .getByRole('dialog', { name: 'Upgrade your plan' })
      .getByText('Online payment is not set up on this server')
      .waitFor();
    await screenshot(page, 'billing-narrow-dialog');
  });

  it("an expired trial shows 'Oh no! Your trial has expired' and 'Choose a plan' opens the dialog", async () => {
    const user = await createUser();
    await sql("update accounts set trial_ends_at = now() - interval '1 day' where id = $1", [user.accountId]);
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password);
    await page.getByText('Oh no! Your trial has expired').waitFor();
    await page.getByRole('button', { name: 'Choose a plan' }).click();
    const { options, text } = await readPicker(page);
    for (const group of groups) expect(text).toContain(group);
    expect(options).toContain('0 - 2,000 People: $49 per month');
    await page.keyboard.press('Escape');
    await page
      .getByRole('dialog', { name: 'Upgrade your plan' })
      .getByText('Online payment is not set up on this server')
      .waitFor();
    await screenshot(page, 'billing-expired-choose-plan');
  });

  it('a teammate without billing:read is told so', async () => {
    const user = await createUser();
    const noScopes = JSON.stringify(scopeIds.map((id) => ({ id, enabled: id === 'people:read' })));
    await sql('update team_members set is_owner = false, scopes = $2::jsonb where account_id = $1', [
      user.accountId,
      noScopes,
    ]);
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, '/billing');
    await page.getByText("You can't see the plan and billing").waitFor();
    await screenshot(page, 'billing-no-permission');
  });
});
