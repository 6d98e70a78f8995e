import crypto from 'node:crypto';
import { flowMessages, flowRunMessages, WebhookTriggerBody } from '@herald/contracts';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { badRequest, notFound, unauthorized } from '../../http/errors.ts';
import { fetchOutgoing, OutgoingError } from '../../lib/outgoing-url.ts';
import type { Services } from '../../services.ts';
import { raiseAlert } from '../integrations/alerts.ts';
import { enterPeople } from './flow-runs.queries.ts';

/**
 * Webhooks of flows. Inbound: the webhook trigger's signed URL enters a person into the flow. Outbound: the
 * send-webhook step's calls, stored in an outbox by the run's batch under `${run.id}:${seq}` and posted after commit
 * by the `flow-webhook` job, with a 10 s time-out, retries with backoff and the outcome recorded on the row.
 */

/** The token of a webhook trigger's URL (`?token=`): HMAC-SHA256 of the step id under the step's secret. */
export function webhookTriggerToken(secret: string, stepId: number): string {
  return crypto.createHmac('sha256', secret).update(`flow-webhook:${stepId}`).digest('hex');
}

/** The header signature of a body: `sha256=` and the hex HMAC-SHA256 of the exact bytes under the step's secret. */
export function webhookBodySignature(secret: string, body: string): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
}

const sameText = (a: string, b: string) =>
  a.length === b.length && crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));

export interface InboundCall {
  stepId: number;
  rawBody: string;
  signature: string | undefined;
  token: string | undefined;
}

/** Check the call's signature, find or create its person and enter them into the step's flow. */
export async function receiveWebhookTrigger(
  services: Services,
  call: InboundCall,
): Promise<{ personId: number; entered: boolean }> {
  const { rows } = await sql<{
    accountId: string;
    flowId: string;
    operationKey: string;
    secret: string | null;
  }>`
    select account_id as "accountId", flow_id as "flowId", operation_key as "operationKey", secret from flow_steps where id = ${call.stepId}`.execute(
    services.db,
  );
  const step = rows[0];
  if (!step) throw notFound(flowMessages.stepNotFound);
  if (step.operationKey !== '/webhook-trigger') throw notFound(flowRunMessages.notWebhookTrigger);
  const signed =
    step.secret !== null &&
    ((call.signature !== undefined &&
      sameText(call.signature.trim().toLowerCase(), webhookBodySignature(step.secret, call.rawBody))) ||
      (call.token !== undefined &&
        sameText(call.token.trim().toLowerCase(), webhookTriggerToken(step.secret, call.stepId))));
  if (!signed) throw unauthorized(flowRunMessages.badSignature);
  let json: unknown;
  try {
    json = JSON.parse(call.rawBody);
  } catch {
    throw badRequest(flowRunMessages.badBody);
  }
  const parsed = WebhookTriggerBody.safeParse(json);
  if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? flowRunMessages.badBody);
  const accountId = Number(step.accountId);
  return withAccount(services.db, accountId, async (db) => {
    const personId = await personFor(db, accountId, parsed.data);
    const entered = await enterPeople(db, accountId, Number(step.flowId), call.stepId, [personId]);
    return { personId, entered: entered > 0 };
  });
}

async function personFor(
  db: Database,
  accountId: number,
  body: { email?: string | undefined; personId?: number | undefined },
): Promise<number> {
  if (body.personId !== undefined && body.email === undefined) {
    const row = await db
      .selectFrom('people')
      .select('id')
      .where('accountId', '=', accountId)
      .where('id', '=', body.personId)
      .executeTakeFirst();
    if (!row) throw notFound(flowRunMessages.personNotFound);
    return Number(row.id);
  }
  const email = body.email!.toLowerCase();
  const { rows } = await sql<{ id: string }>`
    with found as (select id from people where account_id = ${accountId} and lower(email) = ${email}),
    made as (
      insert into people (account_id, email) select ${accountId}, ${email} where not exists (select 1 from found)
      on conflict do nothing returning id
    )
    select id from found union all select id from made`.execute(db);
  if (rows[0]) return Number(rows[0].id);
  // Created by a concurrent call between the look and the insert.
  const again = await db
    .selectFrom('people')
    .select('id')
    .where('accountId', '=', accountId)
    .where(sql<boolean>`lower(email) = ${email}`)
    .executeTakeFirstOrThrow();
  return Number(again.id);
}

