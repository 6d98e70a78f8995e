import { broadcastMessages, sendTimeMessages } from '@herald/contracts';
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

/** The wall clock of an instant in a zone, 'YYYY-MM-DD HH:MM'. */
function wallClock(instant: number, timeZone: string): string {
  const format = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  });
  const p = Object.fromEntries(
    format.formatToParts(new Date(instant)).map((part) => [part.type, part.value]),
  );
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
}

/** The instant a Berlin wall clock names. */
function berlinInstant(local: string): string {
  const asUtc = Date.parse(`${local.replace(' ', 'T')}:00Z`);
  const offset = (at: number) => Date.parse(`${wallClock(at, 'Europe/Berlin').replace(' ', 'T')}:00Z`) - at;
  return new Date(asUtc - offset(asUtc - offset(asUtc))).toISOString();
}

/** An owner (account zone Europe/Berlin) with a verified sender, a mailing address, an email and people in three zones. */
async function marketer() {
  const { cookie, sender, ...user } = await verifiedMarketer();
  const html =
    '<p>Hi {{ person.firstName | default: "there" }}, good morning.</p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>';
  const created = await api(
    'POST',
    '/v1/emails',
    {
      name: 'Morning note',
      subject: 'Good morning',
      fromEmail: sender,
      html,
      editor: { type: 'html', state: null, html },
    },
    cookie,
  );
  expect(created.status).toBeLessThan(300);
  expect(
    (
      await api(
        'POST',
        '/v1/fields',
        { items: [{ name: 'timezone', title: 'Time zone', type: 'string' }] },
        cookie,
      )
    ).status,
  ).toBe(201);
  for (const [firstName, timezone] of [
    ['Aiko', 'Asia/Tokyo'],
    ['Noah', 'America/New_York'],
    ['Lena', undefined],
  ] as const) {
    const person = await api(
      'POST',
      '/v1/people/?source=manual',
      { email: uniqueEmail(firstName.toLowerCase()), firstName, ...(timezone ? { timezone } : {}) },
      cookie,
    );
    expect(person.status).toBe(201);
  }
  return { ...user, cookie, emailId: created.body.email.id as number };
}

async function openBroadcast(page: Page, id: number, name: string) {
  await page.goto(`/broadcasts/${id}`);
  await page.getByRole('heading', { name, level: 1 }).waitFor();
}

