import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookRoutes } from '../src/features/bounces/bounces.routes.ts';
import { recordFeedback } from '../src/features/bounces/feedback.service.ts';
import { startInboundSmtp, type InboundSmtp } from '../src/features/bounces/inbound-smtp.ts';
import { createSnsVerifier } from '../src/features/bounces/sns.ts';
import { buildApp } from '../src/app/build-app.ts';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';

const topicArn = 'arn:aws:sns:eu-west-1:123456789012:herald-bounces';
const certUrl = 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-test.pem';
const mailgunKey = 'mailgun-signing-key-for-tests';
const sendgridKeys = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const sendgridPublic = sendgridKeys.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

// A certificate of our own in place of Amazon's (openssl, as SNS's are X.509 with RSA keys).
const certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-sns-'));
execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(certDir, 'key.pem'), '-out', path.join(certDir, 'cert.pem'), '-days', '2', '-subj', '/CN=sns.amazonaws.com'], { stdio: 'ignore' });
const snsKey = fs.readFileSync(path.join(certDir, 'key.pem'), 'utf8');
const snsCert = fs.readFileSync(path.join(certDir, 'cert.pem'), 'utf8');

let ctx: TestContext;
let hooks: FastifyInstance;
let inbound: InboundSmtp;
const certificateFetches: string[] = [];
const confirmed: string[] = [];

beforeAll(async () => {
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
  hooks = await buildApp(ctx.services, webhookRoutes({ sns, confirmSubscription: async (url) => void confirmed.push(url.href) }));
  inbound = await startInboundSmtp(ctx.services, { port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await inbound.close();
  await hooks.close();
  await ctx.close();
});

/** An account with one person who was sent broadcast 100 under a Message-ID of ours. */
async function sentMessage() {
  const owner = await registerUser(ctx.app);
  const accountId = owner.account.accountId as number;
  const email = uniqueEmail('recipient');
  const person = (await owner.client.post('/v1/people/?source=manual', { email })).body.user as { id: number };
  const messageId = `<${crypto.randomBytes(16).toString('hex')}@localhost>`;
  await ctx.services.db
    .insertInto('deliveries')
    .values({ accountId, sourceKind: 'broadcast', sourceId: 100, personId: person.id, emailId: 7, toAddress: email, status: 'sent', messageId, sentAt: new Date() })
    .execute();
  return { owner, accountId, email, personId: person.id, messageId };
}
type Sent = Awaited<ReturnType<typeof sentMessage>>;

const suppression = (s: Sent) => ctx.services.db.selectFrom('suppressions').selectAll().where('accountId', '=', s.accountId).where('email', '=', s.email).executeTakeFirst();
const feedbackEvents = (s: Sent) =>
  ctx.services.db.selectFrom('events').select(['name', 'data', 'personId']).where('accountId', '=', s.accountId).where('type', '=', 'email').where('name', 'in', ['bounced', 'complained']).execute();

function dsn(recipient: string, messageId: string, action: string, status: string): string {
  return [
    'From: Mail Delivery System <MAILER-DAEMON@mx.example.net>', `To: bounces@herald.test`, 'Subject: Undelivered Mail Returned to Sender',
    `Message-ID: <${crypto.randomUUID()}@mx.example.net>`, 'MIME-Version: 1.0', 'Content-Type: multipart/report; report-type=delivery-status; boundary="REPORT"', '',
    '--REPORT', 'Content-Type: text/plain', '', 'Your message could not be delivered.', '',
    '--REPORT', 'Content-Type: message/delivery-status', '', 'Reporting-MTA: dns; mx.example.net', '',
    `Original-Recipient: rfc822; ${recipient}`, `Final-Recipient: rfc822; ${recipient}`, `Action: ${action}`, `Status: ${status}`, `Diagnostic-Code: smtp; 550 ${status} mailbox unavailable`, '',
    '--REPORT', 'Content-Type: text/rfc822-headers', '', 'From: news@herald.test', `To: ${recipient}`, `Message-ID: ${messageId}`, 'Subject: Our news', '',
    '--REPORT--', '',
  ].join('\r\n');
}

function arf(recipient: string, messageId: string): string {
  return [
    'From: feedback@isp.example', 'To: abuse@herald.test', 'Subject: Abuse report', 'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=feedback-report; boundary="ARF"', '',
    '--ARF', 'Content-Type: text/plain', '', 'This is an email abuse report.', '',
    '--ARF', 'Content-Type: message/feedback-report', '', 'Feedback-Type: abuse', 'User-Agent: ISP-FBL/1.0', 'Version: 1', `Original-Rcpt-To: <${recipient}>`, '',
    '--ARF', 'Content-Type: message/rfc822', '', 'From: news@herald.test', `To: ${recipient}`, `Message-ID: ${messageId}`, 'Subject: Our news', '', 'Hello', '',
    '--ARF--', '',
  ].join('\r\n');
}

async function mailToInbound(raw: string) {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: inbound.port, secure: false, ignoreTLS: true });
  try {
    await transport.sendMail({ envelope: { from: 'mailer-daemon@mx.example.net', to: 'bounces@herald.test' }, raw });
  } finally {
    transport.close();
  }
}

