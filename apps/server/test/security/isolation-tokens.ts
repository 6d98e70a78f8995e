import { confirmationToken } from '../../src/features/consent/confirmation-links.ts';
import { recipientToken } from '../../src/features/preferences/preference-links.ts';
import { identityToken } from '../../src/features/site-tracking/visitor-identity.ts';
import { flushTrackingHits } from '../../src/features/tracking/tracking.endpoints.ts';
import { trackingFor } from '../../src/features/tracking/tracking-links.ts';
import { Client, publicUrl, type ApiResponse, type TestContext } from '../helpers.ts';
import { changedTables, digestAccounts } from './isolation-digest.ts';
import type { SeededAccount } from './isolation-seed.ts';

/**
 * Public tokens swapped between two seeded accounts: each of A's tokens used in B's context, each token with
 * its other half from B, and each signed token with B's (or another of A's) ids written into it over A's
 * signature. Every such use must be refused (or answer harmlessly), show nothing of the other account, and change
 * neither account's rows.
 */

/** `payload.signature` tokens: A's payload over B's signature. */
const spliceDotted = (mine: string, theirs: string) =>
  `${mine.slice(0, mine.lastIndexOf('.'))}.${theirs.slice(theirs.lastIndexOf('.') + 1)}`;
/** Opaque (sealed) tokens: the first half of one, the rest of the other. */
const spliceHalves = (mine: string, theirs: string) =>
  `${mine.slice(0, Math.floor(mine.length / 2))}${theirs.slice(Math.floor(theirs.length / 2))}`;
/** A signToken token (base64url JSON + '.' + HMAC) with some fields changed and the old signature kept. */
function rewriteSigned(token: string, changes: Record<string, unknown>): string {
  const [body, signature] = token.split('.') as [string, string];
  const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
  return `${Buffer.from(JSON.stringify({ ...payload, ...changes })).toString('base64url')}.${signature}`;
}
/** A dotted base-36 token with part `index` replaced by `value` in base 36, the signature kept. */
const rewriteDotted = (token: string, index: number, value: number) =>
  token
    .split('.')
    .map((part, i) => (i === index ? value.toString(36) : part))
    .join('.');

/** The token of the last link to `to` that the app queued as system mail. */
async function mailedToken(ctx: TestContext, to: string, path: string): Promise<string> {
  const mail = await ctx.services.db
    .selectFrom('mailDeliveries')
    .select('textBody')
    .where('toAddress', '=', to)
    .orderBy('createdAt', 'desc')
    .executeTakeFirst();
  const match = new RegExp(`${path}\\?token=([^\\s"<]+)`).exec(mail?.textBody ?? '');
  if (!match) throw new Error(`no ${path} link in the mail to ${to}`);
  return decodeURIComponent(match[1]!);
}

