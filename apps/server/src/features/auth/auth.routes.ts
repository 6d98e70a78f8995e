import {
  GoogleLoginBody,
  HeartbeatResponse,
  LoginBody,
  MessageResponse,
  RequestResetBody,
  ResetPasswordBody,
  SignInResponse,
} from '@herald/contracts';
import { route } from '../../http/route.ts';
import { endSession } from '../../http/session-cookie.ts';
import { login, loginWithGoogle, requestPasswordReset, resetPassword } from './auth.service.ts';

/** Sign-in, sign-out, session check and password reset (docs/team-and-accounts.md). */
export const authRoutes = [
  route({
    method: 'POST',
    url: '/v1/accounts/login/',
    auth: 'public',
    example: { email: 'someone@example.com', password: 'a long password' },
    summary: 'Log in with email and password',
    body: LoginBody,
    response: SignInResponse,
    handler: ({ services, body, request, reply }) => login(services, body, request, reply),
  }),
  route({
    method: 'POST',
    url: '/v1/accounts/login/google',
    auth: 'public',
    example: { idToken: 'eyJ...' },
    summary: 'Log in with a Google ID token',
    body: GoogleLoginBody,
    response: SignInResponse,
    handler: ({ services, body, request, reply }) => loginWithGoogle(services, body.idToken, request, reply),
  }),
  route({
    method: 'POST',
    url: '/v1/accounts/logout',
    auth: 'public',
    summary: 'Log out: end the session and remove its cookie',
    handler: ({ services, request, reply }) => endSession(services, request, reply),
  }),
  route({
    method: 'GET',
    url: '/v1/heartbeat/authenticated',
    auth: 'session',
    summary: 'Session check',
    response: HeartbeatResponse,
    handler: async ({ session }) => ({ ok: true as const, accountId: session.accountId }),
  }),
  route({
    method: 'POST',
    url: '/v1/accounts/request-reset-password',
    auth: 'public',
    example: { email: 'someone@example.com' },
    summary: 'Email a password-reset link',
    body: RequestResetBody,
    response: MessageResponse,
    handler: ({ services, body, request }) => requestPasswordReset(services, body.email, request),
  }),
  route({
    method: 'POST',
    url: '/v1/accounts/reset-password',
    auth: 'public',
    example: { token: 'x.y', password: 'a new long password' },
    summary: 'Set a new password with a reset token',
    body: ResetPasswordBody,
    response: SignInResponse,
    handler: ({ services, body, request, reply }) => resetPassword(services, body, request, reply),
  }),
];
