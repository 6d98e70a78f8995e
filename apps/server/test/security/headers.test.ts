import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trackingFor } from '../../src/features/tracking/tracking-links.ts';
import { writeFigure } from '../figures.ts';
import { createTestContext, registerUser, type TestContext } from '../helpers.ts';
import { checked, expectHeaders, expectSessionCookie, type Kind } from './headers-checks.ts';

/**
 * Security headers per kind of answer, over real HTTP (the tracking endpoints answer before Fastify): the app's pages
 * and public pages of the built web app, API JSON, the tracking pixel, redirect and bad-link page, the site script,
 * static assets; plain http, https behind a trusted proxy (X-Forwarded-Proto), an untrusted proxy's claim, and an
 * https PUBLIC_URL; the session cookie's flags in each. The built web app is the one `npm run build` makes
 * (apps/web/dist), or WEB_DIST_DIR.
 */
const repo = path.resolve(import.meta.dirname, '../../../..');
const webDist = process.env.WEB_DIST_DIR
  ? path.resolve(repo, process.env.WEB_DIST_DIR)
  : path.join(repo, 'apps/web/dist');
const indexHtml = () => fs.readFileSync(path.join(webDist, 'index.html'), 'utf8');

interface Server {
  ctx: TestContext;
  base: string;
  owner: Awaited<ReturnType<typeof registerUser>>;
}

async function start(env: Record<string, string>): Promise<Server> {
  const ctx = await createTestContext({ WEB_DIST_DIR: webDist, ...env });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  return { ctx, base, owner: await registerUser(ctx.app, { origin: ctx.config.publicUrl }) };
}

let plain: Server;
let proxied: Server;
let untrusted: Server;
let secure: Server;
let passed = 0;
beforeAll(async () => {
  expect(
    fs.existsSync(path.join(webDist, 'index.html')),
    `no built web app at ${webDist}: run npm run build (or set WEB_DIST_DIR)`,
  ).toBe(true);
  plain = await start({});
  proxied = await start({ TRUST_PROXY: 'true', PUBLIC_URL: 'http://herald.test' });
  untrusted = await start({ PUBLIC_URL: 'http://herald.test' });
  secure = await start({ PUBLIC_URL: 'https://herald.example' });
});
afterAll(async () => {
  for (const server of [plain, proxied, untrusted, secure]) await server?.ctx.close();
  if (passed === 5 && checked.responses > 0)
    writeFigure('security', 50, 'headers', `headers: ${checked.responses} responses checked, 0 missing`);
});

/** Addresses by the kind of answer they give (the click link's token is made for the server's own account). */
function addresses(server: Server): [Kind, string][] {
  const html = indexHtml();
  const assets = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1]!);
  const click = trackingFor(server.ctx.services.secret, '', {
    accountId: server.owner.account.accountId,
    deliveryId: 1,
    personId: 1,
    emailId: 1,
    sourceKind: 'test',
    sourceId: 1,
    variant: 0,
  });
  return [
    ...[
      '/',
      '/dashboard',
      '/flows/1',
      '/emails/1',
      '/metrics',
      '/apps',
      '/settings/billing',
      '/settings/site-tracking',
      '/login',
      '/register',
      '/dev/mailbox',
      '/index.html',
      '/no/such/page',
    ].map((p): [Kind, string] => ['page', p]),
    ...[
      '/public/unsubscribe?token=abc',
      '/public/subscription-preferences?token=abc',
      '/public/verify-sender?token=abc',
      '/public/accept-invite?token=abc',
      '/public/register/appsumo',
      '/public/privacy',
    ].map((p): [Kind, string] => ['public-page', p]),
    ...[
      '/v1/accounts',
      '/v1/openapi.json',
      '/v1/dev/mailbox',
      '/v1/public/preferences?token=abc',
      '/v1/no-such-route',
      '/files/logos/none.png',
    ].map((p): [Kind, string] => ['data', p]),
    ['tracking', '/t/o/not-a-token'],
    ['tracking', click.openPixelUrl],
    ['tracking', click.rewriteLink('https://example.com/pricing', 0)],
    ['tracking-page', '/t/c/not-a-token/sig?u=https%3A%2F%2Fexample.com'],
    ['script', '/site.js'],
    ...assets.map((p): [Kind, string] => ['asset', p]),
  ];
}

async function checkAll(server: Server, https: boolean, headers: Record<string, string> = {}) {
  for (const [kind, address] of addresses(server)) {
    const res = await fetch(`${server.base}${address}`, {
      redirect: 'manual',
      headers: { ...headers, cookie: server.owner.client.cookie ?? '' },
    });
    await res.arrayBuffer();
    expect(res.status, address).toBeLessThan(500);
    expectHeaders(`${kind} ${address}`, res.headers, { kind, https });
  }
  // The API's answers to signed-in calls and to writes.
  for (const [method, address] of [
    ['GET', '/v1/accounts'],
    ['POST', '/v1/tags/'],
    ['PATCH', '/v1/accounts/me'],
  ] as const) {
    const res = await fetch(`${server.base}${address}`, {
      method,
      headers: {
        ...headers,
        cookie: server.owner.client.cookie ?? '',
        origin: server.ctx.config.publicUrl,
        'content-type': 'application/json',
      },
      ...(method === 'GET' ? {} : { body: '{"bad":' }),
    });
    await res.arrayBuffer();
    expect(res.status, `${method} ${address}`).toBeLessThan(500);
    expectHeaders(`${method} ${address}`, res.headers, { kind: 'data', https });
  }
}

async function login(server: Server, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.base}/v1/accounts/login/`, {
    method: 'POST',
    headers: { ...headers, origin: server.ctx.config.publicUrl, 'content-type': 'application/json' },
    body: JSON.stringify({ email: server.owner.email, password: server.owner.password }),
  });
  expect(res.status).toBe(200);
  return res.headers.getSetCookie();
}

describe('security headers', () => {
  it('the built index.html runs no inline script and has no inline event handlers', () => {
    const html = indexHtml();
    expect(html.match(/<script\b(?![^>]*\bsrc=)[^>]*>/gi) ?? [], 'inline <script> in index.html').toEqual([]);
    expect(html.match(/\son[a-z]+\s*=/gi) ?? [], 'inline event handler in index.html').toEqual([]);
    passed += 1;
  });

  it('over plain http: every kind of answer, and a session cookie without Secure', async () => {
    await checkAll(plain, false);
    expectSessionCookie(await login(plain), 'http login', false);
    passed += 1;
  });

  it('behind a trusted proxy: https answers get HSTS and a Secure cookie, http ones neither', async () => {
    await checkAll(proxied, true, { 'x-forwarded-proto': 'https' });
    expectSessionCookie(await login(proxied, { 'x-forwarded-proto': 'https' }), 'proxied https login', true);
    await checkAll(proxied, false, { 'x-forwarded-proto': 'http' });
    expectSessionCookie(await login(proxied, { 'x-forwarded-proto': 'http' }), 'proxied http login', false);
    passed += 1;
  });

  it('a proxy that is not trusted cannot claim https (no HSTS, no Secure cookie)', async () => {
    await checkAll(untrusted, false, { 'x-forwarded-proto': 'https' });
    expectSessionCookie(
      await login(untrusted, { 'x-forwarded-proto': 'https' }),
      'untrusted proxy login',
      false,
    );
    passed += 1;
  });

  it('with an https PUBLIC_URL: HSTS on every answer, tracking included, and a Secure cookie', async () => {
    await checkAll(secure, true);
    expectSessionCookie(await login(secure), 'https PUBLIC_URL login', true);
    passed += 1;
  });
});
