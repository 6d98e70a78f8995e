import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  identityToken,
  identityTtlSeconds,
  readIdentityToken,
} from '../src/features/site-tracking/visitor-identity.ts';

const secret = 'a-secret-that-is-long-enough-for-tests-0001';
const id = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });
const now = 1_800_000_000_000;

describe('visitor identity tokens', () => {
  it('round-trip any account and person, and are URL-safe', () => {
    fc.assert(
      fc.property(id, id, (accountId, personId) => {
        const token = identityToken(secret, accountId, personId, now);
        expect(token).toMatch(/^[A-Za-z0-9._-]+$/);
        expect(encodeURIComponent(token)).toBe(token);
        expect(readIdentityToken(secret, token, now)).toEqual({ accountId, personId });
      }),
    );
  });

  it('refuse any changed character, any truncation, another secret and arbitrary strings', () => {
    fc.assert(
      fc.property(
        id,
        id,
        fc.nat(),
        fc.constantFrom(...'ABCabc012-_.xyz'.split('')),
        fc.string(),
        (accountId, personId, at, char, junk) => {
          const token = identityToken(secret, accountId, personId, now);
          const index = at % token.length;
          const changed = token.slice(0, index) + char + token.slice(index + 1);
          if (changed !== token) expect(readIdentityToken(secret, changed, now)).toBeNull();
          expect(readIdentityToken(secret, token.slice(0, index), now)).toBeNull();
          expect(readIdentityToken(`${secret}-other`, token, now)).toBeNull();
          expect(readIdentityToken(secret, junk, now)).toBeNull();
        },
      ),
    );
  });

  it('expire after 30 days', () => {
    const token = identityToken(secret, 7, 42, now);
    expect(readIdentityToken(secret, token, now + identityTtlSeconds * 1000 - 1000)).toEqual({
      accountId: 7,
      personId: 42,
    });
    expect(readIdentityToken(secret, token, now + identityTtlSeconds * 1000)).toBeNull();
    expect(identityTtlSeconds).toBe(30 * 24 * 3600);
  });
});
