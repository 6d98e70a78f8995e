import { describe, expect, it } from 'vitest';
import {
  hotpCode,
  matchTotp,
  newTotpSecret,
  otpauthUrl,
  readTotpSecret,
  totpCode,
  totpSecretFromBytes,
} from '../src/lib/totp.ts';

// RFC 6238, Appendix B: the seeds are the ASCII digits repeated to the hash's key size; codes have 8 digits.
// They go through the project's wrapper, so these vectors test otpauth as the product calls it.
const seeds = {
  SHA1: totpSecretFromBytes(Buffer.from('12345678901234567890')),
  SHA256: totpSecretFromBytes(Buffer.from('12345678901234567890123456789012')),
  SHA512: totpSecretFromBytes(
    Buffer.from('1234567890123456789012345678901234567890123456789012345678901234'),
  ),
};
const vectors: [number, string, keyof typeof seeds][] = [
  [59, '94287082', 'SHA1'],
  [59, '46119246', 'SHA256'],
  [59, '90693936', 'SHA512'],
  [1111111109, '07081804', 'SHA1'],
  [1111111109, '68084774', 'SHA256'],
  [1111111109, '25091201', 'SHA512'],
  [1111111111, '14050471', 'SHA1'],
  [1111111111, '67062674', 'SHA256'],
  [1111111111, '99943326', 'SHA512'],
  [1234567890, '89005924', 'SHA1'],
  [1234567890, '91819424', 'SHA256'],
  [1234567890, '93441116', 'SHA512'],
  [2000000000, '69279037', 'SHA1'],
  [2000000000, '90698825', 'SHA256'],
  [2000000000, '38618901', 'SHA512'],
  [20000000000, '65353130', 'SHA1'],
  [20000000000, '77737706', 'SHA256'],
  [20000000000, '47863826', 'SHA512'],
];

describe('TOTP (RFC 6238)', () => {
  it.each(vectors)('at %i s the %s code is %s', (seconds, expected, algorithm) => {
    expect(totpCode(seeds[algorithm], seconds * 1000, 8, algorithm)).toBe(expected);
  });

  it('matches the RFC 4226 HOTP vectors (six digits, counters 0 to 9)', () => {
    const expected = [
      '755224',
      '287082',
      '359152',
      '969429',
      '338314',
      '254676',
      '287922',
      '162583',
      '399871',
      '520489',
    ];
    expect(expected.map((_, counter) => hotpCode(seeds.SHA1, counter))).toEqual(expected);
  });

  it('accepts a code one step either side of now and answers its step, refuses two steps away', () => {
    const now = 1_700_000_000_000;
    const step = Math.floor(now / 30_000);
    for (const offset of [-1, 0, 1]) {
      expect(matchTotp(seeds.SHA1, hotpCode(seeds.SHA1, step + offset), now)).toBe(step + offset);
    }
    expect(matchTotp(seeds.SHA1, hotpCode(seeds.SHA1, step - 2), now)).toBeUndefined();
    expect(matchTotp(seeds.SHA1, hotpCode(seeds.SHA1, step + 2), now)).toBeUndefined();
    expect(matchTotp(seeds.SHA1, '12345', now)).toBeUndefined();
    expect(matchTotp(seeds.SHA1, 'abcdef', now)).toBeUndefined();
  });

  it('reads base32 secrets as authenticator apps show them, and makes new 160-bit ones', () => {
    expect(seeds.SHA1.base32).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(readTotpSecret('gezd gnbv gy3t qojq gezd gnbv gy3t qojq').latin1).toBe('12345678901234567890');
    expect(() => readTotpSecret('not base32!')).toThrow();
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(readTotpSecret(secret).bytes).toHaveLength(20);
  });

  it('writes the otpauth address apps scan', () => {
    const url = otpauthUrl({
      issuer: 'Herald',
      account: 'a+b@example.com',
      secret: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ',
    });
    expect(url).toBe(
      'otpauth://totp/Herald:a%2Bb%40example.com?issuer=Herald&secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&algorithm=SHA1&digits=6&period=30',
    );
  });
});
