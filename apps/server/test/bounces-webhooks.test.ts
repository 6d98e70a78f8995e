import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  certificateFetches,
  certUrl,
  confirmed,
  dsn,
  feedbackEvents,
  hooks,
  mailgunKey,
  sendgridKeys,
  sentMessage,
  snsKey,
  suppression,
  topicArn,
  useBouncesContext,
  type Sent,
} from './bounces-fixtures.ts';
import { Client, createTestContext } from './helpers.ts';

// Bounces and complaints from the providers' webhooks: Amazon SES through SNS, Postmark, SendGrid and Mailgun (reports
// mailed to the inbound SMTP server are bounces.test.ts).
useBouncesContext();

function snsSigned(fields: Record<string, string>, key: crypto.KeyLike = snsKey) {
  const names =
    fields.Type === 'Notification'
      ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  const text = names
    .filter((n) => fields[n] !== undefined)
    .map((n) => `${n}\n${fields[n]}\n`)
    .join('');
  return {
    ...fields,
    SignatureVersion: '2',
    Signature: crypto.sign('RSA-SHA256', Buffer.from(text), key).toString('base64'),
  };
}
const snsPost = (body: unknown) =>
  new Client(hooks, undefined).request('POST', '/v1/webhooks/bounces/ses', {
    rawBody: JSON.stringify(body),
    origin: null,
    headers: { 'content-type': 'text/plain; charset=UTF-8' },
  });
