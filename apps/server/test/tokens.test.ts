import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signToken, verifyToken } from '../src/lib/tokens.ts';

const secret = 'a-secret-that-is-long-enough-for-tests-0001';

describe('signed link tokens', () => {
  it('round-trip any payload before expiry', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string({ minLength: 1, maxLength: 10 }).filter((k) => k !== 'exp' && k !== '__proto__'),
          fc.jsonValue(),
        ),
        (payload) => {
          const token = signToken(payload, secret, 60);
          expect(verifyToken(token, secret)).toMatchObject(JSON.parse(JSON.stringify(payload)));
        },
      ),
    );
  });

  it('refuse any change to a token, another secret, and expiry', () => {
    const token = signToken({ r: 'abc' }, secret, 60);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: token.length - 1 }),
        fc.constantFrom(...'ABCabc012-_.xyz'.split('')),
        (index, char) => {
          fc.pre(token[index] !== char);
          const changed = token.slice(0, index) + char + token.slice(index + 1);
          expect(verifyToken(changed, secret)).toBeNull();
        },
      ),
    );
    expect(verifyToken(token, `${secret}x`)).toBeNull();
    expect(verifyToken(token, secret, Date.now() + 61_000)).toBeNull();
  });
});
