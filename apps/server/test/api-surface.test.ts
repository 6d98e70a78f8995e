import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../src/app/routes.ts';
import { Client, createTestContext, registerUser, type TestContext } from './helpers.ts';

let ctx: TestContext;
let signedIn: Client;
beforeAll(async () => {
  ctx = await createTestContext();
  signedIn = (await registerUser(ctx.app)).client;
});
afterAll(() => ctx.close());

const concrete = (url: string) => url.replace(/:[a-zA-Z]+/g, '1');

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

  it('every session route answers 401 without a session', async () => {
    for (const route of allRoutes.filter((r) => r.auth === 'session')) {
      const res = await new Client(ctx.app).request(route.method, concrete(route.url), { body: route.method === 'GET' ? undefined : {} });
      expect([400, 401], `${route.method} ${route.url}`).toContain(res.status);
      if (res.status === 400) expect(route.body ?? route.query ?? route.params, `${route.method} ${route.url} validated before auth`).toBeDefined();
    }
  });

  it('unknown API paths are JSON 404s', async () => {
    const res = await new Client(ctx.app).get('/v1/no-such-thing');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ statusCode: 404, name: 'NotFoundError' });
  });

  it('a body over 1 MiB is refused with 413', async () => {
    const res = await signedIn.request('PATCH', '/v1/accounts/me', { rawBody: JSON.stringify({ goals: 'x'.repeat(1_100_000) }) });
    expect(res.status).toBe(413);
  });

  it('never answers 5xx to any JSON a user can send to any route', async () => {
    const writeRoutes = allRoutes.filter((r) => r.method !== 'GET');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...writeRoutes), fc.jsonValue({ maxDepth: 3 }), fc.boolean(), async (route, body, withSession) => {
        const client = withSession ? signedIn : new Client(ctx.app);
        const res = await client.request(route.method, concrete(route.url), { rawBody: JSON.stringify(body) });
        expect(res.status, `${route.method} ${route.url} ${JSON.stringify(body).slice(0, 200)}`).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
  });

  it('never answers 5xx to field values of the wrong shape', async () => {
    const fields = ['email', 'password', 'name', 'site', 'phone', 'timezone', 'goals', 'flags', 'onboarding', 'token', 'idToken', 'peopleTableFields'];
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...fields), fc.oneof(fc.string({ maxLength: 300 }), fc.integer(), fc.constant(null), fc.array(fc.string()), fc.object())),
        fc.constantFrom('/v1/accounts/me', '/v1/accounts/login/', '/v1/accounts/reset-password', '/v1/accounts/'),
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
