import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { queueSlackMessage } from './slack-outbox.ts';

/**
 * Account alerts (issue 20): something Herald switched off on its own (a failing webhook endpoint, a flow whose Slack
 * connection failed). Each is an open account issue (the top bar's account-issues warning) under a kind naming what
 * it is about, and a message to the account's Slack when Slack is connected and working.
 */
export async function raiseAlert(
  db: Database,
  accountId: number,
  kind: string,
  message: string,
  options: { slack?: boolean } = {},
): Promise<void> {
  const { rows } = await sql<{ id: string }>`
    insert into account_issues (account_id, kind, message)
    select ${accountId}, ${kind}, ${message}
    where not exists (select 1 from account_issues where account_id = ${accountId} and kind = ${kind} and resolved_at is null)
    returning id`.execute(db);
  const issue = rows[0];
  if (issue && options.slack !== false)
    await queueSlackMessage(db, accountId, {
      key: `alert:${issue.id}`,
      source: 'alert',
      text: `:warning: ${message}`,
    });
}

/** Close the alert of that kind (the endpoint was switched on again or deleted, Slack was reconnected). */
export async function resolveAlert(db: Database, accountId: number, kind: string): Promise<void> {
  await sql`update account_issues set resolved_at = now() where account_id = ${accountId} and kind = ${kind} and resolved_at is null`.execute(
    db,
  );
}
