import { BroadcastActionResponse, IdParams } from '@herald/contracts';
import { route } from '../../http/route.ts';
import { pauseBroadcast, resumeBroadcast } from './broadcast-pause.service.ts';

/** Pause and resume of a sending broadcast (send times, issue 17); listed right after the send-times routes (app/routes.ts). */
export const broadcastPauseRoutes = [
  route({
    method: 'POST',
    url: '/v1/broadcasts/:id/pause',
    auth: 'session',
    scopes: ['broadcasts:write'],
    summary: 'Pause a sending broadcast: nothing more is sent until it is resumed (409 unless sending)',
    params: IdParams,
    response: BroadcastActionResponse,
    handler: ({ db, session, params }) => pauseBroadcast(db, session, params.id),
  }),
  route({
    method: 'POST',
    url: '/v1/broadcasts/:id/resume',
    auth: 'session',
    scopes: ['broadcasts:write'],
    summary: 'Resume a paused broadcast where it stopped (409 unless paused)',
    params: IdParams,
    response: BroadcastActionResponse,
    handler: ({ db, session, params }) => resumeBroadcast(db, session, params.id),
  }),
];
