import {
  ConfirmBody,
  ConfirmResponse,
  ConsentHistory,
  DoubleOptInSettings,
  PersonIdParams,
  ResendResponse,
} from '@herald/contracts';
import { route } from '../../http/route.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';
import type { Services } from '../../services.ts';
import { seenOf } from '../consent/consent.queries.ts';
import {
  confirmSubscription,
  consentHistory,
  getDoubleOptIn,
  putDoubleOptIn,
  resendConfirmation,
  resendForPerson,
} from './confirmations.service.ts';

/** Recipients' own calls, no login: 120 per 10 minutes per address, as the preference centre's. */
const limit = (services: Services, ip: string) => enforceRateLimit(services.db, `recipient:${ip}`, 120, 600);

/** Double opt-in and proof of consent (docs/senders-and-consent.md). */
export const confirmationsRoutes = [
  route({
    method: 'POST',
    url: '/v1/public/confirm-subscription',
    auth: 'public',
    summary: "Confirm a subscription with the token of a confirmation email's link (double opt-in)",
    body: ConfirmBody,
    response: ConfirmResponse,
    example: { token: 'sealed-token-from-the-email-link' },
    handler: async ({ services, body, request }) => {
      await limit(services, request.ip);
      return confirmSubscription(services, body.token, seenOf(request));
    },
  }),
  route({
    method: 'POST',
    url: '/v1/public/confirm-subscription/resend',
    auth: 'public',
    summary: 'Send a new confirmation email to the person of a (possibly expired) confirmation link',
    body: ConfirmBody,
    response: ResendResponse,
    example: { token: 'sealed-token-from-the-email-link' },
    handler: async ({ services, body, request }) => {
      await limit(services, request.ip);
      return resendConfirmation(services, body.token);
    },
  }),
  route({
    method: 'GET',
    url: '/v1/people/:id/consent',
    auth: 'session',
    scopes: ['people:read'],
    summary: "A person's consent history (subscribe, confirm, unsubscribe, preferences), newest first",
    params: PersonIdParams,
    response: ConsentHistory,
    handler: ({ db, session, params }) => consentHistory(db, session, params.id),
  }),
  route({
    method: 'POST',
    url: '/v1/people/:id/consent/resend',
    auth: 'session',
    scopes: ['people:write'],
    summary: 'Send a person who still waits to confirm (double opt-in) a new confirmation email',
    params: PersonIdParams,
    response: ResendResponse,
    audit: { resource: 'person-confirmation' },
    handler: ({ services, db, session, params }) => resendForPerson(services, db, session, params.id),
  }),
  route({
    method: 'GET',
    url: '/v1/settings/double-opt-in',
    auth: 'session',
    summary: 'Double opt-in: on or off for the account, per form, and the confirmation email',
    response: DoubleOptInSettings,
    handler: ({ db, session }) => getDoubleOptIn(db, session),
  }),
  route({
    method: 'PUT',
    url: '/v1/settings/double-opt-in',
    auth: 'session',
    scopes: ['emailSettings:write'],
    summary: 'Turn double opt-in on or off, per form, and choose the confirmation email',
    body: DoubleOptInSettings,
    response: DoubleOptInSettings,
    example: { doubleOptIn: true, forms: {}, confirmationEmailId: null },
    audit: { resource: 'double-opt-in', before: ({ db, session }) => getDoubleOptIn(db, session) },
    handler: ({ db, session, body }) => putDoubleOptIn(db, session, body),
  }),
];
