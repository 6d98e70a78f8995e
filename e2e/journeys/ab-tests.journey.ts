import { abTestMessages, broadcastMessages } from '@herald/contracts';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility } from '../support/accessibility.ts';
import { verifiedMarketer } from '../support/marketer.ts';
import { api, launchBrowser, logIn, newPage, screenshot, sql, uniqueEmail } from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

const unsubscribe = '<p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>';

/** An owner with a verified sender (proved by the link in the mailbox), a mailing address, two emails and ten people. */
async function marketer() {
  const { cookie, sender, ...user } = await verifiedMarketer();
  const email = async (name: string, body: string) => {
    const html = `<p>${body}</p>${unsubscribe}`;
    const created = await api(
      'POST',
      '/v1/emails',
      { name, subject: name, fromEmail: sender, html, editor: { type: 'html', state: null, html } },
      cookie,
    );
    expect(created.status).toBeLessThan(300);
    return created.body.email.id as number;
  };
  const plain = await email('Spring sale', 'Our spring sale starts today.');
  await email('Spring sale (short)', 'Sale. Today.');
  for (let i = 0; i < 10; i++) {
    const created = await api(
      'POST',
      '/v1/people/?source=manual',
      { email: uniqueEmail(`reader${i}`), firstName: `Reader${i}` },
      cookie,
    );
    expect(created.status).toBe(201);
  }
  return { ...user, cookie, emailId: plain };
}

