import crypto from 'node:crypto';
import tls from 'node:tls';
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool';
import { sql } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/connection.ts';
import { enqueueJob } from '../jobs/enqueue.ts';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** A whole From header (`"Name" <address>`); MAIL_FROM when absent. */
  from?: string;
  replyTo?: string | null;
  /** Extra headers, such as List-Unsubscribe; Message-ID is derived from the key, never taken from here. */
  headers?: Record<string, string>;
  accountId?: number;
  /** The account's verified sender domain whose DKIM key signs the message. */
  dkimDomainId?: number | null;
  /** Same key, same message: a second queueMail with it does nothing, a retried job sends once. */
  idempotencyKey: string;
}

/** The DKIM key of an account's verified domain (nodemailer's dkim option), or null when it cannot sign. */
export type DkimKeys = (
  accountId: number,
  domainId: number,
) => Promise<{ domainName: string; keySelector: string; privateKey: string } | null>;

export interface Mailer {
  /** Send the delivery with this key if it has not been sent; throws so the job retries on failure. */
  deliver(idempotencyKey: string): Promise<void>;
  close(): void;
}

/**
 * Record the message and enqueue its delivery in the caller's transaction. The message leaves
 * through the `send-email` job, never from a request.
 */
export async function queueMail(db: Database, config: Config, mail: OutgoingMail): Promise<void> {
  const inserted = await db
    .insertInto('mailDeliveries')
    .values({
      idempotencyKey: mail.idempotencyKey,
      accountId: mail.accountId ?? null,
      toAddress: mail.to,
      fromAddress: mail.from ?? config.mailFrom,
      replyTo: mail.replyTo ?? null,
      headers: JSON.stringify(withoutMessageId(mail.headers ?? {})),
      subject: mail.subject,
      textBody: mail.text,
      htmlBody: mail.html ?? null,
      messageId: messageIdFor(mail.idempotencyKey, config.publicUrl),
      dkimDomainId: mail.dkimDomainId ?? null,
    })
    .onConflict((c) => c.column('idempotencyKey').doNothing())
    .returning('idempotencyKey')
    .executeTakeFirst();
  if (inserted) await enqueueJob(db, 'send-email', { idempotencyKey: mail.idempotencyKey });
}

function withoutMessageId(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'message-id'));
}

/** One Message-ID per delivery, derived from its key, so a resend after an ambiguous reply is recognisable. */
export function messageIdFor(key: string, publicUrl: string): string {
  const host = new URL(publicUrl).hostname || 'localhost';
  return `<${crypto.createHash('sha256').update(key).digest('hex').slice(0, 32)}@${host}>`;
}

/** SMTP when SMTP_URL is set; otherwise (outside production) the built-in mailbox. */
export function createMailer(db: Database, config: Config, dkimKeys?: DkimKeys): Mailer {
  const transport: Transporter = config.smtpUrl
    ? nodemailer.createTransport(transportOptions(config.smtpUrl, config.smtpTls))
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  return {
    async deliver(idempotencyKey) {
      // The delivery's row stays locked while its message is sent: a second deliverer of the same key (a retried job
      // beside one still sending) waits, then finds it sent. A process that dies mid-send releases the lock and the
      // retry sends again (the same Message-ID, so the receiver can tell).
      let failure: unknown = null;
      await db.transaction().execute(async (trx) => {
        const delivery = await trx
          .selectFrom('mailDeliveries')
          .selectAll()
          .where('idempotencyKey', '=', idempotencyKey)
          .forUpdate()
          .executeTakeFirst();
        if (!delivery || delivery.status === 'sent') return;
        await trx
          .updateTable('mailDeliveries')
          .set({ attempts: sql`attempts + 1` })
          .where('idempotencyKey', '=', idempotencyKey)
          .execute();
        const message = {
          from: delivery.fromAddress,
          to: delivery.toAddress,
          subject: delivery.subject,
          text: delivery.textBody,
          ...(delivery.htmlBody ? { html: delivery.htmlBody } : {}),
          ...(delivery.replyTo ? { replyTo: delivery.replyTo } : {}),
          headers: delivery.headers as Record<string, string>,
          messageId: delivery.messageId,
        };
        const dkim =
          delivery.dkimDomainId && delivery.accountId && dkimKeys
            ? await dkimKeys(Number(delivery.accountId), Number(delivery.dkimDomainId))
            : null;
        if (dkim) Object.assign(message, { dkim });
        try {
          const info = await transport.sendMail(message);
          if (!config.smtpUrl) {
            const raw = (info as { message?: Buffer }).message?.toString('utf8') ?? '';
            await trx
              .insertInto('devMailbox')
              .values({
                toAddress: delivery.toAddress,
                fromAddress: delivery.fromAddress,
                subject: delivery.subject,
                textBody: delivery.textBody,
                htmlBody: delivery.htmlBody,
                raw,
              })
              .execute();
          }
        } catch (error) {
          failure = error;
          await trx
            .updateTable('mailDeliveries')
            .set({ lastError: String(error).slice(0, 2000) })
            .where('idempotencyKey', '=', idempotencyKey)
            .execute();
          return;
        }
        await trx
          .updateTable('mailDeliveries')
          .set({ status: 'sent', sentAt: sql`now()`, lastError: null })
          .where('idempotencyKey', '=', idempotencyKey)
          .execute();
      });
      if (failure) throw failure;
    },
    close: () => transport.close(),
  };
}

/**
 * SMTP_URL as nodemailer's options (it ignores every other option when given a `url`), pooled: a few connections
 * reused across messages. Query parameters stay nodemailer options (`?ignoreTLS=true`, `?maxConnections=2`). TLS
 * trusts what the bulk sender trusts (smtp-client.ts tlsOptionsFor): the system's CAs plus SMTP_TLS_CA_FILE's,
 * checked against the host as written in SMTP_URL, unless SMTP_TLS_VERIFY=false.
 */
export function transportOptions(smtpUrl: string, settings: Config['smtpTls']): SMTPPool.Options {
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  const query: Record<string, string | number | boolean> = {};
  for (const [key, value] of url.searchParams)
    query[key] =
      value === 'true'
        ? true
        : value === 'false'
          ? false
          : value !== '' && !Number.isNaN(Number(value))
            ? Number(value)
            : value;
  return {
    maxConnections: 5,
    ...query,
    pool: true,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(url.port) || (secure ? 465 : 587),
    secure,
    ...(url.username
      ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }
      : {}),
    tls: {
      ...(settings.ca ? { ca: [...tls.rootCertificates, settings.ca] } : {}),
      rejectUnauthorized: settings.verify,
    },
  };
}
