import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { webhookRoutes } from '../src/features/bounces/bounces.routes.ts';
import { startInboundSmtp, type InboundSmtp } from '../src/features/bounces/inbound-smtp.ts';
import { createSnsVerifier } from '../src/features/bounces/sns.ts';
import { buildApp } from '../src/app/build-app.ts';
import { createTestContext, registerUser, storedEvents, uniqueEmail, type TestContext } from './helpers.ts';

/**
 * What the bounce tests share: a server configured for every provider's webhook, the webhook app (its SNS
 * certificates and subscription confirmations recorded) and the inbound SMTP server, an account that was sent a
 * message, and a delivery report about one. `ctx`, `hooks` and `inbound` are the current file's: each file calls
 * useBouncesContext(), whose hooks build them anew (the test worker shares this module between files).
 */
export const topicArn = 'arn:aws:sns:eu-west-1:123456789012:herald-bounces';
export const certUrl = 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-test.pem';
export const mailgunKey = 'mailgun-signing-key-for-tests';
export const sendgridKeys = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const sendgridPublic = sendgridKeys.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

// A certificate of our own in place of Amazon's (openssl, as SNS's are X.509 with RSA keys).
const certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-sns-'));
execFileSync(
  'openssl',
  [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    path.join(certDir, 'key.pem'),
    '-out',
    path.join(certDir, 'cert.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=sns.amazonaws.com',
  ],
  { stdio: 'ignore' },
);
export const snsKey = fs.readFileSync(path.join(certDir, 'key.pem'), 'utf8');
const snsCert = fs.readFileSync(path.join(certDir, 'cert.pem'), 'utf8');

export let ctx: TestContext;
export let hooks: FastifyInstance;
export let inbound: InboundSmtp;
/** The certificate addresses SNS verification fetched, and the subscriptions confirmed, in this file. */
export const certificateFetches: string[] = [];
export const confirmed: string[] = [];

export function useBouncesContext(): void {
  beforeAll(async () => {
    certificateFetches.length = 0;
    confirmed.length = 0;
    ctx = await createTestContext({
      SES_SNS_TOPIC_ARNS: topicArn,
      POSTMARK_WEBHOOK_AUTH: 'herald:postmark-secret',
      SENDGRID_WEBHOOK_PUBLIC_KEY: sendgridPublic,
      MAILGUN_WEBHOOK_SIGNING_KEY: mailgunKey,
    });
    const sns = createSnsVerifier(async (url) => {
      certificateFetches.push(url.href);
      return snsCert;
    });
    hooks = await buildApp(
      ctx.services,
      webhookRoutes({ sns, confirmSubscription: async (url) => void confirmed.push(url.href) }),
    );
    inbound = await startInboundSmtp(ctx.services, { port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await inbound.close();
    await hooks.close();
    await ctx.close();
  });
}

/** An account with one person who was sent broadcast 100 under a Message-ID of ours. */
export async function sentMessage() {
  const owner = await registerUser(ctx.app);
  const accountId = owner.account.accountId as number;
  const email = uniqueEmail('recipient');
  const person = (await owner.client.post('/v1/people/?source=manual', { email })).body.user as {
    id: number;
  };
  const messageId = `<${crypto.randomBytes(16).toString('hex')}@localhost>`;
  await ctx.services.db
    .insertInto('deliveries')
    .values({
      accountId,
      sourceKind: 'broadcast',
      sourceId: 100,
      personId: person.id,
      emailId: 7,
      toAddress: email,
      status: 'sent',
      messageId,
      sentAt: new Date(),
    })
    .execute();
  return { owner, accountId, email, personId: person.id, messageId };
}
export type Sent = Awaited<ReturnType<typeof sentMessage>>;

export const suppression = (s: Sent) =>
  ctx.services.db
    .selectFrom('suppressions')
    .selectAll()
    .where('accountId', '=', s.accountId)
    .where('email', '=', s.email)
    .executeTakeFirst();
export const feedbackEvents = async (s: Sent) =>
  (await storedEvents(ctx.services, s.accountId))
    .filter((e) => e.type === 'email' && (e.name === 'bounced' || e.name === 'complained'))
    .map((e) => ({ name: e.name, data: e.data, personId: e.personId }));

export function dsn(recipient: string, messageId: string, action: string, status: string): string {
  return [
    'From: Mail Delivery System <MAILER-DAEMON@mx.example.net>',
    `To: bounces@herald.test`,
    'Subject: Undelivered Mail Returned to Sender',
    `Message-ID: <${crypto.randomUUID()}@mx.example.net>`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="REPORT"',
    '',
    '--REPORT',
    'Content-Type: text/plain',
    '',
    'Your message could not be delivered.',
    '',
    '--REPORT',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.net',
    '',
    `Original-Recipient: rfc822; ${recipient}`,
    `Final-Recipient: rfc822; ${recipient}`,
    `Action: ${action}`,
    `Status: ${status}`,
    `Diagnostic-Code: smtp; 550 ${status} mailbox unavailable`,
    '',
    '--REPORT',
    'Content-Type: text/rfc822-headers',
    '',
    'From: news@herald.test',
    `To: ${recipient}`,
    `Message-ID: ${messageId}`,
    'Subject: Our news',
    '',
    '--REPORT--',
    '',
  ].join('\r\n');
}
