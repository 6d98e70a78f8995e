import fc from 'fast-check';
import { adHocEmailId } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { trackingFor, type TrackedMessage } from '../src/features/tracking/tracking-links.ts';
import {
  decodeMessage,
  encodeMessage,
  maxLinkLength,
  verifyLink,
} from '../src/features/tracking/tracking-token.ts';

const secret = 'a-secret-that-is-long-enough-for-tests-0001';
const base = 'https://herald.example';

const id = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
const message = fc
  .record({
    accountId: id,
    deliveryId: id,
    personId: id,
    emailId: id,
    sourceKind: fc.constantFrom('broadcast', 'flow', 'transactional', 'test'),
    sourceId: id,
    variant: fc.integer({ min: 0, max: 100 }),
  })
  .chain((m) =>
    // A flow's mail carries its flow id (older tokens did not); other sources never do.
    m.sourceKind === 'flow'
      ? fc.option(id, { nil: undefined }).map((flowId) => (flowId === undefined ? m : { ...m, flowId }))
      : fc.constant(m),
  ) as fc.Arbitrary<TrackedMessage>;

/** The parts of a click URL made by rewriteLink. */
function clickParts(url: string) {
  const parsed = new URL(url);
  const [, , , token, signature] = parsed.pathname.split('/');
  return { token: token!, signature: signature!, destination: parsed.searchParams.get('u')! };
}

describe('tracking tokens', () => {
  it('round-trip an ad-hoc transactional email, whose email id is negative (adHocEmailId)', () => {
    const ref: TrackedMessage = {
      accountId: 7,
      deliveryId: 9,
      personId: 11,
      emailId: adHocEmailId,
      sourceKind: 'transactional',
      sourceId: 13,
      variant: 0,
    };
    expect(decodeMessage(secret, encodeMessage(secret, ref, 1_700_000_000_000))).toMatchObject(ref);
  });

  it('round-trip any message', () => {
    fc.assert(
      fc.property(message, (m) => {
        expect(decodeMessage(secret, encodeMessage(secret, m, 1_700_000_000_999))).toEqual({
          ...m,
          sentAt: 1_700_000_000,
        });
      }),
    );
  });

  it('refuse any changed character, a truncated token, another secret and any string', () => {
    fc.assert(
      fc.property(message, fc.nat(), fc.constantFrom(...'ABCabc012-_.xyz'.split('')), (m, at, char) => {
        const token = encodeMessage(secret, m, Date.now());
        const index = at % token.length;
        fc.pre(token[index] !== char);
        expect(decodeMessage(secret, token.slice(0, index) + char + token.slice(index + 1))).toBeNull();
        expect(decodeMessage(secret, token.slice(0, index))).toBeNull();
        expect(decodeMessage(`${secret}x`, token)).toBeNull();
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        expect(decodeMessage(secret, text)).toBeNull();
      }),
    );
    expect(decodeMessage(secret, 'x'.repeat(10_000))).toBeNull();
    expect(decodeMessage(secret, '__proto__.1.1.1.1.1.0.1.aaaaaaaaaaaaaaaaaaaaaa')).toBeNull();
    // Only a flow's token has an eighth number.
    const broadcast = encodeMessage(
      secret,
      {
        accountId: 1,
        deliveryId: 2,
        personId: 3,
        emailId: 4,
        sourceKind: 'broadcast',
        sourceId: 5,
        variant: 0,
        flowId: 6,
      },
      Date.now(),
    );
    expect(broadcast.split('.')).toHaveLength(9);
    const flow = encodeMessage(
      secret,
      {
        accountId: 1,
        deliveryId: 2,
        personId: 3,
        emailId: 4,
        sourceKind: 'flow',
        sourceId: 5,
        variant: 0,
        flowId: 6,
      },
      Date.now(),
    );
    expect(flow.split('.')).toHaveLength(10);
    expect(decodeMessage(secret, `b${flow.slice(1)}`)).toBeNull();
  });
});

describe('trackingFor', () => {
  it('makes an open pixel URL and click URLs whose destination and signature check out for that email only', () => {
    fc.assert(
      fc.property(message, fc.webUrl({ withQueryParameters: true, withFragments: true }), (m, url) => {
        const before = Math.floor(Date.now() / 1000);
        const tracking = trackingFor(secret, base, m);
        expect(tracking.openPixelUrl.startsWith(`${base}/t/o/`)).toBe(true);
        const opened = decodeMessage(secret, tracking.openPixelUrl.slice(`${base}/t/o/`.length));
        expect(opened).toMatchObject(m);
        expect(opened!.sentAt).toBeGreaterThanOrEqual(before);
        const click = clickParts(tracking.rewriteLink(url, 0));
        expect(click.destination).toBe(url);
        expect(decodeMessage(secret, click.token)).toMatchObject(m);
        expect(verifyLink(secret, m.accountId, m.emailId, url, click.signature)).toBe(true);
        expect(verifyLink(secret, m.accountId + 1, m.emailId, url, click.signature)).toBe(false);
        expect(verifyLink(secret, m.accountId, m.emailId + 1, url, click.signature)).toBe(false);
        expect(verifyLink(secret, m.accountId, m.emailId, `${url}x`, click.signature)).toBe(false);
      }),
    );
  });

  it('gives two recipients of one email the same link signature and their own message tokens', () => {
    const first = {
      accountId: 1,
      deliveryId: 10,
      personId: 100,
      emailId: 5,
      sourceKind: 'broadcast',
      sourceId: 3,
      variant: 0,
    } as const;
    const a = clickParts(trackingFor(secret, base, first).rewriteLink('https://shop.example/a?b=1&c=2', 0));
    const b = clickParts(
      trackingFor(secret, base, { ...first, deliveryId: 11, personId: 101 }).rewriteLink(
        'https://shop.example/a?b=1&c=2',
        0,
      ),
    );
    expect(a.signature).toBe(b.signature);
    expect(a.token).not.toBe(b.token);
    expect(a.destination).toBe('https://shop.example/a?b=1&c=2');
  });

  it('leaves a link too long to carry as written', () => {
    const long = `https://shop.example/?q=${'a'.repeat(maxLinkLength)}`;
    const m = {
      accountId: 1,
      deliveryId: 1,
      personId: 1,
      emailId: 1,
      sourceKind: 'flow',
      sourceId: 1,
      variant: 0,
    } as const;
    expect(trackingFor(secret, base, m).rewriteLink(long, 0)).toBe(long);
  });

  it('costs a few microseconds per message with cached link signatures', () => {
    const links = Array.from({ length: 10 }, (_, i) => `https://shop.example/item/${i}?utm_source=herald`);
    const started = performance.now();
    for (let i = 0; i < 20_000; i++) {
      const tracking = trackingFor(secret, base, {
        accountId: 1,
        deliveryId: i,
        personId: i,
        emailId: 7,
        sourceKind: 'broadcast',
        sourceId: 2,
        variant: 0,
      });
      for (let l = 0; l < links.length; l++) tracking.rewriteLink(links[l]!, l);
    }
    // 20,000 messages of ten links each; generous for a shared two-core machine.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
