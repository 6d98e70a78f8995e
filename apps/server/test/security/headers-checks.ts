import { expect } from 'vitest';

/**
 * What each kind of answer must carry (issue 22 §1 "Headers"), as checks over a fetch Response's headers. Every check
 * counts the answer once; a missing or wrong header fails the test with the address and the header's name.
 */
export type Kind = 'page' | 'public-page' | 'data' | 'tracking' | 'tracking-page' | 'script' | 'asset';

export const checked = { responses: 0 };

/** The directives of a Content-Security-Policy header, by name. */
export function directives(policy: string | null): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of (policy ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) map.set(name.toLowerCase(), values);
  }
  return map;
}

/** The app pages' policy: no inline or eval'd script, no plugins, no foreign <base> or form targets, never framed. */
export function expectStrictAppPolicy(policy: string | null, where: string) {
  const d = directives(policy);
  expect(policy, `${where}: content-security-policy`).toBeTruthy();
  const scripts = d.get('script-src') ?? d.get('default-src') ?? [];
  expect(scripts, `${where}: script-src`).toContain("'self'");
  for (const loose of ["'unsafe-inline'", "'unsafe-eval'", '*', 'data:', 'blob:', 'http:', 'https:'])
    expect(scripts, `${where}: script-src ${loose}`).not.toContain(loose);
  expect(d.get('object-src'), `${where}: object-src`).toEqual(["'none'"]);
  expect(d.get('base-uri'), `${where}: base-uri`).toEqual(["'self'"]);
  expect(d.get('frame-ancestors'), `${where}: frame-ancestors`).toEqual(["'none'"]);
  expect(d.get('form-action'), `${where}: form-action`).toEqual(["'self'"]);
  // Mantine's inline styles, and email previews (srcdoc iframes inherit this policy) with images from any host.
  expect(d.get('style-src'), `${where}: style-src`).toContain("'unsafe-inline'");
  expect(d.get('img-src'), `${where}: img-src`).toEqual(expect.arrayContaining(['https:', 'data:']));
}

export interface Expectation {
  kind: Kind;
  /** Strict-Transport-Security expected (the request came over https). */
  https: boolean;
}

export function expectHeaders(where: string, headers: Headers, { kind, https }: Expectation) {
  checked.responses += 1;
  const get = (name: string) => headers.get(name);
  expect(get('x-content-type-options'), `${where}: x-content-type-options`).toBe('nosniff');
  if (https)
    expect(get('strict-transport-security'), `${where}: strict-transport-security`).toMatch(
      /^max-age=\d{7,}/,
    );
  else expect(get('strict-transport-security'), `${where}: strict-transport-security over http`).toBeNull();
  const referrer = get('referrer-policy');
  const csp = get('content-security-policy');
  switch (kind) {
    case 'page':
      expectStrictAppPolicy(csp, where);
      expect(get('x-frame-options'), `${where}: x-frame-options`).toBe('DENY');
      expect(referrer, `${where}: referrer-policy`).toBe('strict-origin-when-cross-origin');
      break;
    case 'public-page':
      expectStrictAppPolicy(csp, where);
      expect(get('x-frame-options'), `${where}: x-frame-options`).toBe('DENY');
      expect(referrer, `${where}: referrer-policy (token in the address)`).toBe('no-referrer');
      break;
    case 'data': {
      const d = directives(csp);
      expect(d.get('default-src'), `${where}: default-src`).toEqual(["'none'"]);
      expect(d.get('frame-ancestors'), `${where}: frame-ancestors`).toEqual(["'none'"]);
      expect(referrer, `${where}: referrer-policy`).toBe('strict-origin-when-cross-origin');
      break;
    }
    case 'tracking':
    case 'tracking-page':
      expect(referrer, `${where}: referrer-policy`).toBe('no-referrer');
      expect(get('cross-origin-resource-policy'), `${where}: cross-origin-resource-policy`).toBe(
        'cross-origin',
      );
      if (kind === 'tracking-page') {
        const d = directives(csp);
        expect(d.get('default-src'), `${where}: default-src`).toEqual(["'none'"]);
        expect(d.get('script-src'), `${where}: script-src`).toBeUndefined();
        expect(d.get('frame-ancestors'), `${where}: frame-ancestors`).toEqual(["'none'"]);
      }
      break;
    case 'script':
      // Loaded by customers' sites: a script with its own headers, none of the app page's framing rules.
      expect(get('content-type'), `${where}: content-type`).toMatch(/^application\/javascript/);
      expect(get('cross-origin-resource-policy'), `${where}: cross-origin-resource-policy`).toBe(
        'cross-origin',
      );
      expect(get('access-control-allow-origin'), `${where}: access-control-allow-origin`).toBe('*');
      expect(get('x-frame-options'), `${where}: x-frame-options`).toBeNull();
      expect(referrer, `${where}: referrer-policy`).toBe('strict-origin-when-cross-origin');
      break;
    case 'asset':
      expect(referrer, `${where}: referrer-policy`).toBe('strict-origin-when-cross-origin');
      expect(get('cache-control'), `${where}: cache-control`).toBeTruthy();
      break;
  }
}

/** The session cookie's attributes from a Set-Cookie header. */
export function expectSessionCookie(setCookie: string[], where: string, secure: boolean) {
  const cookie = setCookie.find((c) => c.startsWith('herald_session='));
  expect(cookie, `${where}: herald_session cookie`).toBeTruthy();
  const attributes = cookie!
    .split(';')
    .slice(1)
    .map((a) => a.trim().toLowerCase());
  expect(attributes, `${where}: HttpOnly`).toContain('httponly');
  expect(attributes, `${where}: SameSite`).toContain('samesite=lax');
  expect(attributes, `${where}: Path`).toContain('path=/');
  if (secure) expect(attributes, `${where}: Secure`).toContain('secure');
  else expect(attributes, `${where}: Secure over http`).not.toContain('secure');
  checked.responses += 1;
}
