import {
  broadcastMessages,
  domainOfAddress,
  sendingMessages,
  type AudienceCount,
  type Email,
  type SenderAddress,
  type SenderDomain,
} from '@herald/contracts';

export type CheckState = 'pass' | 'fail' | 'warn' | 'pending';

export interface SendCheck {
  id: 'email' | 'sender' | 'unsubscribe' | 'mailingAddress' | 'audience' | 'suppressed' | 'abTest';
  label: string;
  state: CheckState;
  /** What to do about it, when it is not a pass. */
  detail?: string;
  /** Where to fix it. */
  link?: { to: string; label: string };
  /** A failing blocking check stops the send; the others warn. */
  blocking: boolean;
}

interface CheckInput {
  emailId: number | null;
  /** The chosen email with its content, or undefined while it loads. */
  email: Email | undefined;
  addresses: SenderAddress[] | undefined;
  domains: SenderDomain[] | undefined;
  testAccount: boolean;
  mailingAddress: string | null;
  audienceComplete: boolean;
  count: AudienceCount | null;
}

/** A share of the audience this large held back as suppressed, unsubscribed or opted out is worth a look. */
const suppressedWarnShare = 0.2;

/** Is this address one the sending rule lets the account use: verified itself, on a verified domain, or a test account. */
function senderState(input: CheckInput, address: string): CheckState {
  if (input.testAccount) return 'pass';
  if (!input.addresses || !input.domains) return 'pending';
  const email = address.trim().toLowerCase();
  const domain = domainOfAddress(email);
  if (input.domains.some((item) => item.domain === domain && item.status === 'verified')) return 'pass';
  return input.addresses.some((item) => item.email.toLowerCase() === email && item.status === 'verified')
    ? 'pass'
    : 'fail';
}

/** The pre-send check list: what the server refuses (blocking) and what a careful sender fixes first (warnings). */
export function sendChecks(input: CheckInput): SendCheck[] {
  const checks: SendCheck[] = [];
  const email = input.email;
  checks.push(
    input.emailId === null
      ? {
          id: 'email',
          label: 'Email chosen',
          state: 'fail',
          detail: broadcastMessages.noEmail,
          blocking: true,
        }
      : {
          id: 'email',
          label: email ? `Email chosen: ${email.name}` : 'Email chosen',
          state: email ? 'pass' : 'pending',
          blocking: true,
        },
  );

  if (email) {
    const state = senderState(input, email.fromEmail);
    checks.push({
      id: 'sender',
      label: `Sender ${email.fromEmail} verified`,
      state,
      blocking: true,
      ...(state === 'fail'
        ? {
            detail: sendingMessages.notVerified(email.fromEmail),
            link: { to: '/settings/email', label: 'Verify it' },
          }
        : {}),
    });
    const hasLink = email.html.includes('unsubscribe_url') || email.html.includes('preferences_url');
    checks.push({
      id: 'unsubscribe',
      label: 'Unsubscribe link present',
      state: hasLink ? 'pass' : 'warn',
      blocking: false,
      ...(hasLink
        ? {}
        : {
            detail:
              'Add {{ unsubscribe_url }} to the email: people must be able to opt out, and mailbox providers require it.',
            link: { to: `/emails/${email.id}`, label: 'Edit the email' },
          }),
    });
  }

  const hasAddress = Boolean(input.mailingAddress?.trim());
  checks.push({
    id: 'mailingAddress',
    label: 'Mailing address set',
    state: hasAddress ? 'pass' : 'warn',
    blocking: false,
    ...(hasAddress
      ? {}
      : {
          detail: 'Anti-spam laws ask for a postal address in every marketing email.',
          link: { to: '/settings/email/general', label: 'Set it' },
        }),
  });

  const count = input.count;
  if (!input.audienceComplete)
    checks.push({
      id: 'audience',
      label: 'Audience chosen',
      state: 'fail',
      detail: 'Pick at least one segment or tag.',
      blocking: true,
    });
  else if (!count)
    checks.push({ id: 'audience', label: 'Audience not empty', state: 'pending', blocking: true });
  else {
    checks.push(
      count.deliverable > 0
        ? {
            id: 'audience',
            label: `Audience not empty: ${count.deliverable.toLocaleString()} ${count.deliverable === 1 ? 'recipient' : 'recipients'}`,
            state: 'pass',
            blocking: true,
          }
        : {
            id: 'audience',
            label: 'Audience not empty',
            state: 'fail',
            detail: count.total > 0 ? broadcastMessages.nobodyToSend : 'Nobody is in this audience.',
            blocking: true,
          },
    );
    const held = count.total - count.deliverable;
    const share = count.total > 0 ? held / count.total : 0;
    checks.push({
      id: 'suppressed',
      label:
        held > 0
          ? `${Math.round(share * 100)}% excluded as suppressed, unsubscribed or opted out (${held.toLocaleString()})`
          : 'Nobody excluded as suppressed',
      state: share >= suppressedWarnShare ? 'warn' : 'pass',
      blocking: false,
      ...(share >= suppressedWarnShare
        ? {
            detail: 'A large share cannot receive mail. Check that this is the audience you meant.',
            link: { to: '/settings/email/suppressions', label: 'See the suppression list' },
          }
        : {}),
    });
  }
  return checks;
}

/** True when no blocking check fails or waits. */
export const canSend = (checks: SendCheck[]) =>
  checks.every((check) => !check.blocking || check.state === 'pass');
