import { flowMessages, recipeMessages } from '@herald/contracts';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility } from '../support/accessibility.ts';
import { verifiedMarketer } from '../support/marketer.ts';
import { api, launchBrowser, logIn, newPage, screenshot } from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

const node = (page: Page, text: string): Locator =>
  page.locator('.react-flow__node').filter({ hasText: text });

describe('flow recipes', () => {
  it('a marketer starts a welcome series from a recipe: the flow opens with its steps and emails, and switches on', async () => {
    const user = await verifiedMarketer();
    // The recipe's emails go out from the account's default sender.
    expect(
      (
        await api(
          'PATCH',
          '/v1/accounts/me',
          { defaultFromEmail: user.sender, defaultFromName: 'Journey News' },
          user.cookie,
        )
      ).status,
    ).toBe(200);
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, '/flows');
    await page.getByRole('heading', { name: 'No flows yet' }).waitFor();

    // The empty list offers the recipes; the create modal opens on the gallery.
    await page.getByRole('button', { name: 'Start from a recipe' }).click();
    await page.waitForURL(/create-flow=recipes/);
    const modal = page.getByRole('dialog', { name: 'New flow' });
    await modal.getByRole('tab', { name: 'Start from a recipe', selected: true }).waitFor();
    // At least eight recipes (the eighth card shown, within the page's own time limit: the app loads cold here).
    await modal.getByTestId('recipe-card').nth(7).waitFor();
    const welcome = modal
      .getByTestId('recipe-card')
      .filter({ has: page.getByRole('heading', { name: 'Welcome series' }) });
    await welcome.getByText('6 steps').waitFor();
    await welcome.getByText('3 emails').waitFor();
    await modal
      .getByTestId('recipe-card')
      .filter({ has: page.getByRole('heading', { name: 'Webinar reminders' }) })
      .getByText(/Before switching it on/)
      .waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'flow-recipes-gallery');

    // "Start from scratch" is the other tab, with the name field.
    await modal.getByRole('tab', { name: 'Start from scratch' }).click();
    await modal.getByRole('textbox', { name: 'Name' }).waitFor();
    await modal.getByRole('tab', { name: 'Start from a recipe' }).click();

    await modal.getByRole('button', { name: 'Use this recipe: Welcome series' }).click();
    await page.waitForURL(/\/flows\/\d+$/);
    await page.getByText(recipeMessages.created('Welcome series')).waitFor();
    const flowId = Number(new URL(page.url()).pathname.split('/').pop());
    await page.getByRole('heading', { name: 'Welcome series', level: 1 }).waitFor();
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(6);
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(5);
    await node(page, 'Welcome series: 1. Hello').waitFor();
    await node(page, 'Enters New').waitFor();
    await node(page, 'Wait 2 days').waitFor();
    await expect.poll(() => page.getByTestId('flow-warnings').count()).toBe(0);
    await checkAccessibility(page);
    await screenshot(page, 'flow-from-recipe');

    // It is ready to run: the switch turns it on.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.getByRole('switch', { name: 'Active' }).click();
    await page.getByText(flowMessages.activated).waitFor();
    const saved = await api('GET', `/v1/integrations/${flowId}`, undefined, user.cookie);
    expect(saved.body.integration).toMatchObject({ status: 'active', recipe: 'welcome-series' });

    // Its emails are drafts in Emails, named after the recipe.
    await page.goto('/emails');
    for (const name of [
      'Welcome series: 1. Hello',
      'Welcome series: 2. The first step',
      'Welcome series: 3. What to try next',
    ])
      await page.getByText(name).first().waitFor();
    await screenshot(page, 'flow-recipe-emails');
  });

  it('shows the gallery on a phone screen', async () => {
    const user = await verifiedMarketer();
    const { page } = await newPage(browser, { width: 375, height: 740 });
    await logIn(page, user.email, user.password, '/flows?create-flow=recipes');
    const modal = page.getByRole('dialog', { name: 'New flow' });
    // At least eight recipes (the eighth card shown, within the page's own time limit: the app loads cold here).
    await modal.getByTestId('recipe-card').nth(7).waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'flow-recipes-gallery-narrow');
    await modal.getByRole('button', { name: 'Use this recipe: Birthday' }).click();
    await page.waitForURL(/\/flows\/\d+$/);
    await page.getByRole('heading', { name: 'Birthday', level: 1 }).waitFor();
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(2);
  });
});
