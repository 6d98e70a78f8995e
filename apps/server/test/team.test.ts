import { scopeIds, teamMessages } from '@herald/contracts';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { startSmtpServer } from './smtp.ts';

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  ctx = await createTestContext({ SMTP_URL: smtp.url, LOG_LEVEL: 'error' });
  await ctx.startWorker();
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

const scopes = (enabled: string[]) => scopeIds.map((id) => ({ id, enabled: enabled.includes(id) }));
const enabledOf = (member: { accountData: { scopes: { id: string; enabled: boolean }[] } }) =>
  member.accountData.scopes
    .filter((s) => s.enabled)
    .map((s) => s.id)
    .sort();

function inviteToken(mail: ParsedMail): string {
  const match = /accept-invite\?token=([^\s"<]+)/.exec(mail.text ?? '');
  if (!match) throw new Error('no invitation link');
  return decodeURIComponent(match[1]!);
}

describe('inviting team members', () => {
  it('invites by email; the invitee accepts with a new password and works in the account with their scopes', async () => {
    const owner = await registerUser(ctx.app);
    const email = uniqueEmail('invitee');
    const res = await owner.client.post('/v1/team-members', {
      name: 'Tess',
      email,
      scopes: scopes(['people:read', 'team:read']),
    });
    expect(res.status).toBe(201);
    expect(res.body.teamMember).toMatchObject({ name: 'Tess', email, invitationPending: true });
    expect(enabledOf(res.body.teamMember)).toEqual(['people:read', 'team:read']);

    const mail = await smtp.waitFor(email);
    expect(mail.subject).toContain('invited you to');
    const token = inviteToken(mail);
    const info = await new Client(ctx.app).get(`/v1/team-members/invitations/${encodeURIComponent(token)}`);
    expect(info.body).toMatchObject({ accountName: owner.account.name, email, needsPassword: true });

    const invitee = new Client(ctx.app);
    expect((await invitee.post('/v1/team-members/invitations/accept', { token })).body.message).toBe(
      teamMessages.invitationNeedsPassword,
    );
    const accepted = await invitee.post('/v1/team-members/invitations/accept', {
      token,
      password: 'tess password 1',
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.accountId).toBe(owner.account.accountId);
    expect(accepted.body.teamMember.accountData.isOwner).toBe(false);

    // With team:read but not team:write, the list is readable and changes are refused.
    expect((await invitee.get('/v1/team-members')).status).toBe(200);
    const forbidden = await invitee.post('/v1/team-members', { name: 'X', email: uniqueEmail() });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.message).toMatch(/team:write/);
    expect((await invitee.patch('/v1/accounts/me', { name: 'Taken over' })).status).toBe(403);

    // The link works once; the invitee now signs in with the password.
    expect(
      (
        await new Client(ctx.app).post('/v1/team-members/invitations/accept', {
          token,
          password: 'tess password 1',
        })
      ).status,
    ).toBe(400);
    expect(
      (await new Client(ctx.app).post('/v1/accounts/login/', { email, password: 'tess password 1' })).status,
    ).toBe(200);
  });

  it('a user who already has a login gets the account added to their list at once', async () => {
    const owner = await registerUser(ctx.app);
    const other = await registerUser(ctx.app);
    const res = await owner.client.post('/v1/team-members', { name: 'Existing', email: other.email });
    expect(res.status).toBe(201);
    expect(res.body.teamMember.invitationPending).toBe(false);
    const accounts = await other.client.get('/v1/team-members/accounts');
    expect(accounts.body.accounts.map((a: { id: number }) => a.id)).toContain(owner.account.accountId);
    const mail = await smtp.waitFor(other.email);
    expect(mail.text).not.toContain('accept-invite');
  });

  it('a pending invitee cannot sign in to the account before accepting', async () => {
    const owner = await registerUser(ctx.app);
    const email = uniqueEmail('pending');
    await owner.client.post('/v1/team-members', { name: 'P', email });
    const res = await new Client(ctx.app).post('/v1/accounts/login/', {
      email,
      password: 'whatever password',
    });
    expect(res.status).toBe(401);
  });

  it.each([
    ['an invalid email', { name: 'A', email: 'nope' }],
    ['an unknown scope id', { name: 'A', email: uniqueEmail(), scopes: [{ id: 'root:all', enabled: true }] }],
    ['no name', { email: uniqueEmail() }],
    ['an unknown field', { name: 'A', email: uniqueEmail(), isOwner: true }],
  ])('refuses %s with 400 and adds no one', async (_label, body) => {
    const owner = await registerUser(ctx.app);
    const res = await owner.client.post('/v1/team-members', body);
    expect(res.status).toBe(400);
    expect((await owner.client.get('/v1/team-members')).body.teamMembers).toHaveLength(1);
  });

  it('refuses to invite an existing member', async () => {
    const owner = await registerUser(ctx.app);
    const email = uniqueEmail();
    await owner.client.post('/v1/team-members', { name: 'Once', email });
    const again = await owner.client.post('/v1/team-members', { name: 'Twice', email: email.toUpperCase() });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe(teamMessages.alreadyMember);
    expect((await owner.client.post('/v1/team-members', { name: 'Me', email: owner.email })).status).toBe(
      409,
    );
  });
});

describe('scopes', () => {
  it('the server keeps a scope only when what it needs is enabled', async () => {
    const owner = await registerUser(ctx.app);
    const res = await owner.client.post('/v1/team-members', {
      name: 'S',
      email: uniqueEmail(),
      scopes: scopes([
        'flows:write',
        'billing:write',
        'people:export',
        'broadcasts:write',
        'broadcasts:read',
        'emails:read',
      ]),
    });
    expect(enabledOf(res.body.teamMember)).toEqual(['broadcasts:read', 'broadcasts:write', 'emails:read']);
  });

  it('missing scopes take their defaults; owners always hold every scope', async () => {
    const owner = await registerUser(ctx.app);
    const res = await owner.client.post('/v1/team-members', { name: 'D', email: uniqueEmail() });
    const enabled = enabledOf(res.body.teamMember);
    expect(enabled).toContain('flows:write');
    expect(enabled).not.toContain('account:write');
    expect(enabled).not.toContain('billing:read');
    const list = await owner.client.get('/v1/team-members');
    const me = list.body.teamMembers.find(
      (m: { accountData: { isOwner: boolean } }) => m.accountData.isOwner,
    );
    expect(enabledOf(me)).toHaveLength(21);
    const changeOwner = await owner.client.patch(`/v1/team-members/${me.id}`, { scopes: scopes([]) });
    expect(changeOwner.status).toBe(400);
    expect(changeOwner.body.message).toBe(teamMessages.ownerScopes);
  });

  it('updates name and scopes; an empty name is kept', async () => {
    const owner = await registerUser(ctx.app);
    const { body } = await owner.client.post('/v1/team-members', { name: 'Before', email: uniqueEmail() });
    const id = body.teamMember.id;
    const res = await owner.client.patch(`/v1/team-members/${id}`, {
      name: 'After',
      scopes: scopes(['emails:read', 'emails:write']),
    });
    expect(res.status).toBe(200);
    expect(res.body.teamMember.name).toBe('After');
    expect(enabledOf(res.body.teamMember)).toEqual(['emails:read', 'emails:write']);
    expect((await owner.client.patch(`/v1/team-members/${id}`, { name: '' })).body.teamMember.name).toBe(
      'After',
    );
  });
});

describe('removing team members', () => {
  it('removes a member and ends their sessions in the account', async () => {
    const owner = await registerUser(ctx.app);
    const other = await registerUser(ctx.app);
    const { body } = await owner.client.post('/v1/team-members', { name: 'Leaving', email: other.email });
    const switched = await other.client.post(`/v1/accounts/${owner.account.accountId}/switch`);
    expect(switched.status).toBe(200);
    expect((await owner.client.request('DELETE', `/v1/team-members/${body.teamMember.id}`)).status).toBe(204);
    expect((await other.client.get('/v1/accounts')).status).toBe(401);
    expect((await owner.client.get('/v1/team-members')).body.teamMembers).toHaveLength(1);
  });

  it('never removes the last owner, and answers 404 for unknown ids', async () => {
    const owner = await registerUser(ctx.app);
    const res = await owner.client.request('DELETE', `/v1/team-members/${owner.account.teamMemberId}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(teamMessages.lastOwner);
    expect((await owner.client.get('/v1/accounts')).status).toBe(200);
    expect((await owner.client.request('DELETE', '/v1/team-members/999999999')).status).toBe(404);
    expect((await owner.client.patch('/v1/team-members/999999999', { name: 'x' })).status).toBe(404);
    expect((await owner.client.request('DELETE', '/v1/team-members/abc')).status).toBe(400);
  });
});
