import { adHocEmailId } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import type { SourceContent } from '../deliveries/source-content.ts';
import { findEmailContent, findSend } from './transactional.queries.ts';

/** The name an ad-hoc email goes by (the utm_campaign of its tagged links). */
export const adHocEmailName = 'Transactional email';

/**
 * What the pipeline sends for a transactional send: the saved email as it is now, or the ad-hoc content kept
 * with the send; in both cases the caller's merge data and the send's transactional category. Null when the
 * send or its saved email no longer exists.
 */
export async function transactionalContent(
  db: Database,
  accountId: number,
  sendId: number,
): Promise<SourceContent | null> {
  const send = await findSend(db, accountId, sendId);
  if (!send) return null;
  const data = (send.data ?? {}) as Record<string, unknown>;
  const categoryId = Number(send.categoryId);
  if (Number(send.emailId) === adHocEmailId) {
    return {
      name: adHocEmailName,
      subject: send.subject ?? '',
      preheader: send.preheader ?? '',
      html: send.html ?? '',
      fromName: send.fromName ?? '',
      fromEmail: send.fromEmail ?? '',
      replyTo: send.replyTo,
      categoryId,
      data,
    };
  }
  const email = await findEmailContent(db, accountId, Number(send.emailId));
  return email ? { ...email, categoryId, data } : null;
}