describe('inbound SMTP reports', () => {
  it('a DSN with 5.x.x suppresses the address and records bounced; a 4.x.x one records a soft bounce only', async () => {
    const hard = await sentMessage();
    await mailToInbound(dsn(hard.email, hard.messageId, 'failed', '5.1.1'));
    expect(await suppression(hard)).toMatchObject({ reason: 'hard-bounce', source: 'dsn' });
    const events = await feedbackEvents(hard);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ name: 'bounced', personId: hard.personId, data: { broadcastId: 100, emailId: 7, messageId: hard.messageId } });
    expect((await hard.owner.client.get(`/v1/people/${hard.personId}`)).body.users[0]).toMatchObject({ unsubscribed: true, unsubscribeReason: 'hard-bounce' });

    const soft = await sentMessage();
    await mailToInbound(dsn(soft.email, soft.messageId, 'delayed', '4.2.2'));
    expect(await suppression(soft)).toBeUndefined();
    expect(await feedbackEvents(soft)).toMatchObject([{ name: 'bounced', data: { soft: true, messageId: soft.messageId } }]);
  });

  it('soft bounces of three different messages within 30 days suppress the address as a hard bounce; the same one thrice does not', async () => {
    const first = await sentMessage();
    const again = async (n: number) => {
      const messageId = `<${crypto.randomBytes(16).toString('hex')}@localhost>`;
      await ctx.services.db.insertInto('deliveries')
        .values({ accountId: first.accountId, sourceKind: 'broadcast', sourceId: 100 + n, personId: first.personId, emailId: 7, toAddress: first.email, status: 'sent', messageId, sentAt: new Date() })
        .execute();
      return messageId;
    };
    for (let i = 0; i < 3; i++) await mailToInbound(dsn(first.email, first.messageId, 'delayed', '4.2.2'));
    expect(await suppression(first)).toBeUndefined();
    await mailToInbound(dsn(first.email, await again(1), 'failed', '4.4.7'));
    expect(await suppression(first)).toBeUndefined();
    await mailToInbound(dsn(first.email, await again(2), 'delayed', '4.2.2'));
    expect(await suppression(first)).toMatchObject({ reason: 'hard-bounce', source: 'dsn', note: '3 soft bounces within 30 days' });
    expect((await feedbackEvents(first)).filter((e) => e.name === 'bounced')).toHaveLength(3);
  });

  it('an ARF report suppresses as a complaint; the same report twice is recorded once', async () => {
    const sent = await sentMessage();
    await mailToInbound(arf(sent.email, sent.messageId));
    await mailToInbound(arf(sent.email, sent.messageId));
    expect(await suppression(sent)).toMatchObject({ reason: 'complaint', source: 'arf' });
    expect(await feedbackEvents(sent)).toMatchObject([{ name: 'complained', data: { messageId: sent.messageId } }]);
  });

  it('a report for a Message-ID Herald never sent is accepted and recorded nowhere', async () => {
    const sent = await sentMessage();
    await mailToInbound(dsn(sent.email, '<not-ours@elsewhere.example>', 'failed', '5.1.1'));
    expect(await suppression(sent)).toBeUndefined();
    expect(await recordFeedback(ctx.services, { messageId: '<nope@x>', recipient: sent.email, kind: 'hard', detail: '', source: 'test' })).toEqual({ status: 'unknown-message', messageId: '<nope@x>' });
  });
});