describe('send times', () => {
  it("a marketer sets quiet hours, schedules a broadcast in each recipient's time zone, and pauses and resumes one that is sending", async () => {
    const user = await marketer();
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password);

    // Quiet hours in Settings → Email: a window, saved, then switched on.
    await page.goto('/settings/email/general');
    const card = page.locator('[aria-labelledby="quiet-hours-title"]');
    await card.getByRole('heading', { name: 'Quiet hours' }).waitFor();
    await card.getByText('Off: broadcasts go at any hour.').waitFor();
    await card.getByLabel('From').fill('22:00');
    await card.getByLabel('Until').fill('07:30');
    await card.getByRole('button', { name: 'Save quiet hours' }).click();
    await page.getByText(sendTimeMessages.quietHoursOff).first().waitFor();
    await card
      .getByRole('switch', { name: 'Hold broadcasts during quiet hours' })
      .evaluate((input: HTMLInputElement) => input.click());
    await page.getByText(sendTimeMessages.quietHoursSaved).first().waitFor();
    await card.getByText('On: nothing is sent from 22:00 until 07:30, local time.').waitFor();
    expect((await api('GET', '/v1/settings/quiet-hours', undefined, user.cookie)).body.quietHours).toEqual({
      enabled: true,
      start: '22:00',
      end: '07:30',
    });
    await checkAccessibility(page);
    await screenshot(page, 'send-times-quiet-hours');

    // A broadcast three days ahead at 09:00 on each recipient's own clock.
    const later = await api(
      'POST',
      '/v1/broadcasts',
      { name: 'Morning in every zone', emailId: user.emailId },
      user.cookie,
    );
    const inThreeDays = `${wallClock(Date.now() + 3 * 86_400_000, 'Europe/Berlin').slice(0, 10)} 09:00`;
    expect(
      (
        await api(
          'PATCH',
          `/v1/broadcasts/${later.body.item.id}`,
          { sendAt: berlinInstant(inThreeDays) },
          user.cookie,
        )
      ).status,
    ).toBe(200);
    await openBroadcast(page, later.body.item.id, 'Morning in every zone');
    await page.locator('[data-check="audience"][data-state="pass"]').waitFor({ timeout: 15_000 });
    await page.getByRole('radio', { name: 'At a fixed time' }).waitFor();
    await choose(page, "In each recipient's time zone");
    await page.getByText('Local time for each recipient.').waitFor();
    await page
      .getByTestId('recipient-window')
      .getByText(/first time zone \(UTC\+14\).*last \(UTC−12\)/)
      .waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'send-times-recipient-choice');
    await page
      .getByRole('button', { name: 'Update schedule' })
      .or(page.getByRole('button', { name: 'Schedule', exact: true }))
      .click();
    await page.getByText(broadcastMessages.scheduled).first().waitFor();
    await page.getByText(/Scheduled for .*09:00.* in each recipient's time zone/).waitFor();
    expect(
      (await api('GET', `/v1/broadcasts/${later.body.item.id}`, undefined, user.cookie)).body.item,
    ).toMatchObject({ status: 'scheduled', time: { type: 'recipient' } });
    await checkAccessibility(page);
    await screenshot(page, 'send-times-scheduled');

    // One whose window is open: UTC+14 reached its time an hour ago, everyone else is still waiting for theirs.
    const local = wallClock(Date.now() - 3_600_000, 'Etc/GMT-14');
    const open = await api(
      'POST',
      '/v1/broadcasts',
      {
        name: 'Rolling hello',
        emailId: user.emailId,
        sendAt: berlinInstant(local),
        time: { type: 'recipient' },
      },
      user.cookie,
    );
    const sent = await api('POST', `/v1/broadcasts/${open.body.item.id}/send`, {}, user.cookie);
    expect(sent.body.item.status).toBe('sending');
    await openBroadcast(page, open.body.item.id, 'Rolling hello');
    await page
      .getByTestId('waiting-line')
      .getByText(/Scheduled in recipients' time zones: 0 sent, 3 waiting until/)
      .waitFor({ timeout: 20_000 });
    await checkAccessibility(page);
    await screenshot(page, 'send-times-sending');

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText(sendTimeMessages.paused).first().waitFor();
    await page.getByText('Paused', { exact: true }).first().waitFor();
    await page.getByText(/3 not sent yet and held/).waitFor();
    expect(
      (await api('GET', `/v1/broadcasts/${open.body.item.id}/status`, undefined, user.cookie)).body.progress,
    ).toMatchObject({ paused: 3, pending: 0 });
    await checkAccessibility(page);
    await screenshot(page, 'send-times-paused');

    await page.getByRole('button', { name: 'Resume sending' }).click();
    await page.getByText(sendTimeMessages.resumed).first().waitFor();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    await page
      .getByTestId('waiting-line')
      .getByText(/3 waiting until/)
      .waitFor();
    expect(
      (await api('GET', `/v1/broadcasts/${open.body.item.id}`, undefined, user.cookie)).body.item,
    ).toMatchObject({ status: 'sending', pausedAt: null });

    // The list shows it sending; at phone width the progress and its buttons stay usable.
    await page.goto('/broadcasts');
    await page
      .getByRole('row', { name: /Rolling hello/ })
      .getByText('Sending', { exact: true })
      .waitFor();
    const phone = (await newPage(browser, { width: 390, height: 844 })).page;
    await logIn(phone, user.email, user.password);
    await openBroadcast(phone, open.body.item.id, 'Rolling hello');
    await phone.getByRole('button', { name: 'Pause' }).waitFor();
    await checkAccessibility(phone);
    await screenshot(phone, 'send-times-sending-phone');
  }, 180_000);
});
