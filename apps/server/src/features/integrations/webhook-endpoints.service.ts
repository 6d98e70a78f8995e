import {
  webhookLimits,
  webhookMessages,
  type CreateWebhookEndpointBody,
  type UpdateWebhookEndpointBody,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '@herald/contracts';
import { sql } from 'kysely';
import type { z } from 'zod';
import type { Database } from '../../db/connection.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';
import { checkOutgoingUrl } from '../../lib/outgoing-url.ts';
import type { Services } from '../../services.ts';
import { resolveAlert } from './alerts.ts';
import { deliverOnce, type DueDelivery } from './webhook-delivery.ts';
import { mergeAccountJson } from '../accounts/accounts.queries.ts';

/** Outgoing webhook endpoints of the account (issue 20): list, create, change, delete, reveal the secret, test, log. */

interface EndpointRow {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: Date | null;
  failuresInRow: number;
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const endpointColumns = sql`id, url, description, events, enabled, disabled_reason as "disabledReason", disabled_at as "disabledAt",
  failures_in_row as "failuresInRow", failing_since as "failingSince", created_at as "createdAt", updated_at as "updatedAt"`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function shape(row: EndpointRow): WebhookEndpoint {
  return {
    id: Number(row.id),
    url: row.url,
    description: row.description,
    events: row.events as WebhookEndpoint['events'],
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    disabledAt: iso(row.disabledAt),
    failuresInRow: row.failuresInRow,
    failingSince: iso(row.failingSince),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function findEndpoint(db: Database, accountId: number, id: number): Promise<EndpointRow> {
  const { rows } =
    await sql<EndpointRow>`select ${endpointColumns} from webhook_endpoints where account_id = ${accountId} and id = ${id}`.execute(
      db,
    );
  if (!rows[0]) throw notFound(webhookMessages.notFound);
  return rows[0];
}

async function checkUrl(services: Services, url: string): Promise<void> {
  const problem = await checkOutgoingUrl(url, services.config.outgoing);
  if (problem) throw badRequest(problem);
}

export async function listEndpoints(
  db: Database,
  session: Session,
): Promise<{ endpoints: WebhookEndpoint[] }> {
  const { rows } =
    await sql<EndpointRow>`select ${endpointColumns} from webhook_endpoints where account_id = ${session.accountId} order by id`.execute(
      db,
    );
  return { endpoints: rows.map(shape) };
}

export async function createEndpoint(
  db: Database,
  services: Services,
  session: Session,
  body: z.infer<typeof CreateWebhookEndpointBody>,
) {
  await checkUrl(services, body.url);
  const { rows: count } = await sql<{
    n: number;
  }>`select count(*)::int as n from webhook_endpoints where account_id = ${session.accountId}`.execute(db);
  if ((count[0]?.n ?? 0) >= webhookLimits.maxEndpoints)
    throw conflict(webhookMessages.tooMany, 'too-many-endpoints');
  const { rows } = await sql<EndpointRow & { secret: string }>`
    insert into webhook_endpoints (account_id, url, description, events, enabled)
    values (${session.accountId}, ${body.url}, ${body.description || null}, ${[...new Set(body.events)]}::text[], ${body.enabled ?? true})
    returning ${endpointColumns}, secret`.execute(db);
  const row = rows[0]!;
  // Sending Herald's events somewhere completes the getting-started step 'Connect Apps' (docs/apps-and-webhooks.md).
  await mergeAccountJson(db, session.accountId, 'onboarding', { apps: true });
  return { endpoint: shape(row), secret: row.secret };
}

export async function updateEndpoint(
  db: Database,
  services: Services,
  session: Session,
  id: number,
  body: z.infer<typeof UpdateWebhookEndpointBody>,
) {
  const before = await findEndpoint(db, session.accountId, id);
  if (body.url !== undefined && body.url !== before.url) await checkUrl(services, body.url);
  const switchedOn = body.enabled === true && !before.enabled;
  const { rows } = await sql<EndpointRow>`
    update webhook_endpoints set
      url = coalesce(${body.url ?? null}, url),
      description = ${body.description === undefined ? sql`description` : body.description || null},
      events = coalesce(${body.events ? [...new Set(body.events)] : null}::text[], events),
      enabled = coalesce(${body.enabled ?? null}::boolean, enabled),
      failures_in_row = ${switchedOn ? 0 : sql`failures_in_row`},
      failing_since = ${switchedOn ? null : sql`failing_since`},
      disabled_reason = ${body.enabled === undefined ? sql`disabled_reason` : null},
      disabled_at = ${body.enabled === false && before.enabled ? sql`now()` : body.enabled === true ? null : sql`disabled_at`},
      updated_at = now()
    where account_id = ${session.accountId} and id = ${id}
    returning ${endpointColumns}`.execute(db);
  if (switchedOn) {
    await resolveAlert(db, session.accountId, `webhook-endpoint:${id}`);
    // Deliveries that waited while it was off go now.
    await wakeDeliveries(db, session.accountId);
  }
  return { endpoint: shape(rows[0]!) };
}

export async function deleteEndpoint(
  db: Database,
  session: Session,
  id: number,
): Promise<{ endpoint: WebhookEndpoint }> {
  const row = await findEndpoint(db, session.accountId, id);
  await sql`delete from webhook_endpoints where account_id = ${session.accountId} and id = ${id}`.execute(db);
  await resolveAlert(db, session.accountId, `webhook-endpoint:${id}`);
  return { endpoint: shape(row) };
}

export async function endpointSecret(
  db: Database,
  session: Session,
  id: number,
): Promise<{ secret: string }> {
  await findEndpoint(db, session.accountId, id);
  const { rows } = await sql<{
    secret: string;
  }>`select secret from webhook_endpoints where account_id = ${session.accountId} and id = ${id}`.execute(db);
  return { secret: rows[0]!.secret };
}

interface DeliveryRow {
  id: string;
  endpointId: string;
  status: WebhookDelivery['status'];
  attempts: number;
  responseStatus: number | null;
  lastError: string | null;
  eventCount: number;
  eventTypes: string[];
  test: boolean;
  createdAt: Date;
  lastAttemptAt: Date | null;
  nextAt: Date;
  finishedAt: Date | null;
}

const deliveryColumns = sql`id, endpoint_id as "endpointId", status, attempts, response_status as "responseStatus", last_error as "lastError",
  event_count as "eventCount", event_types as "eventTypes", test, created_at as "createdAt", last_attempt_at as "lastAttemptAt", next_at as "nextAt",
  finished_at as "finishedAt"`;

function shapeDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: Number(row.id),
    endpointId: Number(row.endpointId),
    status: row.status,
    attempts: row.attempts,
    responseStatus: row.responseStatus,
    lastError: row.lastError,
    eventCount: row.eventCount,
    eventTypes: row.eventTypes,
    test: row.test,
    createdAt: row.createdAt.toISOString(),
    lastAttemptAt: iso(row.lastAttemptAt),
    nextAt: row.status === 'pending' ? row.nextAt.toISOString() : null,
    finishedAt: iso(row.finishedAt),
  };
}

/** The endpoint's deliveries, newest first. */
export async function listDeliveries(
  db: Database,
  session: Session,
  id: number,
  limit: number,
): Promise<{ deliveries: WebhookDelivery[] }> {
  await findEndpoint(db, session.accountId, id);
  const { rows } = await sql<DeliveryRow>`
    select ${deliveryColumns} from webhook_deliveries where account_id = ${session.accountId} and endpoint_id = ${id}
    order by id desc limit ${limit}`.execute(db);
  return { deliveries: rows.map(shapeDelivery) };
}

/**
 * Send a test event to the endpoint now: a delivery of one `test` event, attempted once while the caller waits and,
 * when it fails, retried by the job like any other delivery. Works on a switched-off endpoint too (to check a fix).
 */
export async function testEndpoint(
  db: Database,
  services: Services,
  session: Session,
  id: number,
): Promise<{ delivery: WebhookDelivery }> {
  const endpoint = await findEndpoint(db, session.accountId, id);
  await checkUrl(services, endpoint.url);
  const { rows } = await sql<{ id: string }>`
    with d as (
      insert into webhook_deliveries (account_id, endpoint_id, event_count, event_types, test, status, attempts, lease_until)
      values (${session.accountId}, ${id}, 1, '{test}', true, 'sending', 1, now() + interval '60 seconds') returning id
    )
    insert into webhook_events (account_id, endpoint_id, type, data, delivery_id)
    select ${session.accountId}, ${id}, 'test', ${JSON.stringify({ message: 'A test event from Herald.', endpointId: id })}::jsonb, d.id from d
    returning delivery_id as id`.execute(db);
  const deliveryId = Number(rows[0]!.id);
  const due: DueDelivery = { id: deliveryId, endpointId: id, url: endpoint.url, attempts: 1, test: true };
  // The delivery row is in this request's transaction; the call is made with it and its outcome written there too.
  await deliverOnce(services, db, session.accountId, due);
  await wakeDeliveries(db, session.accountId);
  const { rows: after } =
    await sql<DeliveryRow>`select ${deliveryColumns} from webhook_deliveries where account_id = ${session.accountId} and id = ${deliveryId}`.execute(
      db,
    );
  return { delivery: shapeDelivery(after[0]!) };
}

/**
 * Send a failed delivery (or one waiting for its next attempt) again now, with the same events and delivery id; a
 * failed one gets the full number of attempts again. The endpoint must be switched on for the job to send it.
 */
export async function retryDelivery(
  db: Database,
  session: Session,
  id: number,
  deliveryId: number,
): Promise<{ delivery: WebhookDelivery }> {
  await findEndpoint(db, session.accountId, id);
  const { rows } = await sql<DeliveryRow>`
    update webhook_deliveries set status = 'pending', next_at = now(), finished_at = null,
      attempts = case when status = 'failed' then 0 else attempts end
    where account_id = ${session.accountId} and endpoint_id = ${id} and id = ${deliveryId} and status in ('failed', 'pending')
    returning ${deliveryColumns}`.execute(db);
  if (!rows[0]) {
    const { rows: found } =
      await sql`select 1 from webhook_deliveries where account_id = ${session.accountId} and endpoint_id = ${id} and id = ${deliveryId}`.execute(
        db,
      );
    if (!found.length) throw notFound(webhookMessages.deliveryNotFound);
    throw conflict(webhookMessages.notRetryable, 'not-retryable');
  }
  await wakeDeliveries(db, session.accountId);
  return { delivery: shapeDelivery(rows[0]) };
}

export function wakeDeliveries(db: Database, accountId: number) {
  return enqueueJob(
    db,
    'outgoing-webhooks',
    { accountId },
    { jobKey: `outgoing-webhooks:${accountId}`, soonest: true },
  );
}
