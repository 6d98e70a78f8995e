import { cleanFieldName, peopleMessages } from '@herald/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
beforeAll(async () => {
  ctx = await createTestContext();
  owner = await registerUser(ctx.app);
});
afterAll(() => ctx.close());

describe('custom fields', () => {
  it('creates fields with cleaned names; people then carry typed values', async () => {
    const res = await owner.client.post('/v1/fields', {
      items: [
        { name: 'Lifetime value!', type: 'number' },
        { name: 'plan', title: 'Plan', type: 'enum', enum: ['free', 'pro'] },
        { name: 'renews..on.', type: 'date' },
        { name: 'beta', type: 'boolean' },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.items.map((f: { name: string }) => f.name)).toEqual([
      'Lifetimevalue',
      'plan',
      'renews.on',
      'beta',
    ]);
    const list = await owner.client.get('/v1/fields');
    expect(list.body.items.find((f: { name: string }) => f.name === 'email')).toMatchObject({
      firstClassField: true,
    });
    expect(list.body.items.find((f: { name: string }) => f.name === 'plan')).toMatchObject({
      firstClassField: false,
      enum: ['free', 'pro'],
    });

    const person = await owner.client.post('/v1/people/', {
      email: uniqueEmail(),
      Lifetimevalue: 99.5,
      plan: 'pro',
      'renews.on': '2027-01-31',
      beta: true,
    });
    expect(person.status).toBe(201);
    expect(person.body.user).toMatchObject({
      Lifetimevalue: 99.5,
      plan: 'pro',
      'renews.on': '2027-01-31T00:00:00.000Z',
      beta: true,
    });
    const id = person.body.user.id;
    for (const [field, value] of [
      ['Lifetimevalue', 'lots'],
      ['plan', 'enterprise'],
      ['renews.on', 'soon'],
      ['beta', 'yes'],
    ] as const) {
      const bad = await owner.client.patch(`/v1/people/${id}`, { [field]: value });
      expect(bad.status, field).toBe(400);
    }
    const cleared = await owner.client.patch(`/v1/people/${id}`, { plan: null });
    expect(cleared.body.user.plan).toBeUndefined();
    expect(cleared.body.user.Lifetimevalue).toBe(99.5);
  });

  it('refuses duplicate, first-class and empty names, and built-in edits', async () => {
    await owner.client.post('/v1/fields', { items: [{ name: 'source' }] });
    expect((await owner.client.post('/v1/fields', { items: [{ name: 'Source' }] })).status).toBe(409);
    expect((await owner.client.post('/v1/fields', { items: [{ name: 'email' }] })).status).toBe(409);
    expect((await owner.client.post('/v1/fields', { items: [{ name: '!!!' }] })).body.message).toBe(
      peopleMessages.invalidFieldName,
    );
    expect((await owner.client.post('/v1/fields', { items: [{ name: 'a', type: 'json' }] })).status).toBe(
      400,
    );
    expect((await owner.client.patch('/v1/fields/email', { title: 'Mail' })).body.message).toBe(
      peopleMessages.fieldNotEditable,
    );
    expect((await owner.client.request('DELETE', '/v1/fields/unsubscribeReason')).status).toBe(400);
    expect((await owner.client.request('DELETE', '/v1/fields/nope')).status).toBe(404);
  });

  it('renames the title and deletes a field with its values', async () => {
    await owner.client.post('/v1/fields', { items: [{ name: 'shoe' }] });
    const { body } = await owner.client.post('/v1/people/', { email: uniqueEmail(), shoe: '42' });
    expect((await owner.client.patch('/v1/fields/shoe', { title: 'Shoe size' })).body.item.title).toBe(
      'Shoe size',
    );
    expect((await owner.client.request('DELETE', '/v1/fields/shoe')).status).toBe(204);
    expect((await owner.client.get(`/v1/people/${body.user.id}`)).body.users[0].shoe).toBeUndefined();
    expect((await owner.client.post('/v1/people/', { email: uniqueEmail(), shoe: '41' })).body.message).toBe(
      peopleMessages.unknownField('shoe'),
    );
  });

  it('cleans any name to the allowed characters', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (raw) => {
        const name = cleanFieldName(raw);
        expect(name).toMatch(/^[\p{L}\p{N}\-._]*$/u);
        expect(name).not.toMatch(/\.\.|^\.|\.$/);
        expect(cleanFieldName(name)).toBe(name);
      }),
    );
  });
});

describe('tags management', () => {
  it('creates, counts, renames (people follow) and deletes tags', async () => {
    const created = await owner.client.post('/v1/tags-management', {
      tags: [{ tag: '  Early,   bird ', description: 'First 100' }],
    });
    expect(created.status).toBe(201);
    expect(created.body.tags[0]).toMatchObject({ tag: 'Early bird', description: 'First 100' });
    expect(
      (await owner.client.post('/v1/tags-management', { tags: [{ tag: 'Early bird' }] })).body.message,
    ).toBe(peopleMessages.tagExists);
    expect((await owner.client.post('/v1/tags-management', { tags: [{ tag: ' , ' }] })).body.message).toBe(
      peopleMessages.missingTagName,
    );

    const a = (await owner.client.post('/v1/people/', { email: uniqueEmail(), tags: 'Early bird' })).body.user
      .id;
    const b = (await owner.client.post('/v1/people/', { email: uniqueEmail(), tags: 'Early bird, Pioneer' }))
      .body.user.id;
    const counts = await owner.client.get('/v1/tags-management/counts');
    expect(counts.body.tagCounts).toContainEqual({ tag: 'Early bird', count: 2 });

    expect((await owner.client.patch('/v1/tags-management/Pioneer', { tag: 'Early bird' })).status).toBe(409);
    const renamed = await owner.client.patch(`/v1/tags-management/${encodeURIComponent('Early bird')}`, {
      tag: 'Pioneer',
    });
    expect(renamed.status).toBe(409);
    const renamed2 = await owner.client.patch(`/v1/tags-management/${encodeURIComponent('Early bird')}`, {
      tag: 'Founding member',
    });
    expect(renamed2.body.tag.tag).toBe('Founding member');
    expect((await owner.client.get(`/v1/people/${a}`)).body.users[0].tags).toBe('Founding member');
    expect((await owner.client.get(`/v1/people/${b}`)).body.users[0].tags.split(', ').sort()).toEqual([
      'Founding member',
      'Pioneer',
    ]);

    expect(
      (await owner.client.request('DELETE', `/v1/tags-management/${encodeURIComponent('Founding member')}`))
        .status,
    ).toBe(204);
    expect((await owner.client.get(`/v1/people/${b}`)).body.users[0].tags).toBe('Pioneer');
    expect((await owner.client.request('DELETE', '/v1/tags-management/nope')).status).toBe(404);
    expect(
      (await owner.client.get('/v1/tags-management')).body.tags.map((t: { tag: string }) => t.tag),
    ).toEqual(['Pioneer']);
  });
});
