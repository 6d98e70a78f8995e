import { serviceMessages, slackServiceId, type AuthReason } from '@herald/contracts';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';
import { fetchOutgoing, OutgoingError } from '../../lib/outgoing-url.ts';
import type { Services } from '../../services.ts';

/**
 * Slack messages (issue 20): an outbox written in the transaction that decides to send (a flow batch, an alert),
 * keyed per account so a redone batch stores nothing twice, and posted by the `slack-send` job to the account's
 * incoming-webhook URL. When Slack says the webhook is gone, the connection is marked failed and the account's active
 * flows with a Slack step stop with status 'deactivated-expired-auth' and the reason.
 */

const callTimeoutMs = 10_000;
const maxAttempts = 6;
const retryDelaySeconds = (attempts: number) => 30 * 2 ** (attempts - 1);

export interface SlackMessage {
  key: string;
  source: 'flow' | 'alert';
  text: string;
  flowId?: number;
  stepId?: number;
}

export interface SlackConnection {
  url: string;
  status: 'active' | 'failed';
  authReason: AuthReason | null;
}

export async function slackConnection(db: Database, accountId: number): Promise<SlackConnection | null> {
  const { rows } = await sql<{
    credentials: { url: string };
    status: 'active' | 'failed';
    authReason: AuthReason | null;
  }>`
    select credentials, status, auth_reason as "authReason" from account_services where account_id = ${accountId} and service_id = ${slackServiceId}`.execute(
    db,
  );
  const row = rows[0];
  return row ? { url: row.credentials.url, status: row.status, authReason: row.authReason } : null;
}

/** Store messages for the job. Alerts go only to a working connection; flow messages always (the job judges them). */
export async function queueSlackMessage(
  db: Database,
  accountId: number,
  ...messages: SlackMessage[]
): Promise<void> {
  const wanted = messages.filter((m) => m.source === 'flow');
  if (wanted.length < messages.length) {
    const connection = await slackConnection(db, accountId);
    if (connection?.status === 'active') wanted.push(...messages.filter((m) => m.source !== 'flow'));
  }
  if (!wanted.length) return;
  await sql`
    insert into slack_messages (account_id, idempotency_key, source, text, flow_id, step_id)
    select ${accountId}, m->>'key', m->>'source', m->>'text', (m->>'flowId')::bigint, (m->>'stepId')::bigint
    from jsonb_array_elements(${JSON.stringify(wanted)}::jsonb) m
    on conflict (account_id, idempotency_key) do nothing`.execute(db);
  await enqueueJob(db, 'slack-send', { accountId }, { jobKey: `slack-send:${accountId}`, soonest: true });
}

/** What Slack's answer means for the connection: gone for good (and why), worth retrying, or refused for this message only. */
export function judgeSlackAnswer(
  status: number | null,
  body: string,
): { outcome: 'sent' | 'retry' | 'failed' | 'auth'; reason?: AuthReason } {
  const text = body.trim().toLowerCase();
  if (status !== null && status >= 200 && status < 300) return { outcome: 'sent' };
  if (text === 'token_revoked' || text === 'token_expired' || status === 410)
    return { outcome: 'auth', reason: 'expired' };
  if (
    text === 'no_service' ||
    text === 'invalid_token' ||
    text === 'no_service_id' ||
    text === 'no_team' ||
    status === 404 ||
    status === 403
  ) {
    return { outcome: 'auth', reason: 'wrong_credentials' };
  }
  if (status === null || status === 408 || status === 429 || status >= 500) return { outcome: 'retry' };
  return { outcome: 'failed' };
}

/** Post one message to a Slack incoming webhook; answers the status (null: no answer) and the body. */
export async function postToSlack(
  services: Services,
  url: string,
  text: string,
): Promise<{ status: number | null; body: string; error: string | null; refused?: true }> {
  try {
    const response = await fetchOutgoing(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Herald-Slack/1' },
      body: JSON.stringify({ text }),
      timeoutMs: callTimeoutMs,
      maxResponseBytes: 16 * 1024,
      ...services.config.outgoing,
    });
    return {
      status: response.status,
      body: response.body,
      error:
        response.status >= 300 ? `Slack answered ${response.status}: ${response.body.slice(0, 200)}` : null,
    };
  } catch (failure) {
    // A refused address (private after DNS or a redirect) will not change by asking again: the caller fails the message.
    if (failure instanceof OutgoingError && failure.reason === 'refused')
      return { status: null, body: '', error: failure.message, refused: true };
    return { status: null, body: '', error: failure instanceof Error ? failure.message : String(failure) };
  }
}

/**
 * Mark the account's Slack connection failed (or missing) and stop its active flows that post to Slack, each with
 * the reason among its warnings; returns the names of the flows stopped.
 */
