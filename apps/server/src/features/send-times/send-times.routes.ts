import { QuietHoursBody, QuietHoursResponse, QuietHoursSavedResponse } from '@herald/contracts';
import { route } from '../../http/route.ts';
import { getQuietHours, putQuietHours } from './send-times.service.ts';

/** Send times (issue 17): quiet hours of the account; pause and resume of a sending broadcast are in broadcasts/broadcast-pause.routes.ts. */
export const sendTimesRoutes = [
  route({
    method: 'GET',
    url: '/v1/settings/quiet-hours',
    auth: 'session',
    summary:
      "The account's quiet hours: no broadcast mail between start and end in each recipient's local time",
    response: QuietHoursResponse,
    handler: ({ db, session }) => getQuietHours(db, session),
  }),
  route({
    method: 'PUT',
    url: '/v1/settings/quiet-hours',
    auth: 'session',
    summary: 'Turn quiet hours on or off and set their window (account:write or emailSettings:write)',
    body: QuietHoursBody,
    response: QuietHoursSavedResponse,
    example: { enabled: true, start: '21:00', end: '08:00' },
    handler: ({ db, session, body }) => putQuietHours(db, session, body),
  }),
];
