import { simpleParser, type Attachment } from 'mailparser';
import type { Feedback } from './feedback.service.ts';

/** The part of a message before its first empty line, unfolded into (lower-cased name, value) pairs. */
function headerFields(block: string): [string, string][] {
  const fields: [string, string][] = [];
  for (const line of block.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && fields.length) {
      fields[fields.length - 1]![1] += ` ${line.trim()}`;
    } else {
      const colon = line.indexOf(':');
      if (colon > 0) fields.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
    }
  }
  return fields;
}

/** RFC 3464 §2.1: a per-message group, then one group per recipient, separated by empty lines. */
function fieldGroups(text: string): Map<string, string>[] {
  return text
    .split(/\r?\n[ \t]*\r?\n/)
    .map((group) => new Map(headerFields(group)))
    .filter((group) => group.size > 0);
}

/** `rfc822; ann@example.com` → `ann@example.com`. */
function addressOf(value: string | undefined): string | null {
  if (!value) return null;
  const address = (value.includes(';') ? value.slice(value.indexOf(';') + 1) : value)
    .trim()
    .replace(/^<|>$/g, '');
  return address.includes('@') ? address : null;
}

/** The Message-ID of the returned message (its full copy or just its headers). */
function returnedMessageId(parts: Attachment[]): string | null {
  for (const part of parts) {
    if (
      part.contentType !== 'message/rfc822' &&
      part.contentType !== 'text/rfc822-headers' &&
      part.contentType !== 'message/rfc822-headers'
    )
      continue;
    const text = part.content.toString('utf8');
    const headers = text.split(/\r?\n\r?\n/)[0] ?? '';
    const found = headerFields(headers).find(([name]) => name === 'message-id');
    if (found) return found[1];
  }
  return null;
}

function partOf(parts: Attachment[], type: string): string | null {
  const part = parts.find((p) => p.contentType === type);
  return part ? part.content.toString('utf8') : null;
}

/**
 * A delivery status notification (RFC 3464) as one report per failed or delayed recipient: Action failed with
 * a 5.x.x status is a hard bounce, a 4.x.x status or Action delayed a soft one. Delivered, relayed and expanded
 * recipients are no bounce.
 */
function fromDeliveryStatus(status: string, messageId: string | null): Feedback[] {
  const reports: Feedback[] = [];
  for (const group of fieldGroups(status)) {
    const recipient = addressOf(group.get('original-recipient')) ?? addressOf(group.get('final-recipient'));
    if (!recipient) continue;
    const action = (group.get('action') ?? '').toLowerCase();
    const code = /\b([245])\.\d{1,3}\.\d{1,3}\b/.exec(group.get('status') ?? '');
    const cls = code?.[1];
    let kind: Feedback['kind'] | null = null;
    if (action === 'failed') kind = cls === '4' ? 'soft' : 'hard';
    else if (action === 'delayed') kind = 'soft';
    if (!kind) continue;
    const diagnostic = group.get('diagnostic-code') ?? '';
    reports.push({
      messageId,
      recipient,
      kind,
      detail: [code?.[0], diagnostic].filter(Boolean).join(' ').trim() || action,
      source: 'dsn',
    });
  }
  return reports;
}

/** An abuse report (RFC 5965, ARF): a complaint about the returned message, by its original recipient. */
function fromFeedbackReport(report: string, messageId: string | null): Feedback[] {
  const fields = new Map(headerFields(report));
  const recipient = addressOf(fields.get('original-rcpt-to')) ?? addressOf(fields.get('removal-recipient'));
  const type = fields.get('feedback-type') ?? 'abuse';
  return [
    {
      messageId,
      recipient: recipient ?? '',
      kind: 'complaint',
      detail: `feedback-type: ${type}`,
      source: 'arf',
    },
  ];
}

/**
 * Read a message that arrived at the inbound listener: a DSN (multipart/report; report-type=delivery-status) or
 * an ARF complaint (multipart/report; report-type=feedback-report). Anything else carries no report.
 */
export async function parseReport(raw: Buffer | string): Promise<Feedback[]> {
  const mail = await simpleParser(raw, {
    keepDeliveryStatus: true,
    skipHtmlToText: true,
    skipTextLinks: true,
  });
  const contentType = mail.headers.get('content-type') as
    { value?: string; params?: Record<string, string> } | undefined;
  if (contentType?.value?.toLowerCase() !== 'multipart/report') return [];
  const reportType = (contentType.params?.['report-type'] ?? '').toLowerCase();
  const messageId = returnedMessageId(mail.attachments);
  if (reportType === 'delivery-status') {
    const status =
      partOf(mail.attachments, 'message/delivery-status') ??
      partOf(mail.attachments, 'message/global-delivery-status');
    return status ? fromDeliveryStatus(status, messageId) : [];
  }
  if (reportType === 'feedback-report') {
    const report = partOf(mail.attachments, 'message/feedback-report');
    return report ? fromFeedbackReport(report, messageId) : [];
  }
  return [];
}

/** The Message-ID of the message a raw bounce returns (a provider's bounce dump), or null. */
export async function returnedMessageIdIn(raw: string): Promise<string | null> {
  const mail = await simpleParser(raw, {
    keepDeliveryStatus: true,
    skipHtmlToText: true,
    skipTextLinks: true,
  });
  return returnedMessageId(mail.attachments);
}