function sesBounce(sent: Sent, extra: Record<string, string> = {}) {
  const message = JSON.stringify({
    notificationType: 'Bounce',
    bounce: {
      bounceType: 'Permanent',
      bounceSubType: 'General',
      bouncedRecipients: [
        { emailAddress: sent.email, status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' },
      ],
    },
    mail: {
      messageId: '0100018b-ses',
      headers: [{ name: 'Message-ID', value: sent.messageId }],
      commonHeaders: { messageId: sent.messageId },
    },
  });
  return {
    Type: 'Notification',
    MessageId: crypto.randomUUID(),
    TopicArn: topicArn,
    Message: message,
    Timestamp: new Date().toISOString(),
    SigningCertURL: certUrl,
    ...extra,
  };
}

describe('Amazon SES through SNS', () => {
  it('takes a signed bounce, refuses a forged one and a certificate from another host', async () => {
    const sent = await sentMessage();
    const forged = { ...snsSigned(sesBounce(sent)), Signature: crypto.randomBytes(256).toString('base64') };
    expect((await snsPost(forged)).status).toBe(401);
    const ownKey = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    expect((await snsPost(snsSigned(sesBounce(sent), ownKey))).status).toBe(401);
    const before = certificateFetches.length;
    expect(
      (
        await snsPost(
          snsSigned(sesBounce(sent, { SigningCertURL: 'https://evil.example.com/sns.amazonaws.com.pem' })),
        )
      ).status,
    ).toBe(401);
    expect(
      (
        await snsPost(
          snsSigned(sesBounce(sent, { SigningCertURL: 'http://sns.eu-west-1.amazonaws.com/cert.pem' })),
        )
      ).status,
    ).toBe(401);
    expect(certificateFetches.length).toBe(before);
    expect(
      (
        await snsPost(
          snsSigned(sesBounce(sent, { TopicArn: 'arn:aws:sns:eu-west-1:999999999999:someone-else' })),
        )
      ).status,
    ).toBe(403);
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
    const message = {
      Type: 'SubscriptionConfirmation',
      MessageId: crypto.randomUUID(),
      Token: 'abc',
      TopicArn: topicArn,
      Message: 'You have chosen to subscribe',
      SubscribeURL: subscribe,
      Timestamp: new Date().toISOString(),
      SigningCertURL: certUrl,
    };
    expect((await snsPost(snsSigned(message))).status).toBe(200);
    expect(confirmed).toContain(subscribe);
  });
});

describe('Postmark, SendGrid and Mailgun webhooks', () => {
  const post = (url: string, raw: string, headers: Record<string, string> = {}) =>
    new Client(hooks, undefined).request('POST', url, { rawBody: raw, origin: null, headers });

  it('Postmark: basic auth; the Message-ID comes from the bounce dump', async () => {
    const sent = await sentMessage();
    const body = JSON.stringify({
      RecordType: 'Bounce',
      ID: 42,
      Type: 'HardBounce',
      TypeCode: 1,
      MessageID: crypto.randomUUID(),
      Email: sent.email,
      Details: 'smtp;550 5.1.1 unknown',
      Description: 'Hard bounce',
      Content: dsn(sent.email, sent.messageId, 'failed', '5.1.1'),
    });
    expect((await post('/v1/webhooks/bounces/postmark', body)).status).toBe(401);
    expect(
      (
        await post('/v1/webhooks/bounces/postmark', body, {
          authorization: `Basic ${Buffer.from('herald:wrong').toString('base64')}`,
        })
      ).status,
    ).toBe(401);
    expect(await suppression(sent)).toBeUndefined();
    const auth = { authorization: `Basic ${Buffer.from('herald:postmark-secret').toString('base64')}` };
    expect((await post('/v1/webhooks/bounces/postmark', body, auth)).body).toEqual({
      received: 1,
      recorded: 1,
    });
    expect(await suppression(sent)).toMatchObject({ reason: 'hard-bounce', source: 'postmark' });
    const complaint = JSON.stringify({
      RecordType: 'SpamComplaint',
      Type: 'SpamComplaint',
      Email: sent.email,
      MessageID: 'x',
      Metadata: { 'herald-message-id': sent.messageId },
    });
    expect((await post('/v1/webhooks/bounces/postmark', complaint, auth)).body).toEqual({
      received: 1,
      recorded: 1,
    });
    expect((await feedbackEvents(sent)).map((e) => e.name).sort()).toEqual(['bounced', 'complained']);
  });

  it('SendGrid: ECDSA signature over timestamp and body; bounce hard, blocked soft, spamreport complaint', async () => {
    const hard = await sentMessage();
    const soft = await sentMessage();
    const body = JSON.stringify([
      {
        email: hard.email,
        event: 'bounce',
        type: 'bounce',
        status: '5.1.1',
        reason: '550 unknown user',
        'smtp-id': hard.messageId,
        sg_event_id: 'e1',
        timestamp: 1,
      },
      {
        email: soft.email,
        event: 'bounce',
        type: 'blocked',
        status: '4.0.0',
        reason: 'blocked',
        'smtp-id': soft.messageId,
        sg_event_id: 'e2',
        timestamp: 1,
      },
      { email: 'someone@example.com', event: 'delivered', 'smtp-id': '<other@localhost>', timestamp: 1 },
      { email: 'stranger@example.com', event: 'spamreport', 'smtp-id': '<not-ours@localhost>', timestamp: 1 },
    ]);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = crypto
      .sign('sha256', Buffer.from(timestamp + body), sendgridKeys.privateKey)
      .toString('base64');
    const headers = (sig: string) => ({
      'x-twilio-email-event-webhook-signature': sig,
      'x-twilio-email-event-webhook-timestamp': timestamp,
    });
    expect(
      (
        await post(
          '/v1/webhooks/bounces/sendgrid',
          body,
          headers(
            crypto
              .sign('sha256', Buffer.from(timestamp + body + ' '), sendgridKeys.privateKey)
              .toString('base64'),
          ),
        )
      ).status,
    ).toBe(401);
    expect((await post('/v1/webhooks/bounces/sendgrid', body)).status).toBe(401);
    expect(await suppression(hard)).toBeUndefined();
    expect((await post('/v1/webhooks/bounces/sendgrid', body, headers(signature))).body).toEqual({
      received: 3,
      recorded: 2,
    });
    expect(await suppression(hard)).toMatchObject({ reason: 'hard-bounce', source: 'sendgrid' });
    expect(await suppression(soft)).toBeUndefined();
    expect(await feedbackEvents(soft)).toMatchObject([{ name: 'bounced', data: { soft: true } }]);
  });

  it('Mailgun: HMAC-SHA256 of timestamp and token; permanent failures and complaints', async () => {
    const sent = await sentMessage();
    const timestamp = String(Math.floor(Date.now() / 1000));
    const token = crypto.randomBytes(25).toString('hex');
    const eventData = {
      event: 'failed',
      severity: 'permanent',
      recipient: sent.email,
      reason: 'bounce',
      'delivery-status': { code: 550, description: 'No such mailbox' },
      message: { headers: { 'message-id': sent.messageId.slice(1, -1) } },
    };
    const sign = (key: string) =>
      crypto
        .createHmac('sha256', key)
        .update(timestamp + token)
        .digest('hex');
    const forged = JSON.stringify({
      signature: { timestamp, token, signature: sign('not-the-key') },
      'event-data': eventData,
    });
    expect((await post('/v1/webhooks/bounces/mailgun', forged)).status).toBe(401);
    expect(await suppression(sent)).toBeUndefined();
    const body = JSON.stringify({
      signature: { timestamp, token, signature: sign(mailgunKey) },
      'event-data': eventData,
    });
    expect((await post('/v1/webhooks/bounces/mailgun', body)).body).toEqual({ received: 1, recorded: 1 });
    expect((await post('/v1/webhooks/bounces/mailgun', body)).body).toEqual({ received: 1, recorded: 0 });
    expect(await suppression(sent)).toMatchObject({
      reason: 'hard-bounce',
      source: 'mailgun',
      note: '550 No such mailbox',
    });
    expect(await feedbackEvents(sent)).toHaveLength(1);
  });

  it('a provider without a configured key is refused', async () => {
    const bare = await createTestContext();
    try {
      const res = await new Client(bare.app, undefined).request('POST', '/v1/webhooks/bounces/mailgun', {
        rawBody: '{}',
        origin: null,
      });
      expect(res.status).toBe(403);
    } finally {
      await bare.close();
    }
  });
});
