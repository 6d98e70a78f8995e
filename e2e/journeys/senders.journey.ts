import fs from 'node:fs';
import { sendingMessages } from '@herald/contracts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkAccessibility } from '../support/accessibility.ts';
import {
  api,
  createUser,
  launchBrowser,
  logIn,
  newPage,
  screenshot,
  uniqueEmail,
} from '../support/browser.ts';
import { invitationToken } from '../support/mailbox.ts';

interface ZoneEntry {
  TXT?: string[];
  CNAME?: string;
  fail?: 'servfail' | 'timeout';
}
interface DnsRecord {
  kind: 'dkim' | 'spf' | 'dmarc' | 'returnPath';
  type: 'TXT' | 'CNAME';
  host: string;
  value: string;
  required: boolean;
}

/** The test DNS server re-reads this file on each query; written whole, then renamed, so it is never half-read. */
function writeZone(change: (zone: Record<string, ZoneEntry>) => void): void {
  const file = inject('dnsZoneFile');
  const zone = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, ZoneEntry>;
  change(zone);
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(zone));
  fs.renameSync(temporary, file);
}

/** Publishes what the domain page asks for, as a customer would at their DNS provider. */
function publish(records: DnsRecord[]): void {
  writeZone((zone) => {
    for (const record of records) {
      const host = record.host.toLowerCase().replace(/\.$/, '');
      if (record.type === 'CNAME') zone[host] = { CNAME: record.value };
      // SPF may come as the mechanism to add to an existing record: this domain has none, so it gets a whole one.
      else if (record.kind === 'spf' && !record.value.startsWith('v=spf1'))
        zone[host] = { TXT: [`v=spf1 ${record.value} ~all`] };
      else zone[host] = { TXT: [record.value] };
    }
  });
}

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

/** The verification link of the newest mail to `address`, opened in the built-in mailbox like a person would. */
async function openVerificationLink(inbox: Page, address: string): Promise<string> {
  await inbox.goto('/dev/mailbox');
  await inbox.getByText(address).first().waitFor({ timeout: 20_000 });
  await inbox.getByText(address).first().click();
  const link = inbox.locator('a[href*="/public/verify-sender?token="]').first();
  await link.waitFor({ timeout: 20_000 });
  return (await link.getAttribute('href'))!;
}

