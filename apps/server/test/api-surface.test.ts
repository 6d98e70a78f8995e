import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../src/app/routes.ts';
import { mountedRoutes } from '../src/http/app.ts';
import { Client, createTestContext, registerUser, type TestContext } from './helpers.ts';

let ctx: TestContext;
let signedIn: Client;
beforeAll(async () => {
  ctx = await createTestContext();
  signedIn = (await registerUser(ctx.app)).client;
});
afterAll(() => ctx.close());

const concrete = (url: string) => url.replace(/:[a-zA-Z]+/g, '1').replace(/\*$/, 'x');

/**
 * The routes anyone may call without a session, reviewed one by one (docs/security.md): sign-up and sign-in, links
 * from emails, the tracking endpoints, signed files and webhooks that carry their own proof, instance-level health and
 * configuration, the read-only flow views that take a share token, and the web app itself. Any other route must
 * answer 401 without a session.
 */
const publicRoutes = [
  'GET /v1/config',
  'GET /v1/heartbeat',
  'GET /healthz',
  'GET /readyz',
  'POST /v1/logging',
  'POST /v1/accounts/login/',
  'POST /v1/accounts/login/google',
  // The sign-in's second step: refused without the sealed cookie a right password sets.
  'POST /v1/accounts/login/two-factor',
  'POST /v1/accounts/login/two-factor/setup',
  'POST /v1/accounts/login/two-factor/confirm',
  // Single sign-on: the start answers the provider's address for a domain; the callback is refused without the sealed
  // cookie the start set.
  'POST /v1/accounts/login/sso',
  'POST /v1/accounts/login/sso/callback',
  'POST /v1/accounts/logout',
  'POST /v1/accounts/request-reset-password',
  'POST /v1/accounts/reset-password',
  'POST /v1/accounts/',
  'GET /v1/team-members/invitations/:token',
  'POST /v1/team-members/invitations/accept',
  'POST /v1/ingest/batch',
  'POST /v1/ingest',
  // The Segment-compatible Tracking API (write key as the Basic auth user or in the body).
  'POST /v1/identify',
  'POST /v1/i',
  'POST /v1/track',
  'POST /v1/t',
  'POST /v1/page',
  'POST /v1/p',
  'POST /v1/screen',
  'POST /v1/s',
  'POST /v1/group',
  'POST /v1/g',
  'POST /v1/alias',
  'POST /v1/a',
  'POST /v1/batch',
  'POST /v1/b',
  'POST /v1/import',
  'POST /beacon/v1/batch',
  'POST /v1/sender-verification',
  'GET /v1/communication-preferences',
  'POST /v1/communication-preferences',
  'POST /v1/communication-preferences/all',
  'POST /v1/unsubscribe',
  'POST /public/unsubscribe',
  // Double opt-in: the confirmation page's POST and its "send a new email" (the sealed token is the key).
  'POST /v1/public/confirm-subscription',
  'POST /v1/public/confirm-subscription/resend',
  'PUT /v1/uploads/*',
  'GET /files/*',
  'GET /v1/dev/mailbox',
  'GET /v1/dev/mailbox/:id',
  'POST /v1/webhooks/bounces/ses',
  'POST /v1/webhooks/bounces/postmark',
  'POST /v1/webhooks/bounces/sendgrid',
  'POST /v1/webhooks/bounces/mailgun',
  'GET /site.js',
  'POST /v1/site-tracking/collect',
  'GET /v1/integrations/:id',
  'GET /v1/integrations/:id/emails',
  'GET /v1/integrations/:id/segments',
  'GET /v1/integrations/:id/attached',
  'GET /v1/services',
  'POST /v1/hooks/flows/:stepId',
  'POST /v1/hooks/billing/chargebee',
  'POST /v1/hooks/billing/paypal',
  'POST /v1/marketplace/redeem',
  'GET /v1/openapi.json',
  // The open pixel and the click redirect (signed links in sent mail).
  'GET /t/o',
  'GET /t/o/*',
  'GET /t/c',
  'GET /t/c/*',
];

