import crypto from 'node:crypto';
import { webhookLimits, webhookMessages } from '@herald/contracts';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { fetchOutgoing, OutgoingError } from '../../lib/outgoing-url.ts';
import type { Services } from '../../services.ts';
import { raiseAlert } from './alerts.ts';

/**
 * Posting outgoing webhooks (issue 20). Waiting events of an endpoint are grouped into deliveries of up to 100 events
 * in id order; a delivery is one POST of `{ deliveryId, events: [{ id, type, createdAt, data }] }`, signed with the
 * endpoint's secret, and a retry posts the same events under the same delivery id (at least once; receivers drop
 * repeats by event id). Calls go through fetchOutgoing: private addresses are refused after DNS and on redirects.
 */

const callTimeoutMs = 10_000;
const leaseSeconds = 60;
/** 30 s doubling, at most 2 hours apart: 12 attempts span about 10 hours. */
export const retryDelaySeconds = (attempts: number) => Math.min(30 * 2 ** (attempts - 1), 7200);

/** `Herald-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">` under the endpoint's secret. */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const mac = crypto.createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** Whether a signature header fits the body (receivers' check; tests use it). Rejects timestamps older than toleranceSeconds. */
export function verifySignature(
  secret: string,
  body: string,
  header: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !parts.v1 || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = signatureHeader(secret, body, t).split('v1=')[1]!;
  return (
    expected.length === parts.v1.length &&
    crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(parts.v1))
  );
}

export interface DueDelivery {
  id: number;
  endpointId: number;
  url: string;
  attempts: number;
  test: boolean;
}

/** Group every enabled endpoint's waiting events into deliveries of up to batchSize events. Returns how many were made. */
export async function formDeliveries(db: Database, accountId: number): Promise<number> {
  let made = 0;
  for (;;) {
    const { rows } = await sql<{ id: string }>`
      with endpoints as (
        select w.id from webhook_endpoints w where w.account_id = ${accountId} and w.enabled
          and exists (select 1 from webhook_events e where e.account_id = ${accountId} and e.endpoint_id = w.id and e.delivery_id is null)
      ),
      picked as (
        select e.id, e.endpoint_id, e.type, row_number() over (partition by e.endpoint_id order by e.id) as n
        from webhook_events e where e.account_id = ${accountId} and e.delivery_id is null and e.endpoint_id in (select id from endpoints)
      ),
      batch as (select * from picked where n <= ${webhookLimits.batchSize}),
      d as (
        insert into webhook_deliveries (account_id, endpoint_id, event_count, event_types)
        select ${accountId}, endpoint_id, count(*), array_agg(distinct type order by type) from batch group by endpoint_id
        returning id, endpoint_id
      )
      update webhook_events e set delivery_id = d.id from batch b join d on d.endpoint_id = b.endpoint_id
      where e.account_id = ${accountId} and e.id = b.id and e.delivery_id is null
      returning d.id`.execute(db);
    if (!rows.length) return made;
    made += new Set(rows.map((r) => r.id)).size;
  }
}

/** Claim due deliveries of enabled endpoints under a lease, committed before calling. */
async function claimDue(services: Services, accountId: number): Promise<DueDelivery[]> {
  return withAccount(services.db, accountId, async (db) => {
    await formDeliveries(db, accountId);
    const { rows } = await sql<{
      id: string;
      endpointId: string;
      url: string;
      attempts: number;
      test: boolean;
    }>`
      update webhook_deliveries d set status = 'sending', attempts = d.attempts + 1, lease_until = now() + make_interval(secs => ${leaseSeconds})
      from webhook_endpoints w
      where d.account_id = ${accountId} and w.account_id = d.account_id and w.id = d.endpoint_id and w.enabled and d.id in (
        select id from webhook_deliveries where account_id = ${accountId} and next_at <= now()
          and (status = 'pending' or (status = 'sending' and lease_until < now()))
        order by next_at, id limit 10 for update skip locked)
      returning d.id, d.endpoint_id as "endpointId", w.url, d.attempts, d.test`.execute(db);
    return rows.map((r) => ({
      id: Number(r.id),
      endpointId: Number(r.endpointId),
      url: r.url,
      attempts: r.attempts,
      test: r.test,
    }));
  });
}

/** The job: post due deliveries until none are due; returns when the next one is due (null: nothing waits). */
export async function sendDueDeliveries(services: Services, accountId: number): Promise<Date | null> {
  for (;;) {
    const due = await claimDue(services, accountId);
    if (!due.length) break;
    await Promise.all(
      due.map((delivery) =>
        withAccount(services.db, accountId, (db) => deliverOnce(services, db, accountId, delivery)),
      ),
    );
  }
  await withAccount(services.db, accountId, (db) => pruneLog(db, accountId));
  const { rows } = await withAccount(services.db, accountId, (db) =>
    sql<{ at: Date | null }>`
      select least(min(d.next_at) filter (where d.status = 'pending'), min(d.lease_until) filter (where d.status = 'sending')) as at
      from webhook_deliveries d join webhook_endpoints w on w.account_id = d.account_id and w.id = d.endpoint_id and w.enabled
      where d.account_id = ${accountId} and d.status in ('pending', 'sending')`.execute(db),
  );
  return rows[0]?.at ?? null;
}

