import crypto from 'node:crypto';
import { emailMessages, type TestEmailBody } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import type { Session } from '../../http/route.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';
import { messageIdFor, queueMail } from '../../mail/mailer.ts';
import type { Services } from '../../services.ts';
import { senderStanding } from '../senders/sending-rule.ts';
import { compileOrThrow, previewLinks, renderContext, renderFor } from './email-rendering.ts';

/** Test sends an account may start in an hour (each to at most 5 addresses). */
const testSendsPerHour = 30;

/** `"Name" <address>`, with the name quoted so commas and quotes in it stay inside it. */
export function formatAddress(name: string, address: string): string {
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
 * key sends once. A test leaves from the email's own address when the account may send from it (the
 * sending rule), signed with DKIM when its domain is verified; otherwise from Herald's own address with the
 * email's from name, replies going to the email's reply-to or from address, so drafts can be tested first.
 */
export async function sendTestEmail(
  services: Services,
  db: Database,
  session: Session,
  body: TestEmailBody,
  requestKey: string | undefined,
) {
  await enforceRateLimit(services.db, `email-test:${session.accountId}`, testSendsPerHour, 3600);
  const compiled = compileOrThrow(body.email);
  const context = await renderContext(db, session, body.personId);
  const key = requestKey ?? crypto.randomUUID();
  // One message per address, spelled as first written.
  const byAddress = new Map<string, string>();
  for (const address of body.sendTo)
    if (!byAddress.has(address.toLowerCase())) byAddress.set(address.toLowerCase(), address);
  const recipients = [...byAddress.values()];
  const own = body.email.fromEmail?.trim() ?? '';
  const standing = own ? await senderStanding(db, session.accountId, own) : { allowed: false as const };
  const from = formatAddress(
    body.email.fromName ?? '',
    standing.allowed ? own : addressOf(services.config.mailFrom),
  );
  const replyTo = body.email.replyTo || (standing.allowed ? null : own || null);
  for (const to of recipients) {
    const idempotencyKey = `email-test:${session.accountId}:${key}:${to.toLowerCase()}`;
    const rendered = await renderFor(
      compiled,
      context,
      {
        messageId: messageIdFor(idempotencyKey, services.config.publicUrl),
        ...previewLinks(services),
      },
      body.email.name,
    );
    await queueMail(db, services.config, {
      to,
      from,
      replyTo,
      subject: `[Test] ${rendered.subject}`,
      html: rendered.html,
      text: rendered.text,
      headers: rendered.headers,
      accountId: session.accountId,
      dkimDomainId: standing.allowed ? standing.domainId : null,
      idempotencyKey,
    });
  }
  return { message: emailMessages.testSent(recipients.join(', ')) };
}
