import {
  TransactionalDelivery,
  TransactionalParams,
  TransactionalSendBody,
  TransactionalSendResponse,
  transactionalLimits,
} from '@herald/contracts';
import { route } from '../../http/route.ts';
import { readIdempotencyKey, sendTransactional, transactionalStatus } from './transactional.service.ts';

/**
 * Transactional sends (issue 17): called by the account's own systems with its API key (`Authorization: Bearer`),
 * or from a signed-in session. Sending needs broadcasts:write, the spec's scope for sending email to people; reading
 * a delivery needs broadcasts:read.
 */
export const transactionalRoutes = [
  route({
    method: 'POST',
    url: '/v1/transactional/send',
    auth: 'session',
    scopes: ['broadcasts:write'],
    bodyLimit: transactionalLimits.bodyLimitBytes,
    body: TransactionalSendBody,
    response: TransactionalSendResponse,
    summary:
      'Send one email (a saved email, or ad-hoc content with emailId -12345) to one address with merge data, under a transactional category. An Idempotency-Key header (1-200 characters) makes a retried call send once: the same key and body answer the first result, another body is a 409.',
    example: {
      emailId: -12345,
      to: 'ada@example.com',
      subject: 'Your order {{ person.orderId }}',
      html: '<p>Thanks, {{ person.firstName | default: "there" }}!</p>',
      data: { orderId: 'A-1001' },
    },
    handler: async ({ db, session, body, request, reply }) => {
      const { answer, replayed } = await sendTransactional(
        db,
        session,
        body,
        readIdempotencyKey(request.headers['idempotency-key']),
      );
      if (replayed) void reply.header('idempotent-replayed', 'true');
      return answer;
    },
  }),
  route({
    method: 'GET',
    url: '/v1/transactional/:deliveryId',
    auth: 'session',
    scopes: ['broadcasts:read'],
    params: TransactionalParams,
    response: TransactionalDelivery,
    summary:
      'Where one transactional delivery stands: pending, sending, sent, failed or canceled, with its last error and times',
    handler: ({ db, session, params }) => transactionalStatus(db, session, params.deliveryId),
  }),
];
