import { flowMessages, flowVersionMessages } from '@herald/contracts';
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
const encode = (config: Record<string, unknown>): unknown => ({
  properties: Object.fromEntries(
    Object.entries(config).map(([k, v]) => [
      k,
      v !== null && typeof v === 'object' && !Array.isArray(v)
        ? encode(v as Record<string, unknown>)
        : { value: v },
    ]),
  ),
});

async function switchFlow(page: Page, message: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.getByRole('switch', { name: 'Active' }).click();
  await page.getByText(message).last().waitFor();
}

describe('flow versions', () => {
  it('a marketer switches a flow on, changes it, switches it on again, compares the two versions and restores the first', async () => {
    const user = await verifiedMarketer();
    const cookie = user.cookie;
    const email = await api(
      'POST',
      '/v1/emails',
      {
        name: 'Hello',
        subject: 'Hello',
        fromEmail: user.sender,
        html: '<p>Hi</p><p>{{ account.mailingAddress }} <a href="{{ unsubscribe_url }}">Unsubscribe</a></p>',
      },
      cookie,
    );
    expect(email.status).toBe(201);
    const flow = (await api('POST', '/v1/integrations', { name: 'Versioned welcome' }, cookie)).body
      .integration;
    const step = async (operationKey: string, config: Record<string, unknown>, y: number) =>
      (
        await api(
          'POST',
          '/v1/steps/',
          { flowId: flow.id, operationKey, inputFields: encode(config), coordinates: { x: 300, y } },
          cookie,
        )
      ).body.step;
    const trigger = await step('/added-tag', { tag: 'trial' }, 60);
    const wait = await step('/delay-v2', { wait: { mode: 'duration', amount: 1, unit: 'days' } }, 230);
    const send = await step('/send', { email: { id: email.body.email.id } }, 400);
    await api('POST', '/v1/links/', { source: trigger.id, target: wait.id }, cookie);
    await api('POST', '/v1/links/', { source: wait.id, target: send.id }, cookie);

    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, `/flows/${flow.id}`);
    await page.getByRole('heading', { name: 'Versioned welcome', level: 1 }).waitFor();

    // No version before the first activation.
    await page.getByRole('button', { name: 'Versions' }).click();
    const drawer = page.getByRole('dialog', { name: 'Versions' });
    await drawer.getByText('No versions yet').waitFor();
    await checkAccessibility(page);
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });

    // On: version 1. Off, the wait becomes 3 days, on again: version 2.
    await switchFlow(page, flowMessages.activated);
    await switchFlow(page, flowMessages.deactivated);
    await node(page, 'Wait 1 day').click();
    await page.getByRole('textbox', { name: 'Wait', exact: true }).fill('3');
    await page.getByRole('button', { name: 'Save step' }).click();
    await page.getByTestId('step-drawer-subtitle').getByText('Wait 3 days').waitFor();
    await page.getByTestId('save-state').getByText('All changes saved').waitFor();
    await page.getByRole('button', { name: 'Close step' }).click();
    await switchFlow(page, flowMessages.activated);

    // Both versions are listed with who made them; picking both shows them side by side.
    await page.getByRole('button', { name: 'Versions' }).click();
    await expect.poll(() => drawer.getByTestId('flow-version').count()).toBe(2);
    await drawer.getByTestId('flow-version').first().getByText('Current').waitFor();
    await drawer.getByRole('checkbox', { name: 'Compare version 1' }).check();
    await drawer.getByRole('checkbox', { name: 'Compare version 2' }).check();
    const diff = drawer.getByTestId('version-diff');
    await diff.getByText('Step changed').waitFor();
    await diff.getByRole('columnheader', { name: 'Version 1' }).waitFor();
    await diff.getByRole('cell', { name: /amount: 1$/ }).waitFor();
    await diff.getByRole('cell', { name: /amount: 3$/ }).waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'flow-versions-compare');

    // Restore version 1: the flow is active, so the confirmation says the change reaches the people in it.
    await drawer.getByTestId('flow-version').nth(1).getByRole('button', { name: 'Restore' }).click();
    const confirm = page.getByRole('dialog', { name: 'Restore version 1?' });
    await confirm.getByText('This flow is active').waitFor();
    await checkAccessibility(page);
    await confirm.getByRole('button', { name: 'Restore version 1' }).click();
    await page.getByText(flowVersionMessages.restoredActive(1)).waitFor();
    await drawer.getByTestId('flow-version').nth(1).getByText('Current').waitFor();
    await page.keyboard.press('Escape');
    await node(page, 'Wait 1 day').waitFor();
    const saved = await api('GET', `/v1/integrations/${flow.id}/versions`, undefined, cookie);
    expect(saved.body.matchesCurrent).toBe(1);
    expect(
      Object.keys((await api('GET', `/v1/integrations/${flow.id}`, undefined, cookie)).body.integration.steps)
        .map(Number)
        .sort(),
    ).toEqual([trigger.id, wait.id, send.id].sort());

    // On a phone the drawer covers the screen and the comparison scrolls sideways.
    const phone = (await newPage(browser, { width: 375, height: 740 })).page;
    await logIn(phone, user.email, user.password, `/flows/${flow.id}`);
    await phone.getByRole('button', { name: 'Versions' }).click();
    const narrow = phone.getByRole('dialog', { name: 'Versions' });
    await narrow.getByRole('checkbox', { name: 'Compare version 1' }).check();
    await narrow.getByRole('checkbox', { name: 'Compare version 2' }).check();
    await narrow.getByTestId('version-diff').waitFor();
    await checkAccessibility(phone);
    await screenshot(phone, 'flow-versions-narrow');
  });
});
