import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sendingMessages } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deliverJobKey } from '../src/features/deliveries/deliveries.service.ts';
import { SmtpConnection, SmtpError } from '../src/features/deliveries/smtp-client.ts';
import { createSendTransport } from '../src/features/deliveries/transport.ts';
import { enqueueJob } from '../src/jobs/enqueue.ts';
import { withAccount } from '../src/db/tenancy.ts';
import { newEmail } from './email-helpers.ts';
import { broadcastStatus, sendBroadcastTo as sendBroadcastTo_ } from './relay-broadcasts.ts';
import { createTestContext, uniqueEmail, type TestContext } from './helpers.ts';
import {
  makeCertificates,
  postfixInstalled,
  startPostfixRelay,
  type PostfixRelay,
  type TestCertificates,
} from './postfix.ts';
import { startSmtpServer } from './smtp.ts';
import { until } from './until.ts';

/**
 * Sending through Debian's Postfix as the relay (docs/broadcasts-and-sending.md, "Sending through a real mail server"): STARTTLS
 * with a certificate for the relay's name and address, signed by a test CA that Herald is given with
 * SMTP_TLS_CA_FILE. `.ci/run` installs Postfix; a machine without it skips this file, and CI fails instead.
 */
if (!postfixInstalled() && process.env.CI)
  throw new Error('Postfix is not installed: .ci/run installs it (apt-get install postfix)');

const origin = 'https://herald.test';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-relay-certs-'));
/** For the relay's own name and its addresses (not for "localhost"): what an operator's relay on the next machine has. */
let trusted: TestCertificates;
/** For the name "localhost" alone, from the same CA. */
let byName: TestCertificates;
/** From a CA Herald is not given. */
let untrusted: TestCertificates;
let sink: Awaited<ReturnType<typeof startSmtpServer>>;
let relay: PostfixRelay;

const dots = { sending: () => undefined, held: () => undefined, left: () => undefined };
const message = (to: string) => () => ({
  message: {
    envelope: { from: 'news@herald.test', to },
    raw: `From: news@herald.test\r\nTo: ${to}\r\nSubject: Through the relay\r\n\r\nHello.\r\n`,
  },
  summary: { to, from: 'news@herald.test', subject: 'Through the relay', text: 'Hello.', html: null },
});

/** Present this certificate from now on (a restart: sessions open with the old one end). */
const present = (certs: TestCertificates) =>
  relay.configure({ smtpd_tls_cert_file: certs.certFile, smtpd_tls_key_file: certs.keyFile });

