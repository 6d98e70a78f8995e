import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
const unique = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;

async function account(doubleOptIn: boolean) {
  const owner = await registerUser(ctx.app);
  const set = await owner.client.request('PUT', '/v1/settings/double-opt-in', {
    body: { doubleOptIn, forms: {}, confirmationEmailId: null },
  });
  expect(set.status).toBe(200);
  const call = (path: string, body: unknown) =>
    new Client(ctx.app).request('POST', path, {
      rawBody: JSON.stringify(body),
      headers: { authorization: basic(owner.account.writeKey), 'user-agent': 'analytics-node-test' },
      origin: null,
    });
  return { owner, accountId: owner.account.accountId as number, call };
}

async function stateOf(accountId: number, email: string) {
  const { rows } = await sql<{ pending: boolean; records: string[] }>`
    select p.confirmation_pending_at is not null as pending,
      coalesce((select array_agg(c.action || ' ' || c.source || ' ' || coalesce(c.user_agent, '') order by c.id)
        from consent_records c where c.account_id = p.account_id and c.person_id = p.id), '{}') as records
    from people p where p.account_id = ${accountId} and p.email = ${email}`.execute(ctx.services.db);
  return rows[0];
}

describe('the Tracking API and double opt-in', () => {
  it('a visitor first seen anonymously who identifies with an address waits to confirm, with its consent record', async () => {
    const { accountId, call } = await account(true);
    const [anonymousId, email] = [unique('anon'), uniqueEmail('arrival')];
    expect((await call('/v1/page', { anonymousId, name: 'Pricing' })).status).toBe(200);
    const identified = await call('/v1/identify', { anonymousId, userId: unique('user'), traits: { email } });
    expect(identified.status).toBe(200);
    expect(await stateOf(accountId, email)).toEqual({
      pending: true,
      records: ['subscribe api analytics-node-test'],
    });
    // Identified again later: no new arrival, no second record.
    await call('/v1/identify', { anonymousId, traits: { email, firstName: 'Ada' } });
    expect((await stateOf(accountId, email))?.records).toHaveLength(1);
  });

  it('someone the account already had by address does not wait; with double opt-in off nobody waits', async () => {
    const first = await account(true);
    const email = uniqueEmail('known');
    const created = await first.owner.client.post('/v1/people/', { email });
    expect(created.status).toBeLessThan(300);
    expect((await first.call('/v1/identify', { userId: unique('user'), traits: { email } })).status).toBe(
      200,
    );
    expect(await stateOf(first.accountId, email)).toMatchObject({ pending: false, records: [] });

    const off = await account(false);
    const newcomer = uniqueEmail('off');
    expect(
      (await off.call('/v1/identify', { userId: unique('user'), traits: { email: newcomer } })).status,
    ).toBe(200);
    expect(await stateOf(off.accountId, newcomer)).toEqual({
      pending: false,
      records: ['subscribe api analytics-node-test'],
    });
  });
});
