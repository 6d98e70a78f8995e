import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { siteTrackingMessages } from '@herald/contracts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAccessibility } from '../support/accessibility.ts';
import {
  api,
  baseUrl,
  createUser,
  launchBrowser,
  logIn,
  newPage,
  screenshot,
  uniqueEmail,
} from '../support/browser.ts';
import { until } from '../support/until.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

/** The customer's own site: a page with a newsletter form and a thanks page, each carrying the copied snippet. */
async function customerSite(snippet: string) {
  const page = (title: string, body: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${snippet}</head><body><main>${body}</main></body></html>`;
  const form = `<h1>Shoe shop</h1>
    <form id="newsletter" method="post" action="/thanks">
      <label>Email <input type="email" name="email" required></label>
      <label>First name <input name="given"></label>
      <label>Password <input type="password" name="pw"></label>
      <button type="submit">Join</button>
    </form>`;
  const server = http.createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      request.url?.startsWith('/thanks')
        ? page('Thanks', '<h1>Thanks for joining</h1>')
        : page('Shoe shop', form),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A visitor of the customer's site (a browser context of its own) fills in the newsletter form. */
async function submitNewsletter(site: string, email: string, firstName: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(site);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('First name').fill(firstName);
  await page.getByLabel('Password').fill('never-sent-1');
  await page.getByRole('button', { name: 'Join' }).click();
  await page.getByRole('heading', { name: 'Thanks for joining' }).waitFor();
  await context.close();
}

async function openSettings(page: Page) {
  await page.goto('/settings/site-tracking');
  await page.getByRole('heading', { name: 'Site Tracking', level: 1 }).waitFor();
}

describe('site and form tracking', () => {
  it('a marketer puts the snippet on a site, sees its form, maps the form and finds the people it fills', async () => {
    const user = await createUser();
    const { context, page } = await newPage(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl() });
    await logIn(page, user.email, user.password);
    const cookie = (await api('POST', '/v1/accounts/login', { email: user.email, password: user.password }))
      .cookie;

    await openSettings(page);
    await page.getByText('No visits yet').waitFor();
    await page.getByRole('button', { name: 'Copy snippet' }).click();
    const snippet = await page.evaluate(() => navigator.clipboard.readText());
    expect(snippet).toMatch(
      new RegExp(`^<script async src="${baseUrl()}/site.js" data-write-key="[^"]+"></script>$`),
    );
    await checkAccessibility(page);
    await screenshot(page, 'site-tracking-snippet');

    const site = await customerSite(snippet);
    try {
      const first = uniqueEmail('reader');
      await submitNewsletter(site.url, first, 'Ada');
      const forms = await until(
        async () => {
          const res = await api('GET', '/v1/settings/site-tracking/unique-form-events', undefined, cookie);
          return res.body.events.length ? res.body.events : undefined;
        },
        { timeout: 10_000, interval: 200, message: 'the form' },
      );
      expect(forms[0].data.form).toEqual({ id: 'newsletter', name: null, fields: ['email', 'given'] });

      await openSettings(page);
      await page.getByText('Receiving visits').waitFor();
      await screenshot(page, 'site-tracking-visits');

      await page.getByRole('link', { name: 'Tracked forms', exact: true }).click();
      await page.getByRole('heading', { name: 'Form Tracking', level: 1 }).waitFor();
      await page.getByText('Not mapped').waitFor();
      await checkAccessibility(page);
      await screenshot(page, 'site-tracking-forms');

      await page.getByRole('link', { name: 'Map fields of newsletter' }).click();
      await page.getByRole('heading', { name: 'Edit Form: newsletter', level: 1 }).waitFor();
      await page.getByRole('textbox', { name: 'Person field for email' }).click();
      await page.getByRole('option', { name: 'Email', exact: true }).click();
      await page.getByRole('textbox', { name: 'Person field for given' }).click();
      await page.getByRole('option', { name: 'First name', exact: true }).click();
      await page.getByRole('button', { name: 'Save form' }).click();
      await page.getByText(siteTrackingMessages.formSaved).first().waitFor();
      await checkAccessibility(page);
      await screenshot(page, 'site-tracking-form-edit');
      const account = await api('GET', '/v1/accounts', undefined, cookie);
      expect(account.body.formFieldMappings).toEqual({ newsletter: { email: 'email', given: 'firstName' } });

      const second = uniqueEmail('grace');
      await submitNewsletter(site.url, second, 'Grace');
      await until(
        async () => {
          const found = await api(
            'GET',
            `/v1/people/search?query=${encodeURIComponent(second)}`,
            undefined,
            cookie,
          );
          return found.body.users[0]?.firstName === 'Grace';
        },
        { timeout: 10_000, interval: 200, message: 'the mapped person' },
      );
      await page.goto('/people');
      await page.getByRole('searchbox', { name: 'Search people' }).fill(second);
      await page.getByRole('link', { name: second }).waitFor();
      await page.getByText('Grace').first().waitFor();
      await checkAccessibility(page);
      await screenshot(page, 'site-tracking-people');
      const events = await api('GET', '/v1/people/all/events?limit=50', undefined, cookie);
      expect(JSON.stringify(events.body)).not.toContain('never-sent-1');
    } finally {
      await site.close();
    }

    // On a phone the settings page still reads well.
    const { page: narrow } = await newPage(browser, { width: 390, height: 844 });
    await logIn(narrow, user.email, user.password);
    await openSettings(narrow);
    await narrow.getByText('Receiving visits').waitFor();
    await screenshot(narrow, 'site-tracking-narrow');
  }, 240_000);
});
