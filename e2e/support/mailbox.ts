import type { MailboxMessage } from '@herald/contracts';
import { api } from './browser.ts';
import { until } from './until.ts';

/**
 * The first capture of `pattern` in the newest mail of the built-in mailbox to `address`, read through its API
 * (`GET /v1/dev/mailbox`) once the mail has arrived. For journeys whose subject is not the mail itself: the
 * journeys that are (senders, team, broadcasts, tracking) open the mailbox page as a person would.
 */
export async function linkInMail(address: string, pattern: RegExp, timeout = 20_000): Promise<string> {
  return until(
    async () => {
      const messages = (await api('GET', '/v1/dev/mailbox')).body.messages as MailboxMessage[];
      return pattern.exec(messages.find((m) => m.to.includes(address))?.text ?? '')?.[1] ?? '';
    },
    { timeout, message: `a mail to ${address} matching ${pattern}` },
  );
}

/** The token of the invitation mailed to `address` (the accept-invite link's token, decoded). */
export async function invitationToken(address: string): Promise<string> {
  return decodeURIComponent(await linkInMail(address, /accept-invite\?token=([^\s&"<>]+)/));
}
