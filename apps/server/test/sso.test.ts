import crypto from 'node:crypto';
import { scopeIds, ssoMessages, type ScopeState } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openToken, sealToken } from '../src/lib/sealed-tokens.ts';
import { Client, createTestContext, publicUrl, registerUser, type TestContext } from './helpers.ts';
import { signInAtProvider, startTestProvider, type TestProvider } from './oidc-test-provider.ts';
import { enrol } from './two-factor-support.ts';

const redirectUri = `${publicUrl}/sso/callback`;
let ctx: TestContext;
let provider: TestProvider;

beforeAll(async () => {
  provider = await startTestProvider({
    redirectUris: [redirectUri],
    identities: [{ email: 'unverified@unverified.example', name: 'U', emailVerified: false }],
  });
  // The local provider is on loopback: trusted here as every test of outgoing calls does; production trusts nothing.
  ctx = await createTestContext({ OUTGOING_TRUSTED_ADDRESSES: '127.0.0.1' });
});
afterAll(async () => {
  await ctx.close();
  await provider.close();
});

const newDomain = () => `acme-${crypto.randomBytes(4).toString('hex')}.example`;
// The owner's pick for members made at first sign-in: people only.
const defaultScopes: ScopeState[] = scopeIds.map((id) => ({
  id,
  enabled: id === 'people:read' || id === 'people:write',
}));

