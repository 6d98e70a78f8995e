import { serviceMessages, slackServiceId, type AuthReason, type ServiceConnection } from '@herald/contracts';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { AppError } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { checkOutgoingUrl } from '../../lib/outgoing-url.ts';
import type { Services } from '../../services.ts';
import { failSlack, judgeSlackAnswer, postToSlack, slackConnection } from './slack-outbox.ts';
import { mergeAccountJson } from '../accounts/accounts.queries.ts';

/**
 * Slack as a connected service (issue 20): credentials are an incoming-webhook URL on one of the operator's Slack
 * hosts (SLACK_WEBHOOK_HOSTS, hooks.slack.com by default) under /services/…, over https — or http to an address the
 * operator trusts (OUTGOING_TRUSTED_ADDRESSES: a local stand-in for tests).
 */

/** Why a URL is not a Slack incoming webhook: 'empty', 'invalid', or null when it is one. */
export function slackUrlProblem(
  raw: string | undefined,
  hosts: readonly string[],
  trusted: readonly string[],
): 'empty' | 'invalid' | null {
  const text = (raw ?? '').trim();
  if (!text) return 'empty';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'invalid';
  }
  const host = url.hostname.toLowerCase();
  if (url.username || url.password || !hosts.includes(host)) return 'invalid';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && trusted.includes(host))) return 'invalid';
  const parts = url.pathname.split('/').filter(Boolean);
  if (parts[0] !== 'services' || parts.length < 2 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p)))
    return 'invalid';
  return null;
}

const credentialError = (code: 'empty' | 'invalid') =>
  new AppError(
    'BadRequestError',
    code === 'empty' ? serviceMessages.slackEmpty : serviceMessages.slackInvalid,
    {
      errorCode: code === 'empty' ? serviceMessages.emptyCredentials : serviceMessages.invalidCredentials,
    },
  );

/** The URL with its secret last part hidden: hooks.slack.com/services/T01/B02/•••• */
export function maskSlackUrl(raw: string): string {
  try {
    const url = new URL(raw);
    const parts = url.pathname.split('/').filter(Boolean);
    const shown = parts.length > 1 ? [...parts.slice(0, -1), '••••'] : ['••••'];
    return `${url.host}/${shown.join('/')}`;
  } catch {
    return '••••';
  }
}

interface ConnectionRow {
  serviceId: string;
  credentials: { url: string };
  status: 'active' | 'failed';
  authReason: AuthReason | null;
  connectedAt: Date;
  failedAt: Date | null;
}

function shapeConnection(row: ConnectionRow): ServiceConnection {
  return {
    serviceId: row.serviceId,
    status: row.status,
    authReason: row.authReason,
    label: maskSlackUrl(row.credentials.url),
    connectedAt: row.connectedAt.toISOString(),
    failedAt: row.failedAt?.toISOString() ?? null,
  };
}

const connectionColumns = sql`service_id as "serviceId", credentials, status, auth_reason as "authReason", connected_at as "connectedAt", failed_at as "failedAt"`;

export async function listConnections(
  db: Database,
  session: Session,
): Promise<{ connections: ServiceConnection[] }> {
  const { rows } =
    await sql<ConnectionRow>`select ${connectionColumns} from account_services where account_id = ${session.accountId} order by service_id`.execute(
      db,
    );
  return { connections: rows.map(shapeConnection) };
}

/** POST /v1/auth/slack: check and save the webhook URL; a reconnect clears the Slack warnings of stopped flows. */
export async function connectSlack(
  db: Database,
  services: Services,
  session: Session,
  url: string | undefined,
) {
  const problem = slackUrlProblem(
    url,
    services.config.outgoing.slackWebhookHosts,
    services.config.outgoing.trustedAddresses,
  );
  if (problem) throw credentialError(problem);
  const clean = url!.trim();
  const refused = await checkOutgoingUrl(clean, services.config.outgoing);
  if (refused) throw credentialError('invalid');
  const { rows } = await sql<ConnectionRow>`
    insert into account_services (account_id, service_id, credentials)
    values (${session.accountId}, ${slackServiceId}, ${JSON.stringify({ url: clean })}::jsonb)
    on conflict (account_id, service_id) do update set credentials = excluded.credentials, status = 'active', auth_reason = null,
      failed_at = null, connected_at = now()
    returning ${connectionColumns}`.execute(db);
  const warnings = (['no_credentials', 'expired', 'wrong_credentials'] as const).map(
    serviceMessages.flowStopped,
  );
  await sql`update flows set warnings = warnings - ${warnings}::text[], auth_reason = null
    where account_id = ${session.accountId} and auth_reason is not null`.execute(db);
  await sql`update account_issues set resolved_at = now() where account_id = ${session.accountId} and kind in ('slack-connection', 'slack-refused') and resolved_at is null`.execute(
    db,
  );
  // Connecting an app completes the getting-started step 'Connect Apps' (docs/apps-and-webhooks.md).
  await mergeAccountJson(db, session.accountId, 'onboarding', { apps: true });
  return { connection: shapeConnection(rows[0]!), message: serviceMessages.slackConnected };
}

/** DELETE /v1/auth/slack: forget the URL. Flows with a Slack step stop (no_credentials) when they next post. */
export async function disconnectSlack(db: Database, session: Session) {
  const { rows } =
    await sql<ConnectionRow>`delete from account_services where account_id = ${session.accountId} and service_id = ${slackServiceId}
    returning ${connectionColumns}`.execute(db);
  if (!rows[0]) throw new AppError('NotFoundError', serviceMessages.slackNotConnected);
  return { connection: shapeConnection(rows[0]), message: serviceMessages.slackDisconnected };
}

/**
 * POST /v1/services/slack/test: post a message now and answer what Slack said. When Slack says the webhook is gone,
 * the connection is marked failed and flows posting to it stop, as for a flow's own message.
 */
export async function testSlack(
  db: Database,
  services: Services,
  session: Session,
  text: string | undefined,
) {
  const connection = await slackConnection(db, session.accountId);
  if (!connection)
    throw new AppError('UnprocessableError', serviceMessages.slackNotConnected, {
      errorCode: 'no_credentials',
    });
  const answer = await postToSlack(services, connection.url, text?.trim() || serviceMessages.slackTestText);
  if (answer.refused) throw new AppError('BadRequestError', answer.error ?? serviceMessages.slackInvalid);
  const judged = judgeSlackAnswer(answer.status, answer.body);
  if (judged.outcome === 'sent') {
    if (connection.status === 'failed') {
      await sql`update account_services set status = 'active', auth_reason = null, failed_at = null where account_id = ${session.accountId} and service_id = ${slackServiceId}`.execute(
        db,
      );
    }
    return { ok: true, status: answer.status, message: serviceMessages.slackTestSent };
  }
  if (judged.outcome === 'auth') await failSlack(db, session.accountId, judged.reason!);
  return {
    ok: false,
    status: answer.status,
    message: answer.error ?? serviceMessages.slackRefused(answer.status),
  };
}
