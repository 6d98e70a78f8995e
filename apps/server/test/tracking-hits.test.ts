import { EmailHitData } from '@herald/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { variantEngagement } from '../src/features/broadcasts/ab-tests.queries.ts';
import { rollUpEmailMetrics } from '../src/features/metrics/metrics.jobs.ts';
import { hitsPerSecond, flushTrackingHits } from '../src/features/tracking/tracking.endpoints.ts';
import { trackingFor, type TrackedMessage } from '../src/features/tracking/tracking-links.ts';
import { encodeMessage, signLink } from '../src/features/tracking/tracking-token.ts';
import { readIdentityToken } from '../src/features/site-tracking/visitor-identity.ts';
import { createTestContext, publicUrl, registerUser, uniqueEmail, type TestContext } from './helpers.ts';

let ctx: TestContext;
let secret: string;
let alice: {
  accountId: number;
  personId: number;
  client: Awaited<ReturnType<typeof registerUser>>['client'];
};
let bob: { accountId: number; personId: number };

const browser =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';
const destination = 'https://shop.example/spring?sale=1&utm_source=herald';
let nextDelivery = 1000;

async function setupAccount() {
  const owner = await registerUser(ctx.app);
  const accountId = owner.account.accountId as number;
  const person = await owner.client.post('/v1/people/?source=manual', {
    email: uniqueEmail('reader'),
    firstName: 'Reader',
  });
  expect(person.status).toBe(201);
  return { accountId, personId: person.body.user.id as number, client: owner.client };
}

function message(
  account: { accountId: number; personId: number },
  extra: Partial<TrackedMessage> = {},
): TrackedMessage {
  return {
    accountId: account.accountId,
    deliveryId: nextDelivery++,
    personId: account.personId,
    emailId: 501,
    sourceKind: 'broadcast',
    sourceId: 77,
    variant: 0,
    ...extra,
  };
}

/** Tracking URLs (path and query) as a message sent `ageMs` ago carries them. */
function urls(m: TrackedMessage, ageMs = 60_000, link = destination) {
  const token = encodeMessage(secret, m, Date.now() - ageMs);
  return {
    open: `/t/o/${token}`,
    click: `/t/c/${token}/${signLink(secret, m.accountId, m.emailId, link)}?u=${encodeURIComponent(link)}`,
    token,
  };
}

const hit = (
  url: string,
  headers: Record<string, string> = { 'user-agent': browser },
  method: 'GET' | 'HEAD' = 'GET',
) => ctx.app.inject({ method, url, headers });

async function hitsOf(accountId: number) {
  await flushTrackingHits(ctx.app);
  const { rows } = await sql<{ personId: string; name: string; data: Record<string, unknown> }>`
    select person_id, name, data from events where account_id = ${accountId} and type = 'email' and name in ('opened', 'clicked') order by id`.execute(
    ctx.services.db,
  );
  return rows.map((row) => ({ personId: Number(row.personId), name: row.name, data: row.data }));
}

async function clearHits(accountId: number) {
  await flushTrackingHits(ctx.app);
  await sql`delete from events where account_id = ${accountId} and type = 'email'`.execute(ctx.services.db);
}

function expectPixel(res: Awaited<ReturnType<typeof hit>>, head = false) {
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('image/gif');
  expect(res.headers['cache-control']).toContain('no-store');
  if (!head) expect(res.rawPayload.subarray(0, 6).toString('latin1')).toBe('GIF89a');
}

function expectSafePage(res: Awaited<ReturnType<typeof hit>>) {
  expect(res.statusCode).toBe(404);
  expect(res.headers.location).toBeUndefined();
  expect(res.headers['content-type']).toContain('text/html');
  expect(res.body).toContain('This link is not available');
  expect(res.body).not.toContain('href=');
}

beforeAll(async () => {
  ctx = await createTestContext();
  secret = ctx.services.secret;
  alice = await setupAccount();
  bob = await setupAccount();
});
beforeEach(() => clearHits(alice.accountId));
afterAll(() => ctx.close());

