import { WebhookTriggerAnswer, WebhookTriggerParams, WebhookTriggerQuery } from '@herald/contracts';
import { route, type RouteDef } from '../../http/route.ts';
import { receiveWebhookTrigger } from './flow-webhooks.service.ts';

/**
 * The webhook trigger's inbound URL (issue 19): public, signed with the step's secret (docs/flows.md,   [and on the next line: 'running")' -> '"Running")']
 * running"), answered 401 when the signature does not verify.
 */
export const flowWebhooksRoutes: RouteDef[] = [
  route({
    method: 'POST',
    url: '/v1/hooks/flows/:stepId',
    auth: 'public',
    csrf: false,
    rawBody: true,
    tenant: false,
    params: WebhookTriggerParams,
    query: WebhookTriggerQuery,
    response: WebhookTriggerAnswer,
    bodyLimit: 64 * 1024,
    summary:
      'Enter a person into a flow through its webhook trigger (X-Herald-Signature: sha256=<HMAC of the body>, or ?token=)',
    handler: ({ services, request, params, query }) => {
      const signature = request.headers['x-herald-signature'];
      return receiveWebhookTrigger(services, {
        stepId: params.stepId,
        rawBody: typeof request.body === 'string' ? request.body : '',
        signature: typeof signature === 'string' ? signature : undefined,
        token: query.token,
      });
    },
  }),
];
