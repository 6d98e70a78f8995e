import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  makeCertificates,
  postfixInstalled,
  startPostfixRelay,
  type PostfixRelay,
  type TestCertificates,
} from '../../apps/server/test/postfix.ts';
import { startSmtpServer } from '../../apps/server/test/smtp.ts';
import { createDatabase, dropDatabase } from '../../apps/server/test/test-database.ts';
import { watchAccessibility } from '../support/accessibility.ts';
import { launchBrowser, screenshot, uniqueEmail, visitorAddress } from '../support/browser.ts';
import { startExtraServer, type ExtraServer } from '../support/extra-server.ts';

/**
 * An operator points Herald at the mail server on the next machine (Debian's Postfix, by its address) and a
 * marketer sends a broadcast (docs/broadcasts-and-sending.md, "Sending through a real mail server"). While the relay presents a
 * certificate Herald does not trust, the broadcast page says so and why within a minute; once the relay is fixed the
 * broadcast goes out. A Herald of its own, on a database of its own: the shared server's worker sends to the
 * built-in mailbox and must not take this account's sends.
 */
if (!postfixInstalled() && process.env.CI)
  throw new Error('Postfix is not installed: .ci/run installs it (apt-get install postfix)');

const certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-e2e-relay-'));
const databaseName = `herald_e2e_mail_${process.pid}`;
const adminUrl = () => inject('databaseUrl').replace(/\/[^/?]+(\?|$)/, '/postgres$1');
let trusted: TestCertificates;
let untrusted: TestCertificates;
let sink: Awaited<ReturnType<typeof startSmtpServer>>;
let relay: PostfixRelay;
let server: ExtraServer | undefined;
let databaseUrl: string;
let browser: Browser;

async function call(method: string, url: string, body?: unknown, cookie?: string) {
  const res = await fetch(`${server!.base}${url}`, {
    method,
    headers: {
      'content-type': 'application/json',
      origin: server!.base,
      'x-forwarded-for': visitorAddress(),
      ...(cookie ? { cookie } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text ? JSON.parse(text) : undefined,
    cookie: res.headers.get('set-cookie')?.split(';')[0] ?? cookie,
  };
}

async function query(text: string, values: unknown[] = []) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

describe.skipIf(!postfixInstalled())('sending through a real mail server', () => {
  beforeAll(async () => {
    trusted = await makeCertificates(certDir, {
      names: ['relay.herald.test'],
      addresses: ['127.0.0.1', '::1'],
      label: 'trusted',
    });
    untrusted = await makeCertificates(certDir, {
      names: ['relay.herald.test'],
      addresses: ['127.0.0.1', '::1'],
      label: 'untrusted',
    });
    sink = await startSmtpServer();
    relay = await startPostfixRelay({ relayTo: sink.url.replace('smtp://', ''), tls: untrusted });
    databaseUrl = await createDatabase(adminUrl(), databaseName);
    server = await startExtraServer({
      name: 'mail-server',
      databaseUrl,
      env: { SMTP_URL: `smtp://127.0.0.1:${relay.port}`, SMTP_TLS_CA_FILE: trusted.caFile },
    });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await relay?.stop();
    await sink?.close();
    if (databaseUrl) await dropDatabase(adminUrl(), databaseName);
    fs.rmSync(certDir, { recursive: true, force: true });
  });

  it('shows the relay refusing TLS on the broadcast page within a minute, then sends once the relay is fixed', async () => {
    const email = uniqueEmail('operator');
    const password = 'journey password 1';
    const created = await call('POST', '/v1/accounts/', {
      email,
      source: 'journey',
      timezone: 'Europe/Berlin',
    });
    expect(created.status).toBe(201);
    const cookie = created.cookie;
    await call(
      'PATCH',
      '/v1/accounts/me',
      {
        name: 'Mail Operator',
        phone: '+49 30 000000',
        site: 'relay.example.com',
        industry: 'Agency',
        estimatedContacts: '0 - 500',
        goals: 'Send',
        flags: { hasFilledGoals: true },
      },
      cookie,
    );
    await call('POST', '/v1/accounts/initial-password', { password }, cookie);
    const accountId = created.body.accountId as number;
    const fromEmail = uniqueEmail('news');
    await query("insert into sender_addresses (account_id, email, status) values ($1, $2, 'verified')", [
      accountId,
      fromEmail,
    ]);
    const reader = uniqueEmail('reader');
    expect(
      (await call('POST', '/v1/people/?source=manual', { email: reader, firstName: 'Rita' }, cookie)).status,
    ).toBe(201);
    const emailBody = {
      name: 'Relay news',
      subject: 'Relay news',
      fromName: 'Herald',
      fromEmail,
      html: '<p>Hello {{ person.firstName }}</p>',
    };
    const made = await call('POST', '/v1/emails', emailBody, cookie);
    expect(made.status).toBe(201);
    const broadcast = await call(
      'POST',
      '/v1/broadcasts',
      { name: 'Through the relay', emailId: made.body.email.id },
      cookie,
    );
    const id = broadcast.body.item.id as number;

    const context = await browser.newContext({
      baseURL: server!.base,
      viewport: { width: 1280, height: 800 },
      extraHTTPHeaders: { 'x-forwarded-for': visitorAddress() },
    });
    const page: Page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await watchAccessibility(context, page);
    await page.goto('/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));

    expect((await call('POST', `/v1/broadcasts/${id}/send`, {}, cookie)).status).toBe(200);
    const sentAt = Date.now();
    await page.goto(`/broadcasts/${id}`);
    const problem = page.getByTestId('send-problem');
    await problem.getByText('Sending is held up').waitFor({ timeout: 60_000 });
    expect(Date.now() - sentAt).toBeLessThan(60_000);
    await problem
      .getByText(
        new RegExp(
          `Could not start TLS with the SMTP server at 127\\.0\\.0\\.1:${relay.port}: unable to verify the first certificate`,
        ),
      )
      .waitFor();
    await problem.getByText(/Nothing is lost: Herald tries again every few minutes/).waitFor();
    await screenshot(page, 'mail-server-held-up');

    // The operator gives the relay a certificate from the CA Herald trusts; the retry's time comes (the sweeper
    // takes rows that have waited a minute), and the broadcast goes out.
    await relay.configure({ smtpd_tls_cert_file: trusted.certFile, smtpd_tls_key_file: trusted.keyFile });
    await query(
      "update deliveries set not_before = now() - interval '61 seconds' where account_id = $1 and source_id = $2 and status = 'pending'",
      [accountId, id],
    );
    expect((await sink.waitFor(reader, 60_000)).subject).toBe('Relay news');
    await page.getByRole('heading', { name: 'Results' }).waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('send-problem').count()).toBe(0);
    await screenshot(page, 'mail-server-sent');
    await context.close();
  }, 180_000);
});
