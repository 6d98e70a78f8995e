import { encodeInputFields } from '@herald/contracts';
import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../src/db/connection.ts';
import type { Client } from '../helpers.ts';

async function post(client: Client, url: string, body: unknown) {
  const res = await client.post(url, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/**
 * The flow of flow-kill.test.ts, built through the API and activated: tag `enter-flow` added → add tag `before-wait` →
 * wait until `until` → send the email → add tag `after-send`; five steps per run.
 */
export async function buildWaitFlow(client: Client, emailId: number, until: Date, name = 'Under fire') {
  const flow = (await post(client, '/v1/integrations', { name })).integration as { id: number };
  const steps: [string, Record<string, unknown>][] = [
    ['/added-tag', { tag: 'enter-flow' }],
    ['/add-tag', { tag: 'before-wait' }],
    ['/delay-v2', { wait: { mode: 'until', at: until.toISOString() } }],
    ['/send', { email: { id: emailId } }],
    ['/add-tag', { tag: 'after-send' }],
  ];
  const ids: number[] = [];
  for (const [operationKey, config] of steps)
    ids.push(
      (
        await post(client, '/v1/steps/', {
          flowId: flow.id,
          operationKey,
          inputFields: encodeInputFields(config),
        })
      ).step.id,
    );
  for (let i = 1; i < ids.length; i++)
    await post(client, '/v1/links/', { source: ids[i - 1], target: ids[i] });
  const activated = await client.patch(`/v1/integrations/${flow.id}`, { status: 'active' });
  expect(activated.status, JSON.stringify(activated.body)).toBe(200);
  return { flowId: flow.id, steps: ids.length };
}

/** Where the flow's runs stand: live (active or waiting), done, other, and its emails still to send. */
export async function flowProgress(db: Database, accountId: number, flowId: number) {
  const { rows } = await sql<{ live: number; done: number; other: number; left: number }>`
    select count(*) filter (where status in ('active', 'waiting'))::int as live,
      count(*) filter (where status = 'done')::int as done,
      count(*) filter (where status not in ('active', 'waiting', 'done'))::int as other,
      (select count(*) from deliveries where account_id = ${accountId} and source_kind = 'flow' and status in ('pending', 'sending'))::int as left
    from flow_runs where account_id = ${accountId} and flow_id = ${flowId}`.execute(db);
  return rows[0]!;
}

/**
 * What flow-kill.test.ts checks once the runs are over: runs, (run, step) pairs executed more than once (`twice`), runs
 * without all `steps` steps (`short`), steps executed, and people with both tags.
 */
export async function flowTotals(db: Database, accountId: number, flowId: number, steps: number) {
  const { rows } = await sql<{
    runs: number;
    twice: number;
    short: number;
    executed: number;
    tagged: number;
  }>`
    select
      (select count(*) from flow_runs where account_id = ${accountId} and flow_id = ${flowId})::int as runs,
      (select count(*) from (select run_id, step_id from flow_run_steps where account_id = ${accountId} and flow_id = ${flowId} group by 1, 2 having count(*) > 1) d)::int as twice,
      (select count(*) from (select r.id from flow_runs r left join flow_run_steps s on s.account_id = r.account_id and s.run_id = r.id
         where r.account_id = ${accountId} and r.flow_id = ${flowId} group by r.id having count(s.seq) <> ${steps}) d)::int as short,
      (select count(*) from flow_run_steps where account_id = ${accountId} and flow_id = ${flowId})::int as executed,
      (select count(*) from people where account_id = ${accountId} and tags @> '{before-wait,after-send}')::int as tagged`.execute(
    db,
  );
  return rows[0]!;
}