describe('the API surface', () => {
  it('documents every route in /v1/openapi.json', async () => {
    const res = await new Client(ctx.app).get('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    for (const route of allRoutes) {
      const path = route.url.replace(/:([a-zA-Z]+)/g, '{$1}').replace(/\*$/, '{*}');
      const entry = res.body.paths[path] ?? res.body.paths[path.replace(/\/$/, '')];
      expect(entry, path).toBeDefined();
      expect(entry[route.method.toLowerCase()], `${route.method} ${path}`).toBeDefined();
    }
  });

  it('every route but the reviewed public ones answers 401 without a session, before looking at its input', async () => {
    const mounted = mountedRoutes(ctx.app).filter((r) => r.method !== 'OPTIONS');
    const key = (r: { method: string; url: string }) => `${r.method} ${r.url}`;
    // Declared public and not reviewed, or reviewed and gone: the list below is out of date, or a route is open by mistake.
    expect(
      allRoutes
        .filter((r) => r.auth === 'public')
        .map(key)
        .sort(),
    ).toEqual(publicRoutes.filter((r) => allRoutes.some((d) => key(d) === r)).sort());
    expect(publicRoutes.filter((r) => !mounted.some((m) => key(m) === r))).toEqual([]);
    const answers: string[] = [];
    for (const route of mounted.filter((r) => !publicRoutes.includes(key(r)))) {
      const method = route.method as Parameters<Client['request']>[0];
      const res = await new Client(ctx.app).request(method, concrete(route.url), {
        body: method === 'GET' ? undefined : {},
      });
      if (res.status !== 401) answers.push(`${key(route)} → ${res.status}`);
    }
    expect(answers).toEqual([]);
  });

  it('unknown API paths are JSON 404s', async () => {
    const res = await new Client(ctx.app).get('/v1/no-such-thing');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ statusCode: 404, name: 'NotFoundError' });
  });

  it('a body over 1 MiB is refused with 413', async () => {
    const res = await signedIn.request('PATCH', '/v1/accounts/me', {
      rawBody: JSON.stringify({ goals: 'x'.repeat(1_100_000) }),
    });
    expect(res.status).toBe(413);
  });

  it('never answers 5xx to any JSON a user can send to any route', async () => {
    const writeRoutes = allRoutes.filter((r) => r.method !== 'GET');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...writeRoutes),
        fc.jsonValue({ maxDepth: 3 }),
        fc.boolean(),
        async (route, body, withSession) => {
          const client = withSession ? signedIn : new Client(ctx.app);
          const res = await client.request(route.method, concrete(route.url), {
            rawBody: JSON.stringify(body),
          });
          expect(
            res.status,
            `${route.method} ${route.url} ${JSON.stringify(body).slice(0, 200)}`,
          ).toBeLessThan(500);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('never answers 5xx to field values of the wrong shape', async () => {
    const fields = [
      'email',
      'password',
      'name',
      'site',
      'phone',
      'timezone',
      'goals',
      'flags',
      'onboarding',
      'token',
      'idToken',
      'peopleTableFields',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.constantFrom(...fields),
          fc.oneof(
            fc.string({ maxLength: 300 }),
            fc.integer(),
            fc.constant(null),
            fc.array(fc.string()),
            fc.object(),
          ),
        ),
        fc.constantFrom(
          '/v1/accounts/me',
          '/v1/accounts/login/',
          '/v1/accounts/reset-password',
          '/v1/accounts/',
        ),
        async (body, url) => {
          const method = url === '/v1/accounts/me' ? 'PATCH' : 'POST';
          const res = await signedIn.request(method, url, { body });
          expect(res.status, `${url} ${JSON.stringify(body).slice(0, 200)}`).toBeLessThan(500);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('regressions found by the fuzz tests', () => {
  it('an empty PATCH of a team member changes nothing and answers 200', async () => {
    const { client, account } = await registerUser(ctx.app);
    const res = await client.patch(`/v1/team-members/${account.teamMemberId}`, {});
    expect(res.status).toBe(200);
  });
});
