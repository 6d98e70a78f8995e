import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  estimatedContactsOptions,
  isValidSite,
  nextRegistrationStep,
  type RegistrationState,
} from '../src/index.ts';

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/);
const tld = fc.stringMatching(/^[a-z]{2,25}$/);
const domain = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), tld)
  .map(([labels, t]) => [...labels, t].join('.'));

describe('isValidSite', () => {
  it('accepts any domain with optional scheme, www, port and path', () => {
    fc.assert(
      fc.property(
        domain,
        fc.constantFrom('', 'http://', 'https://'),
        fc.boolean(),
        fc.option(fc.integer({ min: 1, max: 65535 })),
        fc.option(fc.webPath().filter((p) => p.startsWith('/') && !/\s/.test(p))),
        (host, scheme, www, port, pathPart) => {
          const site = `${scheme}${www ? 'www.' : ''}${host}${port ? `:${port}` : ''}${pathPart ?? ''}`;
          expect(isValidSite(site), site).toBe(true);
        },
      ),
    );
  });

  it('refuses a top-level part that is too short, too long or not letters', () => {
    fc.assert(
      fc.property(
        label,
        fc.oneof(
          fc.stringMatching(/^[a-z]$/),
          fc.stringMatching(/^[a-z]{26,30}$/),
          fc.stringMatching(/^[0-9]{2,5}$/),
        ),
        (l, t) => {
          expect(isValidSite(`${l}.${t}`)).toBe(false);
        },
      ),
    );
  });

  it('refuses text with spaces and other schemes', () => {
    fc.assert(
      fc.property(
        domain,
        fc.string({ minLength: 1 }).filter((s) => /\s/.test(s.trim())),
        (host, junk) => {
          expect(isValidSite(`${host}${junk}`)).toBe(false);
        },
      ),
    );
    for (const bad of ['ftp://example.com', 'example', 'http://', 'exa mple.com', '.com', 'example.c']) {
      expect(isValidSite(bad), bad).toBe(false);
    }
  });
});

describe('nextRegistrationStep', () => {
  const state = fc.record({
    email: fc.option(fc.string({ minLength: 1 }), { nil: null }),
    name: fc.option(fc.string({ minLength: 1 }), { nil: null }),
    phone: fc.option(fc.string({ minLength: 1 }), { nil: null }),
    site: fc.option(fc.string({ minLength: 1 }), { nil: null }),
    flags: fc.record({ hasFilledGoals: fc.boolean(), hasSetInitialPassword: fc.boolean() }),
    createdWithGoogleSignin: fc.boolean(),
  });

  it('names the first missing item in wizard order, or null when nothing is missing', () => {
    fc.assert(
      fc.property(state, (s: RegistrationState) => {
        const missing = [
          ['email', !s.email],
          ['name', !s.name],
          ['phone', !s.phone],
          ['company', !s.site],
          ['goals', !s.flags.hasFilledGoals],
          ['password', !s.flags.hasSetInitialPassword && !s.createdWithGoogleSignin],
        ].find(([, isMissing]) => isMissing);
        expect(nextRegistrationStep(s)).toBe(missing ? missing[0] : null);
      }),
    );
  });

  it('offers the 11 estimated-contacts options', () => {
    expect(estimatedContactsOptions).toHaveLength(11);
  });
});
