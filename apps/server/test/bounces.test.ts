import crypto from 'node:crypto';
import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { recordFeedback } from '../src/features/bounces/feedback.service.ts';
import {
  ctx,
  dsn,
  feedbackEvents,
  inbound,
  sentMessage,
  suppression,
  useBouncesContext,
} from './bounces-fixtures.ts';

// Delivery and feedback reports mailed to the inbound SMTP server (the providers' webhooks are
// bounces-webhooks.test.ts).
useBouncesContext();

function arf(recipient: string, messageId: string): string {
  return [
    'From: feedback@isp.example',
    'To: abuse@herald.test',
    'Subject: Abuse report',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=feedback-report; boundary="ARF"',
    '',
    '--ARF',
    'Content-Type: text/plain',
    '',
    'This is an email abuse report.',
    '',
    '--ARF',
    'Content-Type: message/feedback-report',
    '',
    'Feedback-Type: abuse',
    'User-Agent: ISP-FBL/1.0',
    'Version: 1',
    `Original-Rcpt-To: <${recipient}>`,
    '',
    '--ARF',
    'Content-Type: message/rfc822',
    '',
    'From: news@herald.test',
    `To: ${recipient}`,
    `Message-ID: ${messageId}`,
    'Subject: Our news',
    '',
    'Hello',
    '',
    '--ARF--',
    '',
  ].join('\r\n');
}

async function mailToInbound(raw: string) {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: inbound.port,
    secure: false,
    ignoreTLS: true,
  });
  try {
    await transport.sendMail({
      envelope: { from: 'mailer-daemon@mx.example.net', to: 'bounces@herald.test' },
      raw,
    });
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
    expect(events[0]).toMatchObject({
      name: 'bounced',
      personId: hard.personId,
      data: { broadcastId: 100, emailId: 7, messageId: hard.messageId },
    });
    expect((await hard.owner.client.get(`/v1/people/${hard.personId}`)).body.users[0]).toMatchObject({
      unsubscribed: true,
      unsubscribeReason: 'hard-bounce',
    });

    const soft = await sentMessage();
    await mailToInbound(dsn(soft.email, soft.messageId, 'delayed', '4.2.2'));
    expect(await suppression(soft)).toBeUndefined();
    expect(await feedbackEvents(soft)).toMatchObject([
      { name: 'bounced', data: { soft: true, messageId: soft.messageId } },
    ]);
  });

  it('soft bounces of three different messages within 30 days suppress the address as a hard bounce; the same one thrice does not', async () => {
    const first = await sentMessage();
    const again = async (n: number) => {
      const messageId = `<${crypto.randomBytes(16).toString('hex')}@localhost>`;
      await ctx.services.db
        .insertInto('deliveries')
        .values({
          accountId: first.accountId,
          sourceKind: 'broadcast',
          sourceId: 100 + n,
          personId: first.personId,
          emailId: 7,
          toAddress: first.email,
          status: 'sent',
          messageId,
          sentAt: new Date(),
        })
        .execute();
      return messageId;
    };
    for (let i = 0; i < 3; i++) await mailToInbound(dsn(first.email, first.messageId, 'delayed', '4.2.2'));
    expect(await suppression(first)).toBeUndefined();
    await mailToInbound(dsn(first.email, await again(1), 'failed', '4.4.7'));
    expect(await suppression(first)).toBeUndefined();
    await mailToInbound(dsn(first.email, await again(2), 'delayed', '4.2.2'));
    expect(await suppression(first)).toMatchObject({
      reason: 'hard-bounce',
      source: 'dsn',
      note: '3 soft bounces within 30 days',
    });
    expect((await feedbackEvents(first)).filter((e) => e.name === 'bounced')).toHaveLength(3);
  });

  it('an ARF report suppresses as a complaint; the same report twice is recorded once', async () => {
    const sent = await sentMessage();
    await mailToInbound(arf(sent.email, sent.messageId));
    await mailToInbound(arf(sent.email, sent.messageId));
    expect(await suppression(sent)).toMatchObject({ reason: 'complaint', source: 'arf' });
    expect(await feedbackEvents(sent)).toMatchObject([
      { name: 'complained', data: { messageId: sent.messageId } },
    ]);
  });

  it('a report for a Message-ID Herald never sent is accepted and recorded nowhere', async () => {
    const sent = await sentMessage();
    await mailToInbound(dsn(sent.email, '<not-ours@elsewhere.example>', 'failed', '5.1.1'));
    expect(await suppression(sent)).toBeUndefined();
    expect(
      await recordFeedback(ctx.services, {
        messageId: '<nope@x>',
        recipient: sent.email,
        kind: 'hard',
        detail: '',
        source: 'test',
      }),
    ).toEqual({ status: 'unknown-message', messageId: '<nope@x>' });
  });
});
