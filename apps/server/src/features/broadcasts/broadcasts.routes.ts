import {
  AudienceCount,
  AudienceCountBody,
  BroadcastActionResponse,
  BroadcastList,
  BroadcastListQuery,
  BroadcastResponse,
  BroadcastStatusResponse,
  CreateBroadcastBody,
  IdParams,
  UpdateBroadcastBody,
} from '@herald/contracts';
import { route } from '../../http/route.ts';
import {
  archiveBroadcast,
  broadcastAudienceCount,
  broadcastStatus,
  cancelBroadcast,
  createBroadcast,
  duplicateBroadcast,
  getBroadcast,
  getBroadcasts,
  sendBroadcast,
  updateBroadcast,
} from './broadcasts.service.ts';

const read = ['broadcasts:read'] as const;
const write = ['broadcasts:write'] as const;

/** Broadcasts (docs/broadcasts-and-sending.md); scopes as listed in docs/team-and-accounts.md. */
export const broadcastsRoutes = [
  route({ method: 'GET', url: '/v1/broadcasts', auth: 'session', scopes: [...read], summary: 'Broadcasts, newest change first, with live figures; archived ones only when asked', query: BroadcastListQuery, response: BroadcastList,
    handler: ({ db, session, query }) => getBroadcasts(db, session, query.archived) }),
  route({ method: 'POST', url: '/v1/broadcasts', auth: 'session', scopes: [...write], summary: "Create a draft broadcast (name defaults to 'My Broadcast')", body: CreateBroadcastBody, response: BroadcastResponse, status: 201,
    example: { name: 'November news' },
    handler: ({ db, session, body }) => createBroadcast(db, session, body) }),
  route({ method: 'POST', url: '/v1/broadcasts/audience-count', auth: 'session', scopes: [...read], summary: 'How many people an audience holds, and how many of them can receive the email now', body: AudienceCountBody, response: AudienceCount,
    example: { audience: { type: 'all' } },
    handler: ({ db, session, body }) => broadcastAudienceCount(db, session, body) }),
  route({ method: 'GET', url: '/v1/broadcasts/:id', auth: 'session', scopes: [...read], summary: 'One broadcast with live figures', params: IdParams, response: BroadcastResponse,
    handler: ({ db, session, params }) => getBroadcast(db, session, params.id) }),
  route({ method: 'PATCH', url: '/v1/broadcasts/:id', auth: 'session', scopes: [...write], summary: 'Change a draft or scheduled broadcast (409 once it is sending or done)', params: IdParams, body: UpdateBroadcastBody, response: BroadcastResponse,
    example: { name: 'November news' },
    handler: ({ db, session, params, body }) => updateBroadcast(db, session, params.id, body) }),
  route({ method: 'POST', url: '/v1/broadcasts/:id/send', auth: 'session', scopes: [...write], summary: 'Send now, or schedule at sendAt when it is in the future', params: IdParams, response: BroadcastActionResponse,
    handler: ({ db, session, params }) => sendBroadcast(db, session, params.id) }),
  route({ method: 'POST', url: '/v1/broadcasts/:id/cancel', auth: 'session', scopes: [...write], summary: 'Cancel a scheduled or sending broadcast; deliveries not yet sent are canceled', params: IdParams, response: BroadcastActionResponse,
    handler: ({ db, session, params }) => cancelBroadcast(db, session, params.id) }),
  route({ method: 'GET', url: '/v1/broadcasts/:id/status', auth: 'session', scopes: [...read], summary: 'The broadcast and its deliveries by status (polled while it sends)', params: IdParams, response: BroadcastStatusResponse,
    handler: ({ db, session, params }) => broadcastStatus(db, session, params.id) }),
  route({ method: 'POST', url: '/v1/broadcasts/:id/status', auth: 'session', scopes: [...read], summary: 'The broadcast and its deliveries by status (polled while it sends)', params: IdParams, response: BroadcastStatusResponse,
    handler: ({ db, session, params }) => broadcastStatus(db, session, params.id) }),
  route({ method: 'POST', url: '/v1/broadcasts/:id/duplicate', auth: 'session', scopes: [...write], summary: 'A new draft copying the name, email and audience', params: IdParams, response: BroadcastActionResponse, status: 201,
    handler: ({ db, session, params }) => duplicateBroadcast(db, session, params.id) }),
  route({ method: 'DELETE', url: '/v1/broadcasts/:id', auth: 'session', scopes: [...write], summary: 'Archive a broadcast (a scheduled one is canceled; a sending one refuses)', params: IdParams, response: BroadcastActionResponse,
    handler: ({ db, session, params }) => archiveBroadcast(db, session, params.id) }),
];
