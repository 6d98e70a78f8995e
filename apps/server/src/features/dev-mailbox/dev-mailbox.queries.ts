import type { MailboxMessage } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';

const columns = ['id', 'toAddress', 'fromAddress', 'subject', 'textBody', 'htmlBody', 'createdAt'] as const;

function toMessage(row: {
  id: number;
  toAddress: string;
  fromAddress: string;
  subject: string;
  textBody: string;
  htmlBody: string | null;
  createdAt: Date;
}): MailboxMessage {
  return {
    id: row.id,
    to: row.toAddress,
    from: row.fromAddress,
    subject: row.subject,
    text: row.textBody,
    html: row.htmlBody,
    createdAt: row.createdAt.toISOString(),
  };
}

export async function listMailbox(db: Database, limit = 200): Promise<MailboxMessage[]> {
  const rows = await db.selectFrom('devMailbox').select(columns).orderBy('id', 'desc').limit(limit).execute();
  return rows.map(toMessage);
}

export async function findMailboxMessage(db: Database, id: number): Promise<MailboxMessage | undefined> {
  const row = await db.selectFrom('devMailbox').select(columns).where('id', '=', id).executeTakeFirst();
  return row && toMessage(row);
}