describe.skipIf(!postfixInstalled())('sending through Postfix', () => {
  beforeAll(async () => {
    trusted = await makeCertificates(dir, {
      names: ['relay.herald.test'],
      addresses: ['127.0.0.1', '::1'],
      label: 'trusted',
    });
    byName = await makeCertificates(dir, {
      names: ['localhost'],
      addresses: [],
      label: 'by-name',
      ca: trusted,
    });
    untrusted = await makeCertificates(dir, {
      names: ['localhost'],
      addresses: ['127.0.0.1', '::1'],
      label: 'untrusted',
    });
    sink = await startSmtpServer();
    relay = await startPostfixRelay({
      relayTo: sink.url.replace('smtp://', ''),
      tls: trusted,
      // Recipients at later.test are answered 450, as a relay that is busy or greylisting does.
      settings: {
        smtpd_recipient_restrictions:
          'check_recipient_access inline:{ { later.test = DEFER Try again later } }, permit_mynetworks, reject',
      },
    });
  }, 60_000);
  afterAll(async () => {
    if (process.env.DEBUG_RELAY) console.log(relay?.log());
    await relay?.stop();
    await sink?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('the bulk client', () => {
    for (const [host, certs] of [
      ['127.0.0.1', () => trusted],
      ['localhost', () => byName],
    ] as const) {
      it(`starts TLS with the relay by ${host === 'localhost' ? 'name' : 'address'} (${host}) and hands a message over`, async () => {
        // The certificate names only what the client connected to: an address checked against a name fails.
        await present(certs());
        const to = uniqueEmail(`by-${host.replace(/\W/g, '')}`);
        const transport = createSendTransport({
          smtpUrl: `smtp://${host}:${relay.port}`,
          tls: { ca: fs.readFileSync(trusted.caFile, 'utf8') },
          connections: 1,
          ratePerSecond: 0,
        });
        const outcome = await transport.send(message(to), dots);
        transport.close();
        expect(outcome).toMatchObject({ ok: true, response: expect.stringMatching(/^250 /) });
        expect((await sink.waitFor(to)).subject).toBe('Through the relay');
        expect(relay.log()).toMatch(
          /Trusted TLS connection established|Anonymous TLS connection established/,
        );
      });
    }

    it('refuses a certificate for another name than the one connected to', async () => {
      await present(byName);
      const error = (await SmtpConnection.open({
        url: new URL(`smtp://127.0.0.1:${relay.port}`),
        tls: { ca: fs.readFileSync(trusted.caFile, 'utf8') },
      }).catch((e: unknown) => e)) as SmtpError;
      expect(error.opening).toBe('tls');
      expect(error.message).toMatch(
        /^Could not start TLS with the SMTP server at 127\.0\.0\.1:\d+: .*IP: 127\.0\.0\.1 is not in the cert's list/,
      );
      await present(trusted);
    });

    it('refuses a certificate no trusted CA signed, saying which step failed and why; never final for the message', async () => {
      const error = await SmtpConnection.open({ url: new URL(`smtp://127.0.0.1:${relay.port}`) }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SmtpError);
      expect((error as SmtpError).opening).toBe('tls');
      expect((error as SmtpError).message).toMatch(
        new RegExp(
          `^Could not start TLS with the SMTP server at 127\\.0\\.0\\.1:${relay.port}: .*(certificate|verify)`,
        ),
      );
      const transport = createSendTransport({
        smtpUrl: `smtp://127.0.0.1:${relay.port}`,
        connections: 1,
        ratePerSecond: 0,
      });
      const outcome = await transport.send(message(uniqueEmail('refused')), dots);
      transport.close();
      expect(outcome).toMatchObject({ ok: false, permanent: false, opening: 'tls' });
    });

    it('skips the check only when told to (SMTP_TLS_VERIFY=false)', async () => {
      const to = uniqueEmail('unchecked');
      const transport = createSendTransport({
        smtpUrl: `smtp://127.0.0.1:${relay.port}`,
        tls: { verify: false },
        connections: 1,
        ratePerSecond: 0,
      });
      const outcome = await transport.send(message(to), dots);
      transport.close();
      expect(outcome).toMatchObject({ ok: true });
      await sink.waitFor(to);
    });

    it('says a refused login is the login', async () => {
      // This relay offers no AUTH: a URL with credentials fails at the login step, before any message.
      const error = (await SmtpConnection.open({
        url: new URL(`smtp://user:secret@127.0.0.1:${relay.port}`),
        tls: { ca: fs.readFileSync(trusted.caFile, 'utf8') },
      }).catch((e: unknown) => e)) as SmtpError;
      expect(error.opening).toBe('login');
      expect(error.message).toMatch(/^The SMTP server at 127\.0\.0\.1:\d+ refused the login: /);
      expect(error.message).not.toContain('secret');
    });
  });

  describe('Herald pointed at the relay by address', () => {
    let ctx: TestContext;
    beforeAll(async () => {
      ctx = await createTestContext({
        SMTP_URL: `smtp://127.0.0.1:${relay.port}`,
        SMTP_TLS_CA_FILE: trusted.caFile,
        MAIL_FROM: 'Herald <no-reply@herald.test>',
        PUBLIC_URL: origin,
      });
      await ctx.startWorker();
    }, 60_000);
    afterAll(async () => {
      await present(trusted);
      await ctx?.close();
    });

    const sendBroadcastTo = (addresses: string[]) => sendBroadcastTo_(ctx, origin, addresses);
    const statusOf = broadcastStatus;
    /** The retries' time has come: the send's waiting rows are due now, and its job runs. */
    async function retryNow(accountId: number, id: number) {
      await ctx.services.db
        .updateTable('deliveries')
        .set({ notBefore: new Date() })
        .where('accountId', '=', accountId)
        .where('sourceId', '=', id)
        .where('status', '=', 'pending')
        .execute();
      await withAccount(ctx.services.db, accountId, (db) =>
        enqueueJob(
          db,
          'deliver',
          { accountId, kind: 'broadcast', sourceId: id },
          { jobKey: deliverJobKey(accountId, 'broadcast', id) },
        ),
      );
    }

    it('delivers a broadcast and a test email through the relay', async () => {
      const reader = uniqueEmail('reader');
      const { owner, id, fromEmail } = await sendBroadcastTo([reader]);
      expect((await sink.waitFor(reader, 30_000)).subject).toBe('Relay news');
      const done = await until(
        async () => {
          const status = await statusOf(owner.client, id);
          return status.item.status === 'sent' && status;
        },
        { timeout: 30_000, message: 'the broadcast is sent' },
      );
      expect(done.progress).toMatchObject({ sent: 1, failed: 0, problem: null });
      // The other mail path (test sends, verification mail) through the same relay and trust.
      const tester = uniqueEmail('tester');
      expect(
        (await owner.client.post('/v1/emails/test', { email: newEmail({ fromEmail }), sendTo: tester }))
          .status,
      ).toBe(200);
      await sink.waitFor(tester, 30_000);
    });

    it('shows a certificate it does not trust on the broadcast within a minute, alerts the account after three attempts, and sends everything once the relay is fixed', async () => {
      await present(untrusted);
      const warn = vi.spyOn(console, 'warn');
      const reader = uniqueEmail('held');
      const { owner, accountId, id } = await sendBroadcastTo([reader]);
      const started = Date.now();
      const held = await until(async () => (await statusOf(owner.client, id)).progress.problem, {
        timeout: 60_000,
        message: 'the problem shows',
      });
      expect(Date.now() - started).toBeLessThan(60_000);
      expect(held.message).toMatch(
        new RegExp(
          `^Could not start TLS with the SMTP server at 127\\.0\\.0\\.1:${relay.port}: .*(certificate|verify)`,
        ),
      );
      expect(held.failures).toBe(1);
      const status = await statusOf(owner.client, id);
      // Nothing failed for good: the broadcast still sends, its message waits for a retry.
      expect(status.item.status).toBe('sending');
      expect(status.progress).toMatchObject({ failed: 0, sent: 0 });
      expect(status.progress.pending + status.progress.sending).toBe(1);
      expect(
        warn.mock.calls.some((args) =>
          String(args[0]).includes(
            `broadcast ${id} of account ${accountId} is held up (attempt 1): Could not start TLS`,
          ),
        ),
      ).toBe(true);
      expect((await owner.client.get('/v1/accounts/issues')).body.issues).toEqual([]);

      // Two more attempts (each more than 5 s after the last, so each counts).
      for (const attempt of [2, 3]) {
        // Not a wait for work: attempts less than 5 s apart count as one (the rule under test), so real time passes.
        await new Promise((r) => setTimeout(r, 5_500));
        await retryNow(accountId, id);
        await until(async () => (await statusOf(owner.client, id)).progress.problem?.failures === attempt, {
          timeout: 30_000,
          message: `attempt ${attempt} is counted`,
        });
      }
      const latest = (await statusOf(owner.client, id)).progress.problem!;
      const issues = (await owner.client.get('/v1/accounts/issues')).body.issues as { message: string }[];
      expect(issues.map((issue) => issue.message)).toEqual([sendingMessages.mailServerAlert(latest.message)]);

      // The operator fixes the relay: the next attempt sends, the problem and the alert are gone.
      await present(trusted);
      await retryNow(accountId, id);
      expect((await sink.waitFor(reader, 30_000)).subject).toBe('Relay news');
      const sent = await until(
        async () => {
          const now = await statusOf(owner.client, id);
          return now.item.status === 'sent' && now;
        },
        { timeout: 30_000, message: 'the broadcast is sent' },
      );
      expect(sent.progress).toMatchObject({ sent: 1, failed: 0, problem: null });
      expect((await owner.client.get('/v1/accounts/issues')).body.issues).toEqual([]);
      warn.mockRestore();
    }, 120_000);

    it('keeps a message the relay answers with 4xx for a retry, and sends the rest', async () => {
      const later = `reader-${Date.now()}@later.test`;
      const now = uniqueEmail('now');
      const { owner, accountId, id } = await sendBroadcastTo([later, now]);
      await sink.waitFor(now, 30_000);
      const row = await until(
        () =>
          ctx.services.db
            .selectFrom('deliveries')
            .select(['status', 'lastError', 'notBefore'])
            .where('accountId', '=', accountId)
            .where('sourceId', '=', id)
            .where('toAddress', '=', later)
            .where('lastError', 'is not', null)
            .executeTakeFirst(),
        { timeout: 30_000, message: 'the 4xx is recorded' },
      );
      expect(row.status).toBe('pending');
      expect(row.lastError).toMatch(
        /^450 4\.7\.1 <.*@later\.test>: Recipient address rejected: Try again later$/,
      );
      expect(row.notBefore.getTime()).toBeGreaterThan(Date.now());
      const status = await statusOf(owner.client, id);
      expect(status.item.status).toBe('sending');
      // A refused recipient is not the relay being unreachable.
      expect(status.progress).toMatchObject({ sent: 1, failed: 0, waiting: 1, problem: null });
      expect((await owner.client.post(`/v1/broadcasts/${id}/cancel`, {})).status).toBe(200);
    });
  });
});
