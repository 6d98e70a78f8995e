import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../../src/app/routes.ts';
import { writeFigure } from '../figures.ts';
import { Client, createTestContext, registerUser, type TestContext } from '../helpers.ts';
import { startSmtpServer } from '../smtp.ts';
import { changedTables, digestAccounts } from './isolation-digest.ts';
import { seedAccount, startReceiver, type SeededAccount } from './isolation-seed.ts';
import { probeSwappedTokens } from './isolation-tokens.ts';

/**
 * The cross-account probe of the security suite: account A holds one of everything (isolation-seed.ts), and
 * account B calls every route of the route table with each of A's ids, by session and by API key, and uses A's
 * public tokens in its own context. No answer may carry A's canary, no call may change A's rows (a digest of
 * every tenant table before and after), and no call may fail with a 5xx.
 */
let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let a: SeededAccount;
let routesWalked = 0;
let idsTried = 0;
let tokensSwapped = 0;
let leaks = 0;

beforeAll(async () => {
  smtp = await startSmtpServer();
  receiver = await startReceiver();
  ctx = await createTestContext({
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Herald <no-reply@herald.test>',
    OUTGOING_TRUSTED_ADDRESSES: '127.0.0.1',
    SLACK_WEBHOOK_HOSTS: 'hooks.slack.com,127.0.0.1',
  });
  a = await seedAccount(ctx, receiver.base, 'A');
});
afterAll(async () => {
  if (routesWalked > 0 && tokensSwapped > 0 && leaks === 0) {
    writeFigure(
      'security',
      30,
      'isolation',
      `isolation: ${routesWalked} routes x ${idsTried} ids, ${tokensSwapped} swapped tokens, ${leaks} leaks`,
    );
  }
  await ctx?.close();
  await smtp?.close();
  await receiver?.close();
});

/** The values a path parameter takes: each of A's ids for numeric ones, A's own names for the others. */
function urlsFor(url: string, seeded: SeededAccount): string[] {
  const named: Record<string, string[]> = {
    name: [seeded.names.field],
    tag: [seeded.names.tag],
    email: [seeded.names.senderEmail, seeded.names.suppressionEmail],
    // An invitation link shows its account to whoever holds it; the probe's own is not one.
    token: ['none'],
    number: [String(seeded.names.versionNumber)],
    service: ['slack'],
    serviceId: ['slack'],
    operation: ['slack-notification'],
  };
  const params = [...url.matchAll(/:([a-zA-Z]+)/g)].map((m) => m[1]!);
  if (params.length === 0) return [url];
  const fill = (id: string) =>
    url.replace(/:([a-zA-Z]+)/g, (_all, name: string) => encodeURIComponent(named[name]?.[0] ?? id));
  const urls = new Set(Object.values(seeded.ids).map((id) => fill(String(id))));
  // The right pairs for the routes with two ids, and every named value.
  const pairs: Record<string, string> = {
    '/v1/links/:source/:target': `/v1/links/${seeded.ids.step}/${seeded.ids.otherStep}`,
    '/v1/webhook-endpoints/:id/deliveries/:deliveryId/retry': `/v1/webhook-endpoints/${seeded.ids.webhookEndpoint}/deliveries/${seeded.ids.webhookDelivery}/retry`,
  };
  if (pairs[url]) urls.add(pairs[url]);
  for (const name of params)
    for (const value of named[name] ?? [])
      urls.add(
        url.replace(`:${name}`, encodeURIComponent(value)).replace(/:([a-zA-Z]+)/g, String(seeded.ids.flow)),
      );
  return [...urls];
}

describe('tenant isolation (security suite)', () => {
  it("no route answers account B with account A's data, changes A's rows, or fails", async () => {
    const b = await registerUser(ctx.app);
    let bKey = (await b.client.post('/v1/accounts/rotate-api-key')).body.apiKey as string;
    const accounts = [a.accountId, a.ids.subaccount!];
    const before = await digestAccounts(ctx.services.db, accounts);
    // Routes that take A's ids first: once B starts creating things, B's new ids could equal A's.
    const rank = (url: string) => (url.endsWith('/logout') ? 2 : /:[a-zA-Z]+/.test(url) ? 0 : 1);
    const tenantRoutes = allRoutes.filter((r) => r.tenant).sort((x, y) => rank(x.url) - rank(y.url));
    const problems: string[] = [];
    let calls = 0;
    const statusCounts: Record<number, number> = {};
    for (const route of tenantRoutes) {
      for (const url of urlsFor(route.url, a)) {
        for (const mode of ['session', 'api-key'] as const) {
          const headers: Record<string, string> =
            mode === 'api-key' ? { authorization: `Bearer ${bKey}` } : {};
          const res = await b.client.request(route.method, url, {
            ...(route.example !== undefined ? { body: route.example } : {}),
            headers,
          });
          calls += 1;
          statusCounts[res.status] = (statusCounts[res.status] ?? 0) + 1;
          const text = JSON.stringify(res.body ?? '').toLowerCase();
          if (text.includes(a.canary.toLowerCase()))
            problems.push(`${mode} ${route.method} ${url} answered with A's canary`);
          if (res.status >= 500) problems.push(`${mode} ${route.method} ${url} answered ${res.status}`);
          if (url.endsWith('/rotate-api-key') && res.status === 200) bKey = res.body.apiKey;
        }
      }
      const after = await digestAccounts(ctx.services.db, accounts);
      const changed = changedTables(before, after);
      if (changed.length > 0) {
        problems.push(`${route.method} ${route.url} changed A's ${changed.join(', ')}`);
        Object.assign(before, after);
      }
    }
    console.log(
      `isolation: ${calls} calls by B over ${tenantRoutes.length} routes with ${Object.keys(a.ids).length} kinds of A's ids, answers ${JSON.stringify(statusCounts)}`,
    );
    leaks += problems.length;
    expect(problems).toEqual([]);
    expect(calls).toBeGreaterThan(tenantRoutes.length * 2);
    routesWalked = tenantRoutes.length;
    idsTried = Object.keys(a.ids).length;

    // A still reads its own things by its API key.
    const viaKey = await new Client(ctx.app).get('/v1/accounts', {
      headers: { authorization: `Bearer ${a.apiKey}` },
    });
    expect(viaKey.status).toBe(200);
    expect(viaKey.body.name).toBe(a.canary);
  });

  it('public tokens of one account do nothing for another, nor for another person or flow', async () => {
    const b = await seedAccount(ctx, receiver.base, 'B');
    const result = await probeSwappedTokens(ctx, a, b);
    leaks += result.problems.length;
    expect(result.problems).toEqual([]);
    expect(result.uses).toBeGreaterThan(20);
    tokensSwapped = result.uses;
  });
});
