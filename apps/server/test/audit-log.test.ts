import { auditLogMessages, scopeIds, type ScopeId } from '@herald/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { runPruneAuditLog } from '../src/features/audit-log/audit-log.jobs.ts';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { queuedLinkToken } from './two-factor-support.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ LOG_LEVEL: 'error' });
});
afterAll(() => ctx.close());

type Owner = Awaited<ReturnType<typeof registerUser>>;

async function addMember(owner: Owner, enabled: ScopeId[]) {
  const email = uniqueEmail('member');
  const scopes = scopeIds.map((id) => ({ id, enabled: enabled.includes(id) }));
  const invited = await owner.client.post('/v1/team-members', { name: 'Member', email, scopes });
  if (invited.status !== 201) throw new Error(`invite failed: ${JSON.stringify(invited.body)}`);
  const member = new Client(ctx.app);
  const token = await queuedLinkToken(ctx, email, 'accept-invite');
  const accepted = await member.post('/v1/team-members/invitations/accept', {
    token,
    password: 'member password 1',
  });
  if (accepted.status !== 200) throw new Error(`accept failed: ${JSON.stringify(accepted.body)}`);
  return { client: member, email };
}

describe('GET /v1/audit-log', () => {
  it('shows a change with who, when, where from, what and before → after', async () => {
    const owner = await registerUser(ctx.app);
    expect(
      (await owner.client.request('PUT', '/v1/audit-log/retention', { body: { months: 12 } })).status,
    ).toBe(204);
    const res = await owner.client.get('/v1/audit-log?resourceType=account-settings');
    expect(res.status).toBe(200);
    const entry = res.body.entries[0];
    expect(entry).toMatchObject({
      actor: { kind: 'member', label: owner.email },
      ip: owner.client.remoteAddress,
      action: 'PUT /v1/audit-log/retention',
      resourceType: 'account-settings',
      resourceId: String(owner.account.accountId),
      changes: { auditLogRetentionMonths: { before: 24, after: 12 } },
    });
    expect(Date.now() - Date.parse(entry.at)).toBeLessThan(60_000);
    expect((await owner.client.get('/v1/audit-log/facets')).body.retentionMonths).toBe(12);
  });

  it("shows before → after of account settings and of a member's scopes", async () => {
    const owner = await registerUser(ctx.app);
    await owner.client.patch('/v1/accounts/me', { name: 'Old name' });
    await owner.client.patch('/v1/accounts/me', { name: 'New name' });
    const settings = await owner.client.get('/v1/audit-log?resourceType=account-settings&limit=1');
    expect(settings.body.entries[0]).toMatchObject({
      action: 'PATCH /v1/accounts/me',
      changes: { name: { before: 'Old name', after: 'New name' } },
    });
    const member = await addMember(owner, ['people:read']);
    const team = (await owner.client.get('/v1/team-members')).body.teamMembers;
    const id = team.find((m: { email: string }) => m.email === member.email).id as number;
    const scopes = scopeIds.map((s) => ({ id: s, enabled: s === 'people:read' || s === 'team:read' }));
    expect((await owner.client.patch(`/v1/team-members/${id}`, { scopes })).status).toBe(200);
    const entry = (await owner.client.get('/v1/audit-log?resourceType=team-members&limit=1')).body.entries[0];
    expect(entry).toMatchObject({ action: 'PATCH /v1/team-members/:id', resourceId: String(id) });
    expect(entry.changes.scopes.before).toBeDefined();
    expect(JSON.stringify(entry.changes.scopes.after)).toContain('team:read');
  });

  it('shows a segment renamed, and writes nothing for a count asked with POST', async () => {
    const owner = await registerUser(ctx.app);
    const conditions = [{ type: 'tag', operator: 'has', tag: 'customer' }];
    const created = await owner.client.post('/v1/segments/', {
      name: 'Customers',
      color: '#228be6',
      conditions,
    });
    expect(created.status).toBe(201);
    const id = (created.body.segment?.id ?? created.body.id) as number;
    expect((await owner.client.patch(`/v1/segments/${id}`, { id, name: 'Buyers' })).status).toBe(200);
    expect((await owner.client.post('/v1/segments/preview', { conditions })).status).toBe(200);
    const entries = (await owner.client.get('/v1/audit-log?resourceType=segments')).body.entries;
    expect(entries.map((e: { action: string }) => e.action)).toEqual([
      'PATCH /v1/segments/:id',
      'POST /v1/segments/',
    ]);
    expect(entries[0]).toMatchObject({
      resourceId: String(id),
      changes: { name: { before: 'Customers', after: 'Buyers' } },
    });
  });

  it('shows what a deletion removed, and before → after of a new API key and a domain check', async () => {
    const owner = await registerUser(ctx.app);
    const first = (await owner.client.post('/v1/accounts/rotate-api-key')).body.hint as string;
    const second = (await owner.client.post('/v1/accounts/rotate-api-key')).body.hint as string;
    const latest = async (resourceType: string) =>
      (await owner.client.get(`/v1/audit-log?resourceType=${resourceType}&limit=1`)).body.entries[0];
    expect((await latest('api-key')).changes).toEqual({ hint: { before: first, after: second } });

    const domain = (await owner.client.post('/v1/settings/email/domains', { domain: 'audit-example.com' }))
      .body.domain as { id: number; status: string };
    await owner.client.post(`/v1/settings/email/domains/${domain.id}/verify`);
    const check = await latest('settings');
    expect(check.action).toBe('POST /v1/settings/email/domains/:id/verify');
    expect(check.changes.checkedAt).toMatchObject({ before: null, after: expect.any(String) });
    expect((await owner.client.request('DELETE', `/v1/settings/email/domains/${domain.id}`)).status).toBe(
      204,
    );
    const removed = await latest('settings');
    expect(removed).toMatchObject({
      action: 'DELETE /v1/settings/email/domains/:id',
      resourceId: String(domain.id),
    });
    expect(removed.changes.domain).toEqual({ before: 'audit-example.com' });

    await owner.client.post('/v1/suppressions', { emails: ['gone@example.com'], note: 'Asked by phone' });
    expect((await owner.client.request('DELETE', '/v1/suppressions/gone@example.com')).status).toBe(204);
    expect((await latest('suppressions')).changes).toMatchObject({
      email: { before: 'gone@example.com' },
      note: { before: 'Asked by phone' },
    });
    // A refused deletion writes nothing.
    expect((await owner.client.request('DELETE', '/v1/suppressions/never@example.com')).status).toBe(404);
    expect((await latest('suppressions')).action).toBe('DELETE /v1/suppressions/:email');
    expect(
      (await owner.client.get('/v1/audit-log?resourceType=suppressions&limit=10')).body.entries,
    ).toHaveLength(2);
  });

  it('records sign-ins and sign-outs, and changes made with the API key as the key', async () => {
    const owner = await registerUser(ctx.app);
    const other = new Client(ctx.app);
    expect(
      (await other.post('/v1/accounts/login/', { email: owner.email, password: owner.password })).status,
    ).toBe(200);
    expect((await other.post('/v1/accounts/logout')).status).toBeLessThan(300);
    const key = (await owner.client.post('/v1/accounts/rotate-api-key')).body.apiKey as string;
    const withKey = await new Client(ctx.app).post(
      '/v1/tags-management',
      { tags: [{ tag: 'vip' }] },
      { headers: { authorization: `Bearer ${key}` } },
    );
    expect(withKey.status).toBeLessThan(300);
    const actions = (await owner.client.get('/v1/audit-log?limit=200')).body.entries.map(
      (e: { action: string; actor: { kind: string; label: string } }) => `${e.actor.kind} ${e.action}`,
    );
    expect(actions).toContain('member sign in (POST /v1/accounts/login/)');
    expect(actions).toContain('member sign out (POST /v1/accounts/logout)');
    expect(actions).toContain('member POST /v1/accounts/rotate-api-key');
    expect(actions).toContain('api_key POST /v1/tags-management');
    const keyEntry = (await owner.client.get('/v1/audit-log?actor=api-key')).body.entries[0];
    expect(keyEntry.actor.label).toBe(`API key …${key.slice(-4)}`);
    expect(keyEntry.changes).toMatchObject({ tags: { after: [{ tag: 'vip' }] } });
  });

  it('pages with an opaque cursor and filters by actor, resource type and time', async () => {
    const owner = await registerUser(ctx.app);
    for (const months of [5, 6, 7])
      await owner.client.request('PUT', '/v1/audit-log/retention', { body: { months } });
    const after = (page: { entries: { changes: { auditLogRetentionMonths: { after: number } } }[] }) =>
      page.entries.map((e) => e.changes.auditLogRetentionMonths.after);
    const first = await owner.client.get('/v1/audit-log?resourceType=account-settings&limit=2');
    expect(after(first.body)).toEqual([7, 6]);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await owner.client.get(
      `/v1/audit-log?resourceType=account-settings&limit=2&cursor=${first.body.nextCursor}`,
    );
    expect(second.body.entries[0].changes.auditLogRetentionMonths.after).toBe(5);
    expect((await owner.client.get('/v1/audit-log?limit=200')).body.nextCursor).toBeNull();
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await owner.client.get(`/v1/audit-log?from=${encodeURIComponent(future)}`)).body.entries).toEqual(
      [],
    );
    const me = (await owner.client.get('/v1/audit-log/facets')).body.actors[0];
    expect(me.label).toBe(owner.email);
    const mine = await owner.client.get(`/v1/audit-log?actor=${me.value}&limit=200`);
    expect(mine.body.entries.length).toBeGreaterThan(3);
    expect((await owner.client.get('/v1/audit-log?actor=api-key')).body.entries).toEqual([]);
  });

  it('refuses a bad cursor and bad filters with 400 and a clear message', async () => {
    const owner = await registerUser(ctx.app);
    const bad = async (query: string) => {
      const res = await owner.client.get(`/v1/audit-log?${query}`);
      expect(res.status, query).toBe(400);
      return res.body.message as string;
    };
    expect(await bad('cursor=nonsense')).toBe(auditLogMessages.badCursor);
    expect(await bad(`cursor=${Buffer.from('audit:0').toString('base64url')}`)).toBe(
      auditLogMessages.badCursor,
    );
    expect(await bad('actor=bob')).toBe(auditLogMessages.badActor);
    expect(await bad('resourceType=DROP%20TABLE')).toBe(auditLogMessages.badResourceType);
    expect(await bad('from=yesterday')).toContain(auditLogMessages.badDate);
    expect(await bad('from=2026-12-02T00:00:00Z&to=2026-12-01T00:00:00Z')).toBe(auditLogMessages.fromAfterTo);
    expect(await bad('limit=0')).toMatch(/limit/);
    expect((await owner.client.get('/v1/audit-log/export?actor=bob')).status).toBe(400);
  });

  it('needs the account:write scope (403) and a session (401)', async () => {
    const owner = await registerUser(ctx.app);
    const member = await addMember(owner, ['team:read', 'people:read']);
    expect((await member.client.get('/v1/audit-log')).status).toBe(403);
    expect((await member.client.get('/v1/audit-log/export')).status).toBe(403);
    expect(
      (await member.client.request('PUT', '/v1/audit-log/retention', { body: { months: 1 } })).status,
    ).toBe(403);
    expect((await new Client(ctx.app).get('/v1/audit-log')).status).toBe(401);
    const admin = await addMember(owner, ['account:write']);
    const seen = await admin.client.get('/v1/audit-log?resourceType=team-members');
    expect(seen.status).toBe(200);
    expect(seen.body.entries.length).toBeGreaterThanOrEqual(2);
  });

  it("never shows another account's entries, whatever the cursor or filter", async () => {
    const a = await registerUser(ctx.app);
    const b = await registerUser(ctx.app);
    await a.client.post('/v1/tags-management', { tags: [{ tag: 'only-a' }] });
    const aPage = await a.client.get('/v1/audit-log?limit=1');
    const bAll = await b.client.get('/v1/audit-log?limit=200');
    expect(bAll.body.entries.every((e: { actor: { label: string } }) => e.actor.label === b.email)).toBe(
      true,
    );
    const bWithACursor = await b.client.get(`/v1/audit-log?limit=200&cursor=${aPage.body.nextCursor}`);
    expect(
      bWithACursor.body.entries.some((e: { actor: { label: string } }) => e.actor.label === a.email),
    ).toBe(false);
    const csv = await b.client.get('/v1/audit-log/export');
    expect(String(csv.body)).not.toContain(a.email);
  });
});

