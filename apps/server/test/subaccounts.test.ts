import { teamMessages } from '@herald/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  runAccountDeletion,
  backgroundDeleteThreshold,
} from '../src/features/accounts/account-admin.service.ts';
import { Client, createTestContext, registerUser, type TestContext } from './helpers.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe('sub-accounts and switching', () => {
  it('creates a sub-account, switches to it (data separate) and back, then deletes it', async () => {
    const { client, account } = await registerUser(ctx.app);
    const created = await client.post('/v1/team-members/accounts', {
      name: 'Client Co',
      site: 'client.example.com',
      industry: 'Agency',
      timezone: 'Asia/Tokyo',
    });
    expect(created.status).toBe(201);
    const sub = created.body.subaccount;
    expect(sub).toMatchObject({
      name: 'Client Co',
      isOwner: true,
      parentAccountId: account.accountId,
      isCurrent: false,
    });

    const list = await client.get('/v1/team-members/accounts');
    expect(list.body.accounts.map((a: { id: number }) => a.id)).toEqual([account.accountId, sub.id]);

    const switched = await client.post(`/v1/accounts/${sub.id}/switch`);
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({ accountId: sub.id, name: 'Client Co', timezone: 'Asia/Tokyo' });
    await client.patch('/v1/accounts/me', { mailingAddress: 'Sub street 1' });
    expect((await client.get('/v1/accounts')).body.accountId).toBe(sub.id);
    expect((await client.get('/v1/team-members')).body.teamMembers).toHaveLength(1);
    expect((await client.request('DELETE', `/v1/accounts/${sub.id}`)).body.message).toBe(
      teamMessages.cannotDeleteCurrent,
    );

    const back = await client.post(`/v1/accounts/${account.accountId}/switch`);
    expect(back.body.accountId).toBe(account.accountId);
    expect(back.body.mailingAddress).toBeNull();

    const deleted = await client.request('DELETE', `/v1/accounts/${sub.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.result).toBe('deleted');
    expect((await client.get('/v1/team-members/accounts')).body.accounts).toHaveLength(1);
    expect((await client.post(`/v1/accounts/${sub.id}/switch`)).status).toBe(404);
  });

  it('refuses to switch to an account the user is not a member of', async () => {
    const a = await registerUser(ctx.app);
    const b = await registerUser(ctx.app);
    const res = await b.client.post(`/v1/accounts/${a.account.accountId}/switch`);
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(teamMessages.notMemberOfAccount);
    expect((await b.client.get('/v1/accounts')).body.accountId).toBe(b.account.accountId);
    expect((await b.client.request('DELETE', `/v1/accounts/${a.account.accountId}`)).status).toBe(404);
    expect((await a.client.get('/v1/accounts')).status).toBe(200);
  });

  it('needs subaccounts:write to create, and ownership to delete', async () => {
    const owner = await registerUser(ctx.app);
    const member = await registerUser(ctx.app);
    await owner.client.post('/v1/team-members', { name: 'M', email: member.email });
    await member.client.post(`/v1/accounts/${owner.account.accountId}/switch`);
    expect((await member.client.post('/v1/team-members/accounts', { name: 'Nope' })).status).toBe(403);
    await member.client.post(`/v1/accounts/${member.account.accountId}/switch`);
    const res = await member.client.request('DELETE', `/v1/accounts/${owner.account.accountId}`);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(teamMessages.onlyOwnersDelete);
  });

  it('refuses bad input', async () => {
    const { client } = await registerUser(ctx.app);
    expect((await client.post('/v1/team-members/accounts', {})).status).toBe(400);
    expect(
      (await client.post('/v1/team-members/accounts', { name: 'X', site: 'not a site' })).body.message,
    ).toBe('Double-check your site.');
    expect(
      (await client.post('/v1/team-members/accounts', { name: 'X', timezone: 'Nowhere/City' })).status,
    ).toBe(400);
    expect((await client.post('/v1/accounts/abc/switch')).status).toBe(400);
    expect((await client.post('/v1/accounts/-5/switch')).status).toBe(400);
  });

  it('deletes a large account in the background: in progress at once, gone after the job', async () => {
    const { client } = await registerUser(ctx.app);
    const sub = (await client.post('/v1/team-members/accounts', { name: 'Big' })).body.subaccount;
    await sql`insert into mail_deliveries (idempotency_key, account_id, to_address, from_address, subject, text_body, message_id)
      select 'big-' || ${sub.id} || '-' || g, ${sub.id}, 'x@example.com', 'y@example.com', 's', 't', 'm' || g
      from generate_series(1, ${backgroundDeleteThreshold}) g`.execute(ctx.services.db);
    const res = await client.request('DELETE', `/v1/accounts/${sub.id}`);
    expect(res.body).toEqual({ result: 'in-progress', message: teamMessages.accountDeleteInProgress });
    expect(
      (await client.get('/v1/team-members/accounts')).body.accounts.map((a: { id: number }) => a.id),
    ).not.toContain(sub.id);
    await runAccountDeletion(ctx.services.events, ctx.services.db, sub.id);
    expect(
      await ctx.services.db.selectFrom('accounts').select('id').where('id', '=', sub.id).executeTakeFirst(),
    ).toBeUndefined();
    const left = await ctx.services.db
      .selectFrom('mailDeliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('accountId', '=', sub.id)
      .executeTakeFirstOrThrow();
    expect(Number(left.n)).toBe(0);
  });
});

describe('API keys', () => {
  it('a rotated key authenticates as the owner; the old key stops working', async () => {
    const { client, account } = await registerUser(ctx.app);
    const first = await client.post('/v1/accounts/rotate-api-key');
    expect(first.status).toBe(200);
    expect(first.body.apiKey).toMatch(/^hk_/);
    const viaKey = new Client(ctx.app);
    const res = await viaKey.get('/v1/accounts', {
      headers: { authorization: `Bearer ${first.body.apiKey}` },
      origin: null,
    });
    expect(res.status).toBe(200);
    expect(res.body.accountId).toBe(account.accountId);
    // A key needs no Origin for writes: it is not a cookie a browser sends by itself.
    const write = await viaKey.patch(
      '/v1/accounts/me',
      { mailingAddress: 'Key street' },
      { headers: { authorization: `Bearer ${first.body.apiKey}` }, origin: null },
    );
    expect(write.status).toBe(200);
    const second = await client.post('/v1/accounts/rotate-api-key');
    expect(
      (await viaKey.get('/v1/accounts', { headers: { authorization: `Bearer ${first.body.apiKey}` } }))
        .status,
    ).toBe(401);
    expect(
      (await viaKey.get('/v1/accounts', { headers: { authorization: `Bearer ${second.body.apiKey}` } }))
        .status,
    ).toBe(200);
    expect(
      (await viaKey.get('/v1/accounts', { headers: { authorization: 'Bearer hk_not-a-key' } })).body.message,
    ).toBe('Invalid API key.');
    const stored = await ctx.services.db
      .selectFrom('accounts')
      .select('apiKeyHash')
      .where('id', '=', account.accountId)
      .executeTakeFirstOrThrow();
    expect(stored.apiKeyHash).not.toContain(second.body.apiKey);
  });
});

describe('account issues', () => {
  it('lists open issues of the account only', async () => {
    const { client, account } = await registerUser(ctx.app);
    expect((await client.get('/v1/accounts/issues')).body).toEqual({ issues: [] });
    await ctx.services.db
      .insertInto('accountIssues')
      .values({ accountId: account.accountId, kind: 'sending-paused', message: 'Unusual activity' })
      .execute();
    const res = await client.get('/v1/accounts/issues');
    expect(res.body.issues).toHaveLength(1);
    expect(res.body.issues[0]).toMatchObject({ kind: 'sending-paused', message: 'Unusual activity' });
    const other = await registerUser(ctx.app);
    expect((await other.client.get('/v1/accounts/issues')).body.issues).toHaveLength(0);
  });
});

describe('logo upload', () => {
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

  it('uploads to the signed URL without cookies, serves it inertly, and saves it as the logo', async () => {
    const { client } = await registerUser(ctx.app);
    const upload = await client.post('/v1/accounts/logo', { contentType: 'image/png' });
    expect(upload.status).toBe(200);
    expect(upload.body.url).toContain('/v1/uploads/logos/');
    const path = new URL(upload.body.url).pathname + new URL(upload.body.url).search;
    const put = await ctx.app.inject({
      method: 'PUT',
      url: path,
      headers: { 'content-type': 'image/png' },
      payload: png,
    });
    expect(put.statusCode).toBe(204);
    const served = await ctx.app.inject({ method: 'GET', url: new URL(upload.body.publicUrl).pathname });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.rawPayload.equals(png)).toBe(true);
    const saved = await client.patch('/v1/accounts/me', { logo: upload.body.publicUrl });
    expect(saved.body.logo).toBe(upload.body.publicUrl);
  });

  it('refuses a wrong type, a tampered or expired link, too large a file, and a foreign logo URL', async () => {
    const { client } = await registerUser(ctx.app);
    expect((await client.post('/v1/accounts/logo', { contentType: 'image/svg+xml' })).status).toBe(400);
    const upload = await client.post('/v1/accounts/logo', { contentType: 'image/png' });
    const url = new URL(upload.body.url);
    const put = (path: string, type: string, payload: Buffer) =>
      ctx.app.inject({ method: 'PUT', url: path, headers: { 'content-type': type }, payload });
    expect((await put(url.pathname + url.search, 'image/jpeg', png)).statusCode).toBe(403);
    const tampered = new URL(url);
    tampered.searchParams.set('max', '99999999');
    expect((await put(tampered.pathname + tampered.search, 'image/png', png)).statusCode).toBe(403);
    const expired = new URL(url);
    expired.searchParams.set('expires', '1000');
    expect((await put(expired.pathname + expired.search, 'image/png', png)).statusCode).toBe(403);
    expect(
      (await put(url.pathname + url.search, 'image/png', Buffer.alloc(1024 * 1024 + 1))).statusCode,
    ).toBe(400);
    expect(
      (await client.patch('/v1/accounts/me', { logo: 'https://tracker.example/pixel.png' })).status,
    ).toBe(400);
    expect(
      (await ctx.app.inject({ method: 'GET', url: '/files/logos/..%2F..%2Fsession-secret' })).statusCode,
    ).toBe(404);
  });
});
