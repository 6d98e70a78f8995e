import { peopleMessages, scopeIds } from '@herald/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { findPerson, personJsonForTemplates, toPerson } from '../src/features/people/people.queries.ts';
import { createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
beforeAll(async () => {
  ctx = await createTestContext();
  owner = await registerUser(ctx.app);
});
afterAll(() => ctx.close());

const addPerson = (body: Record<string, unknown>) => owner.client.post('/v1/people/?source=manual', body);

describe('people', () => {
  it('adds a person by hand, reads it back as users[0], edits and deletes it', async () => {
    const email = uniqueEmail('person');
    const created = await addPerson({
      email,
      firstName: 'Ada',
      lastName: 'Lovelace',
      tags: 'customer, vip ,,customer',
    });
    expect(created.status).toBe(201);
    expect(created.body.user).toMatchObject({
      email,
      firstName: 'Ada',
      tags: 'customer, vip',
      archived: false,
      unsubscribed: false,
    });
    const id = created.body.user.id;
    const read = await owner.client.get(`/v1/people/${id}`);
    expect(read.body.users[0]).toMatchObject({ id, email });
    const edited = await owner.client.patch(`/v1/people/${id}`, {
      firstName: 'Augusta',
      company: 'Engines Ltd',
    });
    expect(edited.body).toMatchObject({
      message: peopleMessages.personUpdated,
      user: { firstName: 'Augusta', company: 'Engines Ltd', lastName: 'Lovelace' },
    });
    const gone = await owner.client.request('DELETE', `/v1/people?force=true&id=${id}`);
    expect(gone.body.message).toBe(peopleMessages.personDeleted);
    const missing = await owner.client.get(`/v1/people/${id}`);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe(peopleMessages.personNotFound);
  });

  it.each([
    [
      'a duplicate email (any case)',
      async (email: string) => {
        await addPerson({ email });
        return { email: email.toUpperCase() };
      },
      409,
    ],
    ['an invalid email', async () => ({ email: 'nope' }), 400],
    ['no email', async () => ({ firstName: 'X' }), 400],
    ['an unknown field', async (email: string) => ({ email, favouriteColour: 'blue' }), 400],
    ['a wrong type', async (email: string) => ({ email, firstName: 42 }), 400],
    ['a 5001-character value', async (email: string) => ({ email, company: 'x'.repeat(5001) }), 400],
    ['a read-only field', async (email: string) => ({ email, createdAt: '2020-01-01' }), 400],
  ])('refuses %s and writes nothing', async (_label, makeBody, status) => {
    const email = uniqueEmail('bad');
    const body = await makeBody(email);
    const before = (await owner.client.get('/v1/people/search')).body.users.length;
    const res = await addPerson(body);
    expect(res.status).toBe(status);
    expect(typeof res.body.message).toBe('string');
    expect((await owner.client.get('/v1/people/search')).body.users.length).toBe(before);
  });

  it('searches email and name, 100 a page, newest first, archived excluded', async () => {
    const marker = `zq${Date.now().toString(36)}`;
    for (let i = 0; i < 3; i += 1)
      await addPerson({ email: `${marker}-${i}@example.com`, firstName: `Name${i}` });
    await addPerson({ email: uniqueEmail(), lastName: `${marker}Smith` });
    const res = await owner.client.get(
      `/v1/people/search?query=${marker.toUpperCase()}&page=0&attributes=all`,
    );
    expect(res.status).toBe(200);
    expect(res.body.users).toHaveLength(4);
    expect(res.body.users[0].lastName).toBe(`${marker}Smith`);
    expect(res.body.hasMore).toBe(false);
    const wildcard = await owner.client.get('/v1/people/search?query=%25');
    expect(wildcard.body.users).toHaveLength(0);
  });

  it('adds and removes tags with the messages of the spec', async () => {
    const { body } = await addPerson({ email: uniqueEmail() });
    const id = body.user.id;
    expect((await owner.client.post('/v1/tags/', { tag: ' Big,  Spender ', id })).body).toEqual({
      tag: 'Big Spender',
      changed: 1,
    });
    expect((await owner.client.post('/v1/tags/', { tag: 'Big Spender', id: [id] })).body.changed).toBe(0);
    expect((await owner.client.get(`/v1/people/${id}`)).body.users[0].tags).toBe('Big Spender');
    expect((await owner.client.post('/v1/tags/', { tag: ',,', id })).body.message).toBe(
      peopleMessages.missingTagName,
    );
    expect((await owner.client.post('/v1/tags/', { tag: 'x' })).body.message).toBe(
      peopleMessages.missingUsers,
    );
    expect(
      (await owner.client.request('DELETE', '/v1/tags/', { body: { tag: 'Big Spender', id } })).body.changed,
    ).toBe(1);
    expect((await owner.client.get(`/v1/people/${id}`)).body.users[0].tags).toBe('');
    expect((await owner.client.post('/v1/tags/', { tag: 'x', id: 999999999 })).status).toBe(404);
  });

  it('needs people:read to read and people:write to change', async () => {
    const member = await registerUser(ctx.app);
    const scopes = scopeIds.map((id) => ({ id, enabled: id === 'emails:read' || id === 'team:read' }));
    await owner.client.post('/v1/team-members', { name: 'Reader', email: member.email, scopes });
    await member.client.post(`/v1/accounts/${owner.account.accountId}/switch`);
    expect((await member.client.get('/v1/people/search')).status).toBe(403);
    expect((await member.client.post('/v1/people/', { email: uniqueEmail() })).status).toBe(403);
  });

  it('writes a person for templates in SQL exactly as toPerson does (what a send renders with)', async () => {
    await owner.client.post('/v1/fields', { items: [{ name: 'plan' }, { name: 'score', type: 'number' }] });
    const accountId = owner.account.accountId as number;
    const full = (
      await addPerson({
        email: uniqueEmail('shape'),
        firstName: 'Ada',
        company: 'Engines',
        phone: '+44 1',
        plan: 'Pro',
        score: 7,
        tags: 'b, a',
      })
    ).body.user;
    await owner.client.post(`/v1/people/unsubscribe`, { id: full.id }).catch(() => undefined);
    const bare = (await addPerson({ email: uniqueEmail('bare') })).body.user;
    for (const id of [full.id as number, bare.id as number]) {
      const [row, json] = await withAccount(
        ctx.services.db,
        accountId,
        async (db) =>
          [
            (await findPerson(db, accountId, id))!,
            (
              await sql<{
                person: Record<string, unknown>;
              }>`select ${personJsonForTemplates} as person from people p where p.account_id = ${accountId} and p.id = ${id}`.execute(
                db,
              )
            ).rows[0]!.person,
          ] as const,
      );
      expect(json).toEqual({ ...toPerson(row), email: row.email ?? '', tags: row.tags });
    }
  });
});