/** An owner (with an email in a new domain) whose account signs that domain in through the test provider. */
async function accountWithSso(options: { requireSso?: boolean } = {}) {
  const domain = newDomain();
  const owner = await registerUser(ctx.app, { email: `owner@${domain}` });
  const saved = await owner.client.request('PUT', '/v1/accounts/sso', {
    body: {
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      domains: [domain],
      defaultScopes,
      requireSso: options.requireSso ?? false,
    },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  return { domain, owner };
}

/** Start at Herald, sign in at the provider as `identity`, and answer the callback's query string. */
async function throughProvider(client: Client, email: string, identity = email) {
  const started = await client.post('/v1/accounts/login/sso', { email });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  return signInAtProvider(started.body.redirectUrl, identity, redirectUri);
}

describe('single sign-on settings', () => {
  it('saves the connection with the secret sealed, never answers the secret, and keeps it when left out', async () => {
    const { domain, owner } = await accountWithSso();
    const read = await owner.client.get('/v1/accounts/sso');
    expect(read.status).toBe(200);
    expect(read.body.redirectUri).toBe(redirectUri);
    expect(read.body.connection).toMatchObject({
      issuer: provider.issuer,
      clientId: provider.clientId,
      hasClientSecret: true,
      domains: [domain],
      requireSso: false,
    });
    expect(JSON.stringify(read.body)).not.toContain(provider.clientSecret);
    const row = await ctx.services.db
      .selectFrom('ssoConnections')
      .select('clientSecret')
      .where('accountId', '=', owner.account.accountId)
      .executeTakeFirstOrThrow();
    expect(row.clientSecret.startsWith('v1.')).toBe(true);
    expect(row.clientSecret).not.toContain(provider.clientSecret);
    const kept = await owner.client.request('PUT', '/v1/accounts/sso', {
      body: {
        issuer: provider.issuer,
        clientId: provider.clientId,
        domains: [domain],
        defaultScopes,
        requireSso: true,
      },
    });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body.connection.requireSso).toBe(true);
    const signIn = await throughProvider(new Client(ctx.app), `someone@${domain}`);
    expect(signIn).toContain('code=');
  });

  it('refuses bad input with a 400 that says why, and changes nothing', async () => {
    const { domain, owner } = await accountWithSso();
    const base = {
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      domains: [newDomain()],
      defaultScopes,
      requireSso: true,
    };
    const cases: [Record<string, unknown>, string][] = [
      [{ domains: [] }, 'Add at least one email domain.'],
      [{ domains: ['not a domain'] }, 'Enter a domain such as example.com.'],
      [{ issuer: 'login' }, 'Enter the issuer as a full URL.'],
      [{ issuer: 'http://10.1.2.3' }, ssoMessages.issuerRefused],
      [{ issuer: 'https://127.0.0.2' }, ssoMessages.issuerRefused],
      [{ issuer: 'http://127.0.0.1:1' }, ssoMessages.issuerUnreachable],
      [{ clientId: '' }, 'Enter the client id.'],
    ];
    for (const [change, message] of cases) {
      const refused = await owner.client.request('PUT', '/v1/accounts/sso', { body: { ...base, ...change } });
      expect(refused.status, JSON.stringify(change)).toBe(400);
      expect(JSON.stringify(refused.body), JSON.stringify(change)).toContain(message);
    }
    const after = await owner.client.get('/v1/accounts/sso');
    expect(after.body.connection).toMatchObject({ domains: [domain], requireSso: false });

    const other = await registerUser(ctx.app);
    const noSecret = await other.client.request('PUT', '/v1/accounts/sso', {
      body: { ...base, clientSecret: undefined },
    });
    expect(noSecret.status).toBe(400);
    expect(noSecret.body.message).toBe(ssoMessages.secretRequired);
    const taken = await other.client.request('PUT', '/v1/accounts/sso', {
      body: { ...base, domains: [domain] },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toContain(ssoMessages.domainTaken);
    expect((await other.client.get('/v1/accounts/sso')).body.connection).toBeNull();
  });

  it('needs account:write, and removing it brings password sign-in back', async () => {
    const { domain, owner } = await accountWithSso({ requireSso: true });
    expect((await new Client(ctx.app).get('/v1/accounts/sso')).status).toBe(401);
    const member = new Client(ctx.app);
    await member.post('/v1/accounts/login/sso/callback', {
      query: await throughProvider(member, `member@${domain}`),
    });
    expect((await member.get('/v1/accounts/sso')).status).toBe(403);
    expect((await member.request('DELETE', '/v1/accounts/sso')).status).toBe(403);
    expect((await owner.client.request('DELETE', '/v1/accounts/sso')).status).toBe(204);
    expect((await owner.client.request('DELETE', '/v1/accounts/sso')).status).toBe(404);
    expect((await owner.client.get('/v1/accounts/sso')).body.connection).toBeNull();
    const start = await new Client(ctx.app).post('/v1/accounts/login/sso', { email: `x@${domain}` });
    expect(start.status).toBe(404);
    expect(start.body.message).toBe(ssoMessages.noDomain);
  });
});

describe('signing in with single sign-on', () => {
  it('sends the browser to the provider with PKCE, state and nonce, and creates a member with the default scopes', async () => {
    const { domain, owner } = await accountWithSso();
    const client = new Client(ctx.app);
    const started = await client.post('/v1/accounts/login/sso', { email: `New.Person@${domain}` });
    const url = new URL(started.body.redirectUrl);
    expect(url.origin).toBe(provider.issuer);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    for (const name of ['code_challenge', 'state', 'nonce']) expect(url.searchParams.get(name)).toBeTruthy();
    expect(url.searchParams.get('redirect_uri')).toBe(redirectUri);
    const query = await signInAtProvider(url.href, `new.person@${domain}`, redirectUri);
    const signedIn = await client.post('/v1/accounts/login/sso/callback', { query });
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    expect(signedIn.body.accountId).toBe(owner.account.accountId);
    expect((await client.get('/v1/heartbeat/authenticated')).body.accountId).toBe(owner.account.accountId);

    const team = await owner.client.get('/v1/team-members');
    const member = team.body.teamMembers.find((m: { email: string }) => m.email === `new.person@${domain}`);
    expect(member).toMatchObject({ name: 'new.person', invitationPending: false });
    expect(member.accountData.isOwner).toBe(false);
    const enabled = (member.accountData.scopes as ScopeState[]).filter((s) => s.enabled).map((s) => s.id);
    expect(enabled.sort()).toEqual(['people:read', 'people:write']);

    const again = new Client(ctx.app);
    const second = await again.post('/v1/accounts/login/sso/callback', {
      query: await throughProvider(again, `new.person@${domain}`),
    });
    expect(second.status).toBe(200);
    const count = (await owner.client.get('/v1/team-members')).body.teamMembers.length;
    expect(count).toBe(2);
  });

  it.each([['wrong-audience'], ['wrong-issuer'], ['wrong-nonce'], ['expired'], ['tampered']] as const)(
    'refuses an ID token with %s, and creates nobody',
    async (mode) => {
      const { domain, owner } = await accountWithSso();
      const client = new Client(ctx.app);
      const query = await throughProvider(client, `victim@${domain}`);
      provider.misbehave(mode);
      try {
        const refused = await client.post('/v1/accounts/login/sso/callback', { query });
        expect(refused.status, JSON.stringify(refused.body)).toBe(401);
        expect(refused.body.message).toBe(ssoMessages.answerRefused);
      } finally {
        provider.misbehave(null);
      }
      expect((await client.get('/v1/heartbeat/authenticated')).status).toBe(401);
      expect((await owner.client.get('/v1/team-members')).body.teamMembers).toHaveLength(1);
    },
  );

  it('refuses a wrong state, a missing or wrong PKCE verifier, and a callback without the attempt cookie', async () => {
    const { domain } = await accountWithSso();
    const wrongState = new Client(ctx.app);
    const query = new URLSearchParams(await throughProvider(wrongState, `a@${domain}`));
    query.set('state', 'not-the-state');
    const refused = await wrongState.post('/v1/accounts/login/sso/callback', { query: `?${query}` });
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe(ssoMessages.answerRefused);

    for (const verifier of [undefined, crypto.randomBytes(32).toString('base64url')]) {
      const client = new Client(ctx.app);
      const answer = await throughProvider(client, `b@${domain}`);
      const attempt = openToken(client.otherCookies.get('herald_sso')!, ctx.services.secret, 'sso')!;
      const { exp: _exp, ...payload } = attempt;
      const forged = sealToken({ ...payload, v: verifier }, ctx.services.secret, 'sso', 600);
      client.otherCookies.set('herald_sso', forged);
      const result = await client.post('/v1/accounts/login/sso/callback', { query: answer });
      // Without a verifier nothing is sent to the provider; with a wrong one the provider refuses the code.
      expect(result.status, String(verifier)).toBe(verifier ? 401 : 400);
      expect(result.body.message).toBe(verifier ? ssoMessages.answerRefused : ssoMessages.attemptExpired);
    }

    const elsewhere = await throughProvider(new Client(ctx.app), `c@${domain}`);
    const noCookie = await new Client(ctx.app).post('/v1/accounts/login/sso/callback', { query: elsewhere });
    expect(noCookie.status).toBe(400);
    expect(noCookie.body.message).toBe(ssoMessages.attemptExpired);
  });

  it("refuses an email outside the account's domains and an unverified email", async () => {
    const { domain, owner } = await accountWithSso();
    const client = new Client(ctx.app);
    const outside = await client.post('/v1/accounts/login/sso/callback', {
      query: await throughProvider(client, `d@${domain}`, 'd@elsewhere.example'),
    });
    expect(outside.status).toBe(403);
    expect(outside.body.message).toBe(ssoMessages.domainNotAllowed);
    const unverified = new Client(ctx.app);
    const answer = await unverified.post('/v1/accounts/login/sso/callback', {
      query: await throughProvider(unverified, `e@${domain}`, 'unverified@unverified.example'),
    });
    expect(answer.status).toBe(401);
    expect(answer.body.message).toBe(ssoMessages.noEmail);
    expect((await owner.client.get('/v1/team-members')).body.teamMembers).toHaveLength(1);
  });

  it('answers 404 for a domain without SSO and 400 for a malformed email, before any redirect', async () => {
    const client = new Client(ctx.app);
    const unknown = await client.post('/v1/accounts/login/sso', { email: `x@${newDomain()}` });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe(ssoMessages.noDomain);
    expect((await client.post('/v1/accounts/login/sso', { email: 'nope' })).status).toBe(400);
    expect((await client.post('/v1/accounts/login/sso/callback', { query: '' })).status).toBe(400);
  });
});

describe('single sign-on and two-factor', () => {
  it("is the whole sign-in: a user with Herald's two-factor on is not asked for a code (the provider's MFA counts)", async () => {
    const { domain, owner } = await accountWithSso();
    const colleague = await registerUser(ctx.app, { email: `mfa@${domain}` });
    await enrol(colleague.client);
    const byPassword = await new Client(ctx.app).post('/v1/accounts/login/', {
      email: colleague.email,
      password: colleague.password,
    });
    expect(byPassword.body).toEqual({ secondFactor: 'code' });
    const client = new Client(ctx.app);
    const signedIn = await client.post('/v1/accounts/login/sso/callback', {
      query: await throughProvider(client, colleague.email),
    });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.accountId).toBe(owner.account.accountId);
  });
});

describe('require single sign-on', () => {
  it("turns password sign-in off for the domain's users with a clear message; the owner keeps it", async () => {
    const { domain, owner } = await accountWithSso({ requireSso: true });
    const colleague = await registerUser(ctx.app, { email: `colleague@${domain}` });
    const refused = await new Client(ctx.app).post('/v1/accounts/login/', {
      email: colleague.email,
      password: colleague.password,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(ssoMessages.ssoRequired);
    expect(refused.body.errorCode).toBe('sso-required');

    const ownerBack = await new Client(ctx.app).post('/v1/accounts/login/', {
      email: owner.email,
      password: owner.password,
    });
    expect(ownerBack.status).toBe(200);
    expect(ownerBack.body.accountId).toBe(owner.account.accountId);

    const viaSso = new Client(ctx.app);
    const signedIn = await viaSso.post('/v1/accounts/login/sso/callback', {
      query: await throughProvider(viaSso, colleague.email),
    });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.accountId).toBe(owner.account.accountId);
  });
});
