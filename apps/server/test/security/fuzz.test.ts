import crypto from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '../../src/http/route.ts';
import { recipientToken } from '../../src/features/preferences/preference-links.ts';
import { flushTrackingHits } from '../../src/features/tracking/tracking.endpoints.ts';
import { trackingFor } from '../../src/features/tracking/tracking-links.ts';
import { allRoutes } from '../../src/app/routes.ts';
import { writeFigure } from '../figures.ts';
import { createTestContext, publicUrl, type TestContext } from '../helpers.ts';
import { startSmtpServer } from '../smtp.ts';
import { changedTables, digestAccounts } from './isolation-digest.ts';
import { seedAccount, startReceiver, type SeededAccount } from './isolation-seed.ts';
import { requestArbitrary, urlOf, type FuzzRequest } from './fuzz-request.ts';

/**
 * Schema-driven fuzzing of every route of the route table, in process (inject), as the signed-in owner of an
 * account that holds one of everything: requests shaped by each route's schema, and mutated ones. No answer may be
 * a 5xx, and a 4xx must leave the account's rows as they were (isolation-digest.ts says what bookkeeping is left
 * out). FUZZ_SEED repeats a run (the seed is printed), FUZZ_RUNS sets the requests per route, FUZZ_ROUTES picks routes.
 */
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 22_2022;
const runsPerRoute = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : 30;
/** FUZZ_ROUTES: only the routes whose "METHOD /path" matches this regular expression (to repeat one failure). */
const routeFilter = process.env.FUZZ_ROUTES ? new RegExp(process.env.FUZZ_ROUTES) : undefined;

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let seeded: SeededAccount;
let cookie: string;

beforeAll(async () => {
  smtp = await startSmtpServer();
  receiver = await startReceiver();
  ctx = await createTestContext({
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Herald <no-reply@herald.test>',
    OUTGOING_TRUSTED_ADDRESSES: '127.0.0.1',
    SLACK_WEBHOOK_HOSTS: 'hooks.slack.com,127.0.0.1',
  });
  seeded = await seedAccount(ctx, receiver.base, 'F');
  cookie = seeded.owner.client.cookie!;
});
afterAll(async () => {
  await ctx?.close();
  await smtp?.close();
  await receiver?.close();
});

