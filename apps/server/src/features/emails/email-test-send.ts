import crypto from 'node:crypto';
import { emailMessages, type TestEmailBody } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import type { Session } from '../../http/route.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';
import { messageIdFor, queueMail } from '../../mail/mailer.ts';
import type { Services } from '../../services.ts';
import { compileOrThrow, previewLinks, renderContext, renderFor } from './email-rendering.ts';

/** Test sends an account may start in an hour (each to at most 5 addresses). */
const testSendsPerHour = 30;

/** `"Name" <address>`, with the name quoted so commas and quotes in it stay inside it. */
function formatAddress(name: string, address: string): string {
  const clean = name.replace(/[\r\n]+/g, ' ').trim();
  return clean ? `"${clean.replace(/["\\]/g, '\\$&')}" <${address}>` : address;
}

/** The address part of MAIL_FROM (`Herald <no-reply@host>` → `no-reply@host`). */
function addressOf(from: string): string {
  return /<([^>]+)>/.exec(from)?.[1] ?? from.trim();
}

/**
 * POST /v1/emails/test: the draft rendered for a person (or sample data) goes to each address through
 * the queued mail path. Each message's idempotency key is the request's key (the Idempotency-Key
 * header, else a fresh one) and the address, so a retried job or a repeated request with the same
 * key sends once. Until sender addresses are verified, a test leaves from Herald's own address with
 * the email's from name, and replies go to the email's reply-to or from address.
 */
export async function sendTestEmail(services: Services, db: Database, session: Session, body: TestEmailBody, requestKey: string | undefined) {
  await enforceRateLimit(services.db, `email-test:${session.accountId}`, testSendsPerHour, 3600);
  const compiled = compileOrThrow(body.email);
  const context = await renderContext(db, session, body.personId);
  const key = requestKey ?? crypto.randomUUID();
  // One message per address, spelled as first written.
  const byAddress = new Map<string, string>();
  for (const address of body.sendTo) if (!byAddress.has(address.toLowerCase())) byAddress.set(address.toLowerCase(), address);
  const recipients = [...byAddress.values()];
  const from = formatAddress(body.email.fromName ?? '', addressOf(services.config.mailFrom));
  const replyTo = body.email.replyTo || body.email.fromEmail || null;
  for (const to of recipients) {
    const idempotencyKey = `email-test:${session.accountId}:${key}:${to.toLowerCase()}`;
    const rendered = await renderFor(compiled, context, {
      messageId: messageIdFor(idempotencyKey, services.config.publicUrl),
      ...previewLinks(services),
    }, body.email.name);
    await queueMail(db, services.config, {
      to,
      from,
      replyTo,
      subject: `[Test] ${rendered.subject}`,
      html: rendered.html,
      text: rendered.text,
      headers: rendered.headers,
      accountId: session.accountId,
      idempotencyKey,
    });
  }
  return { message: emailMessages.testSent(recipients.join(', ')) };
}
