import { decodeInputFields, type Flow, type InputFields, type Step } from '@herald/contracts';
import { afterAll, beforeAll, expect } from 'vitest';
import { newEmail } from './email-helpers.ts';
import { addStep, type Owner } from './flows-fixtures.ts';
import { createTestContext, type TestContext } from './helpers.ts';

/**
 * What the flow copy tests share: a server, a flow that uses emails, segments and custom fields, sub-accounts, and
 * reads of an account's rows. `ctx` is the current file's: each file calls useFlowsCopyContext(), whose hooks build it
 * anew (the test worker shares this module between files).
 */
export let ctx: TestContext;

export function useFlowsCopyContext(): void {
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(() => ctx.close());
}

export async function created(res: Promise<{ status: number; body: any }>, status = 201) {
  const answer = await res;
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  return answer.body;
}
export const settings = (step: Step) => decodeInputFields(step.inputFields as InputFields);
export const stepOf = (flow: Flow, operationKey: string) =>
  Object.values(flow.steps).find((s) => s.operationKey === operationKey)!;

/**
 * A flow using two emails (one by a send step, one by a segment's email-activity condition), two segments (one
 * inside the other), and custom fields in steps, conditions and a merge tag.
 */
export async function richFlow(owner: Owner) {
  const { client } = owner;
  await created(
    client.post('/v1/fields', {
      items: [
        { name: 'plan', title: 'Plan', type: 'string' },
        { name: 'score', title: 'Score', type: 'number' },
        { name: 'nickname', title: 'Nickname', type: 'string' },
      ],
    }),
    201,
  );
  const welcome = (
    await created(
      client.post(
        '/v1/emails',
        newEmail({
          name: 'Welcome',
          html: '<p>Hi {{ person.nickname }}</p><a href="{{ unsubscribe_url }}">Unsubscribe</a>',
        }),
      ),
    )
  ).email;
  const teaser = (await created(client.post('/v1/emails', newEmail({ name: 'Teaser' })))).email;
  const customers = (
    await created(
      client.post('/v1/segments/', {
        name: 'Customers',
        conditions: [{ type: 'tag', operator: 'has', tag: 'customer' }],
      }),
    )
  ).segment;
  const engaged = (
    await created(
      client.post('/v1/segments/', {
        name: 'Engaged',
        conditions: [
          { type: 'field', field: 'plan', operator: 'equals', value: 'pro' },
          {
            type: 'group',
            operator: 'or',
            conditions: [
              { type: 'segment', operator: 'in', segmentId: customers.id },
              { type: 'emailActivity', activity: 'opened', subject: { type: 'email', id: teaser.id } },
            ],
          },
        ],
      }),
    )
  ).segment;
  const flow = (await created(client.post('/v1/integrations', { name: 'Onboarding' }))).integration as Flow;
  const trigger = await addStep(client, flow.id, '/entered-segment', { segment: { id: engaged.id } });
  const send = await addStep(client, flow.id, '/send', { email: { id: welcome.id } });
  const check = await addStep(client, flow.id, '/check-field', {
    condition: { type: 'field', field: 'score', operator: 'greaterThan', value: 5 },
  });
  const change = await addStep(client, flow.id, '/change-field', { field: 'plan', value: 'vip' });
  await created(client.post('/v1/links/', { source: trigger.id, target: send.id }));
  await created(client.post('/v1/links/', { source: send.id, target: check.id }));
  await created(client.post('/v1/links/', { source: check.id, target: change.id, condition: 'yes' }));
  await created(client.patch(`/v1/integrations/${flow.id}`, { reentry: 'after-days', reentryDays: 3 }), 200);
  return { flow, welcome, teaser, customers, engaged };
}

export async function subaccount(owner: Owner, name = 'Client Co') {
  return (await created(owner.client.post('/v1/team-members/accounts', { name }))).subaccount.id as number;
}

/** Rows of an account, read as the database owner (the test looks into the target without switching). */
export const rowsOf = (table: 'emails' | 'segments' | 'personFields' | 'flows', accountId: number) =>
  ctx.services.db.selectFrom(table).selectAll().where('accountId', '=', accountId).execute() as Promise<
    any[]
  >;
