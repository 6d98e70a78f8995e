import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import Provider from 'oidc-provider';

/**
 * A real OpenID Connect provider (oidc-provider 8.8.1) in the test process, on 127.0.0.1 (which the server under test
 * trusts through OUTGOING_TRUSTED_ADDRESSES): one confidential client that must use PKCE (S256), test accounts by
 * email, and a one-field sign-in form at /interaction/:uid. `misbehave` makes its token endpoint answer an ID token
 * that is wrong in one way (re-signed with the provider's own key, or changed without signing), as a broken or hostile
 * provider would: that is what the relying party's checks are for.
 */

export type Misbehaviour = 'wrong-audience' | 'wrong-issuer' | 'wrong-nonce' | 'expired' | 'tampered';

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  misbehave(mode: Misbehaviour | null): void;
  close(): Promise<void>;
}

export interface TestIdentity {
  email: string;
  name: string;
  emailVerified?: boolean;
}

function page(uid: string, hint: string) {
  const safe = hint.replace(/[^a-z0-9@.+_-]/gi, '');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test identity provider</title></head>
<body style="font-family:sans-serif;max-width:24rem;margin:4rem auto">
<h1>Test identity provider</h1>
<form method="post" action="/interaction/${uid}">
<label for="email">Email</label><br>
<input id="email" name="email" type="email" value="${safe}" required style="width:100%"><br><br>
<button type="submit">Sign in to the test provider</button>
</form></body></html>`;
}

async function formOf(request: http.IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export async function startTestProvider(options: {
  redirectUris: string[];
  identities?: TestIdentity[];
}): Promise<TestProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = `herald-${crypto.randomBytes(4).toString('hex')}`;
  const clientSecret = crypto.randomBytes(24).toString('base64url');
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const identities = new Map<string, TestIdentity>();
  for (const identity of options.identities ?? []) identities.set(identity.email.toLowerCase(), identity);
  let mode: Misbehaviour | null = null;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [jwk as never] },
    cookies: { keys: [crypto.randomBytes(16).toString('hex')] },
    pkce: { required: () => true, methods: ['S256'] },
    features: { devInteractions: { enabled: false } },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx, id) {
      const identity = identities.get(id) ?? { email: id, name: id.split('@')[0]! };
      return {
        accountId: id,
        claims: async () => ({
          sub: id,
          email: identity.email,
          email_verified: identity.emailVerified ?? true,
          name: identity.name,
        }),
      };
    },
  });

  provider.use(async (ctx, next) => {
    const match = /^\/interaction\/([\w-]+)$/.exec(ctx.path);
    if (!match) {
      await next();
      if (ctx.path === '/token' && mode && ctx.status === 200) ctx.body = await misbehaved(ctx.body);
      return;
    }
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    if (ctx.method === 'GET') {
      ctx.type = 'html';
      ctx.body = page(details.uid, String(details.params.login_hint ?? ''));
      return;
    }
    const email = ((await formOf(ctx.req)).get('email') ?? '').trim().toLowerCase();
    const grant = new provider.Grant({ accountId: email, clientId: String(details.params.client_id) });
    grant.addOIDCScope('openid email profile');
    const grantId = await grant.save();
    const to = await provider.interactionResult(
      ctx.req,
      ctx.res,
      { login: { accountId: email }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
    ctx.status = 303;
    ctx.redirect(to);
  });

  /** The token answer with its ID token made wrong in the chosen way. */
  async function misbehaved(body: unknown) {
    const answer = body as { id_token?: string };
    if (!answer.id_token) return body;
    const claims = decodeJwt(answer.id_token);
    const now = Math.floor(Date.now() / 1000);
    if (mode === 'tampered') {
      const [header, , signature] = answer.id_token.split('.');
      const changed = Buffer.from(JSON.stringify({ ...claims, name: 'Mallory' })).toString('base64url');
      return { ...answer, id_token: `${header}.${changed}.${signature}` };
    }
    const changes: Record<string, unknown> = {
      'wrong-audience': { aud: 'another-client' },
      'wrong-issuer': { iss: 'https://impostor.example' },
      'wrong-nonce': { nonce: 'not-the-nonce-herald-sent' },
      expired: { iat: now - 7200, exp: now - 3600 },
    }[mode!] as Record<string, unknown>;
    const idToken = await new SignJWT({ ...claims, ...changes })
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key', typ: 'JWT' })
      .sign(privateKey);
    return { ...answer, id_token: idToken };
  }

  server.on('request', provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    misbehave(next) {
      mode = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A browser's trip through the provider without a browser: follow the sign-in address's redirects with the provider's
 * cookies, submit the sign-in form as `email`, and answer the query string the provider sends back to `redirectUri`.
 */
export async function signInAtProvider(authorizationUrl: string, email: string, redirectUri: string) {
  const jar = new Map<string, string>();
  const cookieHeader = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  const keep = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(pair.indexOf('=') + 1);
      if (value) jar.set(name, value);
      else jar.delete(name);
    }
  };
  let url = authorizationUrl;
  for (let hops = 0; hops < 10; hops += 1) {
    if (url.startsWith(redirectUri)) return new URL(url).search;
    const isForm = /\/interaction\/[\w-]+$/.test(new URL(url).pathname);
    const response = await fetch(url, {
      method: isForm ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: cookieHeader(),
        ...(isForm ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(isForm ? { body: new URLSearchParams({ email }).toString() } : {}),
    });
    keep(response);
    const location = response.headers.get('location');
    if (!location) throw new Error(`the provider answered ${response.status}: ${await response.text()}`);
    url = new URL(location, url).href;
  }
  throw new Error('the provider kept redirecting');
}