describe('open pixel and click redirect', () => {
  it('answer the image and the redirect, and record an open and a click as email events after the flush', async () => {
    const m = message(alice);
    const { open, click } = urls(m);
    expectPixel(await hit(open));
    const res = await hit(click);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(destination);
    expect(res.headers['cache-control']).toContain('no-store');
    expect(await hitsOf(alice.accountId)).toEqual([
      {
        personId: alice.personId,
        name: 'opened',
        data: { broadcastId: 77, emailId: 501, userAgent: 'desktop', machine: false },
      },
      {
        personId: alice.personId,
        name: 'clicked',
        data: { broadcastId: 77, emailId: 501, link: destination, userAgent: 'desktop', machine: false },
      },
    ]);
    // The person's timeline shows both.
    const timeline = await alice.client.get(`/v1/people/${alice.personId}/events`);
    expect(timeline.status).toBe(200);
    const names = (timeline.body.events as { type: string; name: string }[])
      .filter((e) => e.type === 'email')
      .map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(['opened', 'clicked']));
    await clearHits(alice.accountId);
  });

  it('name a flow, a transactional email and an A/B variant the way sent events do', async () => {
    await hit(urls(message(alice, { sourceKind: 'flow', sourceId: 9, flowId: 3 })).open);
    await hit(urls(message(alice, { sourceKind: 'flow', sourceId: 9 })).open);
    await hit(urls(message(alice, { sourceKind: 'transactional', sourceId: 501 })).open);
    await hit(urls(message(alice, { variant: 2 })).click);
    const written = await hitsOf(alice.accountId);
    for (const { data } of written) expect(EmailHitData.strict().parse(data)).toEqual(data);
    expect(written.map((h) => h.data)).toEqual([
      { flowId: 3, stepId: '9', emailId: 501, userAgent: 'desktop', machine: false },
      // A token made before flows carried their flow names the step alone.
      { stepId: '9', emailId: 501, userAgent: 'desktop', machine: false },
      { sourceId: 501, emailId: 501, userAgent: 'desktop', machine: false },
      { broadcastId: 77, emailId: 501, variant: 2, link: destination, userAgent: 'desktop', machine: false },
    ]);
    await clearHits(alice.accountId);
  });

  it('flag machine hits: HEAD, Apple privacy proxy, scanners, no user agent, and within two seconds of sending', async () => {
    const m = message(alice);
    const { open, click } = urls(m);
    expectPixel(await hit(open, { 'user-agent': browser }, 'HEAD'), true);
    await hit(open, { 'user-agent': 'Mozilla/5.0' });
    await hit(click, { 'user-agent': 'Mozilla/5.0 (compatible; Barracuda Sentinel)' });
    await hit(click, { 'user-agent': '' });
    // URLs as the sender threads make them: their send time is now.
    const fresh = trackingFor(secret, publicUrl, message(alice));
    await hit(new URL(fresh.openPixelUrl).pathname);
    await hit(open, {
      'user-agent':
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/42.0.2311.135 Safari/537.36 Edge/12.246 (via ggpht.com GoogleImageProxy)',
    });
    const recorded = await hitsOf(alice.accountId);
    expect(recorded.map((h) => [h.data.userAgent, h.data.machine])).toEqual([
      ['desktop', true],
      ['privacy-proxy', true],
      ['scanner', true],
      ['unknown', true],
      ['desktop', true],
      ['image-proxy', false],
    ]);
    await clearHits(alice.accountId);
  });

  it('leave machine hits out of the A/B test engagement figures', async () => {
    const { open } = urls(message(alice, { variant: 1, sourceId: 88 }));
    // The figures are the metrics rollup's first human opens and clicks.
    const engagement = async () => {
      await rollUpEmailMetrics(ctx.services.db, { wait: true });
      return (await variantEngagement(ctx.services.db, alice.accountId, 88)).get(1);
    };
    await hit(open, { 'user-agent': 'Mozilla/5.0' });
    expect(await hitsOf(alice.accountId)).toHaveLength(1);
    expect(await engagement()).toBeUndefined();
    await hit(open);
    expect(await hitsOf(alice.accountId)).toHaveLength(2);
    expect(await engagement()).toEqual({ opens: 1, clicks: 0 });
    await clearHits(alice.accountId);
  });
});