/** Post one delivery (its events, in id order) and record the outcome on it and on its endpoint. */
export async function deliverOnce(
  services: Services,
  db: Database,
  accountId: number,
  delivery: DueDelivery,
): Promise<void> {
  const { rows: events } = await sql<{ eventId: string; type: string; data: unknown; createdAt: Date }>`
    select event_id as "eventId", type, data, created_at as "createdAt" from webhook_events
    where account_id = ${accountId} and delivery_id = ${delivery.id} order by id`.execute(db);
  const { rows: endpoints } = await sql<{
    secret: string;
  }>`select secret from webhook_endpoints where account_id = ${accountId} and id = ${delivery.endpointId}`.execute(
    db,
  );
  const secret = endpoints[0]?.secret;
  if (!secret) return;
  const body = JSON.stringify({
    deliveryId: `${accountId}-${delivery.id}`,
    test: delivery.test,
    events: events.map((e) => ({
      id: e.eventId,
      type: e.type,
      createdAt: e.createdAt.toISOString(),
      data: e.data,
    })),
  });
  let status: number | null = null;
  let error: string | null = null;
  try {
    const response = await fetchOutgoing(delivery.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Herald-Webhook/1',
        'herald-signature': signatureHeader(secret, body, Math.floor(Date.now() / 1000)),
        'herald-delivery-id': `${accountId}-${delivery.id}`,
        'idempotency-key': `${accountId}-${delivery.id}`,
      },
      body,
      timeoutMs: callTimeoutMs,
      maxResponseBytes: 64 * 1024,
      ...services.config.outgoing,
    });
    status = response.status;
    if (status < 200 || status >= 300) error = `The endpoint answered ${status}.`;
  } catch (failure) {
    error = failure instanceof OutgoingError || failure instanceof Error ? failure.message : String(failure);
  }
  await recordOutcome(db, accountId, delivery, status, error);
}

async function recordOutcome(
  db: Database,
  accountId: number,
  delivery: DueDelivery,
  status: number | null,
  error: string | null,
) {
  const done = error === null;
  const failed = !done && delivery.attempts >= webhookLimits.maxAttempts;
  await sql`
    update webhook_deliveries set
      status = ${done ? 'sent' : failed ? 'failed' : 'pending'}, response_status = ${status}, last_error = ${error?.slice(0, 1000) ?? null},
      lease_until = null, last_attempt_at = now(), finished_at = ${done || failed ? sql`now()` : null},
      next_at = ${done || failed ? sql`next_at` : sql`now() + make_interval(secs => ${retryDelaySeconds(delivery.attempts)})`}
    where account_id = ${accountId} and id = ${delivery.id}`.execute(db);
  if (done) {
    await sql`update webhook_endpoints set failures_in_row = 0, failing_since = null where account_id = ${accountId} and id = ${delivery.endpointId} and failures_in_row > 0`.execute(
      db,
    );
    return;
  }
  // A failure: switched off once it has failed disableAfterFailures times in a row over disableAfterHours.
  const { rows } = await sql<{ url: string }>`
    update webhook_endpoints set
      failures_in_row = failures_in_row + 1,
      failing_since = coalesce(failing_since, now()),
      enabled = not (failures_in_row + 1 >= ${webhookLimits.disableAfterFailures}
        and coalesce(failing_since, now()) <= now() - make_interval(hours => ${webhookLimits.disableAfterHours})),
      disabled_at = case when failures_in_row + 1 >= ${webhookLimits.disableAfterFailures}
        and coalesce(failing_since, now()) <= now() - make_interval(hours => ${webhookLimits.disableAfterHours}) then now() end,
      disabled_reason = case when failures_in_row + 1 >= ${webhookLimits.disableAfterFailures}
        and coalesce(failing_since, now()) <= now() - make_interval(hours => ${webhookLimits.disableAfterHours}) then ${webhookMessages.disabledAfterFailures} end,
      updated_at = now()
    where account_id = ${accountId} and id = ${delivery.endpointId} and enabled and not ${delivery.test}
    returning url, enabled`.execute(db);
  const row = rows[0] as { url: string; enabled: boolean } | undefined;
  if (row && !row.enabled)
    await raiseAlert(
      db,
      accountId,
      `webhook-endpoint:${delivery.endpointId}`,
      webhookMessages.alert(row.url),
    );
}

/** Deliveries finished more than logDays ago leave the log with their events, a thousand at a time. */
export async function pruneLog(db: Database, accountId: number): Promise<void> {
  await sql`
    with old as (
      select id from webhook_deliveries where account_id = ${accountId} and status in ('sent', 'failed')
        and finished_at < now() - make_interval(days => ${webhookLimits.logDays}) order by id limit 1000
    ),
    gone as (delete from webhook_events e using old where e.account_id = ${accountId} and e.delivery_id = old.id)
    delete from webhook_deliveries d using old where d.account_id = ${accountId} and d.id = old.id`.execute(
    db,
  );
}