describe('A/B tests', () => {
  it('a marketer sets up an A/B test of two subjects, sends it, watches it A/B testing, and sees the winner go to the rest with the reason', async () => {
    const user = await marketer();
    const created = await api(
      'POST',
      '/v1/broadcasts',
      { name: 'Spring sale', emailId: user.emailId },
      user.cookie,
    );
    const id = created.body.item.id as number;

    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, `/broadcasts/${id}`);
    await page.getByRole('heading', { name: 'Spring sale', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'A/B test' }).waitFor();
    await page.getByText(/Try two to four subjects or emails/).waitFor();

    // Switched on: two empty variants are the same, so it is not saved yet and the send is blocked.
    // A DOM click on the switch itself: a pointer click at its spot can land elsewhere while the page still settles.
    const abSwitch = page.getByRole('switch', { name: 'A/B test' });
    await abSwitch.evaluate((input: HTMLInputElement) => input.click());
    await expect.poll(() => abSwitch.isChecked()).toBe(true);
    await page
      .getByRole('alert')
      .filter({ hasText: 'Not saved yet' })
      .getByText(abTestMessages.sameAsAnother('B'))
      .waitFor();
    await page.locator('[data-check="abTest"][data-state="fail"]').waitFor();
    await expect
      .poll(async () => page.getByRole('button', { name: 'Send now' }).last().isDisabled())
      .toBe(true);

    await page.getByRole('textbox', { name: 'Subject of variant A' }).fill('Spring sale: 20% off');
    await page.getByRole('textbox', { name: 'Subject of variant B' }).fill('Your spring discount is here');
    // A third variant with the other email, then removed again.
    await page.getByRole('button', { name: 'Add variant' }).click();
    await page.getByRole('textbox', { name: 'Email of variant C' }).click();
    await page.getByRole('option', { name: 'Spring sale (short)' }).click();
    await page
      .getByText(
        '20% of 10 recipients get one of 3 variants; after 4 hours the variant with more opens goes to the other 7.',
      )
      .waitFor();
    await page.getByRole('button', { name: 'Remove variant C' }).click();
    // The share by keyboard (20% → 30%), the metric and the wait.
    await page.getByRole('slider', { name: 'Test share' }).focus();
    for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowRight');
    await page.getByRole('textbox', { name: 'Winner by' }).click();
    await page.getByRole('option', { name: 'Most clicks' }).click();
    await page.getByRole('textbox', { name: 'Wait (hours)' }).fill('2');
    await page
      .getByText(
        '30% of 10 recipients get one of 2 variants; after 2 hours the variant with more clicks goes to the other 7.',
      )
      .waitFor();
    await expect
      .poll(async () => (await api('GET', `/v1/broadcasts/${id}`, undefined, user.cookie)).body.item.abTest, {
        timeout: 10_000,
      })
      .toMatchObject({
        variants: [
          { name: 'A', subject: 'Spring sale: 20% off' },
          { name: 'B', subject: 'Your spring discount is here' },
        ],
        testShare: 30,
        metric: 'clicks',
        waitHours: 2,
      });
    await page.locator('[data-check="abTest"]').waitFor({ state: 'detached' });
    await checkAccessibility(page);
    await screenshot(page, 'ab-test-setup');

    await page.getByRole('button', { name: 'Send now' }).last().click();
    await page
      .getByRole('dialog', { name: 'Send “Spring sale” now?' })
      .getByRole('button', { name: 'Send now' })
      .click();
    await page.getByText(broadcastMessages.sending).first().waitFor();
    await page.getByText('A/B Testing', { exact: true }).first().waitFor();
    const variants = page.getByRole('table', { name: 'A/B test variants' });
    await variants.getByRole('row', { name: /Spring sale: 20% off/ }).waitFor();
    // Three people (30% of 10) split 2 and 1, all sent; the winner is chosen by clicks in two hours.
    await expect
      .poll(
        async () =>
          (await api('GET', `/v1/broadcasts/${id}/status`, undefined, user.cookie)).body.progress.sent,
        { timeout: 30_000 },
      )
      .toBe(3);
    await expect
      .poll(async () => variants.locator('[data-variant="A"] td').nth(2).textContent(), { timeout: 10_000 })
      .toBe('2');
    await expect
      .poll(async () => variants.locator('[data-variant="B"] td').nth(2).textContent(), { timeout: 10_000 })
      .toBe('1');
    await page.getByText(/The winner is chosen by clicks on/).waitFor();
    await page.getByText('A/B Testing', { exact: true }).first().waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'ab-test-testing');

    // The decision, due in two hours, is brought forward: with no clicks recorded, variant A goes to the other seven.
    await sql(
      "select graphile_worker.add_job('ab-test-decide', json_build_object('accountId', $1::bigint, 'broadcastId', $2::bigint), job_key => $3, run_at => now())",
      [user.accountId, id, `ab-test-decide:${user.accountId}:${id}`],
    );
    await page.getByRole('heading', { name: 'Results' }).waitFor({ timeout: 30_000 });
    await page.getByText('Sent', { exact: true }).first().waitFor();
    await variants.locator('[data-variant="A"]').getByText('Winner').waitFor();
    await page.getByText(abTestMessages.noData('clicks', 'A')).waitFor();
    const delivered = page.getByText('Delivered', { exact: true }).locator('xpath=following-sibling::*[1]');
    await expect.poll(async () => delivered.textContent()).toBe('10');
    await checkAccessibility(page);
    await screenshot(page, 'ab-test-decided');

    // The rest got variant A's subject.
    const inbox = (await newPage(browser)).page;
    await inbox.goto('/dev/mailbox');
    await expect
      .poll(async () => inbox.getByText('Spring sale: 20% off').count(), { timeout: 20_000 })
      .toBeGreaterThanOrEqual(1);
    await inbox.close();

    // At phone width the decided test reads as well.
    const phone = (await newPage(browser, { width: 390, height: 844 })).page;
    await logIn(phone, user.email, user.password, `/broadcasts/${id}`);
    await phone.getByRole('table', { name: 'A/B test variants' }).waitFor();
    await checkAccessibility(phone);
    await screenshot(phone, 'ab-test-decided-phone');

    // And the editor: a draft with a test of three variants, at phone width.
    const abTest = {
      variants: [{ subject: 'One' }, { subject: 'Two' }, { emailId: user.emailId, subject: 'Three' }],
      testShare: 25,
      metric: 'opens',
      waitHours: 6,
    };
    const next = await api(
      'POST',
      '/v1/broadcasts',
      { name: 'Summer sale', emailId: user.emailId, abTest },
      user.cookie,
    );
    expect(next.status).toBe(201);
    await phone.goto(`/broadcasts/${next.body.item.id}`);
    await phone
      .getByText(
        '25% of 10 recipients get one of 3 variants; after 6 hours the variant with more opens goes to the other 7.',
      )
      .waitFor();
    await checkAccessibility(phone);
    await screenshot(phone, 'ab-test-setup-phone');
  }, 240_000);
});
