import { sql } from 'kysely';
import { messages, sessionMessages } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeUserAgent } from '../src/lib/user-agent.ts';
import { Client, createTestContext, registerUser, type TestContext } from './helpers.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const firefox = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
const safari =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

async function signIn(email: string, password: string, userAgent?: string) {
  const client = new Client(ctx.app);
  const res = await client.post(
    '/v1/accounts/login/',
    { email, password },
    userAgent ? { headers: { 'user-agent': userAgent } } : {},
  );
  expect(res.status).toBe(200);
  return client;
}

describe('the profile lists the signed-in sessions', () => {
  it('with browser, address, start and last activity; the current one marked; no token given out', async () => {
    const { client, email, password } = await registerUser(ctx.app);
    const other = await signIn(email, password, firefox);
    const res = await client.get('/v1/profile/sessions');
    expect(res.status).toBe(200);
    expect(res.body.sessions).toHaveLength(2);
    const current = res.body.sessions.find((s: { isCurrent: boolean }) => s.isCurrent);
    const second = res.body.sessions.find((s: { isCurrent: boolean }) => !s.isCurrent);
    expect(second).toMatchObject({ browser: 'Firefox on Windows', ip: other.remoteAddress });
    expect(current.ip).toBe(client.remoteAddress);
    expect(second.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(second.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(Date.parse(second.lastSeenAt)).toBeGreaterThan(Date.now() - 60_000);
    const cookieToken = other.cookie!.split('=')[1]!;
    expect(JSON.stringify(res.body)).not.toContain(cookieToken);
  });

  it("shows only the user's own sessions, and API keys may not read or end them", async () => {
    const first = await registerUser(ctx.app);
    const second = await registerUser(ctx.app);
    const mine = (await first.client.get('/v1/profile/sessions')).body.sessions;
    const theirs = (await second.client.get('/v1/profile/sessions')).body.sessions;
    expect(mine).toHaveLength(1);
    expect((await first.client.request('DELETE', `/v1/profile/sessions/${theirs[0].id}`)).status).toBe(404);
    expect((await second.client.get('/v1/heartbeat/authenticated')).status).toBe(200);
    const key = (await first.client.post('/v1/accounts/rotate-api-key')).body.apiKey as string;
    const byKey = await new Client(ctx.app).get('/v1/profile/sessions', {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(byKey.status).toBe(403);
    expect(byKey.body.message).toBe(sessionMessages.apiKeyRefused);
  });
});

describe('signing sessions out', () => {
  it('ends one other session; the current one is refused; an unknown or malformed id changes nothing', async () => {
    const { client, email, password } = await registerUser(ctx.app);
    const other = await signIn(email, password);
    const third = await signIn(email, password);
    const sessions = (await client.get('/v1/profile/sessions')).body.sessions as {
      id: string;
      isCurrent: boolean;
      ip: string;
    }[];
    const target = sessions.find((s) => s.ip === other.remoteAddress)!;
    const current = sessions.find((s) => s.isCurrent)!;

    const self = await client.request('DELETE', `/v1/profile/sessions/${current.id}`);
    expect(self.status).toBe(400);
    expect(self.body.message).toBe(sessionMessages.isCurrent);
    const unknown = await client.request(
      'DELETE',
      '/v1/profile/sessions/00000000-0000-4000-8000-000000000000',
    );
    expect(unknown.status).toBe(404);
    expect((await client.request('DELETE', '/v1/profile/sessions/not-a-uuid')).status).toBe(400);
    expect((await client.get('/v1/profile/sessions')).body.sessions).toHaveLength(3);

    expect((await client.request('DELETE', `/v1/profile/sessions/${target.id}`)).status).toBe(204);
    expect((await other.get('/v1/heartbeat/authenticated')).status).toBe(401);
    expect((await third.get('/v1/heartbeat/authenticated')).status).toBe(200);
    expect((await client.get('/v1/heartbeat/authenticated')).status).toBe(200);
    const again = await client.request('DELETE', `/v1/profile/sessions/${target.id}`);
    expect(again.status).toBe(404);
    expect(again.body.message).toBe(sessionMessages.notFound);
  });

  it('ends every other session at once', async () => {
    const { client, email, password } = await registerUser(ctx.app);
    const others = [await signIn(email, password), await signIn(email, password)];
    const res = await client.post('/v1/profile/sessions/sign-out-others');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ended: 2 });
    for (const other of others) expect((await other.get('/v1/heartbeat/authenticated')).status).toBe(401);
    expect((await client.get('/v1/profile/sessions')).body.sessions).toHaveLength(1);
  });

  it('needs a session: without one, 401', async () => {
    expect((await new Client(ctx.app).post('/v1/profile/sessions/sign-out-others')).status).toBe(401);
  });
});

describe('changing the password', () => {
  it('needs the current password and a strong new one; the other sessions end', async () => {
    const { client, email, password } = await registerUser(ctx.app);
    const other = await signIn(email, password);
    const wrong = await client.post('/v1/profile/password', {
      currentPassword: 'not my password',
      newPassword: 'Ox-lantern 47 rivers',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe(sessionMessages.wrongCurrentPassword);
    const weak = await client.post('/v1/profile/password', {
      currentPassword: password,
      newPassword: 'password1',
    });
    expect(weak.status).toBe(400);
    expect(weak.body.message).toBe(messages.passwordCommon);
    const short = await client.post('/v1/profile/password', {
      currentPassword: password,
      newPassword: 'short',
    });
    expect(short.body.message).toBe(messages.passwordTooShort);
    expect((await client.post('/v1/profile/password', { newPassword: 'Ox-lantern 47 rivers' })).status).toBe(
      400,
    );
    // Nothing changed so far.
    expect((await other.get('/v1/heartbeat/authenticated')).status).toBe(200);

    const done = await client.post('/v1/profile/password', {
      currentPassword: password,
      newPassword: 'Ox-lantern 47 rivers',
    });
    expect(done.status).toBe(204);
    expect((await other.get('/v1/heartbeat/authenticated')).status).toBe(401);
    expect((await client.get('/v1/heartbeat/authenticated')).status).toBe(200);
    expect((await new Client(ctx.app).post('/v1/accounts/login/', { email, password })).status).toBe(401);
    await signIn(email, 'Ox-lantern 47 rivers');
  });

  it('limits attempts: the 11th in 15 minutes is a 429', async () => {
    const { client } = await registerUser(ctx.app);
    for (let i = 0; i < 10; i += 1)
      await client.post('/v1/profile/password', {
        currentPassword: 'guess',
        newPassword: 'Ox-lantern 47 rivers',
      });
    const limited = await client.post('/v1/profile/password', {
      currentPassword: 'guess',
      newPassword: 'Ox-lantern 47 rivers',
    });
    expect(limited.status).toBe(429);
  });
});

describe("a team admin ends a member's sessions", () => {
  it("in this account, with team:write; not one's own, not an owner's unless an owner", async () => {
    const owner = await registerUser(ctx.app);
    const member = await registerUser(ctx.app);
    const invited = await owner.client.post('/v1/team-members', { name: 'Member', email: member.email });
    const memberId = invited.body.teamMember.id as number;
    // The member works in the owner's account on one device, in their own on another.
    const inOwners = await signIn(member.email, member.password);
    await inOwners.post(`/v1/accounts/${owner.account.accountId}/switch`);
    expect((await inOwners.get('/v1/heartbeat/authenticated')).body.accountId).toBe(owner.account.accountId);

    const refused = await inOwners.post(`/v1/team-members/${owner.account.teamMemberId}/sign-out`);
    expect(refused.status).toBe(403);
    // An admin who is not an owner cannot end an owner's sessions.
    await owner.client.patch(`/v1/team-members/${memberId}`, {
      scopes: [{ id: 'team:write', enabled: true }],
    });
    const notOwner = await inOwners.post(`/v1/team-members/${owner.account.teamMemberId}/sign-out`);
    expect(notOwner.status).toBe(403);
    expect(notOwner.body.message).toBe(sessionMessages.ownerNeedsOwner);
    expect((await owner.client.get('/v1/heartbeat/authenticated')).status).toBe(200);
    const self = await owner.client.post(`/v1/team-members/${owner.account.teamMemberId}/sign-out`);
    expect(self.status).toBe(400);
    expect(self.body.message).toBe(sessionMessages.notYourself);
    expect((await owner.client.post('/v1/team-members/999999999/sign-out')).status).toBe(404);

    expect((await owner.client.post(`/v1/team-members/${memberId}/sign-out`)).status).toBe(204);
    expect((await inOwners.get('/v1/heartbeat/authenticated')).status).toBe(401);
    // Their session in their own account is not this account's to end.
    expect((await member.client.get('/v1/heartbeat/authenticated')).status).toBe(200);
  });
});

describe('API keys show when they were last used', () => {
  it('never, then at the last call; a new key starts again at never', async () => {
    const { client } = await registerUser(ctx.app);
    expect((await client.get('/v1/accounts/api-key')).body).toEqual({ hint: null, lastUsedAt: null });
    const key = (await client.post('/v1/accounts/rotate-api-key')).body.apiKey as string;
    expect((await client.get('/v1/accounts/api-key')).body).toEqual({
      hint: key.slice(-4),
      lastUsedAt: null,
    });
    expect(
      (await new Client(ctx.app).get('/v1/accounts', { headers: { authorization: `Bearer ${key}` } })).status,
    ).toBe(200);
    const used = (await client.get('/v1/accounts/api-key')).body.lastUsedAt as string;
    expect(Date.parse(used)).toBeGreaterThan(Date.now() - 60_000);
    // At most once a minute: a call within the minute leaves the time alone, a call after it moves it.
    const byKey = () =>
      new Client(ctx.app).get('/v1/accounts', { headers: { authorization: `Bearer ${key}` } });
    const setUse = (at: string) =>
      sql`update accounts set api_key_last_used_at = ${at}::timestamptz where api_key_hint = ${key.slice(-4)}`.execute(
        ctx.services.db,
      );
    const lastUse = async () => (await client.get('/v1/accounts/api-key')).body.lastUsedAt as string;
    const recent = new Date(Date.now() - 30_000).toISOString();
    await setUse(recent);
    expect((await byKey()).status).toBe(200);
    expect(await lastUse()).toBe(recent);
    await setUse(new Date(Date.now() - 120_000).toISOString());
    expect((await byKey()).status).toBe(200);
    expect(Date.parse(await lastUse())).toBeGreaterThan(Date.now() - 60_000);
    // A wrong key records nothing.
    await new Client(ctx.app).get('/v1/accounts', { headers: { authorization: 'Bearer hk_wrong' } });
    await client.post('/v1/accounts/rotate-api-key');
    expect((await client.get('/v1/accounts/api-key')).body.lastUsedAt).toBeNull();
  });
});

describe('describeUserAgent', () => {
  it.each([
    [firefox, 'Firefox on Windows'],
    [safari, 'Safari on iOS'],
    [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
      'Chrome on Linux',
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0',
      'Edge on macOS',
    ],
    ['curl/8.5.0', 'curl'],
    [null, 'Unknown browser'],
  ])('%s is %s', (userAgent, expected) => expect(describeUserAgent(userAgent)).toBe(expected));
});
