import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { until } from './until.ts';

/** A real SMTP server on a free loopback port that keeps what it receives. */
/** `refuse(address)` may answer a recipient with an SMTP error (code and text), as a provider would. */
export async function startSmtpServer(
  options: { refuse?: (address: string) => { code: number; message: string } | null } = {},
) {
  const received: ParsedMail[] = [];
  /** The bytes each message arrived as (what DKIM signed). */
  const raw = new WeakMap<ParsedMail, Buffer>();
  /** Messages still arriving: DATA begun, the message not yet kept (or its connection dropped). */
  let arriving = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const refusal = options.refuse?.(address.address);
      if (!refusal) return callback();
      return callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      arriving += 1;
      let ended = false;
      let counted = true;
      const arrived = () => {
        if (counted) arriving -= 1;
        counted = false;
      };
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('close', () => ended || arrived());
      stream.on('end', () => {
        ended = true;
        const source = Buffer.concat(chunks);
        simpleParser(source)
          .then((mail) => {
            raw.set(mail, source);
            received.push(mail);
            arrived();
            callback();
          })
          .catch((error: Error) => {
            arrived();
            callback(error);
          });
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    raw,
    /** Wait until a message to `to` has arrived. */
    waitFor(to: string, timeoutMs = 15_000): Promise<ParsedMail> {
      return until(
        () => received.find((m) => m.to && JSON.stringify(m.to).toLowerCase().includes(to.toLowerCase())),
        {
          timeout: timeoutMs,
          message: () => `a mail to ${to} (${received.length} received)`,
        },
      );
    },
    /** Wait until no message is arriving: every message a sender handed over is in `received`. */
    idle(timeoutMs = 15_000): Promise<boolean> {
      return until(() => arriving === 0, {
        timeout: timeoutMs,
        message: () => `the SMTP server idle (${arriving} messages arriving)`,
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function resetTokenFrom(mail: ParsedMail): string {
  const match = /\/reset-password\?token=([^\s"<]+)/.exec(mail.text ?? '');
  if (!match) throw new Error('no reset link in the mail');
  return decodeURIComponent(match[1]!);
}
