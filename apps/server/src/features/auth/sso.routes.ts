import {
  Account,
  SaveSsoBody,
  SsoCallbackBody,
  SsoSettingsResponse,
  StartSsoBody,
  StartSsoResponse,
} from '@herald/contracts';
import { route } from '../../http/route.ts';
import { deleteSsoSettings, getSsoSettings, saveSsoSettings } from './sso-settings.service.ts';
import { finishSso, startSso } from './sso-sign-in.service.ts';

/** Single sign-on with OpenID Connect: the sign-in's two steps, the account's settings. */
export const ssoRoutes = [
  route({
    method: 'POST',
    url: '/v1/accounts/login/sso',
    auth: 'public',
    example: { email: 'someone@example.com' },
    summary: "Start single sign-on: the provider's sign-in address for the email's domain",
    body: StartSsoBody,
    response: StartSsoResponse,
    handler: ({ services, body, request, reply }) => startSso(services, body.email, request, reply),
  }),
  route({
    method: 'POST',
    url: '/v1/accounts/login/sso/callback',
    auth: 'public',
    example: { query: '?code=abc&state=xyz' },
    summary: "Finish single sign-on with the provider's answer (the callback page's query string)",
    body: SsoCallbackBody,
    response: Account,
    handler: ({ services, body, request, reply }) => finishSso(services, body.query, request, reply),
  }),
  route({
    method: 'GET',
    url: '/v1/accounts/sso',
    auth: 'session',
    scopes: ['account:write'],
    summary: "The account's single sign-on settings",
    response: SsoSettingsResponse,
    handler: ({ services, db, session }) => getSsoSettings(services, db, session),
  }),
  route({
    method: 'PUT',
    url: '/v1/accounts/sso',
    auth: 'session',
    scopes: ['account:write'],
    example: {
      issuer: 'https://login.example.com',
      clientId: 'herald',
      clientSecret: 'a secret',
      domains: ['example.com'],
      defaultScopes: [{ id: 'people:read', enabled: true }],
      requireSso: false,
    },
    summary: 'Set up or change single sign-on (the issuer is checked by reading its discovery document)',
    body: SaveSsoBody,
    response: SsoSettingsResponse,
    handler: ({ services, db, session, body }) => saveSsoSettings(services, db, session, body),
  }),
  route({
    method: 'DELETE',
    url: '/v1/accounts/sso',
    auth: 'session',
    scopes: ['account:write'],
    summary: 'Remove single sign-on: password sign-in is back for everyone',
    status: 204,
    handler: ({ db, session }) => deleteSsoSettings(db, session),
  }),
];
