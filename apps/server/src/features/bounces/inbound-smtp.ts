import { SMTPServer } from 'smtp-server';
import type { Services } from '../../services.ts';
import { recordAll, type FeedbackOutcome } from './feedback.service.ts';
import { parseReport } from './reports.ts';

/** Largest report taken: DSNs return at most the original message, which Herald keeps well under this. */
const maxReportBytes = 10 * 1024 * 1024;

export interface InboundSmtp {
  port: number;
  close(): Promise<void>;
}

/**
 * The optional bounce mailbox (INBOUND_SMTP_PORT): an SMTP listener that takes delivery status notifications
 * and abuse reports addressed to the return path, records them and discards everything else. It accepts any
 * recipient (the MX for the return-path domain points here) and never relays. A report it cannot read is
 * still answered 250, so the sending server does not retry it forever; the reason is logged.
 */
export async function startInboundSmtp(
  services: Pick<Services, 'db' | 'events'>,
  options: { port: number; host?: string; log?: (line: string, detail?: Record<string, unknown>) => void },
): Promise<InboundSmtp> {
  const log = options.log ?? (() => {});
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: maxReportBytes,
    banner: 'Herald bounce intake',
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (error) => callback(error));
      stream.on('end', () => {
        if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
          callback(Object.assign(new Error('Message too large for a bounce report'), { responseCode: 552 }));
          return;
        }
        handleReport(services, Buffer.concat(chunks), log)
          .then(() => callback())
          .catch((error: unknown) => {
            // A database outage is worth the sender's retry: answer with a temporary failure.
            log('inbound report failed', { error: String(error) });
            callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
          });
      });
    },
  });
  server.on('error', (error) => log('inbound SMTP error', { error: String(error) }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.server.address() as { port: number }).port;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function handleReport(
  services: Pick<Services, 'db' | 'events'>,
  raw: Buffer,
  log: (line: string, detail?: Record<string, unknown>) => void,
): Promise<void> {
  let reports;
  try {
    reports = await parseReport(raw);
  } catch (error) {
    log('inbound message could not be read', { error: String(error) });
    return;
  }
  if (!reports.length) {
    log('inbound message carried no delivery status or feedback report');
    return;
  }
  const outcomes = await recordAll(services, reports);
  outcomes.forEach((outcome, i) => logOutcome(log, reports[i]!.source, outcome));
}

export function logOutcome(
  log: (line: string, detail?: Record<string, unknown>) => void,
  source: string,
  outcome: FeedbackOutcome,
): void {
  if (outcome.status === 'unknown-message')
    log('bounce report for a message Herald did not send', { source, messageId: outcome.messageId });
  else if (outcome.status === 'no-account')
    log('bounce report for system mail (no account to suppress in)', {
      source,
      messageId: outcome.messageId,
    });
  else if (outcome.status === 'duplicate')
    log('bounce report already recorded', { source, accountId: outcome.accountId });
  else
    log('bounce report recorded', { source, accountId: outcome.accountId, suppressed: outcome.suppressed });
}
