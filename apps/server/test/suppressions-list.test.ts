import { sendingMessages } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { assertMaySendFrom } from '../src/features/senders/sending-rule.ts';
import { addMember } from './email-helpers.ts';
import { registerUser, uniqueEmail } from './helpers.ts';
import { accountOf, addPerson, ctx, person, smtp, useSuppressionsContext } from './suppressions-fixtures.ts';
import { until } from './until.ts';

useSuppressionsContext();

describe('suppression list', () => {
  it('adds, lists, searches, exports and removes with history; people show it and the Unsubscribed segment follows', async () => {
    const owner = await registerUser(ctx.app);
    const { client } = owner;
    const ann = await addPerson(owner, uniqueEmail('ann'));
    const added = await client.post('/v1/suppressions', {
      emails: [ann.email.toUpperCase(), '-cmd@example.com'],
      note: 'Asked by phone',
    });
    expect(added.body).toEqual({ added: 2, message: sendingMessages.suppressionAdded(2) });
    expect(await person(owner, ann.id)).toMatchObject({ unsubscribed: true, unsubscribeReason: 'manual' });

    const list = await client.get('/v1/suppressions');
    expect(list.body).toMatchObject({ total: 2, page: 1, pageSize: 100 });
    expect(list.body.suppressions.find((s: { email: string }) => s.email === ann.email)).toMatchObject({
      reason: 'manual',
      personId: ann.id,
      note: 'Asked by phone',
      source: owner.email,
    });
    expect((await client.get(`/v1/suppressions?search=${ann.email.slice(0, 6)}`)).body.total).toBe(1);
    expect((await client.get('/v1/suppressions?reason=hard-bounce')).body.total).toBe(0);
    expect((await client.get('/v1/suppressions?reason=bogus')).status).toBe(400);

    const csv = await client.get('/v1/suppressions/export');
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body).toContain("'-cmd@example.com");

    // People added later with a suppressed address arrive suppressed; changing an address follows the list.
    const late = await addPerson(owner, '-CMD@example.com');
    expect(await person(owner, late.id)).toMatchObject({ unsubscribed: true });
    await client.patch(`/v1/people/${late.id}`, { email: uniqueEmail('fresh') });
    expect(await person(owner, late.id)).toMatchObject({ unsubscribed: false, unsubscribeReason: null });

    const segments = (await client.get('/v1/segments')).body.segments;
    const unsubscribed = segments.find((s: { autoType?: string; name: string }) => s.name === 'Unsubscribed');
    const members = async () =>
      (
        await withAccount(ctx.services.db, accountOf(owner), (db) =>
          db
            .selectFrom('segmentMembers')
            .select('personId')
            .where('segmentId', '=', unsubscribed.id)
            .execute(),
        )
      ).map((r) => Number(r.personId));
    await until(async () => (await members()).join() === String(ann.id), {
      timeout: 15_000,
      message: async () => `Unsubscribed segment members: ${JSON.stringify(await members())}`,
    });

    expect(
      (
        await client.request(
          'DELETE',
          `/v1/suppressions/${encodeURIComponent(ann.email)}?note=${encodeURIComponent('Resubscribed by phone')}`,
        )
      ).status,
    ).toBe(204);
    expect((await client.request('DELETE', `/v1/suppressions/${encodeURIComponent(ann.email)}`)).status).toBe(
      404,
    );
    expect(await person(owner, ann.id)).toMatchObject({ unsubscribed: false });
    const history = (await client.get(`/v1/suppressions/history?email=${encodeURIComponent(ann.email)}`)).body
      .history;
    expect(history.map((h: { action: string; reason: string }) => `${h.action}:${h.reason}`)).toEqual([
      'removed:manual',
      'added:manual',
    ]);
    expect(history[0].note).toBe('Resubscribed by phone');
  });

  it('keeps the stronger reason, refuses bad input, and checks scopes and accounts', async () => {
    const owner = await registerUser(ctx.app);
    const { client } = owner;
    const email = uniqueEmail('bouncy');
    await client.post('/v1/suppressions', { emails: [email], reason: 'unsubscribed' });
    await client.post('/v1/suppressions', { emails: [email], reason: 'hard-bounce' });
    expect(
      (await client.post('/v1/suppressions', { emails: [email], reason: 'unsubscribed' })).body.added,
    ).toBe(0);
    expect((await client.get('/v1/suppressions')).body.suppressions[0]).toMatchObject({
      email,
      reason: 'hard-bounce',
    });
    for (const bad of [
      { emails: [] },
      { emails: ['nope'] },
      { emails: [email], reason: 'bored' },
      { emails: [email], extra: 1 },
    ]) {
      expect((await client.post('/v1/suppressions', bad)).status, JSON.stringify(bad)).toBe(400);
    }
    const reader = await addMember(ctx, smtp, owner, ['people:read']);
    expect((await reader.get('/v1/suppressions')).body.total).toBe(1);
    expect((await reader.post('/v1/suppressions', { emails: [uniqueEmail()] })).status).toBe(403);
    expect((await reader.get('/v1/suppressions/export')).status).toBe(403);
    const stranger = await registerUser(ctx.app);
    expect((await stranger.client.get('/v1/suppressions')).body.total).toBe(0);
    expect(
      (await stranger.client.request('DELETE', `/v1/suppressions/${encodeURIComponent(email)}`)).status,
    ).toBe(404);
  });
});

describe('the sending rule', () => {
  it('allows a verified address or domain, refuses others with the spec message, and lets test accounts through', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = accountOf(owner);
    const address = uniqueEmail('sender');
    await expect(assertMaySendFrom(ctx.services.db, accountId, address)).rejects.toMatchObject({
      statusCode: 422,
      message: sendingMessages.notVerified(address),
    });
    await ctx.services.db
      .insertInto('senderAddresses')
      .values({ accountId, email: address, status: 'verified' })
      .execute();
    await expect(assertMaySendFrom(ctx.services.db, accountId, address.toUpperCase())).resolves.toMatchObject(
      { by: 'address' },
    );
    const other = await registerUser(ctx.app);
    await expect(assertMaySendFrom(ctx.services.db, accountOf(other), address)).rejects.toMatchObject({
      statusCode: 422,
    });
    await ctx.services.db
      .updateTable('accounts')
      .set({ testAccount: true })
      .where('id', '=', accountOf(other))
      .execute();
    await expect(assertMaySendFrom(ctx.services.db, accountOf(other), address)).resolves.toMatchObject({
      by: 'test-account',
    });
  });
});