function snsSigned(fields: Record<string, string>, key: crypto.KeyLike = snsKey) {
  const names = fields.Type === 'Notification' ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'] : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  const text = names.filter((n) => fields[n] !== undefined).map((n) => `${n}\n${fields[n]}\n`).join('');
  return { ...fields, SignatureVersion: '2', Signature: crypto.sign('RSA-SHA256', Buffer.from(text), key).toString('base64') };
}
const snsPost = (body: unknown) =>
  new Client(hooks, undefined).request('POST', '/v1/webhooks/bounces/ses', { rawBody: JSON.stringify(body), origin: null, headers: { 'content-type': 'text/plain; charset=UTF-8' } });
function sesBounce(sent: Sent, extra: Record<string, string> = {}) {
  const message = JSON.stringify({
    notificationType: 'Bounce',
    bounce: { bounceType: 'Permanent', bounceSubType: 'General', bouncedRecipients: [{ emailAddress: sent.email, status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }] },
    mail: { messageId: '0100018b-ses', headers: [{ name: 'Message-ID', value: sent.messageId }], commonHeaders: { messageId: sent.messageId } },
  });
  return { Type: 'Notification', MessageId: crypto.randomUUID(), TopicArn: topicArn, Message: message, Timestamp: new Date().toISOString(), SigningCertURL: certUrl, ...extra };
}

describe('Amazon SES through SNS', () => {
  it('takes a signed bounce, refuses a forged one and a certificate from another host', async () => {
    const sent = await sentMessage();
    const forged = { ...snsSigned(sesBounce(sent)), Signature: crypto.randomBytes(256).toString('base64') };
    expect((await snsPost(forged)).status).toBe(401);
    const ownKey = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    expect((await snsPost(snsSigned(sesBounce(sent), ownKey))).status).toBe(401);
    const before = certificateFetches.length;
    expect((await snsPost(snsSigned(sesBounce(sent, { SigningCertURL: 'https://evil.example.com/sns.amazonaws.com.pem' })))).status).toBe(401);
    expect((await snsPost(snsSigned(sesBounce(sent, { SigningCertURL: 'http://sns.eu-west-1.amazonaws.com/cert.pem' })))).status).toBe(401);
    expect(certificateFetches.length).toBe(before);
    expect((await snsPost(snsSigned(sesBounce(sent, { TopicArn: 'arn:aws:sns:eu-west-1:999999999999:someone-else' })))).status).toBe(403);
    expect((await snsPost({ hello: 'world' })).status).toBe(401);
    expect(await suppression(sent)).toBeUndefined();

    const signed = snsSigned(sesBounce(sent));
    const ok = await snsPost(signed);
    expect(ok).toMatchObject({ status: 200, body: { received: 1, recorded: 1 } });
    expect(await suppression(sent)).toMatchObject({ reason: 'hard-bounce', source: 'ses' });
    expect((await snsPost(signed)).body).toEqual({ received: 1, recorded: 0 });
    expect(await feedbackEvents(sent)).toHaveLength(1);
  });

  it('confirms a signed subscription at its SNS address', async () => {
    const subscribe = 'https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=x&Token=abc';
    const message = { Type: 'SubscriptionConfirmation', MessageId: crypto.randomUUID(), Token: 'abc', TopicArn: topicArn, Message: 'You have chosen to subscribe', SubscribeURL: subscribe, Timestamp: new Date().toISOString(), SigningCertURL: certUrl };
    expect((await snsPost(snsSigned(message))).status).toBe(200);
    expect(confirmed).toContain(subscribe);
  });
});

