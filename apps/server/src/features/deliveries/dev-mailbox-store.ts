import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { MailboxRow } from './transport.ts';

/** Write mailbox messages and keep only the newest DEV_MAILBOX_KEEP, so a 100,000-person broadcast does not fill the disk. */
export async function storeInMailbox(db: Database, rows: MailboxRow[], keep: number): Promise<void> {
  if (!rows.length) return;
  await db.insertInto('devMailbox').values(rows).execute();
  await sql`delete from dev_mailbox where id <= (select id from dev_mailbox order by id desc offset ${keep} limit 1)`.execute(
    db,
  );
}
