import { transactionalMessages } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { uploadCsv } from './imports-support.ts';

/** Requests the fuzzer (test/security/fuzz.test.ts) answered with a 500; each is a 4xx or a success now. */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe('what the fuzzer found', () => {
  it('answers a NUL character in a path parameter, a query or a body field with a 400', async () => {
    const { client } = await registerUser(ctx.app);
    const inPath = await client.request('DELETE', '/v1/suppressions/%00');
    expect(inPath.status, JSON.stringify(inPath.body)).toBe(400);
    expect(inPath.body.message).toBe('Text cannot contain the NUL character (\\u0000).');
    const suppressed = uniqueEmail();
    expect((await client.post('/v1/suppressions', { emails: [suppressed] })).status).toBeLessThan(300);
    expect(
      (await client.request('DELETE', `/v1/suppressions/${encodeURIComponent(suppressed)}?note=a%00b`))
        .status,
    ).toBe(400);
    expect(
      (await client.get('/v1/suppressions')).body.suppressions.map((s: { email: string }) => s.email),
    ).toContain(suppressed);
    const inField = await client.post('/v1/people/', { email: uniqueEmail(), firstName: 'Ada\u0000' });
    expect(inField.status, JSON.stringify(inField.body)).toBe(400);
  });

  it('saves a category with an empty change as it is', async () => {
    const { client } = await registerUser(ctx.app);
    const [category] = (await client.get('/v1/settings/communication-categories')).body.categories as Array<{
      id: number;
      name: string;
    }>;
    const res = await client.patch(`/v1/settings/communication-categories/${category!.id}`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.category).toMatchObject({ id: category!.id, name: category!.name });
  });

  it('refuses transactional merge data nested deeper than its limit with a 400', async () => {
    const { client } = await registerUser(ctx.app);
    const apiKey = (await client.post('/v1/accounts/rotate-api-key')).body.apiKey as string;
    let deep: unknown = 'x';
    for (let i = 0; i < 3000; i++) deep = i % 2 === 0 ? [deep] : { a: deep };
    const res = await new Client(ctx.app).post(
      '/v1/transactional/send',
      { emailId: -12345, to: 'ada@example.com', subject: 'Hi', html: '<p>Hi</p>', data: { orderId: deep } },
      { origin: null, headers: { authorization: `Bearer ${apiKey}` } },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.message).toContain(transactionalMessages.dataTooDeep);
  });

  it("refuses a step position beyond the database's integer with a 400", async () => {
    const { client } = await registerUser(ctx.app);
    const flow = (await client.post('/v1/integrations', { name: 'Positions' })).body.integration as {
      id: number;
    };
    const step = await client.post('/v1/steps/', {
      flowId: flow.id,
      operationKey: '/add-tag',
      position: 2 ** 40,
    });
    expect(step.status, JSON.stringify(step.body)).toBe(400);
    const created = await client.post('/v1/steps/', {
      flowId: flow.id,
      operationKey: '/add-tag',
      position: 1,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const moved = await client.patch(`/v1/steps/${created.body.step.id}`, {
      coordinates: { x: 100, y: 2 },
      position: -5725818535301259,
      confirmActiveEdit: true,
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(400);
    expect((await client.patch(`/v1/steps/${created.body.step.id}`, { position: 3 })).status).toBe(200);
  });

  it("takes a person's field named like an Object method (constructor, toString) for an unknown field, not a column", async () => {
    const owner = await registerUser(ctx.app);
    for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      const created = await owner.client.post('/v1/people/', { email: uniqueEmail(), [name]: 'true' });
      expect(created.status, JSON.stringify(created.body)).toBe(400);
      expect(created.body.message).toBe(`Unknown field: ${name}.`);
    }
    const person = (await owner.client.post('/v1/people/', { email: uniqueEmail() })).body.user as {
      id: number;
    };
    expect((await owner.client.patch(`/v1/people/${person.id}`, { constructor: 'x' })).status).toBe(400);
    const key = await uploadCsv(ctx, owner, 'Email,X\nada@example.com,1\n');
    const imported = await owner.client.post('/v1/imports', {
      peopleFileKey: key,
      numPeople: 1,
      fieldMapping: [
        { column: 'Email', field: 'email' },
        { column: 'X', field: 'constructor' },
      ],
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(400);
  });
});