describe('Postmark, SendGrid and Mailgun webhooks', () => {
  const post = (url: string, raw: string, headers: Record<string, string> = {}) => new Client(hooks, undefined).request('POST', url, { rawBody: raw, origin: null, headers });

  it('Postmark: basic auth; the Message-ID comes from the bounce dump', async () => {
    const sent = await sentMessage();
    const body = JSON.stringify({ RecordType: 'Bounce', ID: 42, Type: 'HardBounce', TypeCode: 1, MessageID: crypto.randomUUID(), Email: sent.email, Details: 'smtp;550 5.1.1 unknown', Description: 'Hard bounce', Content: dsn(sent.email, sent.messageId, 'failed', '5.1.1') });
    expect((await post('/v1/webhooks/bounces/postmark', body)).status).toBe(401);
    expect((await post('/v1/webhooks/bounces/postmark', body, { authorization: `Basic ${Buffer.from('herald:wrong').toString('base64')}` })).status).toBe(401);
    expect(await suppression(sent)).toBeUndefined();
    const auth = { authorization: `Basic ${Buffer.from('herald:postmark-secret').toString('base64')}` };
    expect((await post('/v1/webhooks/bounces/postmark', body, auth)).body).toEqual({ received: 1, recorded: 1 });
    expect(await suppression(sent)).toMatchObject({ reason: 'hard-bounce', source: 'postmark' });
    const complaint = JSON.stringify({ RecordType: 'SpamComplaint', Type: 'SpamComplaint', Email: sent.email, MessageID: 'x', Metadata: { 'herald-message-id': sent.messageId } });
    expect((await post('/v1/webhooks/bounces/postmark', complaint, auth)).body).toEqual({ received: 1, recorded: 1 });
    expect((await feedbackEvents(sent)).map((e) => e.name).sort()).toEqual(['bounced', 'complained']);
  });

  it('SendGrid: ECDSA signature over timestamp and body; bounce hard, blocked soft, spamreport complaint', async () => {
    const hard = await sentMessage();
    const soft = await sentMessage();
    const body = JSON.stringify([
      { email: hard.email, event: 'bounce', type: 'bounce', status: '5.1.1', reason: '550 unknown user', 'smtp-id': hard.messageId, sg_event_id: 'e1', timestamp: 1 },
      { email: soft.email, event: 'bounce', type: 'blocked', status: '4.0.0', reason: 'blocked', 'smtp-id': soft.messageId, sg_event_id: 'e2', timestamp: 1 },
      { email: 'someone@example.com', event: 'delivered', 'smtp-id': '<other@localhost>', timestamp: 1 },
      { email: 'stranger@example.com', event: 'spamreport', 'smtp-id': '<not-ours@localhost>', timestamp: 1 },
    ]);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = crypto.sign('sha256', Buffer.from(timestamp + body), sendgridKeys.privateKey).toString('base64');
    const headers = (sig: string) => ({ 'x-twilio-email-event-webhook-signature': sig, 'x-twilio-email-event-webhook-timestamp': timestamp });
    expect((await post('/v1/webhooks/bounces/sendgrid', body, headers(crypto.sign('sha256', Buffer.from(timestamp + body + ' '), sendgridKeys.privateKey).toString('base64')))).status).toBe(401);
    expect((await post('/v1/webhooks/bounces/sendgrid', body)).status).toBe(401);
    expect(await suppression(hard)).toBeUndefined();
    expect((await post('/v1/webhooks/bounces/sendgrid', body, headers(signature))).body).toEqual({ received: 3, recorded: 2 });
    expect(await suppression(hard)).toMatchObject({ reason: 'hard-bounce', source: 'sendgrid' });
    expect(await suppression(soft)).toBeUndefined();
    expect(await feedbackEvents(soft)).toMatchObject([{ name: 'bounced', data: { soft: true } }]);
  });

  it('Mailgun: HMAC-SHA256 of timestamp and token; permanent failures and complaints', async () => {
    const sent = await sentMessage();
    const timestamp = String(Math.floor(Date.now() / 1000));
    const token = crypto.randomBytes(25).toString('hex');
    const eventData = { event: 'failed', severity: 'permanent', recipient: sent.email, reason: 'bounce', 'delivery-status': { code: 550, description: 'No such mailbox' }, message: { headers: { 'message-id': sent.messageId.slice(1, -1) } } };
    const sign = (key: string) => crypto.createHmac('sha256', key).update(timestamp + token).digest('hex');
    const forged = JSON.stringify({ signature: { timestamp, token, signature: sign('not-the-key') }, 'event-data': eventData });
    expect((await post('/v1/webhooks/bounces/mailgun', forged)).status).toBe(401);
    expect(await suppression(sent)).toBeUndefined();
    const body = JSON.stringify({ signature: { timestamp, token, signature: sign(mailgunKey) }, 'event-data': eventData });
    expect((await post('/v1/webhooks/bounces/mailgun', body)).body).toEqual({ received: 1, recorded: 1 });
    expect((await post('/v1/webhooks/bounces/mailgun', body)).body).toEqual({ received: 1, recorded: 0 });
    expect(await suppression(sent)).toMatchObject({ reason: 'hard-bounce', source: 'mailgun', note: '550 No such mailbox' });
    expect(await feedbackEvents(sent)).toHaveLength(1);
  });

  it('a provider without a configured key is refused', async () => {
    const bare = await createTestContext();
    try {
      const res = await new Client(bare.app, undefined).request('POST', '/v1/webhooks/bounces/mailgun', { rawBody: '{}', origin: null });
      expect(res.status).toBe(403);
    } finally {
      await bare.close();
    }
  });
});