export async function probeSwappedTokens(ctx: TestContext, a: SeededAccount, b: SeededAccount) {
  const secret = ctx.services.secret;
  const problems: string[] = [];
  let uses = 0;
  const anonymous = () => new Client(ctx.app);

  /** One use of a swapped token: the answer must be one of `statuses` and carry neither account's canary unless allowed. */
  const use = async (
    label: string,
    call: () => Promise<ApiResponse>,
    statuses: number[],
    shows: SeededAccount[] = [],
  ) => {
    const res = await call();
    uses += 1;
    const text = (typeof res.body === 'string' ? res.body : JSON.stringify(res.body ?? '')).toLowerCase();
    if (!statuses.includes(res.status))
      problems.push(`${label}: answered ${res.status} ${text.slice(0, 160)}`);
    for (const account of [a, b])
      if (!shows.includes(account) && text.includes(account.canary.toLowerCase()))
        problems.push(`${label}: showed ${account.canary}`);
    return res;
  };

  // Tokens that arrive by mail: invitations, sender verification, password resets.
  const inviteA = await mailedToken(
    ctx,
    `${a.canary.toLowerCase()}-mate@example.com`,
    '/public/accept-invite',
  );
  const inviteB = await mailedToken(
    ctx,
    `${b.canary.toLowerCase()}-mate@example.com`,
    '/public/accept-invite',
  );
  const senderA = await mailedToken(
    ctx,
    `${a.canary.toLowerCase()}-pending@example.com`,
    '/public/verify-sender',
  );
  const senderB = await mailedToken(
    ctx,
    `${b.canary.toLowerCase()}-pending@example.com`,
    '/public/verify-sender',
  );
  for (const owner of [a.owner, b.owner])
    await anonymous().post('/v1/accounts/request-reset-password', { email: owner.email });
  const resetA = await mailedToken(ctx, a.owner.email, '/reset-password');
  const resetB = await mailedToken(ctx, b.owner.email, '/reset-password');
  // Upload URLs: A's signed path with B's signature.
  const logoA = (await a.owner.client.post('/v1/accounts/logo', { contentType: 'image/png' })).body
    .url as string;
  const logoB = (await b.owner.client.post('/v1/accounts/logo', { contentType: 'image/png' })).body
    .url as string;
  const importA = (await a.owner.client.post('/v1/imports/upload-url')).body.url as string;
  const importB = (await b.owner.client.post('/v1/imports/upload-url')).body.url as string;

  const accounts = [a.accountId, b.accountId];
  const before = await digestAccounts(ctx.services.db, accounts);

  // Flow share links.
  const shareA = a.names.shareToken;
  const shareB = b.names.shareToken;
  const shareBad = [
    ['A token, A other flow', a.otherFlowId, shareA],
    ['A token, B flow', b.flowId, shareA],
    ['B token, A flow', a.flowId, shareB],
    ['A payload, B signature', a.flowId, spliceDotted(shareA, shareB)],
    ['A token rewritten to A other flow', a.otherFlowId, rewriteSigned(shareA, { f: a.otherFlowId })],
    ['A token rewritten to B account', a.flowId, rewriteSigned(shareA, { a: b.accountId })],
  ] as const;
  for (const [label, flowId, token] of shareBad) {
    const q = `read-only-auth=${encodeURIComponent(token)}`;
    for (const path of ['', '/emails', '/segments', '/attached']) {
      await use(
        `share ${label} GET ${path}`,
        () => anonymous().get(`/v1/integrations/${flowId}${path}?${q}`),
        [403, 404],
      );
    }
    await use(
      `share ${label} copy-preview as B`,
      () => b.owner.client.get(`/v1/integrations/${flowId}/copy-preview?${q}`),
      [403, 404],
    );
    await use(
      `share ${label} copy as B`,
      () => b.owner.client.post(`/v1/integrations?source=${flowId}&${q}`, {}),
      [403, 404],
    );
  }
  await use(
    'share A token as B session on B flow reads B only',
    () => b.owner.client.get(`/v1/integrations/${b.flowId}?read-only-auth=${encodeURIComponent(shareA)}`),
    [200, 403],
    [b],
  );

  // Preference, unsubscribe and one-click links.
  const prefA = recipientToken(secret, {
    accountId: a.accountId,
    personId: a.personId,
    categoryId: a.categoryId,
    source: 'email:1',
  });
  const prefB = recipientToken(secret, {
    accountId: b.accountId,
    personId: b.personId,
    categoryId: b.categoryId,
    source: 'email:1',
  });
  await use(
    "A's preference link in B's session shows A's person only",
    () => b.owner.client.get(`/v1/communication-preferences?token=${prefA}`),
    [200],
    [a],
  );
  await use(
    "A's preference link with B's category",
    () => b.owner.client.post(`/v1/communication-preferences?token=${prefA}`, { [b.categoryId]: 'optOut' }),
    [400, 404],
  );
  for (const [label, token] of [
    ['A/B halves', spliceHalves(prefA, prefB)],
    ['B/A halves', spliceHalves(prefB, prefA)],
  ] as const) {
    await use(
      `preferences ${label} GET`,
      () => anonymous().get(`/v1/communication-preferences?token=${token}`),
      [400, 404],
    );
    await use(
      `preferences ${label} POST`,
      () => anonymous().post(`/v1/communication-preferences?token=${token}`, { [a.categoryId]: 'optOut' }),
      [400, 404],
    );
    await use(
      `preferences ${label} all`,
      () => anonymous().post(`/v1/communication-preferences/all?token=${token}`),
      [400, 404],
    );
    await use(`unsubscribe ${label}`, () => anonymous().post(`/v1/unsubscribe?token=${token}`), [400, 404]);
    await use(
      `one-click ${label}`,
      () =>
        anonymous().request('POST', `/public/unsubscribe?token=${token}`, {
          rawBody: 'List-Unsubscribe=One-Click',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          origin: null,
        }),
      [400, 404],
    );
  }

  // Double opt-in confirm links: spliced halves confirm nobody and send nothing.
  const [confirmA, confirmB] = [a, b].map((s) =>
    confirmationToken(secret, {
      accountId: s.accountId,
      personId: s.personId,
      email: s.personEmail.toLowerCase(),
    }),
  ) as [string, string];
  for (const token of [spliceHalves(confirmA, confirmB), spliceHalves(confirmB, confirmA)]) {
    const body = { token };
    await use('confirm spliced', () => anonymous().post('/v1/public/confirm-subscription', body), [400]);
    await use(
      'resend spliced',
      () => anonymous().post('/v1/public/confirm-subscription/resend', body),
      [400],
    );
  }

  // Invitations, sender verification and password resets.
  for (const [label, token] of [
    ['A payload, B signature', spliceDotted(inviteA, inviteB)],
    ['A invitation rewritten to B', rewriteSigned(inviteA, { a: b.accountId })],
    ['A invitation rewritten to B member', rewriteSigned(inviteA, { tm: b.ids.teammate })],
  ] as const) {
    await use(
      `invitation ${label}`,
      () => anonymous().get(`/v1/team-members/invitations/${encodeURIComponent(token)}`),
      [400, 403, 404, 410],
    );
    await use(
      `invitation accept ${label}`,
      () =>
        anonymous().post('/v1/team-members/invitations/accept', {
          token,
          password: 'a long password indeed',
        }),
      [400, 403, 404, 410],
    );
  }
  for (const [label, token] of [
    ['A/B halves', spliceHalves(senderA, senderB)],
    ['B/A halves', spliceHalves(senderB, senderA)],
  ] as const) {
    await use(
      `sender verification ${label}`,
      () => b.owner.client.post('/v1/sender-verification', { token }),
      [400, 404, 410],
    );
  }
  for (const [label, token] of [
    ['A payload, B signature', spliceDotted(resetA, resetB)],
    ['B payload, A signature', spliceDotted(resetB, resetA)],
  ] as const) {
    await use(
      `password reset ${label}`,
      () => anonymous().post('/v1/accounts/reset-password', { token, password: 'a brand new password' }),
      [400, 404, 410],
    );
  }

  // Signed upload URLs: one account's path with the other's signature.
  const swapQuery = (mine: string, theirs: string) => new URL(mine).pathname + new URL(theirs).search;
  for (const [label, url, type] of [
    ['logo', swapQuery(logoA, logoB), 'image/png'],
    ['import', swapQuery(importA, importB), 'text/csv'],
  ] as const) {
    await use(
      `upload ${label} A path, B signature`,
      async () => {
        const res = await ctx.app.inject({
          method: 'PUT',
          url,
          headers: { 'content-type': type },
          payload: Buffer.from('89504e470d0a1a0a', 'hex'),
        });
        return {
          status: res.statusCode,
          body: res.body,
          headers: res.headers,
          cookie: undefined,
          setCookie: [],
        };
      },
      [400, 403],
    );
  }
  await use(
    "A's export download in B's session",
    () => b.owner.client.get(`/v1/people/exports/${a.ids.bulkAction}/download`),
    [403, 404],
  );
  await use(
    "A's transactional delivery by B's key",
    () =>
      anonymous().get(`/v1/transactional/${a.transactionalDeliveryId}`, {
        headers: { authorization: `Bearer ${b.apiKey}` },
      }),
    [404],
  );

  // Tracking: open pixel and click links, tokens of one account with the other's signatures, ids or links.
  const message = (s: SeededAccount) => ({
    accountId: s.accountId,
    deliveryId: s.transactionalDeliveryId,
    personId: s.personId,
    emailId: s.emailId,
    sourceKind: 'transactional' as const,
    sourceId: 1,
    variant: 0,
  });
  const trackA = trackingFor(secret, publicUrl, message(a));
  const trackB = trackingFor(secret, publicUrl, message(b));
  const linkA = trackA.rewriteLink(`https://${a.canary.toLowerCase()}.example.com/page`, 0);
  const linkB = trackB.rewriteLink(`https://${b.canary.toLowerCase()}.example.com/page`, 0);
  const [, , , tokenA, signatureA] = new URL(linkA).pathname.split('/') as string[];
  const [, , , tokenB, signatureB] = new URL(linkB).pathname.split('/') as string[];
  const uA = new URL(linkA).search;
  const uB = new URL(linkB).search;
  const clicks = [
    ['A message, B link', `/t/c/${tokenA}/${signatureB}${uB}`],
    ['B message, A link', `/t/c/${tokenB}/${signatureA}${uA}`],
    ['A message and signature, B url', `/t/c/${tokenA}/${signatureA}${uB}`],
    ['A payload, B signature', `/t/c/${spliceDotted(tokenA!, tokenB!)}/${signatureA}${uA}`],
    ['A message rewritten to B account', `/t/c/${rewriteDotted(tokenA!, 1, b.accountId)}/${signatureA}${uA}`],
    [
      'A message rewritten to A other person',
      `/t/c/${rewriteDotted(tokenA!, 3, a.otherPersonId)}/${signatureA}${uA}`,
    ],
  ] as const;
  for (const [label, path] of clicks) {
    await use(
      `click ${label}`,
      async () => {
        const res = await ctx.app.inject({ method: 'GET', url: path });
        return {
          status: res.statusCode,
          body: res.body,
          headers: res.headers,
          cookie: undefined,
          setCookie: [],
        };
      },
      [404],
    );
  }
  for (const [label, token] of [
    ['A payload, B signature', spliceDotted(tokenA!, tokenB!)],
    ['rewritten to B account', rewriteDotted(tokenA!, 1, b.accountId)],
    ['rewritten to B person', rewriteDotted(tokenA!, 3, b.personId)],
  ] as const) {
    await use(
      `open ${label}`,
      async () => {
        const res = await ctx.app.inject({ method: 'GET', url: `/t/o/${token}` });
        return { status: res.statusCode, body: '', headers: res.headers, cookie: undefined, setCookie: [] };
      },
      [200],
    );
  }
  await flushTrackingHits(ctx.app);

  const after = await digestAccounts(ctx.services.db, accounts);
  const changed = changedTables(before, after);
  if (changed.length > 0) problems.push(`swapped tokens changed ${changed.join(', ')}`);

  // Identify links: A's visitor identity on B's site (and forged ones) identify nobody.
  const identityA = identityToken(secret, a.accountId, a.personId);
  const identityB = identityToken(secret, b.accountId, b.personId);
  const identities = [
    ["A's identity, B's write key", b.writeKey, identityA],
    ["B's identity, A's write key", a.writeKey, identityB],
    ['A payload, B signature', a.writeKey, spliceDotted(identityA, identityB)],
    ['A identity rewritten to A other person', a.writeKey, rewriteDotted(identityA, 1, a.otherPersonId)],
  ] as const;
  for (const [label, writeKey, identity] of identities) {
    const res = await use(
      `identify ${label}`,
      () =>
        anonymous().post(
          '/v1/site-tracking/collect',
          {
            writeKey,
            anonymousId: `probe-${uses}`,
            identity,
            events: [{ type: 'page', url: 'https://example.com/' }],
          },
          { origin: null },
        ),
      [200, 202],
    );
    if (res.body?.identified !== false) problems.push(`identify ${label}: identified the visitor`);
  }
  return { uses, problems };
}