describe('GET /v1/audit-log/export', () => {
  it('answers CSV with formula cells escaped', async () => {
    const owner = await registerUser(ctx.app);
    await owner.client.post('/v1/tags-management', { tags: [{ tag: 'csv-tag' }] });
    await sql`insert into audit_log (account_id, actor_kind, actor_label, action, resource_type)
      values (${owner.account.accountId}, 'system', '=HYPERLINK("x")', '+1', 'tags-management')`.execute(
      ctx.services.db,
    );
    const res = await owner.client.get('/v1/audit-log/export?resourceType=tags-management');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toContain('audit-log.csv');
    const lines = String(res.body).trim().split('\r\n');
    expect(lines[0]).toBe('at,actor,actorKind,ip,action,resourceType,resourceId,changes');
    expect(lines[1]).toContain(`"'=HYPERLINK(""x"")",system,,'+1,tags-management`);
    expect(lines[2]).toContain('POST /v1/tags-management');
  });
});

describe('immutability and retention', () => {
  it("the app's database role can add and read entries but not change or delete them", async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    const attempt = (statement: ReturnType<typeof sql>) =>
      withAccount(ctx.services.db, accountId, (db) => statement.execute(db)).then(
        () => 'allowed',
        (error: { code?: string }) => error.code,
      );
    expect(await attempt(sql`select count(*) from audit_log`)).toBe('allowed');
    expect(await attempt(sql`update audit_log set action = 'x'`)).toBe('42501');
    expect(await attempt(sql`delete from audit_log`)).toBe('42501');
    expect(await attempt(sql`truncate audit_log`)).toBe('42501');
    expect(await attempt(sql`select herald_prune_audit_log()`)).toBe('42501');
  });

  it("the daily job deletes entries older than the account's retention, and only those", async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    await owner.client.request('PUT', '/v1/audit-log/retention', { body: { months: 3 } });
    await sql`insert into audit_log (account_id, at, actor_kind, actor_label, action, resource_type)
      values (${accountId}, now() - interval '4 months', 'system', 'old', 'old', 'tags'),
             (${accountId}, now() - interval '2 months', 'system', 'recent', 'recent', 'tags')`.execute(
      ctx.services.db,
    );
    expect(await runPruneAuditLog(ctx.services)).toBeGreaterThanOrEqual(1);
    const actions = (await owner.client.get('/v1/audit-log?resourceType=tags')).body.entries.map(
      (e: { action: string }) => e.action,
    );
    expect(actions).toEqual(['recent']);
    const refused = await owner.client.request('PUT', '/v1/audit-log/retention', { body: { months: 0 } });
    expect(refused.status).toBe(400);
  });
});
