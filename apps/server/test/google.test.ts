import http from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { messages } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { codeFor, enrol } from './two-factor-support.ts';

const clientId = 'herald-test.apps.googleusercontent.com';
let ctx: TestContext;
let jwksServer: http.Server;
type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let goodKey: SigningKey;
let otherKey: SigningKey;

/** A key server on loopback standing in for Google's: the verifier fetches keys from it. */
beforeAll(async () => {
  const good = await generateKeyPair('RS256');
  const other = await generateKeyPair('RS256');
  goodKey = good.privateKey;
  otherKey = other.privateKey;
  const jwk: JWK = { ...(await exportJWK(good.publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  jwksServer = http.createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  const port = (jwksServer.address() as { port: number }).port;
  ctx = await createTestContext({
    GOOGLE_CLIENT_ID: clientId,
    GOOGLE_JWKS_URL: `http://127.0.0.1:${port}/certs`,
  });
});
afterAll(async () => {
  await ctx.close();
  await new Promise((r) => jwksServer.close(r));
});

function idToken(
  claims: Record<string, unknown>,
  options: { key?: SigningKey; audience?: string; expiresIn?: string | number; issuer?: string } = {},
) {
  return new SignJWT({ email_verified: true, name: 'Google User', ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
    .setIssuer(options.issuer ?? 'https://accounts.google.com')
    .setAudience(options.audience ?? clientId)
    .setSubject(String(claims.sub ?? `sub-${Math.random()}`))
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '5m')
    .sign(options.key ?? goodKey);
}

describe('Google sign-up and sign-in', () => {
  it('registers with a Google ID token, skipping the password step', async () => {
    const email = uniqueEmail('google');
    const client = new Client(ctx.app);
    const res = await client.post('/v1/accounts/', {
      idToken: await idToken({ email, sub: `s-${email}` }),
      timezone: 'UTC',
    });
    expect(res.status).toBe(201);
    expect(res.body.email).toBe(email);
    expect(res.body.name).toBe('Google User');
    expect(res.body.teamMember.data.createdWithGoogleSignin).toBe(true);
    const again = new Client(ctx.app);
    const login = await again.post('/v1/accounts/login/google', {
      idToken: await idToken({ email, sub: `s-${email}` }),
    });
    expect(login.status).toBe(200);
    expect(login.body.accountId).toBe(res.body.accountId);
  });

  it('lets a password user sign in with Google for the same verified email', async () => {
    const { email, account } = await registerUser(ctx.app);
    const res = await new Client(ctx.app).post('/v1/accounts/login/google', {
      idToken: await idToken({ email, sub: 'linked-sub' }),
    });
    expect(res.status).toBe(200);
    expect(res.body.accountId).toBe(account.accountId);
  });

  it('does not bypass two-factor: a user with it on gives a code after Google too', async () => {
    const { client, email } = await registerUser(ctx.app);
    const { secret } = await enrol(client);
    const browser = new Client(ctx.app);
    const res = await browser.post('/v1/accounts/login/google', {
      idToken: await idToken({ email, sub: `two-factor-${email}` }),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ secondFactor: 'code' });
    expect(browser.cookie).toBeUndefined();
    expect((await browser.post('/v1/accounts/login/two-factor', { code: codeFor(secret, 1) })).status).toBe(
      200,
    );
    expect((await browser.get('/v1/heartbeat/authenticated')).status).toBe(200);
  });

  it.each<[string, { key?: string; audience?: string; expiresIn?: number; issuer?: string }]>([
    ['a wrong signature', { key: 'other' }],
    ['a wrong audience', { audience: 'someone-else.apps.googleusercontent.com' }],
    ['an expired token', { expiresIn: Math.floor(Date.now() / 1000) - 60 }],
    ['a wrong issuer', { issuer: 'https://evil.example' }],
  ])('refuses %s', async (_label, opts) => {
    const { email } = await registerUser(ctx.app);
    const token = await idToken({ email }, {
      ...opts,
      key: opts.key === 'other' ? otherKey : goodKey,
    } as never);
    const login = await new Client(ctx.app).post('/v1/accounts/login/google', { idToken: token });
    expect(login.status).toBe(401);
    expect(login.body.message).toBe(messages.googleTokenInvalid);
    const signup = await new Client(ctx.app).post('/v1/accounts/', {
      idToken: await idToken({ email: uniqueEmail() }, {
        ...opts,
        key: opts.key === 'other' ? otherKey : goodKey,
      } as never),
    });
    expect(signup.status).toBe(401);
  });

  it('refuses an unverified email and garbage', async () => {
    const unverified = await idToken({ email: uniqueEmail(), email_verified: false });
    expect((await new Client(ctx.app).post('/v1/accounts/', { idToken: unverified })).status).toBe(401);
    expect(
      (await new Client(ctx.app).post('/v1/accounts/login/google', { idToken: 'not.a.jwt' })).status,
    ).toBe(401);
  });

  it('answers 404 for a Google user with no account', async () => {
    const res = await new Client(ctx.app).post('/v1/accounts/login/google', {
      idToken: await idToken({ email: uniqueEmail() }),
    });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(messages.googleNoAccount);
  });

  it('a Google sign-up for a registered email is a conflict', async () => {
    const { email } = await registerUser(ctx.app);
    const res = await new Client(ctx.app).post('/v1/accounts/', { idToken: await idToken({ email }) });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(messages.emailAlreadyRegistered);
  });

  it('is refused clearly when no client id is configured', async () => {
    const plain = await createTestContext();
    try {
      const res = await new Client(plain.app).post('/v1/accounts/login/google', { idToken: 'a.b.c' });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(messages.googleNotConfigured);
      expect((await new Client(plain.app).get('/v1/config')).body.googleClientId).toBeNull();
    } finally {
      await plain.close();
    }
    expect((await new Client(ctx.app).get('/v1/config')).body.googleClientId).toBe(clientId);
  });
});
