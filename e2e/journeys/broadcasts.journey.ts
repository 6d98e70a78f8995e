import { broadcastMessages } from '@herald/contracts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility } from '../support/accessibility.ts';
import { verifiedMarketer } from '../support/marketer.ts';
import { api, launchBrowser, logIn, newPage, screenshot, uniqueEmail } from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

/** Pick an option of a segmented control (its radio is visually hidden under the label). */
async function choose(page: Page, name: string) {
  await page.getByRole('radio', { name }).evaluate((radio: HTMLInputElement) => radio.click());
}

/** An owner with a session cookie, a verified sender (proved by the link in the mailbox), a mailing address and an email. */
async function marketer() {
  const { cookie, sender, ...user } = await verifiedMarketer();
  const html =
    '<p>Hi {{ person.firstName | default: "there" }}, our November news.</p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>';
  const created = await api(
    'POST',
    '/v1/emails',
    {
      name: 'November news',
      subject: 'November news',
      fromEmail: sender,
      html,
      editor: { type: 'html', state: null, html },
    },
    cookie,
  );
  expect(created.status).toBeLessThan(300);
  return { ...user, cookie, sender, emailId: created.body.email.id as number };
}

async function addPerson(cookie: string, email: string, firstName: string) {
  const created = await api('POST', '/v1/people/?source=manual', { email, firstName }, cookie);
  if (created.status >= 300) throw new Error(JSON.stringify(created.body));
}

/** The broadcast page's email picker: open it and take the option. */
async function pickEmail(page: Page, name: string) {
  await page.getByRole('textbox', { name: 'Email', exact: true }).click();
  await page.getByRole('option', { name }).click();
  await page.getByText('Email chosen: November news').waitFor();
}

