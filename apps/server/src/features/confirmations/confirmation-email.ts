import { adHocEmailId, consentMessages, type TransactionalSendBody } from '@herald/contracts';
import { withAccount } from '../../db/tenancy.ts';
import { AppError } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import type { JobPayloads } from '../../jobs/job-types.ts';
import type { Services } from '../../services.ts';
import { confirmationToken } from '../consent/confirmation-links.ts';
import { doubleOptInSettings } from '../consent/consent.queries.ts';
import { raiseAlert, resolveAlert } from '../integrations/alerts.ts';
import { sendTransactional } from '../transactional/transactional.service.ts';

/** The built-in confirmation email; an account may pick one of its own emails instead (Settings → Double opt-in). */
const builtInHtml = `<!doctype html>
<html><body style="font-family: Arial, sans-serif; color: #1f2933; line-height: 1.5">
  <p>Hello,</p>
  <p>Please confirm that you want to receive email from {{ account.name }}.</p>
  <p><a href="{{ person.confirmationUrl }}" style="display: inline-block; padding: 10px 18px; background: #228be6; color: #ffffff; border-radius: 4px; text-decoration: none">Confirm my subscription</a></p>
  <p>The link works for 7 days. If you did not sign up, ignore this email: you will get nothing more from us.</p>
</body></html>`;

/** The sending pipeline's calls are made for the account itself, not a team member. */
const systemSession = (accountId: number): Session => ({
  id: 'system:double-opt-in',
  userId: 0,
  accountId,
  teamMemberId: 0,
  isOwner: false,
  scopes: [],
});

/** The kind of the account alert raised while confirmation emails cannot be sent. */
export const confirmationAlert = 'double-opt-in';

export const confirmationUrl = (services: Services, token: string) =>
  `${services.config.publicUrl}/public/confirm-subscription?token=${token}`;

/**
 * The `send-confirmation` job: a pending person's confirmation email, sent as a transactional email through the
 * real pipeline (the account's sender and DKIM, the delivery log, suppressions), with the confirm link in
 * `person.confirmationUrl`. A person no longer pending gets nothing; a send the account cannot make (no sender, no
 * transactional category, the chosen email gone) is not retried for ever: it raises an account alert (the top bar's
 * account issues, and Slack when connected) saying why, closed by the next confirmation that goes, and the person's
 * page can send theirs again. The nonce makes a retried job send once.
 */
export async function runSendConfirmation(services: Services, payload: JobPayloads['send-confirmation']) {
  const { accountId, personId, nonce } = payload;
  await withAccount(services.db, accountId, async (db) => {
    const person = await db
      .selectFrom('people')
      .select(['email', 'confirmationPendingAt'])
      .where('accountId', '=', accountId)
      .where('id', '=', personId)
      .executeTakeFirst();
    if (!person?.email || !person.confirmationPendingAt) return;
    const settings = await doubleOptInSettings(db, accountId);
    const token = confirmationToken(services.secret, {
      accountId,
      personId,
      email: person.email.toLowerCase(),
    });
    const data = { confirmationUrl: confirmationUrl(services, token) };
    const body: TransactionalSendBody = settings.confirmationEmailId
      ? { emailId: settings.confirmationEmailId, to: person.email, data }
      : {
          emailId: adHocEmailId,
          to: person.email,
          subject: consentMessages.confirmationSubject,
          html: builtInHtml,
          data,
        };
    try {
      await sendTransactional(db, systemSession(accountId), body, `confirmation:${personId}:${nonce}`);
    } catch (error) {
      // The account cannot send it (no sender, no transactional category, the email gone): retrying will not help.
      if (!(error instanceof AppError) || error.statusCode >= 500) throw error;
      console.warn(
        `[double-opt-in] account ${accountId}: the confirmation email to person ${personId} cannot be sent: ${error.message}`,
      );
      await raiseAlert(db, accountId, confirmationAlert, consentMessages.confirmationAlert(error.message));
      return;
    }
    await resolveAlert(db, accountId, confirmationAlert);
  });
}
