import {
  emailMessages,
  emptyEmailStats,
  hasScopes,
  type CreateEmailBody,
  type Email,
  type EmailEditor,
  type EmailSummary,
  type UpdateEmailBody,
} from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { badRequest, forbidden, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import type { Services } from '../../services.ts';
import { findFolder, setChildren, type ChildRef } from '../folders/folders.queries.ts';
import { findMemberAccess } from '../team/team.queries.ts';
import { categoryOrThrow } from '../categories/categories.service.ts';
import { checkTemplates } from './email-rendering.ts';
import {
  findEmail,
  insertEmail,
  listEmails,
  updateEmailRow,
  type EmailRow,
  type EmailSummaryRow,
} from './emails.queries.ts';

const blankEditor: EmailEditor = { type: 'html', state: null, html: '' };

function toEmail(row: EmailRow): Email {
  return {
    id: row.id,
    name: row.name,
    subject: row.subject,
    preheader: row.preheader,
    fromName: row.fromName,
    fromEmail: row.fromEmail,
    replyTo: row.replyTo,
    categoryId: row.categoryId === null ? null : Number(row.categoryId),
    html: row.html,
    type: 'HTML',
    editor: { ...blankEditor, ...(row.editor as Partial<EmailEditor>) },
    archived: row.archived,
    stats: emptyEmailStats,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function toSummary(row: EmailSummaryRow): EmailSummary {
  return {
    id: row.id,
    name: row.name,
    subject: row.subject,
    preheader: row.preheader,
    fromName: row.fromName,
    fromEmail: row.fromEmail,
    replyTo: row.replyTo,
    categoryId: row.categoryId === null ? null : Number(row.categoryId),
    type: 'HTML',
    editorType: (row.editorType ?? 'html') as EmailSummary['editorType'],
    archived: row.archived,
    stats: emptyEmailStats,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** GET /v1/emails: active emails, or archived ones, or both. */
export async function getEmails(
  db: Database,
  session: Session,
  archived: 'true' | 'false' | 'all' | undefined,
) {
  const rows = await listEmails(db, session.accountId, archived === 'all' ? 'all' : archived === 'true');
  return { emails: rows.map(toSummary) };
}

async function emailOrThrow(db: Database, accountId: number, id: number): Promise<EmailRow> {
  const row = await findEmail(db, accountId, id);
  if (!row) throw notFound(emailMessages.notFound);
  return row;
}

export async function getEmail(db: Database, session: Session, id: number) {
  return { email: toEmail(await emailOrThrow(db, session.accountId, id)) };
}

/** File an email in a folder of emails (the folder tree keeps items in its children). */
async function fileInFolder(
  db: Database,
  accountId: number,
  folderId: number,
  emailId: number,
): Promise<void> {
  const folder = await findFolder(db, accountId, folderId);
  if (!folder || folder.folderType !== 'emails') throw badRequest('Choose a folder of emails.');
  const children = folder.children as unknown as ChildRef[];
  await setChildren(db, accountId, folder.id, [...children, { type: 'item', id: emailId }]);
}

/** POST /v1/emails: subject and from email are needed; the content's merge tags must parse. */
export async function createEmail(db: Database, session: Session, body: CreateEmailBody) {
  const editor = body.editor ?? { ...blankEditor, html: body.html ?? '' };
  const html = body.html ?? editor.html;
  checkTemplates({ subject: body.subject, preheader: body.preheader ?? '', html });
  if (body.categoryId) await categoryOrThrow(db, session.accountId, body.categoryId);
  const row = await insertEmail(db, {
    accountId: session.accountId,
    name: body.name || emailMessages.defaultName,
    subject: body.subject,
    preheader: body.preheader ?? '',
    fromName: body.fromName ?? '',
    fromEmail: body.fromEmail,
    replyTo: body.replyTo ?? null,
    categoryId: body.categoryId ?? null,
    html,
    editor: JSON.stringify(editor),
    createdBy: session.teamMemberId,
  });
  if (body.folderId) await fileInFolder(db, session.accountId, body.folderId, row.id);
  return { email: toEmail(row) };
}

/**
 * PATCH /v1/emails/{id}. The body's `id`, when sent, must be the path's. Content changes are checked
 * for merge-tag errors before anything is written, so a refused change leaves the email as it was.
 */
export async function updateEmail(db: Database, session: Session, id: number, body: UpdateEmailBody) {
  if (body.id !== undefined && body.id !== id) throw badRequest(emailMessages.idMismatch);
  const current = await emailOrThrow(db, session.accountId, id);
  const next = {
    subject: body.subject ?? current.subject,
    preheader: body.preheader ?? current.preheader,
    html: body.html ?? current.html,
  };
  if (body.subject !== undefined || body.preheader !== undefined || body.html !== undefined)
    checkTemplates(next);
  if (body.categoryId) await categoryOrThrow(db, session.accountId, body.categoryId);
  const row = await updateEmailRow(db, session.accountId, id, {
    ...(body.name !== undefined ? { name: body.name || emailMessages.defaultName } : {}),
    ...(body.subject !== undefined ? { subject: body.subject } : {}),
    ...(body.preheader !== undefined ? { preheader: body.preheader } : {}),
    ...(body.fromName !== undefined ? { fromName: body.fromName } : {}),
    ...(body.fromEmail !== undefined ? { fromEmail: body.fromEmail } : {}),
    ...(body.replyTo !== undefined ? { replyTo: body.replyTo } : {}),
    ...(body.categoryId !== undefined ? { categoryId: body.categoryId } : {}),
    ...(body.html !== undefined && body.editor !== undefined
      ? { html: body.html, editor: JSON.stringify(body.editor) }
      : {}),
    ...(body.archived !== undefined ? { archived: body.archived } : {}),
  });
  if (!row) throw notFound(emailMessages.notFound);
  return { email: toEmail(row) };
}

/**
 * POST /v1/emails/duplication: 'Copy of {name}' without id and stats, in this account or in another
 * one where the user is a member with emails:write. The copy is written under the target account's
 * row-level security, in a transaction of its own.
 */
export async function duplicateEmail(
  services: Services,
  db: Database,
  session: Session,
  body: { emailId: number; targetAccountId?: number },
) {
  const source = await emailOrThrow(db, session.accountId, body.emailId);
  const targetAccountId = body.targetAccountId ?? session.accountId;
  const copy = (target: Database, createdBy: number | null) =>
    insertEmail(target, {
      accountId: targetAccountId,
      name: `${emailMessages.copyPrefix}${source.name}`.slice(0, 200),
      subject: source.subject,
      preheader: source.preheader,
      fromName: source.fromName,
      fromEmail: source.fromEmail,
      replyTo: source.replyTo,
      // Categories belong to their account: a copy elsewhere takes that account's default.
      categoryId: targetAccountId === session.accountId ? source.categoryId : null,
      html: source.html,
      type: source.type,
      editor: JSON.stringify(source.editor),
      createdBy,
    });
  if (targetAccountId === session.accountId) {
    return { email: toEmail(await copy(db, session.teamMemberId)), message: emailMessages.copied };
  }
  const access = await findMemberAccess(services.db, targetAccountId, session.userId);
  if (!access || !hasScopes({ isOwner: access.isOwner, scopes: access.scopes }, ['emails:write'])) {
    throw forbidden(emailMessages.targetAccountForbidden);
  }
  const row = await withAccount(services.db, targetAccountId, (target) => copy(target, access.id));
  return { email: toEmail(row), message: emailMessages.copied };
}