// ---------------------------------------------------------------------------------------------------------------
// Outbound calls.

const callTimeoutMs = 10_000;
const maxAttempts = 6;
/** 30 s, 1 min, 2 min, 4 min, 8 min between attempts. */
const retryDelaySeconds = (attempts: number) => 30 * 2 ** (attempts - 1);
const leaseSeconds = 60;

interface OutboxRow {
  id: string;
  flowId: string;
  stepId: string;
  idempotencyKey: string;
  url: string;
  payload: unknown;
  attempts: number;
}

/**
 * The `flow-webhook` job: post the account's due outbox rows (claimed under a lease, committed before calling, so a
 * worker that dies mid-call lets them be taken again). Every call carries its idempotency key in the
 * `Idempotency-Key` header, so a receiver can drop a repeat after an ambiguous failure. Returns when next to run.
 */
export async function sendWebhookCalls(services: Services, accountId: number): Promise<Date | null> {
  for (;;) {
    const rows = await withAccount(services.db, accountId, async (db) => {
      const { rows: claimed } = await sql<OutboxRow>`
        update flow_webhook_calls c set status = 'sending', attempts = c.attempts + 1, lease_until = now() + make_interval(secs => ${leaseSeconds})
        where c.account_id = ${accountId} and c.id in (
          select id from flow_webhook_calls where account_id = ${accountId} and next_at <= now()
            and (status = 'pending' or (status = 'sending' and lease_until < now()))
          order by next_at limit 20 for update skip locked)
        returning c.id, c.flow_id as "flowId", c.step_id as "stepId", c.idempotency_key as "idempotencyKey", c.url, c.payload, c.attempts`.execute(
        db,
      );
      return claimed;
    });
    if (!rows.length) break;
    await Promise.all(rows.map((row) => callOnce(services, accountId, row)));
  }
  const { rows } = await withAccount(services.db, accountId, (db) =>
    sql<{
      at: Date | null;
    }>`select least(min(next_at) filter (where status = 'pending'), min(lease_until) filter (where status = 'sending')) as at
      from flow_webhook_calls where account_id = ${accountId} and status in ('pending', 'sending')`.execute(
      db,
    ),
  );
  return rows[0]?.at ?? null;
}

async function callOnce(services: Services, accountId: number, row: OutboxRow): Promise<void> {
  let status: number | null = null;
  let error: string | null = null;
  let permanent = false;
  let refused = false;
  try {
    const response = await fetchOutgoing(row.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Herald-Webhook/1',
        'idempotency-key': row.idempotencyKey,
      },
      body: JSON.stringify(row.payload),
      timeoutMs: callTimeoutMs,
      maxResponseBytes: 64 * 1024,
      ...services.config.outgoing,
    });
    status = response.status;
    if (status >= 300) {
      error = `The webhook answered ${status}.`;
      // A client error other than a time-out or rate limit will not change by asking again.
      permanent = status >= 400 && status < 500 && status !== 408 && status !== 429;
    }
  } catch (failure) {
    error = failure instanceof Error ? failure.message : String(failure);
    refused = failure instanceof OutgoingError && failure.reason === 'refused';
    permanent = refused;
  }
  const done = error === null;
  const failed = !done && (permanent || row.attempts >= maxAttempts);
  await withAccount(services.db, accountId, async (db) => {
    // A refused address is shown: an account alert naming the flow and the URL (the call itself is not retried).
    if (refused) {
      const { rows: flows } = await sql<{
        name: string;
      }>`select name from flows where account_id = ${accountId} and id = ${row.flowId}`.execute(db);
      await raiseAlert(
        db,
        accountId,
        `flow-webhook:${row.stepId}`,
        flowMessages.webhookRefusedAlert(flows[0]?.name ?? `#${row.flowId}`, row.url, error ?? ''),
      );
    }
    await sql`update flow_webhook_calls set
        status = ${done ? 'sent' : failed ? 'failed' : 'pending'}, response_status = ${status}, last_error = ${error?.slice(0, 1000) ?? null},
        lease_until = null, finished_at = ${done || failed ? sql`now()` : null},
        next_at = ${done || failed ? sql`next_at` : sql`now() + make_interval(secs => ${retryDelaySeconds(row.attempts)})`}
      where account_id = ${accountId} and id = ${row.id}`.execute(db);
  });
}