describe('over HTTP, answered before Fastify routes', () => {
  it('the pixel, the redirect, HEAD, a forged link and a 10 kB query answer as the routes do, and valid hits are written', async () => {
    const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const { open, click, token } = urls(message(alice));
    const get = (url: string, method = 'GET') =>
      fetch(`${address}${url}`, { method, redirect: 'manual', headers: { 'user-agent': browser } });
    const image = await get(open);
    expect([image.status, image.headers.get('content-type'), image.headers.get('cache-control')]).toEqual([
      200,
      'image/gif',
      'no-store, max-age=0',
    ]);
    const gif = Buffer.from(await image.arrayBuffer());
    expect(gif.subarray(0, 6).toString('latin1')).toBe('GIF89a');
    expect([
      image.headers.get('content-length'),
      image.headers.get('x-content-type-options'),
      image.headers.get('cross-origin-resource-policy'),
    ]).toEqual([String(gif.length), 'nosniff', 'cross-origin']);
    const head = await get(open, 'HEAD');
    expect(head.status).toBe(200);
    const redirect = await get(click);
    expect([redirect.status, redirect.headers.get('location')]).toEqual([302, destination]);
    expect([redirect.headers.get('cache-control'), redirect.headers.get('referrer-policy')]).toEqual([
      'no-store, max-age=0',
      'no-referrer',
    ]);
    // Lengths said, not chunked: the redirect and the page each go as one write.
    expect([redirect.headers.get('content-length'), redirect.headers.get('transfer-encoding')]).toEqual([
      '0',
      null,
    ]);
    const forged = await get(click.replace(token, token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')));
    expect([forged.status, forged.headers.get('location'), forged.headers.get('transfer-encoding')]).toEqual([
      404,
      null,
      null,
    ]);
    const page = await forged.text();
    expect(page).toContain('This link is not available');
    expect(forged.headers.get('content-length')).toBe(String(Buffer.byteLength(page)));
    const headForged = await get(
      click.replace(token, token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')),
      'HEAD',
    );
    expect([headForged.status, headForged.headers.get('content-length')]).toEqual([
      404,
      String(Buffer.byteLength(page)),
    ]);
    const twice = await get(`${click}&u=${encodeURIComponent('https://evil.example/')}`);
    expect([twice.status, twice.headers.get('location')]).toEqual([404, null]);
    const big = await get(`${click}&pad=${'x'.repeat(10_240)}`);
    expect(big.status).toBe(302);
    expect((await get(`/t/o/${'x'.repeat(10_240)}`)).status).toBe(200);
    // Other paths still go to Fastify.
    expect((await get('/v1/no-such-thing')).status).toBe(404);
    const recorded = await hitsOf(alice.accountId);
    expect(recorded.map((h) => [h.name, h.data.machine])).toEqual([
      ['opened', false],
      ['opened', true],
      ['clicked', false],
      ['clicked', false],
    ]);
  });
});

describe('bad tracking input', () => {
  it('forged signatures: the image or a safe page, nothing written', async () => {
    const { token, open, click } = urls(message(alice));
    const forged = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    expectPixel(await hit(`/t/o/${forged}`));
    expectSafePage(await hit(click.replace(token, forged)));
    // The link's signature changed, or the destination changed under it (an open redirect attempt).
    const [path, query] = click.split('?');
    expectSafePage(await hit(`${path!.slice(0, -2)}AA?${query}`));
    expectSafePage(await hit(`${path}?u=${encodeURIComponent('https://evil.example/')}`));
    expectSafePage(
      await hit(
        `${path}?u=${encodeURIComponent(destination)}&u=${encodeURIComponent('https://evil.example/')}`,
      ),
    );
    expectSafePage(await hit(path!));
    expectPixel(await hit(open.replace('/t/o/', '/t/o/x')));
    expect(await hitsOf(alice.accountId)).toEqual([]);
  });

  it('truncated ids and tokens: the image or a safe page, nothing written', async () => {
    const { token, click } = urls(message(alice));
    for (const cut of [1, 5, 10, 23, token.length - 1]) {
      expectPixel(await hit(`/t/o/${token.slice(0, cut)}`));
      expectSafePage(await hit(click.replace(token, token.slice(0, cut))));
    }
    expectPixel(await hit('/t/o/'));
    expectSafePage(await hit('/t/c/'));
    expect(await hitsOf(alice.accountId)).toEqual([]);
  });

  it("another account's ids: a token naming them fails, and one account's link signature does not work with another's message", async () => {
    const mine = urls(message(alice));
    const theirs = urls(message(bob));
    // Alice's token with Bob's account id in it.
    const swapped = mine.token.replace(/^b\.[0-9a-z]+\./, `b.${bob.accountId.toString(36)}.`);
    expect(swapped).not.toBe(mine.token);
    expectPixel(await hit(`/t/o/${swapped}`));
    expectSafePage(await hit(mine.click.replace(mine.token, swapped)));
    // Bob's link signature under Alice's message token.
    const bobSignature = theirs.click.split('/')[4]!.split('?')[0]!;
    expectSafePage(await hit(`/t/c/${mine.token}/${bobSignature}?u=${encodeURIComponent(destination)}`));
    expect(await hitsOf(alice.accountId)).toEqual([]);
    expect(await hitsOf(bob.accountId)).toEqual([]);
  });

  it('a 10 kB query string or token: no 5xx, the image or a safe page, nothing written', async () => {
    const { open, click } = urls(message(alice));
    const big = 'x'.repeat(10_240);
    expectPixel(await hit(`${open}?q=${big}`));
    expectPixel(await hit(`/t/o/${big}`));
    expectSafePage(await hit(`${click}&pad=${big}`.replace('?u=', `?u=${big}`)));
    expectSafePage(await hit(`/t/c/${big}/${big}?u=${big}`));
    // A valid link with extra parameters around it still goes where it should (the pixel records; the click too).
    expect(await hitsOf(alice.accountId)).toHaveLength(1);
    await clearHits(alice.accountId);
  });

  it('a burst from one address to one link is answered in full but recorded a few times a second at most', async () => {
    const { open, click } = urls(message(alice));
    const started = Math.floor(Date.now() / 1000);
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        hit(i % 2 ? click : open, { 'user-agent': browser, 'x-forwarded-for': '203.0.113.9' }),
      ),
    );
    const seconds = Math.floor(Date.now() / 1000) - started + 1;
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(100);
    expect(answers.filter((a) => a.statusCode === 302)).toHaveLength(100);
    const recorded = await hitsOf(alice.accountId);
    const opens = recorded.filter((h) => h.name === 'opened').length;
    const clicks = recorded.filter((h) => h.name === 'clicked').length;
    expect(opens).toBeGreaterThanOrEqual(hitsPerSecond);
    expect(opens).toBeLessThanOrEqual(hitsPerSecond * seconds);
    expect(clicks).toBeGreaterThanOrEqual(hitsPerSecond);
    expect(clicks).toBeLessThanOrEqual(hitsPerSecond * seconds);
    await clearHits(alice.accountId);
  });

  it('hits still in the buffer are written when the app closes (the server stop)', async () => {
    const other = await createTestContext();
    const { open } = urls(message(alice));
    expect(
      (await other.app.inject({ method: 'GET', url: open, headers: { 'user-agent': browser } })).statusCode,
    ).toBe(200);
    await other.close();
    expect(await hitsOf(alice.accountId)).toHaveLength(1);
  });

  it('hits of a deleted account are dropped at the flush without losing the others', async () => {
    const gone = await setupAccount();
    await hit(urls(message(gone)).open);
    await hit(urls(message(alice)).open);
    await sql`delete from accounts where id = ${gone.accountId}`.execute(ctx.services.db);
    expect(await hitsOf(alice.accountId)).toHaveLength(1);
    await clearHits(alice.accountId);
  });

  it("name the reader (hrld_id) on the account's own site and its subdomains, and nowhere else", async () => {
    const shop = await setupAccount();
    expect(
      (await shop.client.patch('/v1/accounts/me', { site: 'https://www.own-shop.example' })).status,
    ).toBe(200);
    const follow = async (link: string) =>
      new URL((await hit(urls(message(shop), 60_000, link).click)).headers.location as string);
    for (const link of ['https://own-shop.example/spring?sale=1', 'https://blog.own-shop.example/post']) {
      const target = await follow(link);
      expect(readIdentityToken(secret, target.searchParams.get('hrld_id')!)).toEqual({
        accountId: shop.accountId,
        personId: shop.personId,
      });
      target.searchParams.delete('hrld_id');
      expect(target.href).toBe(new URL(link).href);
    }
    for (const link of ['https://other.example/own-shop.example', 'https://own-shop.example.evil.test/'])
      expect((await follow(link)).searchParams.has('hrld_id')).toBe(false);
  });
});