describe('broadcasts', () => {
  it('a marketer writes a broadcast to everyone, then to a segment, sees the count and the checks, sends it, watches it reach Sent and finds the messages in the mailbox; schedules another for tomorrow and cancels it; duplicates and archives from the list', async () => {
    const user = await marketer();
    const ada = uniqueEmail('ada');
    const grace = uniqueEmail('grace');
    const gone = uniqueEmail('gone');
    await addPerson(user.cookie, ada, 'Ada');
    await addPerson(user.cookie, grace, 'Grace');
    await addPerson(user.cookie, gone, 'Gone');
    await api('POST', '/v1/suppressions', { emails: [gone], note: 'Asked by phone' }, user.cookie);

    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, '/broadcasts');
    await page.getByRole('heading', { name: 'Broadcasts', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'No broadcasts yet' }).waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'broadcasts-empty');

    // New: a draft named 'My Broadcast' opens at once.
    await page.getByRole('button', { name: 'Create your first broadcast' }).click();
    await page.waitForURL(/\/broadcasts\/\d+$/);
    await page.getByRole('heading', { name: broadcastMessages.defaultName, level: 1 }).waitFor();
    await page.getByText('Draft', { exact: true }).first().waitFor();
    await page
      .locator('[data-check="email"][data-state="fail"]')
      .getByText(broadcastMessages.noEmail)
      .waitFor();
    await checkAccessibility(page);

    const name = page.getByRole('textbox', { name: 'Broadcast name' });
    await name.fill('November newsletter');
    await name.press('Enter');
    await page.getByRole('heading', { name: 'November newsletter', level: 1 }).waitFor();
    await pickEmail(page, 'November news');

    // Everyone: three people, one suppressed, so two recipients; every check passes.
    await expect.poll(async () => page.getByTestId('recipient-count').textContent()).toBe('2 recipients');
    await page.getByText(/3 in this audience after exclusions; 1 can't receive it/).waitFor();
    for (const check of ['email', 'sender', 'unsubscribe', 'mailingAddress', 'audience']) {
      await page.locator(`[data-check="${check}"][data-state="pass"]`).waitFor();
    }
    await page
      .locator('[data-check="suppressed"]')
      .getByText(/33% excluded as suppressed/)
      .waitFor();

    // Segments: none picked blocks the send; the automatic segment New holds the same three people.
    await choose(page, 'Segments');
    await page
      .locator('[data-check="audience"][data-state="fail"]')
      .getByText('Pick at least one segment or tag.')
      .waitFor();
    await page.getByRole('textbox', { name: 'Segments', exact: true }).click();
    await page.getByRole('option', { name: 'New' }).click();
    await page.keyboard.press('Escape');
    await expect.poll(async () => page.getByTestId('recipient-count').textContent()).toBe('2 recipients');
    await page.locator('[data-check="audience"][data-state="pass"]').waitFor();
    await expect
      .poll(
        async () =>
          (await api('GET', `/v1/broadcasts/${page.url().split('/').pop()}`, undefined, user.cookie)).body
            .item.audience,
        { timeout: 10_000 },
      )
      .toMatchObject({ type: 'segments' });
    await checkAccessibility(page);
    await screenshot(page, 'broadcast-ready');

    await page.getByRole('button', { name: 'Send now' }).last().click();
    const confirm = page.getByRole('dialog', { name: 'Send “November newsletter” now?' });
    await confirm.getByText('It goes out at once to 2 people.').waitFor();
    await confirm.getByRole('button', { name: 'Send now' }).click();
    await page.getByText(broadcastMessages.sending).first().waitFor();
    await page.getByRole('heading', { name: 'Results' }).waitFor({ timeout: 30_000 });
    await page.getByText('Sent', { exact: true }).first().waitFor();
    const delivered = page.getByText('Delivered', { exact: true }).locator('xpath=following-sibling::*[1]');
    expect(await delivered.textContent()).toBe('2');
    // Opens and clicks come from the metrics rollups: nobody has opened yet.
    await page.getByRole('link', { name: 'Open in Metrics' }).waitFor({ timeout: 15_000 });
    expect(
      await page.getByText('Opens', { exact: true }).locator('xpath=following-sibling::*[1]').textContent(),
    ).toBe('0%');
    await checkAccessibility(page);
    await screenshot(page, 'broadcast-sent');

    // Both messages are in the mailbox, personalised; the suppressed person got nothing.
    const inbox = (await newPage(browser)).page;
    await inbox.goto('/dev/mailbox');
    await inbox.getByText(`To ${ada}`).waitFor({ timeout: 20_000 });
    await inbox.getByText(`To ${grace}`).waitFor();
    expect(await inbox.getByText(`To ${gone}`).count()).toBe(0);
    await inbox.getByText(`To ${ada}`).click();
    await inbox.getByText('Hi Ada, our November news.').waitFor();

    // Back to the list, which shows it sent to two people.
    await page.getByRole('link', { name: 'Broadcasts' }).first().click();
    await page.waitForURL(/\/broadcasts$/);
    const row = page.getByRole('row', { name: /November newsletter/ });
    await row.getByText('Sent', { exact: true }).waitFor();
    await row.getByText('November news', { exact: true }).waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'broadcasts-list');

    // A second one, scheduled for tomorrow morning in the account's time zone, then canceled.
    await page.getByRole('button', { name: 'New Broadcast' }).click();
    await page.waitForURL(/\/broadcasts\/\d+$/);
    await pickEmail(page, 'November news');
    await page.locator('[data-check="audience"][data-state="pass"]').waitFor({ timeout: 15_000 });
    await choose(page, 'Schedule');
    await page.getByText("In your account's time zone, Europe/Berlin.").waitFor();
    await page.getByRole('button', { name: 'Schedule', exact: true }).click();
    await page.getByText(broadcastMessages.scheduled).first().waitFor();
    await page.getByText(/Scheduled for .*09:00.*\(Europe\/Berlin\)/).waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'broadcast-scheduled');
    await page.getByRole('button', { name: 'Cancel broadcast' }).click();
    await page
      .getByRole('dialog', { name: 'Cancel “My Broadcast”?' })
      .getByRole('button', { name: 'Cancel broadcast' })
      .click();
    await page.getByText(broadcastMessages.canceled).first().waitFor();
    await page.getByText('Canceled', { exact: true }).first().waitFor();
    await page.getByText('This broadcast was canceled before it went out.').waitFor();
    await checkAccessibility(page);

    // Duplicate the sent one from its row menu: a new draft with the same name, email and audience; then archive it.
    await page.getByRole('link', { name: 'Broadcasts' }).first().click();
    await page.getByRole('button', { name: 'Actions for November newsletter' }).click();
    await page.getByRole('menuitem', { name: 'Duplicate' }).click();
    await page.waitForURL(/\/broadcasts\/\d+$/);
    await page.getByText('Draft', { exact: true }).first().waitFor();
    await page.getByText('Email chosen: November news').waitFor();
    await page.getByRole('link', { name: 'Broadcasts' }).first().click();
    await page
      .getByRole('row', { name: /November newsletter.*Draft/ })
      .getByRole('button', { name: 'Actions for November newsletter' })
      .click();
    await page.getByRole('menuitem', { name: 'Archive' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Archive' }).click();
    await page.getByText(broadcastMessages.archived).first().waitFor();
    await choose(page, 'Archived');
    await page
      .getByRole('row', { name: /November newsletter/ })
      .getByText('Draft', { exact: true })
      .waitFor();
    await checkAccessibility(page);

    // At phone width the list and the editor stay usable.
    const phone = (await newPage(browser, { width: 390, height: 844 })).page;
    await logIn(phone, user.email, user.password, '/broadcasts');
    await phone.getByRole('row', { name: /November newsletter/ }).waitFor();
    await checkAccessibility(phone);
    await screenshot(phone, 'broadcasts-list-phone');
    await phone.getByRole('link', { name: 'November newsletter' }).click();
    await phone.getByRole('heading', { name: 'Results' }).waitFor();
    await screenshot(phone, 'broadcast-sent-phone');
    // The longest journey of the suite (three broadcasts, the mailbox, two widths): more time than the default.
  }, 180_000);
});
