import { nativeServiceId, serviceMessages, slackServiceId } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { AppError, badRequest, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import type { Services } from '../../services.ts';
import { findService } from './catalogue.ts';
import { connectSlack, testSlack } from './slack.service.ts';

/** POST /v1/services/{serviceId}/{operation}, /refreshServiceResponseSchema and /v1/auth/{service} (docs/apps-and-webhooks.md). */

const known = (id: string) => {
  const service = findService(id);
  if (!service && id !== nativeServiceId) throw notFound(serviceMessages.unknownService(id));
  return service;
};

export async function runServiceOperation(
  db: Database,
  services: Services,
  session: Session,
  serviceId: string,
  operation: string,
  config: Record<string, unknown> | undefined,
) {
  const service = known(serviceId);
  if (!service || !service.operations.includes(operation))
    throw notFound(serviceMessages.unknownOperation(serviceId, operation));
  // Slack's one operation: a test message (config.text, else a standard line).
  const text = config?.text;
  if (text !== undefined && (typeof text !== 'string' || text.length > 3000))
    throw badRequest('The message must be text of at most 3,000 characters.');
  return testSlack(db, services, session, text);
}

/** The JSON Schema of what the service takes (Slack's credentials) or sends into a Webhook trigger (the others). */
export function serviceSchema(serviceId: string): { schema: Record<string, unknown> } {
  const service = known(serviceId);
  return { schema: service?.schema ?? {} };
}

export async function saveCredentials(
  db: Database,
  services: Services,
  session: Session,
  serviceId: string,
  body: { url?: string | undefined },
) {
  const service = known(serviceId);
  if (serviceId === slackServiceId) return connectSlack(db, services, session, body.url);
  throw new AppError(
    'UnprocessableError',
    serviceMessages.noCredentialsNeeded(service?.humanName ?? 'Herald'),
    { errorCode: serviceMessages.invalidCredentials },
  );
}
