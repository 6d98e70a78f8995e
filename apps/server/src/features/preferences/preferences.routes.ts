import {
  CommunicationPreferences,
  SavePreferencesBody,
  TokenQuery,
  UnsubscribeResponse,
} from '@herald/contracts';
import { route } from '../../http/route.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';
import type { Services } from '../../services.ts';
import { seenOf } from '../consent/consent.queries.ts';
import { getPreferences, savePreferences, unsubscribe, unsubscribeFromAll } from './preferences.service.ts';

/** Recipients' own calls, no login: the token of the link is the only key. 120 calls per 10 minutes per address. */
const limit = (services: Services, ip: string) => enforceRateLimit(services.db, `recipient:${ip}`, 120, 600);

/** The preference centre and unsubscribe (docs/senders-and-consent.md; RFC 8058). */
export const preferencesRoutes = [
  route({
    method: 'GET',
    url: '/v1/communication-preferences',
    auth: 'public',
    summary: "A recipient's choices per communication category",
    query: TokenQuery,
    response: CommunicationPreferences,
    handler: async ({ services, query, request }) => {
      await limit(services, request.ip);
      return getPreferences(services, query.token);
    },
  }),
  route({
    method: 'POST',
    url: '/v1/communication-preferences',
    auth: 'public',
    summary: 'Save choices: category id → optIn, optOut or unspecified',
    query: TokenQuery,
    body: SavePreferencesBody,
    example: { '10': 'optOut' },
    handler: async ({ services, query, body, request }) => {
      await limit(services, request.ip);
      await savePreferences(services, query.token, body, seenOf(request));
    },
  }),
  route({
    method: 'POST',
    url: '/v1/communication-preferences/all',
    auth: 'public',
    summary: 'Unsubscribe from all marketing email',
    query: TokenQuery,
    handler: async ({ services, query, request }) => {
      await limit(services, request.ip);
      await unsubscribeFromAll(services, query.token, seenOf(request));
    },
  }),
  route({
    method: 'POST',
    url: '/v1/unsubscribe',
    auth: 'public',
    summary: 'Unsubscribe from all marketing email (the page behind the link)',
    query: TokenQuery,
    response: UnsubscribeResponse,
    handler: async ({ services, query, request }) => {
      await limit(services, request.ip);
      return unsubscribe(services, query.token, 'link', seenOf(request));
    },
  }),
  // RFC 8058: the mail client POSTs `List-Unsubscribe=One-Click` (form-encoded) to the List-Unsubscribe URL, with no
  // cookies and from no page of ours; any body is taken, and the answer is a plain 200.
  route({
    method: 'POST',
    url: '/public/unsubscribe',
    auth: 'public',
    csrf: false,
    anyBody: true,
    summary: 'One-click unsubscribe (RFC 8058)',
    query: TokenQuery,
    response: UnsubscribeResponse,
    handler: async ({ services, query, request }) => {
      await limit(services, request.ip);
      return unsubscribe(services, query.token, 'one-click', seenOf(request));
    },
  }),
];
