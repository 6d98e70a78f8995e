import { ssoMessages, type Account } from '@herald/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, badRequest, notFound } from '../../http/errors.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';
import { atRestKey, decryptAtRest, openToken, sealToken } from '../../lib/sealed-tokens.ts';
import type { Services } from '../../services.ts';
import { startSignedIn } from './sign-in.ts';
import { authorizationUrl, discoverProvider, exchangeCode, newChecks } from './sso-client.ts';
import {
  ensureSsoMember,
  findSsoConnection,
  findSsoConnectionByDomain,
  type SsoConnectionRow,
} from './sso.queries.ts';

// Signing in through the account's OpenID provider (docs/team-and-accounts.md, "Single sign-on"). The attempt's
// account, state, nonce and PKCE verifier live in a sealed 10-minute cookie, never in the browser's address bar.

export const ssoCookie = 'herald_sso';
const attemptMinutes = 10;

/** Where the provider sends the browser back: a web page that hands the query string to the callback call. */
export const ssoRedirectUri = (services: Services) => `${services.config.publicUrl}/sso/callback`;

export function providerOf(services: Services, connection: SsoConnectionRow) {
  return {
    issuer: connection.issuer,
    clientId: connection.clientId,
    clientSecret: decryptAtRest(connection.clientSecret, atRestKey(services.secret, 'sso')),
  };
}

const serviceError = (message: string) => new AppError('ServiceError', message);

/** POST /v1/accounts/login/sso: the account that signs this email's domain in, and the provider's sign-in address. */
export async function startSso(
  services: Services,
  email: string,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  await enforceRateLimit(services.db, `sso-ip:${request.ip}`, 50, 900);
  const domain = email.trim().toLowerCase().split('@').pop() ?? '';
  const connection = await findSsoConnectionByDomain(services.db, domain);
  if (!connection) throw notFound(ssoMessages.noDomain);
  const config = await discoverProvider(services, providerOf(services, connection), serviceError);
  const checks = newChecks();
  const token = sealToken(
    { a: connection.accountId, s: checks.state, n: checks.nonce, v: checks.verifier },
    services.secret,
    'sso',
    attemptMinutes * 60,
  );
  reply.setCookie(ssoCookie, token, {
    path: '/',
    httpOnly: true,
    // Lax: the provider's redirect back is a top-level navigation, which carries it.
    sameSite: 'lax',
    secure: services.config.publicUrl.startsWith('https://') || request.protocol === 'https',
    maxAge: attemptMinutes * 60,
  });
  const redirectUrl = await authorizationUrl(config, ssoRedirectUri(services), checks, email.trim());
  return { redirectUrl };
}

function readAttempt(services: Services, request: FastifyRequest) {
  const token = request.cookies[ssoCookie];
  const payload = token ? openToken(token, services.secret, 'sso') : null;
  if (
    !payload ||
    typeof payload.a !== 'number' ||
    typeof payload.s !== 'string' ||
    typeof payload.n !== 'string' ||
    typeof payload.v !== 'string' ||
    payload.v.length < 43
  )
    throw badRequest(ssoMessages.attemptExpired);
  return { accountId: payload.a, checks: { state: payload.s, nonce: payload.n, verifier: payload.v } };
}

/**
 * POST /v1/accounts/login/sso/callback: the provider's answer checked (state, the code exchanged with the PKCE
 * verifier, the ID token's signature, issuer, audience, expiry and nonce), the email's domain one of the account's,
 * then a session in that account; a first sign-in creates the member with the account's default scopes. The
 * provider's sign-in counts as the whole sign-in: the app's own second factor is not asked (the provider's MFA is).
 */
export async function finishSso(
  services: Services,
  query: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Account> {
  await enforceRateLimit(services.db, `sso-ip:${request.ip}`, 50, 900);
  const attempt = readAttempt(services, request);
  // The attempt is spent whatever happens next: a second try starts again at the provider.
  reply.clearCookie(ssoCookie, { path: '/' });
  const connection = await findSsoConnection(services.db, attempt.accountId);
  if (!connection) throw badRequest(ssoMessages.noConnection);
  const callbackUrl = new URL(ssoRedirectUri(services));
  callbackUrl.search = query.startsWith('?') ? query : `?${query}`;
  const config = await discoverProvider(services, providerOf(services, connection), serviceError);
  const identity = await exchangeCode(config, callbackUrl, attempt.checks);
  if (identity.emailVerified === false) throw new AppError('AuthError', ssoMessages.noEmail);
  const domain = identity.email.split('@').pop() ?? '';
  if (!connection.domains.includes(domain))
    throw new AppError('ForbiddenError', ssoMessages.domainNotAllowed);
  const member = await ensureSsoMember(
    services.db,
    connection.accountId,
    { email: identity.email, name: identity.name },
    connection.defaultScopes,
  );
  return startSignedIn(services, request, reply, member.userId, {
    accountId: connection.accountId,
    id: member.memberId,
  });
}