export async function failSlack(db: Database, accountId: number, reason: AuthReason): Promise<string[]> {
  await sql`update account_services set status = 'failed', auth_reason = ${reason}, failed_at = now()
    where account_id = ${accountId} and service_id = ${slackServiceId}`.execute(db);
  const warning = serviceMessages.flowStopped(reason);
  const { rows } = await sql<{ name: string }>`
    update flows f set status = 'deactivated-expired-auth', auth_reason = ${reason}, updated_at = now(),
      warnings = case when f.warnings @> jsonb_build_array(${warning}::text) then f.warnings else f.warnings || jsonb_build_array(${warning}::text) end
    where f.account_id = ${accountId} and f.status = 'active'
      and exists (select 1 from flow_steps s where s.account_id = f.account_id and s.flow_id = f.id and s.operation_key = '/slack-notification')
    returning f.name`.execute(db);
  return rows.map((r) => r.name);
}

interface DueMessage {
  id: string;
  text: string;
  attempts: number;
}

/** The `slack-send` job: post due messages in order, one at a time (Slack allows about one a second per webhook). */
export async function sendSlackMessages(services: Services, accountId: number): Promise<Date | null> {
  for (;;) {
    const claimed = await withAccount(services.db, accountId, async (db) => {
      const { rows } = await sql<DueMessage>`
        update slack_messages m set status = 'sending', attempts = m.attempts + 1, lease_until = now() + interval '120 seconds'
        where m.account_id = ${accountId} and m.id in (
          select id from slack_messages where account_id = ${accountId} and next_at <= now()
            and (status = 'pending' or (status = 'sending' and lease_until < now()))
          order by next_at, id limit 20 for update skip locked)
        returning m.id, m.text, m.attempts`.execute(db);
      return { rows, connection: await slackConnection(db, accountId) };
    });
    if (!claimed.rows.length) break;
    const { connection } = claimed;
    if (!connection || connection.status === 'failed') {
      const reason: AuthReason = connection?.authReason ?? 'no_credentials';
      await withAccount(services.db, accountId, async (db) => {
        await finish(
          db,
          accountId,
          claimed.rows.map((m) => m.id),
          'failed',
          null,
          reason,
        );
        await stopFlows(db, accountId, reason);
      });
      continue;
    }
    for (const message of claimed.rows) {
      const answer = await postToSlack(services, connection.url, message.text);
      const judged = judgeSlackAnswer(answer.status, answer.body);
      const stop = await withAccount(services.db, accountId, async (db) => {
        if (judged.outcome === 'sent') await finish(db, accountId, [message.id], 'sent', answer.status, null);
        else if (answer.refused) {
          await finish(db, accountId, [message.id], 'failed', null, answer.error);
          await sql`insert into account_issues (account_id, kind, message) select ${accountId}, 'slack-refused', ${serviceMessages.slackRefusedAlert(answer.error ?? '')}
            where not exists (select 1 from account_issues where account_id = ${accountId} and kind = 'slack-refused' and resolved_at is null)`.execute(
            db,
          );
        } else if (judged.outcome === 'retry' && message.attempts < maxAttempts)
          await retry(db, accountId, message, answer.status, answer.error);
        else await finish(db, accountId, [message.id], 'failed', answer.status, answer.error);
        if (judged.outcome !== 'auth') return false;
        await stopFlows(db, accountId, judged.reason!);
        // The rest of the claimed messages wait: the next round finds the connection failed and fails them.
        await sql`update slack_messages set status = 'pending', attempts = attempts - 1, lease_until = null
          where account_id = ${accountId} and status = 'sending' and id <> ${message.id}`.execute(db);
        return true;
      });
      if (stop) break;
    }
  }
  const { rows } = await withAccount(services.db, accountId, (db) =>
    sql<{
      at: Date | null;
    }>`select least(min(next_at) filter (where status = 'pending'), min(lease_until) filter (where status = 'sending')) as at
      from slack_messages where account_id = ${accountId} and status in ('pending', 'sending')`.execute(db),
  );
  return rows[0]?.at ?? null;
}

async function stopFlows(db: Database, accountId: number, reason: AuthReason) {
  const stopped = await failSlack(db, accountId, reason);
  for (const name of stopped) {
    await sql`insert into account_issues (account_id, kind, message) values (${accountId}, 'slack-connection', ${serviceMessages.flowStoppedAlert(name, reason)})`.execute(
      db,
    );
  }
}

function finish(
  db: Database,
  accountId: number,
  ids: string[],
  status: 'sent' | 'failed',
  responseStatus: number | null,
  error: string | null,
) {
  return sql`update slack_messages set status = ${status}, response_status = ${responseStatus}, last_error = ${error?.slice(0, 1000) ?? null},
      lease_until = null, finished_at = now()
    where account_id = ${accountId} and id = any(${ids}::bigint[])`.execute(db);
}

function retry(
  db: Database,
  accountId: number,
  message: DueMessage,
  responseStatus: number | null,
  error: string | null,
) {
  return sql`update slack_messages set status = 'pending', response_status = ${responseStatus}, last_error = ${error?.slice(0, 1000) ?? null},
      lease_until = null, next_at = now() + make_interval(secs => ${retryDelaySeconds(message.attempts)})
    where account_id = ${accountId} and id = ${message.id}`.execute(db);
}