describe('sender addresses and domains', () => {
  it('adds a sender address, verifies it from the mail in the mailbox, and sees it verified', async () => {
    const user = await createUser();
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, '/settings/email');
    await page.getByRole('heading', { name: 'Sender Addresses', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'No sender addresses yet' }).waitFor();
    await page
      .getByRole('navigation', { name: 'Email settings' })
      .getByRole('link', { name: 'Sender addresses' })
      .waitFor();
    await screenshot(page, 'senders-empty');

    const field = page.getByRole('textbox', { name: 'Email address' });
    await field.fill('not an address');
    await field.press('Enter');
    await page.getByText('Enter a valid email address.').waitFor();

    const sender = uniqueEmail('sender');
    await field.fill(sender);
    await field.press('Enter');
    await page.getByText(sender, { exact: true }).waitFor();
    await page.getByRole('row', { name: sender }).getByText('Pending').waitFor();
    await page.getByRole('button', { name: `Resend verification to ${sender}` }).click();
    await page.getByText(sendingMessages.verificationSent).first().waitFor();
    await screenshot(page, 'senders-pending');

    // The address's owner reads the mail in the mailbox and follows the link, without signing in.
    const reader = (await newPage(browser)).page;
    const href = await openVerificationLink(reader, sender);
    await reader.goto(href);
    await reader.getByRole('heading', { name: 'Address verified' }).waitFor();
    await reader.getByText(sendingMessages.addressVerified(sender)).waitFor();
    await screenshot(reader, 'senders-verified-public');
    // The link works once.
    await reader.goto(href);
    await reader.getByText(sendingMessages.verificationLinkUsed).waitFor();
    await screenshot(reader, 'senders-link-used');

    await page.reload();
    await page.getByRole('row', { name: sender }).getByText('Verified', { exact: true }).waitFor();
    expect(await page.getByRole('row', { name: sender }).getByText('Pending').count()).toBe(0);

    // Removing asks first.
    await page.getByRole('button', { name: `Remove ${sender}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).waitFor();
    await checkAccessibility(page);
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await page.getByText(sendingMessages.addressRemoved).first().waitFor();
    await page.getByRole('heading', { name: 'No sender addresses yet' }).waitFor();

    const narrow = (await newPage(browser, { width: 390, height: 844 })).page;
    await logIn(narrow, user.email, user.password, '/settings/email/addresses');
    await narrow.getByRole('heading', { name: 'No sender addresses yet' }).waitFor();
    await screenshot(narrow, 'senders-narrow');
  });

  it('adds a domain from a pasted URL, publishes its records, checks them, and explains a missing one', async () => {
    const user = await createUser();
    const session = await api('POST', '/v1/accounts/login/', { email: user.email, password: user.password });
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, '/settings/email/domains');
    await page.getByRole('heading', { name: 'No domains yet' }).waitFor();
    const field = page.getByRole('textbox', { name: 'Domain' });
    await field.fill('localhost');
    await page.getByText(sendingMessages.invalidDomain).waitFor();
    await field.fill('https://www.Example-Shop.com/path');
    await page.getByText("We'll use example-shop.com").waitFor();
    await screenshot(page, 'domains-add');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.waitForURL(/\/settings\/email\/domains\/\d+$/);
    const id = Number(/(\d+)$/.exec(page.url())![1]);
    await page.getByRole('heading', { name: 'example-shop.com', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'DKIM' }).waitFor();
    await page.getByText('Not checked yet').first().waitFor();

    // The records as the page shows them; the DKIM key is the account's own.
    const { body } = await api('GET', `/v1/settings/email/domains/${id}`, undefined, session.cookie);
    const records = body.domain.records as DnsRecord[];
    expect(records.map((r) => r.kind)).toEqual(expect.arrayContaining(['dkim', 'spf', 'dmarc']));
    const dkim = records.find((r) => r.kind === 'dkim')!;
    await page.getByText(dkim.value).waitFor();
    await page.getByRole('button', { name: 'Copy DKIM value' }).waitFor();

    publish(records);
    await page.getByRole('button', { name: 'Check DNS records' }).click();
    await page.getByText(sendingMessages.domainVerified).waitFor();
    await expect.poll(() => page.getByText('Pass', { exact: true }).count()).toBe(records.length);
    await page.getByText('Verified', { exact: true }).first().waitFor();
    await screenshot(page, 'domain-verified');

    // An address on a verified domain needs no mail.
    await page.goto('/settings/email/addresses');
    await page.getByRole('textbox', { name: 'Email address' }).fill('news@example-shop.com');
    expect(await page.getByRole('textbox', { name: 'Email address' }).inputValue()).toBe(
      'news@example-shop.com',
    );
    // The server's answer is checked too, so a failure says whether the form was sent and what came back.
    const added = page.waitForResponse(
      (r) => r.request().method() === 'POST' && r.url().endsWith('/v1/settings/email/addresses'),
    );
    await page.getByRole('button', { name: 'Add address' }).click();
    const answer = await added;
    expect(`${answer.status()} ${await answer.text()}`).toMatch(/^20\d .*"verifiedBy":"domain"/);
    await page.getByRole('row', { name: 'news@example-shop.com' }).getByText('Verified via domain').waitFor();

    // DMARC taken away: the check says what to change.
    const dmarc = records.find((r) => r.kind === 'dmarc')!;
    writeZone((zone) => {
      delete zone[dmarc.host.toLowerCase().replace(/\.$/, '')];
    });
    await page.goto(`/settings/email/domains/${id}`);
    await page.getByRole('button', { name: 'Check DNS records' }).click();
    await page.getByText(sendingMessages.domainNotVerified).waitFor();
    const dmarcCard = page.getByRole('region', { name: 'DMARC' });
    await dmarcCard.getByText('Missing').waitFor();
    expect(await dmarcCard.getByRole('listitem').count()).toBeGreaterThan(0);
    await screenshot(page, 'domain-dmarc-missing');

    // A DNS server that fails is never taken for a missing record.
    const dkimHost = dkim.host.toLowerCase().replace(/\.$/, '');
    writeZone((zone) => {
      zone[dkimHost] = { fail: 'servfail' };
    });
    await page.getByRole('button', { name: 'Check DNS records' }).click();
    await page.getByText(sendingMessages.domainCouldNotCheck).waitFor();
    await page.getByRole('region', { name: 'DKIM' }).getByText('Could not check', { exact: true }).waitFor();
    publish([dkim]);

    const narrow = (await newPage(browser, { width: 390, height: 844 })).page;
    await logIn(narrow, user.email, user.password, `/settings/email/domains/${id}`);
    await narrow.getByRole('heading', { name: 'DKIM' }).waitFor();
    await screenshot(narrow, 'domain-narrow');

    // Unknown ids get a page of their own; deleting asks 'Really delete?'.
    await page.goto('/settings/email/domains/999999');
    await page.getByRole('heading', { name: sendingMessages.domainNotFound }).waitFor();
    await page.goto('/settings/email/domains');
    await page
      .getByRole('row', { name: /example-shop\.com/ })
      .getByText('Failing')
      .waitFor();
    await screenshot(page, 'domains-list');
    await page.getByRole('button', { name: 'Delete example-shop.com' }).click();
    await page.getByRole('dialog', { name: sendingMessages.reallyDelete }).waitFor();
    await checkAccessibility(page);
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('example-shop.com deleted.').first().waitFor();
    await page.getByRole('heading', { name: 'No domains yet' }).waitFor();
  });

  it('a teammate without emailSettings:write sees addresses and domains read-only, and the server refuses changes', async () => {
    const owner = await createUser();
    const ownerSession = await api('POST', '/v1/accounts/login/', {
      email: owner.email,
      password: owner.password,
    });
    const added = await api(
      'POST',
      '/v1/settings/email/addresses',
      { email: 'hello@readonly-shop.com' },
      ownerSession.cookie,
    );
    expect(added.status).toBe(201);
    const domain = (
      await api('POST', '/v1/settings/email/domains', { domain: 'readonly-shop.com' }, ownerSession.cookie)
    ).body.domain;
    const viewerEmail = uniqueEmail('viewer');
    const scopes = (await api('GET', '/v1/accounts', undefined, ownerSession.cookie)).body.teamMember
      .accountData.scopes as { id: string }[];
    await api(
      'POST',
      '/v1/team-members',
      {
        name: 'Vera Viewer',
        email: viewerEmail,
        scopes: scopes.map((scope) => ({
          id: scope.id,
          enabled: scope.id !== 'emailSettings:write' && scope.id !== 'account:write',
        })),
      },
      ownerSession.cookie,
    );
    const token = await invitationToken(viewerEmail);
    expect(
      (
        await api('POST', '/v1/team-members/invitations/accept', {
          token,
          password: 'viewer password 1',
        })
      ).status,
    ).toBe(200);

    const { page } = await newPage(browser);
    await logIn(page, viewerEmail, 'viewer password 1', '/settings/email/addresses');
    await page.getByText('hello@readonly-shop.com', { exact: true }).waitFor();
    await page.getByText('You can see the sender addresses.').waitFor();
    expect(await page.getByRole('textbox', { name: 'Email address' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /Remove|Resend/ }).count()).toBe(0);
    await screenshot(page, 'senders-read-only');
    await page.goto(`/settings/email/domains/${domain.id}`);
    await page.getByRole('heading', { name: 'DKIM' }).waitFor();
    expect(await page.getByRole('button', { name: 'Check DNS records' }).count()).toBe(0);
    const status = await page.evaluate(
      async () =>
        (
          await fetch('/v1/settings/email/addresses', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: 'sneaky@readonly-shop.com' }),
          })
        ).status,
    );
    expect(status).toBe(403);
  });
});
