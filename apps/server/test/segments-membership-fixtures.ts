import type { ConditionNode } from '@herald/contracts';
import { afterAll, beforeAll, expect } from 'vitest';
import { createTestContext, registerUser, storedEvents, uniqueEmail, type TestContext } from './helpers.ts';
import { until } from './until.ts';

/**
 * What the segment membership tests share: a server with a worker, one account (with a `city` field) whose people and
 * segments the tests add, and the reads and waits on a segment's members. `ctx`, `owner` and `accountId` are the
 * current file's: each file calls useMembershipContext(), whose beforeAll builds them anew (the test worker shares
 * this module between files).
 */
export let ctx: TestContext;
export let owner: Awaited<ReturnType<typeof registerUser>>;
export let accountId: number;

export function useMembershipContext(): void {
  beforeAll(async () => {
    ctx = await createTestContext();
    owner = await registerUser(ctx.app);
    accountId = owner.account.accountId ?? owner.account.account?.id;
    if (!accountId) {
      const row = await ctx.services.db
        .selectFrom('accounts')
        .select('id')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      accountId = row.id;
    }
    await owner.client.post('/v1/fields', { items: [{ name: 'city', type: 'string' }] });
    await ctx.startWorker();
  });
  afterAll(() => ctx.close());
}

export async function members(segmentId: number): Promise<number[]> {
  const rows = await ctx.services.db
    .selectFrom('segmentMembers')
    .select('personId')
    .where('accountId', '=', accountId)
    .where('segmentId', '=', segmentId)
    .orderBy('personId')
    .execute();
  return rows.map((r) => r.personId);
}

/** The kept member count the segment list shows. */
export async function memberCount(segmentId: number): Promise<number | null> {
  const list = await owner.client.get('/v1/segments');
  return list.body.segments.find((s: { id: number }) => s.id === segmentId).memberCount;
}

export async function segmentEvents(segmentId: number) {
  return (await storedEvents(ctx.services, accountId))
    .filter(
      (e) => e.type === 'segment' && Number((e.data as { segmentId?: unknown }).segmentId) === segmentId,
    )
    .map((e) => ({ personId: e.personId, name: e.name }));
}

/** Wait (at most 15 s) until the members are `expected`; the seconds it took. */
export async function waitForMembers(segmentId: number, expected: number[]): Promise<number> {
  const started = Date.now();
  const wanted = JSON.stringify([...expected].sort((a, b) => a - b));
  await until(async () => JSON.stringify(await members(segmentId)) === wanted, {
    timeout: 15_000,
    message: async () =>
      `members of ${segmentId}: ${JSON.stringify(await members(segmentId))}, expected ${wanted}`,
  });
  return (Date.now() - started) / 1000;
}

/** Wait until a segment's first build is done (its kept count is set); later changes record events. */
export async function waitForFirstBuild(segmentId: number): Promise<void> {
  await until(async () => (await memberCount(segmentId)) !== null, {
    timeout: 15_000,
    message: `segment ${segmentId} built`,
  });
}

export async function addPerson(values: Record<string, unknown>) {
  const res = await owner.client.post('/v1/people/?source=manual', {
    email: uniqueEmail('member'),
    ...values,
  });
  expect(res.status).toBe(201);
  return res.body.user as { id: number; email: string };
}

export async function createSegment(name: string, conditions: ConditionNode[]) {
  const res = await owner.client.post('/v1/segments/', { name, conditions });
  expect(res.status).toBe(201);
  return res.body.segment as { id: number };
}
