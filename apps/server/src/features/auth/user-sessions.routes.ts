import { ChangePasswordBody, EndedSessions, SessionIdParams, SessionList } from '@herald/contracts';
import { route } from '../../http/route.ts';
import { changePassword, endMyOtherSessions, endMySession, listMySessions } from './user-sessions.service.ts';

/** The signed-in user's own sessions and password (docs/team-and-accounts.md, "Sessions"). */
export const userSessionsRoutes = [
  route({
    method: 'GET',
    url: '/v1/profile/sessions',
    auth: 'session',
    summary: "The user's signed-in sessions",
    response: SessionList,
    handler: ({ services, session }) => listMySessions(services, session),
  }),
  route({
    method: 'DELETE',
    url: '/v1/profile/sessions/:id',
    auth: 'session',
    summary: 'Sign one of the other sessions out',
    params: SessionIdParams,
    handler: ({ services, session, params }) => endMySession(services, session, params.id),
  }),
  route({
    method: 'POST',
    url: '/v1/profile/sessions/sign-out-others',
    auth: 'session',
    summary: 'Sign every other session out',
    response: EndedSessions,
    handler: ({ services, session }) => endMyOtherSessions(services, session),
  }),
  route({
    method: 'POST',
    url: '/v1/profile/password',
    auth: 'session',
    example: { currentPassword: 'a long password', newPassword: 'Ox-lantern 47 rivers' },
    summary: 'Change the password; the other sessions end',
    body: ChangePasswordBody,
    handler: ({ services, session, body }) => changePassword(services, session, body),
  }),
];
