import { MailboxList, MailboxMessage } from '@herald/contracts';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { notFound } from '../../http/errors.ts';
import { route } from '../../http/route.ts';
import type { Services } from '../../services.ts';
import { findMailboxMessage, listMailbox } from './dev-mailbox.queries.ts';

/**
 * The built-in mailbox exists only when mail has nowhere else to go (no SMTP_URL, not production),
 * and only answers the machine it runs on: whoever runs the instance reads it, nobody else.
 */
function assertMailboxOpen(services: Services, request: FastifyRequest): void {
  const peer = request.socket.remoteAddress ?? '';
  const isLoopback = peer === '::1' || /^(::ffff:)?127\./.test(peer);
  if (!services.config.useDevMailbox || !isLoopback) throw notFound();
}

export const devMailboxRoutes = [
  route({
    method: 'GET',
    url: '/v1/dev/mailbox',
    auth: 'public',
    tenant: false,
    summary: 'Messages in the built-in mailbox, newest first',
    response: MailboxList,
    handler: async ({ services, request }) => {
      assertMailboxOpen(services, request);
      return { messages: await listMailbox(services.db) };
    },
  }),
  route({
    method: 'GET',
    url: '/v1/dev/mailbox/:id',
    auth: 'public',
    tenant: false,
    summary: 'One message of the built-in mailbox',
    params: z.object({
      id: z.coerce
        .number()
        .int()
        .positive()
        .max(2 ** 53),
    }),
    response: MailboxMessage,
    handler: async ({ services, request, params }) => {
      assertMailboxOpen(services, request);
      return (
        (await findMailboxMessage(services.db, params.id)) ?? Promise.reject(notFound('No such message.'))
      );
    },
  }),
];
