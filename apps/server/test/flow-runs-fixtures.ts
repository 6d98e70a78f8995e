import { encodeInputFields, stepTypeOf, type OperationKey } from '@herald/contracts';
import { sql } from 'kysely';
import { expect } from 'vitest';
import { newEmail } from './email-helpers.ts';
import { Client, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { useSmtpContext, type SmtpSink } from './smtp-context.ts';

/**
 * What the flow-run tests share: a server on PUBLIC_URL `origin` with a worker and an SMTP sink, accounts with a
 * verified sender, flows written straight to the database, and the reads the tests check runs with.
 * `ctx` and `smtp` are the current file's: each file calls useFlowRunsContext(), whose hooks build them anew
 * (the test worker shares this module between files; nothing here outlives the file that built it).
 */
export const origin = 'https://herald.test';
export let ctx: TestContext;
export let smtp: SmtpSink;

export function useFlowRunsContext(): void {
  useSmtpContext({ MAIL_FROM: 'Herald <no-reply@herald.test>', PUBLIC_URL: origin }, (server, sink) => {
    ctx = server;
    smtp = sink;
  });
}

type Owner = Awaited<ReturnType<typeof registerUser>>;
const accountOf = (owner: Owner) => owner.account.accountId as number;

/** An account with an email whose sender is verified. */
export async function setup() {
  const owner = await registerUser(ctx.app, { origin });
  const fromEmail = uniqueEmail('sender');
  const email = await owner.client.post(
    '/v1/emails',
    newEmail({ fromEmail, subject: 'Welcome to the trial' }),
  );
  expect(email.status).toBe(201);
  await ctx.services.db
    .insertInto('senderAddresses')
    .values({ accountId: accountOf(owner), email: fromEmail, status: 'verified' })
    .execute();
  return { owner, client: owner.client, accountId: accountOf(owner), emailId: email.body.email.id as number };
}

export interface StepSpec {
  name: string;
  op: OperationKey;
  config?: Record<string, unknown>;
}

/**
 * A flow stored as the flows API stores one (steps with the spec's inputFields tree, links by branch), switched on.
 * Returns the step ids by name.
 */
export async function makeFlow(
  accountId: number,
  steps: StepSpec[],
  links: [string, string, string?][],
  options: { reentry?: 'once' | 'after-days'; reentryDays?: number; active?: boolean } = {},
) {
  const db = ctx.services.db;
  const flow = await db
    .insertInto('flows')
    .values({
      accountId,
      name: 'Test flow',
      reentry: options.reentry ?? 'once',
      reentryDays: options.reentryDays ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const flowId = Number(flow.id);
  const ids: Record<string, number> = {};
  for (const step of steps) {
    const row = await db
      .insertInto('flowSteps')
      .values({
        accountId,
        flowId,
        type: stepTypeOf(step.op),
        operationKey: step.op,
        inputFields: JSON.stringify(encodeInputFields(step.config ?? {})),
      })
      .returning(['id'])
      .executeTakeFirstOrThrow();
    ids[step.name] = Number(row.id);
  }
  for (const [source, target, condition] of links) {
    await db
      .insertInto('flowLinks')
      .values({ accountId, flowId, source: ids[source]!, target: ids[target]!, condition: condition ?? null })
      .execute();
  }
  if (options.active !== false)
    await db
      .updateTable('flows')
      .set({ status: 'active', activatedAt: new Date() })
      .where('accountId', '=', accountId)
      .where('id', '=', flowId)
      .execute();
  return { flowId, ids };
}

export async function person(client: Client, firstName: string, tags: string[] = []) {
  const created = await client.post('/v1/people/?source=manual', {
    email: uniqueEmail(firstName.toLowerCase()),
    firstName,
  });
  expect(created.status).toBe(201);
  const user = created.body.user as { id: number; email: string };
  for (const tag of tags)
    expect((await client.post('/v1/tags/', { tag, id: user.id })).status).toBeLessThan(300);
  return user;
}

export const tagPerson = async (client: Client, id: number, tag: string) =>
  expect((await client.post('/v1/tags/', { tag, id })).status).toBeLessThan(300);
export const untagPerson = async (client: Client, id: number, tag: string) =>
  expect((await client.request('DELETE', '/v1/tags/', { body: { tag, id } })).status).toBeLessThan(300);

export async function runsOf(accountId: number, flowId: number) {
  const { rows } = await sql<{
    id: string;
    personId: string;
    status: string;
    entry: number;
    stepId: string | null;
    lastError: string | null;
    seq: number;
  }>`
    select id, person_id as "personId", status, entry, step_id as "stepId", last_error as "lastError", seq from flow_runs
    where account_id = ${accountId} and flow_id = ${flowId} order by id`.execute(ctx.services.db);
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    personId: Number(r.personId),
    stepId: r.stepId === null ? null : Number(r.stepId),
  }));
}

export const tagsOf = async (accountId: number, personId: number) =>
  (
    await ctx.services.db
      .selectFrom('people')
      .select('tags')
      .where('accountId', '=', accountId)
      .where('id', '=', personId)
      .executeTakeFirstOrThrow()
  ).tags;

/** Executed steps recorded more than once for a run and step (the flows here have no loops). */
export async function duplicateSteps(accountId: number, flowId: number) {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from (select run_id, step_id from flow_run_steps where account_id = ${accountId} and flow_id = ${flowId} group by 1, 2 having count(*) > 1) d`.execute(
    ctx.services.db,
  );
  return rows[0]!.n;
}
