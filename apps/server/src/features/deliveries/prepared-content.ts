/**
 * A send's content made ready for the sender threads, once per email and variant of a job: the email as its source
 * gives it, checked against the sending rule, its template compiled, its category and DKIM key looked up.
 */
import { compileSources, type EmailSources } from '@herald/email';
import { type CategoryType } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import type { Services } from '../../services.ts';
import { defaultCategory } from '../categories/categories.service.ts';
import { dkimKeyOf } from '../domains/domains.service.ts';
import { formatAddress } from '../emails/email-test-send.ts';
import { senderStanding } from '../senders/sending-rule.ts';
import type { ThreadContent } from './sender-protocol.ts';
import { sourceContent, type ContentKey } from './source-content.ts';

export const contentKeyOf = (row: { emailId: number; variant: number }) => `${row.emailId}:${row.variant}`;

/** The content ready to send, or why the whole send is refused. */
export type Prepared = ThreadContent | { refused: string };

export async function prepareEmail(
  services: Services,
  db: Database,
  key: ContentKey,
  account: ThreadContent['account'],
  linkUtms: boolean,
): Promise<Prepared> {
  const { accountId } = key;
  const email = await sourceContent(db, key);
  if (!email) return { refused: 'The email of this send no longer exists.' };
  const standing = await senderStanding(db, accountId, email.fromEmail);
  if (!standing.allowed)
    return { refused: `Address ${email.fromEmail} has not been verified for sending email.` };
  let sources: EmailSources;
  try {
    // Compiled once here (a broken template refuses the whole send); the threads only parse the result.
    sources = compileSources({ subject: email.subject, preheader: email.preheader, html: email.html });
  } catch (error) {
    return { refused: error instanceof Error ? error.message : String(error) };
  }
  const chosen = email.categoryId
    ? await db
        .selectFrom('communicationCategories')
        .select(['id', 'type'])
        .where('accountId', '=', accountId)
        .where('id', '=', email.categoryId)
        .executeTakeFirst()
    : await defaultCategory(db, accountId);
  const category = chosen
    ? { id: Number(chosen.id), type: chosen.type as CategoryType }
    : { id: 0, type: 'marketing' as const };
  const dkim =
    standing.domainId !== null ? await dkimKeyOf(services, db, accountId, standing.domainId) : null;
  const flowStep =
    key.kind === 'flow'
      ? await db
          .selectFrom('flowSteps')
          .select('flowId')
          .where('accountId', '=', accountId)
          .where('id', '=', key.sourceId)
          .executeTakeFirst()
      : undefined;
  return {
    key: `${accountId}:${key.kind}:${key.sourceId}:${contentKeyOf(key)}`,
    accountId,
    kind: key.kind,
    sourceId: key.sourceId,
    flowId: flowStep ? Number(flowStep.flowId) : null,
    emailId: key.emailId,
    variant: key.variant,
    // A test send is a preview: its opens and clicks would count as readers' (issue 18, docs/broadcasts-and-sending.md).
    tracking: key.kind !== 'test',
    sources,
    from: formatAddress(email.fromName, email.fromEmail),
    fromEmail: email.fromEmail,
    replyTo: email.replyTo,
    category,
    dkim,
    utmCampaign: linkUtms ? email.name || 'email' : undefined,
    data: email.data,
    account,
  };
}
