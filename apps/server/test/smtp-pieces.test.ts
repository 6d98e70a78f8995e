import { compileEmail } from '@herald/email';
import { planEmail, writePlannedPieces, type MimePieces } from '@herald/email/sending';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmtpConnection } from '../src/features/deliveries/smtp-client.ts';
import { startSmtpServer } from './smtp.ts';

/**
 * A planned message goes to the SMTP connection in pieces (the email's stretches, encoded once for the whole send,
 * and the person's own pieces) and is written into the connection's buffer, never joined into one string. The
 * server must receive exactly the bytes of the joined message, whatever the size and whatever came before.
 */
const account = {
  name: 'Analytical Engines',
  mailingAddress: '1 Engine Way, London',
  site: 'https://example.com',
};
const joined = (message: MimePieces) => Buffer.from(message.head + message.body.join(''), 'utf8');

function planned(to: string, firstName: string, paragraphs: number) {
  const paragraph =
    '<p>This week\'s news, with a <a href="https://example.com/read">link to read more</a>.</p>\n';
  const html = `<html><body><h1>Hello {{ person.firstName }}</h1>\n${paragraph.repeat(paragraphs)}<p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p></body></html>`;
  const email = compileEmail({ subject: 'Hello {{ person.firstName }}', preheader: '', html });
  const plan = planEmail(email, { tracking: { suffixFor: (target) => `sig/${encodeURIComponent(target)}` } });
  return writePlannedPieces(plan, { email: to, firstName }, account, {
    messageId: `<${firstName}@pieces.test>`,
    unsubscribeUrl: 'https://herald.test/public/unsubscribe?token=t',
    openPixelUrl: 'https://herald.test/t/o/token',
    linkPrefix: 'https://herald.test/t/c/token/',
    mime: { from: '"Bench" <news@example.com>', to },
  }).message;
}

describe('SMTP: a message in pieces', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let connection: SmtpConnection;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    connection = await SmtpConnection.open({ url: new URL(smtp.url) });
  });
  afterAll(async () => {
    connection.close();
    await smtp.close();
  });

  async function sendAndRead(to: string, message: MimePieces | string) {
    await connection.send({ from: 'news@example.com', to }, message, { wireReady: true });
    return smtp.raw.get(await smtp.waitFor(to))!;
  }

  it('arrives as the joined message, byte for byte, and as the same message sent whole', async () => {
    const message = planned('first@example.com', 'Ada', 20);
    expect(message.body.length).toBeGreaterThan(20);
    expect(message.head.endsWith('\r\n\r\n')).toBe(true);
    const bytes = await sendAndRead('first@example.com', message);
    expect(bytes.equals(joined(message))).toBe(true);
    const whole = planned('whole@example.com', 'Ada', 20);
    const wholeBytes = await sendAndRead('whole@example.com', whole.head + whole.body.join(''));
    expect(wholeBytes.equals(joined(whole))).toBe(true);
  });

  it('a message larger than the buffer grows it; a shorter one after it keeps nothing of the longer one', async () => {
    const large = planned('large@example.com', 'Grace', 1500);
    expect(joined(large).length).toBeGreaterThan(128 * 1024);
    expect((await sendAndRead('large@example.com', large)).equals(joined(large))).toBe(true);
    const small = planned('small@example.com', 'Lin', 1);
    expect((await sendAndRead('small@example.com', small)).equals(joined(small))).toBe(true);
  });

  it('a header block with UTF-8 (an international address) goes as UTF-8; the body stays ASCII', async () => {
    const message = planned('jürgen@bücher.example', 'Jürgen', 3);
    expect(/[^\x00-\x7f]/.test(message.head)).toBe(true);
    for (const piece of message.body) expect(/[^\x00-\x7f]/.test(piece)).toBe(false);
    // The envelope is the ASCII form; the header keeps the address as written.
    await connection.send({ from: 'news@example.com', to: 'juergen@example.com' }, message, {
      wireReady: true,
    });
    const mail = await smtp.waitFor('jürgen@bücher.example');
    expect(smtp.raw.get(mail)!.equals(joined(message))).toBe(true);
    expect(mail.subject).toBe('Hello Jürgen');
  });
});
