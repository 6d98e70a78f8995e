import crypto from 'node:crypto';
import http from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCodes, codeHashOf } from '../src/features/marketplace/marketplace-codes.service.ts';
import { Client, createTestContext, uniqueEmail, type TestContext } from './helpers.ts';

const clientId = 'herald-market.apps.googleusercontent.com';
let ctx: TestContext;
let jwksServer: http.Server;
let signingKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

/** Google's key server stood in for on loopback, as in google.test.ts. */
beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  signingKey = pair.privateKey;
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'market-key', alg: 'RS256', use: 'sig' };
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
  await new Promise((resolve) => jwksServer.close(resolve));
});

function idToken(email: string, audience = clientId) {
  return new SignJWT({ email, email_verified: true, name: 'Deal Buyer' })
    .setProtectedHeader({ alg: 'RS256', kid: 'market-key' })
    .setIssuer('https://accounts.google.com')
    .setAudience(audience)
    .setSubject(`sub-${email}`)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(signingKey);
}

async function newCode(): Promise<string> {
  const code = `G-${crypto.randomBytes(6).toString('hex')}`;
  await addCodes(ctx.services.db, [{ code, peopleUpperLimit: 2000 }]);
  return code;
}

const redeemedAt = async (code: string) =>
  (
    await ctx.services.db
      .selectFrom('marketplaceCodes')
      .select('redeemedAt')
      .where('codeHash', '=', codeHashOf(code))
      .executeTakeFirstOrThrow()
  ).redeemedAt;

describe('POST /v1/marketplace/redeem with a Google sign-up', () => {
  it('registers the Google user with the code; the wizard then skips the password step', async () => {
    const code = await newCode();
    const email = uniqueEmail('google-deal');
    const res = await new Client(ctx.app).post('/v1/marketplace/redeem', {
      code,
      idToken: await idToken(email),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accountCreated: true, plan: { peopleUpperLimit: 2000 } });
    expect(res.body.account).toMatchObject({ email, name: 'Deal Buyer', status: 'active' });
    expect(res.body.account.teamMember.data.createdWithGoogleSignin).toBe(true);
    expect(await redeemedAt(code)).toBeInstanceOf(Date);
  });

  it('a token Google did not sign for this server: refused, no account, the code stays free', async () => {
    const code = await newCode();
    const email = uniqueEmail('google-wrong');
    const res = await new Client(ctx.app).post('/v1/marketplace/redeem', {
      code,
      idToken: await idToken(email, 'someone-else.apps.googleusercontent.com'),
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.cookie).toBeUndefined();
    expect(await redeemedAt(code)).toBeNull();
    const users = await ctx.services.db.selectFrom('users').select('id').where('email', '=', email).execute();
    expect(users).toEqual([]);
  });
});
