import net from 'node:net';
import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import { sql } from 'kysely';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/connection.ts';

/** What a send answers: the server's reply, or an error that says whether trying again can help. */
export type SendOutcome = { ok: true; response: string } | { ok: false; permanent: boolean; error: string };

/** What the built-in mailbox shows of a message sent as raw MIME. */
export interface MessageSummary {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string | null;
}

export interface SendTransport {
  send(message: SendMailOptions, summary: MessageSummary): Promise<SendOutcome>;
  /** Messages that went to the built-in mailbox since the last call (written in one statement by the caller's flush). */
  takeMailbox(): { toAddress: string; fromAddress: string; subject: string; textBody: string; htmlBody: string | null; raw: string }[];
  close(): void;
}

/** 5xx replies are final (the address or the message is refused); anything else (4xx, a dropped or slow connection) is worth another try. */
export function isPermanent(error: unknown): boolean {
  const code = (error as { responseCode?: unknown }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

/**
 * The bulk transport: pooled SMTP (SMTP_URL) with SMTP_MAX_CONNECTIONS connections that each send many messages,
 * paced by SMTP_RATE_PER_SECOND when set; without SMTP_URL (outside production) messages go to the built-in mailbox.
 */
export function createSendTransport(config: Config): SendTransport {
  const mailbox: ReturnType<SendTransport['takeMailbox']> = [];
  let transport: Transporter;
  if (config.smtpUrl) {
    const url = new URL(config.smtpUrl);
    const secure = url.protocol === 'smtps:';
    transport = nodemailer.createTransport({
      host: url.hostname,
      port: Number(url.port) || (secure ? 465 : 587),
      secure,
      ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
      pool: true,
      maxConnections: config.sending.maxConnections,
      maxMessages: Infinity,
      ...(config.sending.ratePerSecond > 0 ? { rateDelta: 1000, rateLimit: config.sending.ratePerSecond } : {}),
      // Without TCP_NODELAY each message's closing dot waits for the server's delayed acknowledgement (~40 ms):
      // 8 connections then carry ~170 messages a second instead of ~1,400.
      getSocket: (options, callback) => {
        if (secure) return callback(null, false);
        const socket = net.connect(Number(options.port), String(options.host));
        socket.setNoDelay(true);
        socket.once('connect', () => callback(null, { connection: socket }));
        socket.once('error', (error) => callback(error, false));
      },
    } as SMTPPool.Options);
  } else {
    transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  }
  return {
    async send(message, summary) {
      try {
        const info = (await transport.sendMail(message)) as { response?: string; message?: Buffer };
        if (!config.smtpUrl) {
          mailbox.push({
            toAddress: summary.to,
            fromAddress: summary.from,
            subject: summary.subject,
            textBody: summary.text,
            htmlBody: summary.html,
            raw: info.message?.toString('utf8') ?? '',
          });
          return { ok: true, response: 'mailbox' };
        }
        return { ok: true, response: String(info.response ?? '250').slice(0, 500) };
      } catch (error) {
        return { ok: false, permanent: isPermanent(error), error: String(error).slice(0, 1000) };
      }
    },
    takeMailbox: () => mailbox.splice(0, mailbox.length),
    close: () => transport.close(),
  };
}

/** Write mailbox messages and keep only the newest DEV_MAILBOX_KEEP, so a 100,000-person broadcast does not fill the disk. */
export async function storeInMailbox(db: Database, rows: ReturnType<SendTransport['takeMailbox']>, keep: number): Promise<void> {
  if (!rows.length) return;
  await db.insertInto('devMailbox').values(rows).execute();
  await sql`delete from dev_mailbox where id <= (select id from dev_mailbox order by id desc offset ${keep} limit 1)`.execute(db);
}

const transports = new Map<string, SendTransport>();

/** The process's bulk transport for this configuration, created on first use and reused by every job. */
export function transportFor(config: Config): SendTransport {
  const key = `${config.smtpUrl ?? 'mailbox'}|${config.sending.maxConnections}|${config.sending.ratePerSecond}`;
  let transport = transports.get(key);
  if (!transport) {
    transport = createSendTransport(config);
    transports.set(key, transport);
  }
  return transport;
}

/** Close every pooled connection (server stop, test teardown). */
export function closeTransports(): void {
  for (const transport of transports.values()) transport.close();
  transports.clear();
}
