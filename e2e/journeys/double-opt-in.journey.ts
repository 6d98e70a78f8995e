import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { consentMessages, type MailboxMessage } from '@herald/contracts';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility } from '../support/accessibility.ts';
import { verifiedMarketer } from '../support/marketer.ts';
import { api, launchBrowser, logIn, newPage, screenshot, uniqueEmail } from '../support/browser.ts';
import { until } from '../support/until.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

/** The customer's site: a newsletter form carrying the site-tracking snippet. */
async function customerSite(snippet: string) {
  const page = (title: string, body: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${snippet}</head><body><main>${body}</main></body></html>`;
  const server = http.createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      request.url?.startsWith('/thanks')
        ? page('Thanks', '<h1>Check your inbox</h1>')
        : page(
            'Newsletter',
            `<h1>Newsletter</h1><form id="newsletter" method="post" action="/thanks">
              <label>Email <input type="email" name="email" required></label>
              <button type="submit">Subscribe</button></form>`,
          ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The mails of the built-in mailbox to `address` with `subject`. */
async function mailsTo(address: string, subject: string): Promise<MailboxMessage[]> {
  const messages = (await api('GET', '/v1/dev/mailbox')).body.messages as MailboxMessage[];
  return messages.filter((m) => m.to.includes(address) && m.subject === subject);
}

/** Create a broadcast of the email to everyone, send it and wait until it is sent. */
async function broadcast(cookie: string, emailId: number, name: string) {
  const created = await api('POST', '/v1/broadcasts', { name, emailId, audience: { type: 'all' } }, cookie);
  expect(created.status).toBe(201);
  const id = created.body.item.id as number;
  expect((await api('POST', `/v1/broadcasts/${id}/send`, {}, cookie)).status).toBe(200);
  await until(
    async () =>
      (await api('GET', `/v1/broadcasts/${id}/status`, undefined, cookie)).body.item?.status === 'sent',
    { timeout: 30_000, message: `broadcast ${name} sent` },
  );
  return id;
}

describe('double opt-in', () => {
  it('a form signup gets the confirmation email, gets no broadcast while pending, confirms from the link, then gets the next one', async () => {
    const user = await verifiedMarketer();
    const { cookie } = user;
    const html =
      '<p>Hi {{ person.firstName | default: "there" }}, this week’s news.</p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>';
    const email = await api(
      'POST',
      '/v1/emails',
      {
        name: 'Weekly news',
        subject: 'Weekly news',
        fromEmail: user.sender,
        html,
        editor: { type: 'html', state: null, html },
      },
      cookie,
    );
    expect(email.status).toBeLessThan(300);
    const emailId = email.body.email.id as number;
    const regular = uniqueEmail('regular');
    expect(
      (await api('POST', '/v1/people/?source=manual', { email: regular, firstName: 'Rita' }, cookie)).status,
    ).toBe(201);
    // The marketer turns double opt-in on in Settings → Email → General.
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, '/settings/email/general');
    const card = page.getByRole('region', { name: 'Double opt-in' });
    const toggle = card.getByRole('switch', { name: 'Ask new people to confirm their subscription' });
    await toggle.evaluate((input: HTMLInputElement) => input.click());
    await expect.poll(() => toggle.isChecked()).toBe(true);
    await card.getByRole('button', { name: 'Save double opt-in' }).click();
    await page.getByText('Double opt-in settings saved.').waitFor();
    expect((await api('GET', '/v1/settings/double-opt-in', undefined, cookie)).body.doubleOptIn).toBe(true);
    await checkAccessibility(page);
    await screenshot(page, 'double-opt-in-settings');

    // A visitor subscribes on the customer's site.
    const snippet = (await api('GET', '/v1/settings/site-tracking', undefined, cookie)).body
      .snippet as string;
    const site = await customerSite(snippet);
    const signup = uniqueEmail('signup');
    try {
      const visitor = await browser.newContext();
      const form = await visitor.newPage();
      await form.goto(site.url);
      await form.getByLabel('Email').fill(signup);
      await form.getByRole('button', { name: 'Subscribe' }).click();
      await form.getByRole('heading', { name: 'Check your inbox' }).waitFor();
      await visitor.close();
    } finally {
      await site.close();
    }

    // The confirmation email arrives, from the account's sender.
    const [confirmation] = await until(
      async () => {
        const found = await mailsTo(signup, consentMessages.confirmationSubject);
        return found.length > 0 && found;
      },
      { timeout: 20_000, message: `a confirmation email to ${signup}` },
    );
    expect(confirmation!.from).toContain(user.sender);
    // The button's link (a tracked redirect to the confirmation page, as every transactional link).
    const link = /href="([^"]*confirm-subscription[^"]*)"/
      .exec(confirmation!.html ?? '')?.[1]
      ?.replaceAll('&amp;', '&');
    expect(link).toBeTruthy();

    // While pending: the person page says so, the broadcast page counts them apart, and a broadcast skips them.
    const people = await api(
      'GET',
      `/v1/people/search?query=${encodeURIComponent(signup)}`,
      undefined,
      cookie,
    );
    const personId = people.body.users[0].id as number;
    await page.goto(`/people/${personId}`);
    const consent = page.getByTestId('person-consent');
    await consent.getByText('Waiting to confirm').waitFor();
    await consent.getByText('Subscribed · Site form').waitFor();
    await consent.getByText(`“${consentMessages.defaultConsentText}”`).waitFor();
    // The person asked for the email again: the team sends it from their page.
    await consent.getByRole('button', { name: 'Send confirmation again' }).click();
    await page.getByText(consentMessages.resentByTeam).first().waitFor();
    await until(async () => (await mailsTo(signup, consentMessages.confirmationSubject)).length === 2, {
      timeout: 20_000,
      message: `a second confirmation email to ${signup}`,
    });
    await checkAccessibility(page);
    await screenshot(page, 'double-opt-in-person-pending');

    const draft = await api(
      'POST',
      '/v1/broadcasts',
      { name: 'Draft to count', emailId, audience: { type: 'all' } },
      cookie,
    );
    await page.goto(`/broadcasts/${draft.body.item.id}`);
    await expect.poll(async () => page.getByTestId('recipient-count').textContent()).toBe('1 recipient');
    await page
      .getByTestId('pending-confirmation-count')
      .getByText(/1 waiting to confirm/)
      .waitFor();
    await screenshot(page, 'double-opt-in-broadcast-count');

    await broadcast(cookie, emailId, 'First news');
    await until(async () => (await mailsTo(regular, 'Weekly news')).length === 1, {
      timeout: 20_000,
      message: 'the first news to the regular',
    });
    expect(await mailsTo(signup, 'Weekly news')).toHaveLength(0);

    // The visitor follows the link in the email: the page's script confirms.
    const visitor = await newPage(browser);
    await visitor.page.goto(link!);
    await visitor.page.getByRole('heading', { name: 'Confirm your subscription', level: 1 }).waitFor();
    await visitor.page.getByText(consentMessages.confirmed).waitFor();
    await checkAccessibility(visitor.page);
    await screenshot(visitor.page, 'double-opt-in-confirmed');
    // The same link again: already confirmed, nothing more happens.
    await visitor.page.reload();
    await visitor.page.getByText(consentMessages.alreadyConfirmed).waitFor();

    await broadcast(cookie, emailId, 'Second news');
    await until(async () => (await mailsTo(signup, 'Weekly news')).length === 1, {
      timeout: 20_000,
      message: 'the second news to the signup',
    });

    await page.goto(`/people/${personId}`);
    await consent.getByText('Confirmed', { exact: true }).waitFor();
    await consent.getByText('Confirmed · Confirmation link').waitFor();
    await checkAccessibility(page);
    await screenshot(page, 'double-opt-in-person-confirmed');
  });
});