/** Which of the seeded ids a path parameter takes, by the path before it (the last match wins). */
const idKinds: Array<[RegExp, string, string[]]> = [
  [/^\/v1\/accounts\//, 'id', ['subaccount']],
  [/^\/v1\/team-members\//, 'id', ['teammate']],
  [/^\/v1\/people\//, 'id', ['person', 'otherPerson']],
  [/^\/v1\/people\/exports\/|^\/v1\/bulk-actions\//, 'id', ['bulkAction']],
  [/^\/v1\/segments\//, 'id', ['segment']],
  [/^\/v1\/folders\//, 'id', ['folder']],
  [/^\/v1\/imports\//, 'id', ['import']],
  [/^\/v1\/emails\//, 'id', ['email']],
  [/^\/v1\/broadcasts\//, 'id', ['broadcast']],
  [/^\/v1\/settings\/email\/domains\//, 'id', ['domain']],
  [/^\/v1\/settings\/communication-categories\//, 'id', ['category']],
  [/^\/v1\/transactional\//, 'deliveryId', ['transactionalDelivery']],
  [/^\/v1\/integrations\//, 'id', ['flow', 'otherFlow']],
  [/^\/v1\/steps\//, 'id', ['step', 'otherStep']],
  [/^\/v1\/hooks\/flows\//, 'stepId', ['step']],
  [/^\/v1\/links\//, 'id', ['link']],
  [/^\/v1\/links\//, 'source', ['step']],
  [/^\/v1\/links\//, 'target', ['otherStep']],
  [/^\/v1\/webhook-endpoints\//, 'id', ['webhookEndpoint']],
  [/^\/v1\/webhook-endpoints\//, 'deliveryId', ['webhookDelivery']],
];

function preferredParams(route: RouteDef): Record<string, string[]> {
  const preferred: Record<string, string[]> = {
    name: [seeded.names.field],
    tag: [seeded.names.tag],
    email: [seeded.names.senderEmail, seeded.names.suppressionEmail],
    number: [String(seeded.names.versionNumber)],
    service: ['slack'],
    serviceId: ['slack'],
    id: route.url.startsWith('/v1/services/') ? ['slack'] : [],
    operation: ['slack-notification', 'send-message'],
    token: [seeded.names.shareToken],
  };
  for (const [path, param, kinds] of idKinds) {
    if (path.test(route.url)) preferred[param] = kinds.map((kind) => String(seeded.ids[kind]));
  }
  return preferred;
}

/** The route's own seed: the run's seed and its method and path, so adding a route changes no other route's requests. */
const routeSeed = (route: RouteDef) =>
  (seed ^ crypto.createHash('sha256').update(`${route.method} ${route.url}`).digest().readInt32LE(0)) | 0;

async function send(route: RouteDef, request: FuzzRequest) {
  const headers: Record<string, string> = { cookie, origin: publicUrl };
  if (request.body !== undefined && request.contentType) headers['content-type'] = request.contentType;
  const res = await ctx.app.inject({
    method: route.method,
    url: urlOf(route, request),
    headers,
    remoteAddress: '127.0.0.9',
    ...(request.body !== undefined ? { payload: request.body } : {}),
  });
  return { status: res.statusCode, text: res.body };
}

/** The owner signed in again, in the seeded account, after a route that signs out or switches accounts. */
async function ensureSession(): Promise<void> {
  const me = await ctx.app.inject({ method: 'GET', url: '/v1/accounts', headers: { cookie } });
  if (me.statusCode === 401) {
    const login = await ctx.app.inject({
      method: 'POST',
      url: '/v1/accounts/login/',
      headers: { origin: publicUrl, 'content-type': 'application/json' },
      payload: JSON.stringify({ email: seeded.owner.email, password: seeded.owner.password }),
    });
    const set = ([] as string[])
      .concat((login.headers['set-cookie'] as string | string[] | undefined) ?? [])
      .find((c) => c.startsWith('herald_session='));
    if (login.statusCode !== 200 || !set)
      throw new Error(
        `the fuzzed owner cannot sign in again: ${login.statusCode} ${login.body.slice(0, 200)}`,
      );
    cookie = set.split(';')[0]!;
  } else if ((JSON.parse(me.body) as { id?: number }).id !== seeded.accountId) {
    const back = await ctx.app.inject({
      method: 'POST',
      url: `/v1/accounts/${seeded.accountId}/switch`,
      headers: { cookie, origin: publicUrl },
    });
    if (back.statusCode >= 300) throw new Error(`the fuzzed owner cannot switch back: ${back.statusCode}`);
  }
}

/** Requests and routes of the tracking endpoints' run, counted into the figure (they are not in the route table). */
let trackingRequests = 0;
let trackingRoutes = 0;

describe('fuzzing every route', () => {
  it('the open pixel and click redirect (outside the route table) record nothing for a token that does not check out', async () => {
    const accounts = [seeded.accountId];
    const tracked = {
      accountId: seeded.accountId,
      deliveryId: seeded.transactionalDeliveryId,
      personId: seeded.personId,
      emailId: seeded.emailId,
      sourceKind: 'transactional' as const,
      sourceId: 1,
      variant: 0,
    };
    const link = new URL(
      trackingFor(ctx.services.secret, publicUrl, tracked).rewriteLink('https://example.com/page?a=1', 0),
    );
    const [, , , token, signature] = link.pathname.split('/') as [string, string, string, string, string];
    const target = link.searchParams.get('u')!;
    const flip = (text: string, at: number, char: string) =>
      text.slice(0, at % Math.max(text.length, 1)) + char + text.slice((at % Math.max(text.length, 1)) + 1);
    const part = (genuine: string) =>
      fc.oneof(
        fc.constant(genuine),
        fc
          .tuple(fc.nat(), fc.constantFrom('a', '0', '.', '-', '_', 'Z', '%00', '%2F'))
          .map(([at, char]) => flip(genuine, at, char)),
        fc.nat().map((at) => genuine.slice(0, at % genuine.length)),
        // No bare '.' or '..' (nor encoded): clients resolve those segments before sending, and so does inject.
        fc
          .string({ maxLength: 80 })
          .filter((text) => text !== '.' && text !== '..')
          .map(encodeURIComponent),
        fc.constantFrom('', 'x'.repeat(5000), `${genuine}.${genuine}`, '%E0%A4%A'),
      );
    const request = fc.record({
      method: fc.constantFrom('GET' as const, 'HEAD' as const),
      isOpen: fc.boolean(),
      token: part(token),
      signature: part(signature),
      links: fc.oneof(
        fc.constant([target]),
        fc.constant([]),
        fc.constant([target, target]),
        fc.array(
          fc.oneof(
            fc.webUrl(),
            fc.string(),
            fc.constantFrom('javascript:alert(1)', '//evil.example', 'http://169.254.169.254/'),
          ),
          { minLength: 1, maxLength: 2 },
        ),
      ),
    });
    let before = await digestAccounts(ctx.services.db, accounts);
    const out = await fc.check(
      fc.asyncProperty(request, async (hit) => {
        const query = (hit.links as string[]).map((u) => `u=${encodeURIComponent(u)}`).join('&');
        const url = hit.isOpen
          ? `/t/o/${hit.token}`
          : `/t/c/${hit.token}/${hit.signature}${query ? `?${query}` : ''}`;
        const res = await ctx.app.inject({
          method: hit.method,
          url,
          remoteAddress: `127.0.${trackingRequests % 250}.1`,
        });
        trackingRequests += 1;
        const genuine =
          hit.token === token &&
          (hit.isOpen || (hit.signature === signature && hit.links.length === 1 && hit.links[0] === target));
        // A path that is not valid percent-encoding is refused by the router (400) when it comes through inject; the
        // HTTP server hands the raw path to the tracking handler, which answers it like any token that does not check out.
        const badEncoding = (() => {
          try {
            decodeURIComponent(url.split('?')[0]!);
            return false;
          } catch {
            return true;
          }
        })();
        const expected = badEncoding ? 400 : hit.isOpen ? 200 : genuine ? 302 : 404;
        if (res.statusCode !== expected)
          throw new Error(`${hit.method} ${url} answered ${res.statusCode}, not ${expected}`);
        await flushTrackingHits(ctx.app);
        const after = await digestAccounts(ctx.services.db, accounts);
        const changed = changedTables(before, after);
        before = after;
        if (!genuine && changed.length > 0)
          throw new Error(`${hit.method} ${url} changed ${changed.join(', ')}`);
      }),
      { seed, numRuns: runsPerRoute * 10, endOnFailure: true },
    );
    expect(
      out.failed ? `${String(out.errorInstance)} (seed ${seed}, path ${out.counterexamplePath})` : null,
    ).toBeNull();
    trackingRoutes = 2;
  });

  it(
    'answers no request with a 5xx, and changes nothing on a 4xx',
    async () => {
      const started = Date.now();
      const accounts = [seeded.accountId, seeded.ids.subaccount!];
      const known = {
        numbers: [...new Set([...Object.values(seeded.ids), seeded.names.versionNumber])],
        strings: [
          seeded.names.field,
          seeded.names.tag,
          seeded.names.senderEmail,
          seeded.names.suppressionEmail,
          seeded.personEmail,
          seeded.writeKey,
          seeded.names.shareToken,
          'slack',
          // The person's preference and unsubscribe link, as their emails carry it.
          recipientToken(ctx.services.secret, {
            accountId: seeded.accountId,
            personId: seeded.personId,
            categoryId: seeded.categoryId,
            source: 'email:1',
          }),
        ],
      };
      // Deletions near the end, so that the other routes still meet the seeded rows; sign-out last, so that the
      // others run signed in without signing in again each time.
      const rank = (route: RouteDef) =>
        route.url.endsWith('/logout') ? 2 : route.method === 'DELETE' ? 1 : 0;
      const routes = allRoutes
        .filter((r) => !routeFilter || routeFilter.test(`${r.method} ${r.url}`))
        .sort((x, y) => rank(x) - rank(y));
      const failures: string[] = [];
      const statuses: Record<string, number> = {};
      /** Routes no request got a success from: their handlers ran only as far as a refusal (printed, for whoever widens the fuzzer). */
      const neverSucceeded: string[] = [];
      let requests = 0;
      console.log(`fuzz: seed ${seed} (FUZZ_SEED), ${runsPerRoute} requests per route (FUZZ_RUNS)`);
      for (const route of routes) {
        await ensureSession();
        let successes = 0;
        let before = await digestAccounts(ctx.services.db, accounts);
        const property = fc.asyncProperty(
          requestArbitrary(route, known, preferredParams(route)),
          async (request) => {
            const res = await send(route, request);
            requests += 1;
            const family = `${Math.floor(res.status / 100)}xx`;
            statuses[family] = (statuses[family] ?? 0) + 1;
            if (res.status < 300) successes += 1;
            if (res.status >= 500) throw new Error(`answered ${res.status} ${res.text.slice(0, 200)}`);
            const after = await digestAccounts(ctx.services.db, accounts);
            const changed = changedTables(before, after);
            before = after;
            if (res.status >= 400 && changed.length > 0)
              throw new Error(
                `answered ${res.status} and changed ${changed.join(', ')}: ${res.text.slice(0, 200)}`,
              );
          },
        );
        const out = await fc.check(property, {
          seed: routeSeed(route),
          numRuns: runsPerRoute,
          endOnFailure: true,
        });
        if (successes === 0) neverSucceeded.push(`${route.method} ${route.url}`);
        if (out.failed) {
          const request = out.counterexample?.[0] as FuzzRequest | undefined;
          failures.push(
            `${route.method} ${route.url} ${out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance)}\n` +
              `  request (${request?.kind}): ${request ? `${urlOf(route, request)} ${request.contentType ?? ''} ${request.body?.slice(0, 300) ?? ''}` : '?'}\n  seed ${routeSeed(route)} path ${out.counterexamplePath}`,
          );
        }
      }
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(
        `fuzz: ${requests} requests over ${routes.length} routes in ${seconds} s, answers ${JSON.stringify(statuses)}`,
      );
      console.log(
        `fuzz: ${neverSucceeded.length} routes answered no request with a success: ${neverSucceeded.join(', ')}`,
      );
      expect(failures).toEqual([]);
      if (!routeFilter) expect(routes.length).toBe(allRoutes.length);
      writeFigure(
        'security',
        40,
        'fuzz',
        `fuzz: ${requests + trackingRequests} requests over ${routes.length + trackingRoutes} routes, 0 5xx, 0 changes on 4xx`,
      );
    },
    Math.max(300_000, runsPerRoute * allRoutes.length * 200),
  );
});
