import { ssoMessages } from '@herald/contracts';
import * as oidc from 'openid-client';
import { AppError, badRequest } from '../../http/errors.ts';
import { fetchOutgoing, OutgoingError, type OutgoingOptions } from '../../lib/outgoing-url.ts';
import type { Services } from '../../services.ts';

// The OpenID Connect relying party, through openid-client 6 (discovery, authorization code with PKCE, state and
// nonce, ID token validation: signature against the issuer's keys, iss, aud, exp, iat, nonce). Every request to the
// issuer goes through lib/outgoing-url.ts, so an issuer on a private, loopback or link-local address is refused; the
// test allowance is the operator's OUTGOING_TRUSTED_ADDRESSES, nothing else.

export interface SsoProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

function outgoingOptions(services: Services): OutgoingOptions {
  return {
    trustedAddresses: services.config.outgoing.trustedAddresses,
    dnsServers: services.config.outgoing.dnsServers,
  };
}

/** Plain http only to an address the operator trusts (the tests' local provider); https everywhere else. */
function isInsecureAllowed(services: Services, issuer: URL): boolean {
  return issuer.protocol === 'http:' && services.config.outgoing.trustedAddresses.includes(issuer.hostname);
}

/** openid-client's fetch, answered by the guarded outgoing call (which judges every redirect the same way). */
function guardedFetch(services: Services): oidc.CustomFetch {
  return async (url, options) => {
    const body = options.body;
    const response = await fetchOutgoing(url, {
      ...outgoingOptions(services),
      method: options.method,
      headers: options.headers,
      body:
        body === undefined || body === null
          ? undefined
          : typeof body === 'string'
            ? body
            : body instanceof URLSearchParams
              ? body.toString()
              : body instanceof ReadableStream
                ? Buffer.from(await new Response(body).arrayBuffer())
                : Buffer.from(body as ArrayBuffer),
      timeoutMs: 10_000,
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (Array.isArray(value)) for (const one of value) headers.append(name, one);
      else if (value !== undefined) headers.set(name, value);
    }
    return new Response(response.body, { status: response.status, headers });
  };
}

/**
 * The provider's configuration, read from its discovery document. `refuse` turns a failure into the caller's answer:
 * a 400 when an owner is saving settings, a 503 when a member is signing in.
 */
export async function discoverProvider(
  services: Services,
  provider: SsoProvider,
  refuse: (message: string) => AppError,
): Promise<oidc.Configuration> {
  let issuer: URL;
  try {
    issuer = new URL(provider.issuer);
  } catch {
    throw badRequest(ssoMessages.issuerRefused);
  }
  if (issuer.protocol !== 'https:' && !isInsecureAllowed(services, issuer))
    throw badRequest(ssoMessages.issuerRefused);
  try {
    return await oidc.discovery(
      issuer,
      provider.clientId,
      { client_secret: provider.clientSecret },
      oidc.ClientSecretPost(provider.clientSecret),
      {
        [oidc.customFetch]: guardedFetch(services),
        timeout: 10,
        // The ID token's signature is checked against the issuer's published keys even though it came straight from
        // the token endpoint (OpenID Connect lets TLS stand in for it; a changed token must not pass here either).
        execute: [
          oidc.enableNonRepudiationChecks,
          ...(isInsecureAllowed(services, issuer) ? [oidc.allowInsecureRequests] : []),
        ],
      },
    );
  } catch (error) {
    if (error instanceof OutgoingError && error.reason === 'refused')
      throw badRequest(ssoMessages.issuerRefused);
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof OutgoingError && cause.reason === 'refused')
      throw badRequest(ssoMessages.issuerRefused);
    throw refuse(ssoMessages.issuerUnreachable);
  }
}

/** Where the browser goes to sign in: authorization code flow with PKCE (S256), state and nonce. */
export async function authorizationUrl(
  config: oidc.Configuration,
  redirectUri: string,
  checks: { state: string; nonce: string; verifier: string },
  loginHint: string,
): Promise<string> {
  return oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid email profile',
    state: checks.state,
    nonce: checks.nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(checks.verifier),
    code_challenge_method: 'S256',
    login_hint: loginHint,
  }).href;
}

export const newChecks = () => ({
  state: oidc.randomState(),
  nonce: oidc.randomNonce(),
  verifier: oidc.randomPKCECodeVerifier(),
});

export interface SsoIdentity {
  subject: string;
  email: string;
  emailVerified: boolean | undefined;
  name: string | null;
}

/**
 * The callback: the code exchanged with the verifier, the answer's state compared, the ID token validated (openid-client
 * checks its signature with the issuer's published keys, `iss`, `aud`, `exp`, `iat` and the nonce). Anything wrong is
 * a 401 that says to start again; a provider that cannot be reached is a 503.
 */
export async function exchangeCode(
  config: oidc.Configuration,
  callbackUrl: URL,
  checks: { state: string; nonce: string; verifier: string },
): Promise<SsoIdentity> {
  const error = callbackUrl.searchParams.get('error');
  if (error) {
    const description = callbackUrl.searchParams.get('error_description');
    throw new AppError('AuthError', `${ssoMessages.providerError} (${(description ?? error).slice(0, 200)})`);
  }
  let claims: Record<string, unknown> | undefined;
  try {
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: checks.verifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
    const idToken = tokens.claims()!;
    claims = idToken;
    // A conforming provider may keep email and name for the UserInfo endpoint (OpenID Connect Core 5.4): ask it,
    // for the ID token's subject only.
    if (typeof idToken.email !== 'string')
      claims = { ...(await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub)), sub: idToken.sub };
  } catch (failure) {
    const cause = (failure as { cause?: unknown }).cause;
    if (failure instanceof OutgoingError || cause instanceof OutgoingError)
      throw new AppError('ServiceError', ssoMessages.providerDown);
    throw new AppError('AuthError', ssoMessages.answerRefused);
  }
  if (!claims || typeof claims.email !== 'string') throw new AppError('AuthError', ssoMessages.noEmail);
  return {
    subject: String(claims.sub),
    email: claims.email.toLowerCase(),
    emailVerified: typeof claims.email_verified === 'boolean' ? claims.email_verified : undefined,
    name: typeof claims.name === 'string' ? claims.name.slice(0, 200) : null,
  };
}
