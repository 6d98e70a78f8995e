import {
  decodeInputFields,
  flowMessages,
  webhookTestMessages,
  type InputFields,
  type WebhookTestAnswer,
  type WebhookTestBody,
} from '@herald/contracts';
import type { z } from 'zod';
import type { Database } from '../../db/connection.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { checkOutgoingUrl, fetchOutgoing, OutgoingError } from '../../lib/outgoing-url.ts';
import type { Services } from '../../services.ts';
import { findStep } from './steps.queries.ts';

const testTimeoutMs = 10_000;
const shownChars = 2000;

/**
 * POST /v1/steps/{id}/test-webhook: one request in the shape of a real call (flow-effects.service.ts), with a sample
 * person and `test: true`, through the same address rules as the runtime. A refused address is a 400 (nothing is
 * called); a receiver that fails or does not answer is a result to show, not an error of this call.
 */
export async function testWebhookStep(
  db: Database,
  services: Services,
  session: Session,
  id: number,
  body: z.infer<typeof WebhookTestBody>,
): Promise<WebhookTestAnswer> {
  const step = await findStep(db, session.accountId, id);
  if (!step) throw notFound(flowMessages.stepNotFound);
  if (step.operationKey !== '/send-webhook') throw badRequest(webhookTestMessages.notWebhookStep);
  const saved = decodeInputFields(step.inputFields as InputFields).url;
  const url = (body.url ?? (typeof saved === 'string' ? saved : '')).trim();
  if (!url) throw badRequest(webhookTestMessages.noUrl);
  const options = services.config.outgoing;
  const problem = await checkOutgoingUrl(url, options);
  if (problem) throw badRequest(problem);

  const key = `test:${step.id}:${Date.now()}`;
  const payload = {
    event: 'flow.step',
    test: true,
    flowId: Number(step.flowId),
    stepId: Number(step.id),
    runId: null,
    idempotencyKey: key,
    person: {
      id: null,
      email: 'jane.doe@example.com',
      firstName: 'Jane',
      lastName: 'Doe',
      tags: ['sample'],
      fields: {},
    },
  };
  const started = performance.now();
  try {
    const response = await fetchOutgoing(url, {
      ...options,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Herald-Webhook/1',
        'idempotency-key': key,
        'x-herald-test': '1',
      },
      body: JSON.stringify(payload),
      timeoutMs: testTimeoutMs,
      maxResponseBytes: 16 * 1024,
    });
    const ok = response.status >= 200 && response.status < 300;
    return {
      ok,
      status: response.status,
      durationMs: elapsed(started),
      responseBody: response.body.slice(0, shownChars),
      error: ok ? null : `The webhook answered ${response.status}.`,
      payload,
    };
  } catch (failure) {
    if (failure instanceof OutgoingError && failure.reason === 'refused') throw badRequest(failure.message);
    const message = failure instanceof Error ? failure.message : String(failure);
    return {
      ok: false,
      status: null,
      durationMs: elapsed(started),
      responseBody: '',
      error: message,
      payload,
    };
  }
}

const elapsed = (started: number) => Math.round(performance.now() - started);
