import { encodeInputFields } from '@herald/contracts';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility } from '../support/accessibility.ts';
import {
  api,
  createUser,
  documentText,
  launchBrowser,
  logIn,
  newPage,
  screenshot,
  uniqueEmail,
} from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

/** signup → has tag vip? yes: send the welcome email; no: wait 2 days → add tag 'warm'. */
async function onboardingFlow(cookie: string) {
  const email = await api(
    'POST',
    '/v1/emails',
    {
      name: 'Welcome',
      subject: 'Welcome, {{ person.firstName | default: "friend" }}',
      fromName: 'Ada',
      fromEmail: 'ada@analytical.example.com',
      html: '<html><body><p>Hi {{ person.firstName | default: "there" }}, glad you are here.</p></body></html>',
    },
    cookie,
  );
  expect(email.status).toBe(201);
  const flow = (await api('POST', '/v1/integrations', { name: 'Onboarding' }, cookie)).body.integration as {
    id: number;
  };
  const step = async (operationKey: string, config: Record<string, unknown>, y: number) => {
    const res = await api(
      'POST',
      '/v1/steps/',
      { flowId: flow.id, operationKey, inputFields: encodeInputFields(config), coordinates: { x: 0, y } },
      cookie,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.step.id as number;
  };
  const trigger = await step('/event', { name: 'signup' }, 0);
  const vip = await step('/has-tag', { tag: 'vip' }, 170);
  const send = await step('/send', { email: { id: email.body.email.id } }, 340);
  const wait = await step('/delay-v2', { wait: { mode: 'duration', amount: 2, unit: 'days' } }, 340);
  const warm = await step('/add-tag', { tag: 'warm' }, 510);
  for (const [source, target, condition] of [
    [trigger, vip],
    [vip, send, 'yes'],
    [vip, wait, 'no'],
    [wait, warm],
  ] as const) {
    const res = await api(
      'POST',
      '/v1/links/',
      { source, target, ...(condition ? { condition } : {}) },
      cookie,
    );
    expect(res.status).toBe(201);
  }
  return flow;
}

describe('flow simulator', () => {
  it('a marketer test-runs a flow for a made-up person and for a real one, reads each verdict and why, and previews the email; nothing is sent', async () => {
    const user = await createUser();
    const { cookie } = await api('POST', '/v1/accounts/login/', {
      email: user.email,
      password: user.password,
    });
    const flow = await onboardingFlow(cookie!);
    const real = uniqueEmail('grace');
    const created = await api(
      'POST',
      '/v1/people/?source=manual',
      { email: real, firstName: 'Grace' },
      cookie,
    );
    expect(created.status).toBe(201);

    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, `/flows/${flow.id}`);
    await page.getByRole('button', { name: 'Test run' }).click();
    const drawer = page.getByRole('dialog', { name: 'Test run' });
    await drawer.getByRole('textbox', { name: 'Field 1 value' }).fill('Ada');
    const tags = drawer.getByRole('textbox', { name: 'Tags' });
    await tags.fill('vip');
    await tags.press('Enter');
    await drawer.getByLabel('Enters the flow at').fill('2026-03-02T09:00');
    await drawer.getByRole('button', { name: 'Run' }).click();

    const result = drawer.getByTestId('simulation-result');
    await result.getByText('The run reached the end of the flow.').waitFor();
    await result.getByText(/has tag “vip”: yes \(the person’s tags: vip\)/).waitFor();
    await result.getByText(/Would send email \d+, subject “Welcome, Ada”/).waitFor();
    await result.getByRole('button', { name: 'Show email' }).click();
    const frame = result.locator('iframe[title="Email: Welcome, Ada"]');
    await frame.waitFor();
    expect(await frame.getAttribute('sandbox')).toBe('');
    await expect.poll(() => documentText(frame.contentFrame())).toContain('Hi Ada, glad you are here.');
    await checkAccessibility(page);
    await screenshot(page, 'flow-simulator-made-up');

    // A real person, read-only: the wait reads the account's clock (Berlin), and their tags stay as they were.
    await drawer.getByText('Real person').click();
    await drawer.getByRole('textbox', { name: 'Email of the person' }).fill(real);
    await drawer.getByRole('button', { name: 'Run' }).click();
    await result.getByText(/Would add the tag “warm”/).waitFor();
    await result.getByText('The run reached the end of the flow.').waitFor();
    await result.getByText(/Waits until Wed, 4 Mar 2026, \d\d:00 CET \(Europe\/Berlin\)/).waitFor();
    await result.getByText(/Would add the tag “warm”/).waitFor();
    await screenshot(page, 'flow-simulator-real');
    const person = await api('GET', `/v1/people/${created.body.user.id}`, undefined, cookie);
    expect(person.status).toBe(200);
    expect(JSON.stringify(person.body)).not.toContain('warm');

    // A mistake in the form is said before anything is asked.
    await drawer.getByRole('textbox', { name: 'Email of the person' }).fill('nobody@example.com');
    await drawer.getByRole('button', { name: 'Run' }).click();
    await drawer
      .getByRole('alert')
      .filter({ hasText: 'No person with this email in this account.' })
      .waitFor();

    // On a phone the drawer fills the screen and the form still fits.
    const phone = (await newPage(browser, { width: 390, height: 844 })).page;
    await logIn(phone, user.email, user.password, `/flows/${flow.id}`);
    await phone.getByRole('button', { name: 'Test run' }).click();
    await phone.getByRole('dialog', { name: 'Test run' }).getByRole('button', { name: 'Run' }).click();
    await phone
      .getByTestId('simulation-result')
      .getByText(/Waits until/)
      .waitFor();
    await phone.getByTestId('simulation-result').scrollIntoViewIfNeeded();
    await checkAccessibility(phone);
    await screenshot(phone, 'flow-simulator-phone');
  });
});
