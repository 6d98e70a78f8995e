import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { messages } from '@herald/contracts';
import type { Config } from '../../config.ts';
import { AppError, badRequest } from '../../http/errors.ts';
import type { GoogleVerifier } from '../../services.ts';

/** Verifier against the key set at GOOGLE_JWKS_URL (Google's by default; tests serve their own). */
export function createGoogleVerifier(config: Config['google']): GoogleVerifier {
  let keys: JWTVerifyGetKey | undefined;
  return {
    isConfigured: Boolean(config.clientId),
    async verify(idToken) {
      if (!config.clientId) throw badRequest(messages.googleNotConfigured);
      keys ??= createRemoteJWKSet(new URL(config.jwksUrl), { timeoutDuration: 10_000 });
      try {
        const { payload } = await jwtVerify(idToken, keys, {
          audience: config.clientId,
          issuer: config.issuers,
          algorithms: ['RS256'],
        });
        if (
          typeof payload.sub !== 'string' ||
          typeof payload.email !== 'string' ||
          payload.email_verified !== true
        ) {
          throw new Error('token lacks a verified email');
        }
        return {
          sub: payload.sub,
          email: payload.email,
          name: typeof payload.name === 'string' ? payload.name : null,
        };
      } catch (error) {
        if (error instanceof AppError) throw error;
        throw new AppError('AuthError', messages.googleTokenInvalid);
      }
    },
  };
}
