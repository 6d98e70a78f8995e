import type { Database } from '../../db/connection.ts';
import type { SourceKind } from '../../jobs/job-types.ts';

/**
 * What one (source, email, variant) of the pipeline sends: the email's parts and sender, its category, and merge
 * data laid over the person's fields. The pipeline asks once per source, email and variant, then renders every
 * recipient from it. Each kind of source answers here: a broadcast's A/B variant may change the subject, and a
 * transactional send may carry ad-hoc content and its own merge data.
 */
export interface SourceContent {
  name: string;
  subject: string;
  preheader: string;
  html: string;
  fromName: string;
  fromEmail: string;
  replyTo: string | null;
  /** The email's communication category; null: the account's default category. */
  categoryId: number | null;
  /** Merge data laid over the person's fields when rendering (transactional sends). */
  data?: Record<string, unknown>;
}

export interface ContentKey {
  accountId: number;
  kind: SourceKind;
  sourceId: number;
  emailId: number;
  variant: number;
}

/** A saved email, as it is now. */
export async function savedEmailContent(
  db: Database,
  accountId: number,
  emailId: number,
): Promise<SourceContent | null> {
  const email = await db
    .selectFrom('emails')
    .select(['name', 'subject', 'preheader', 'html', 'fromName', 'fromEmail', 'replyTo', 'categoryId'])
    .where('accountId', '=', accountId)
    .where('id', '=', emailId)
    .executeTakeFirst();
  if (!email) return null;
  return { ...email, categoryId: email.categoryId === null ? null : Number(email.categoryId) };
}

/** How one kind of source answers `sourceContent`. */
export type ContentSource = (db: Database, key: ContentKey) => Promise<SourceContent | null>;

/**
 * Broadcasts (an A/B variant's subject) and transactional sends (ad-hoc content, merge data) sit above deliveries:
 * they register their answer at start (app/connect-features.ts) instead of being imported (docs/architecture.md).
 * Flows and test sends send the saved email.
 */
const registeredKinds: readonly SourceKind[] = ['broadcast', 'transactional'];
const contentSources = new Map<SourceKind, ContentSource>();

export function registerContentSource(kind: SourceKind, source: ContentSource): void {
  contentSources.set(kind, source);
}

/** The content a source sends for this email and variant; null when the email no longer exists. */
export async function sourceContent(db: Database, key: ContentKey): Promise<SourceContent | null> {
  const source = contentSources.get(key.kind);
  if (source) return source(db, key);
  if (registeredKinds.includes(key.kind))
    throw new Error(`No content source registered for ${key.kind} sends (app/connect-features.ts)`);
  return savedEmailContent(db, key.accountId, key.emailId);
}
