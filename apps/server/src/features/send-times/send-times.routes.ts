import { BroadcastActionResponse, IdParams, QuietHoursBody, QuietHoursResponse, QuietHoursSavedResponse } from '@herald/contracts';
import { route } from '../../http/route.ts';
import { getQuietHours, pauseBroadcast, putQuietHours, resumeBroadcast } from './send-times.service.ts';

/** Send times (issue 17): quiet hours of the account, pause and resume of a sending broadcast. */
export const sendTimesRoutes = [
  route({ method: 'GET', url: '/v1/settings/quiet-hours', auth: 'session', summary: "The account's quiet hours: no broadcast mail between start and end in each recipient's local time", response: QuietHoursResponse,
    handler: ({ db, session }) => getQuietHours(db, session) }),
  route({ method: 'PUT', url: '/v1/settings/quiet-hours', auth: 'session', summary: 'Turn quiet hours on or off and set their window (account:write or emailSettings:write)', body: QuietHoursBody, response: QuietHoursSavedResponse,
    example: { enabled: true, start: '21:00', end: '08:00' },
    handler: ({ db, session, body }) => putQuietHours(db, session, body) }),
  route({ method: 'POST', url: '/v1/broadcasts/:id/pause', auth: 'session', scopes: ['broadcasts:write'], summary: 'Pause a sending broadcast: nothing more is sent until it is resumed (409 unless sending)', params: IdParams, response: BroadcastActionResponse,
    handler: ({ db, session, params }) => pauseBroadcast(db, session, params.id) }),
  route({ method: 'POST', url: '/v1/broadcasts/:id/resume', auth: 'session', scopes: ['broadcasts:write'], summary: 'Resume a paused broadcast where it stopped (409 unless paused)', params: IdParams, response: BroadcastActionResponse,
    handler: ({ db, session, params }) => resumeBroadcast(db, session, params.id) }),
];
