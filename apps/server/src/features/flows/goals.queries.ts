import type { ConditionNode } from '@herald/contracts';
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { intArray } from '../../db/arrays.ts';
import type { Database } from '../../db/connection.ts';
import { compileTree, conditionsProblem, loadCompileContext } from '../segments/segment-context.ts';
import type { EventStore } from '../../db/event-store.ts';
import { addFlowWarning } from './flow-runs.queries.ts';

/** SQL of flow goals: the stored goal, converting the runs whose person reached it, and the conversion figures. */

export async function readGoal(
  db: Database,
  accountId: number,
  flowId: number,
): Promise<ConditionNode[] | null> {
  const row = await db
    .selectFrom('flows')
    .select('goal')
    .where('accountId', '=', accountId)
    .where('id', '=', flowId)
    .executeTakeFirst();
  return (row?.goal as ConditionNode[] | null | undefined) ?? null;
}

export async function writeGoal(
  db: Database,
  accountId: number,
  flowId: number,
  conditions: ConditionNode[] | null,
): Promise<void> {
  await db
    .updateTable('flows')
    .set({ goal: conditions === null ? null : JSON.stringify(conditions), updatedAt: sql<Date>`now()` })
    .where('accountId', '=', accountId)
    .where('id', '=', flowId)
    .execute();
}

/** The goal as a filter over `people p`; null when the flow has none. A goal that no longer compiles warns once. */
export async function goalFilter(
  events: EventStore,
  db: Database,
  accountId: number,
  flowId: number,
  now?: Date,
): Promise<RawBuilder<SqlBool> | null> {
  const goal = await readGoal(db, accountId, flowId);
  if (!goal || goal.length === 0) return null;
  const { ctx } = await loadCompileContext(db, accountId, now);
  const problem = conditionsProblem(goal, ctx);
  if (problem) {
    await addFlowWarning(db, accountId, flowId, `The flow’s goal is not checked: ${problem}`);
    return null;
  }
  return compileTree(events, goal, ctx);
}

/**
 * Convert, in one statement, the runs of a flow whose person matches the goal: a conversion row each (unique per run,
 * so converting again counts nothing) and the run ends (done, no step). `runIds` limits it to a batch's runs, which
 * may have just finished (their last step reached the goal); without it, every run in progress of the flow.
 * Returns the converted runs.
 */
export async function convertReached(
  db: Database,
  accountId: number,
  flowId: number,
  filter: RawBuilder<SqlBool>,
  runIds?: readonly number[],
): Promise<number[]> {
  if (runIds && runIds.length === 0) return [];
  const scope = runIds
    ? sql`r.id = any(${intArray(runIds)}::bigint[]) and r.status in ('active', 'waiting', 'done')
          and not exists (select 1 from flow_conversions c where c.account_id = r.account_id and c.run_id = r.id)`
    : sql`r.status in ('active', 'waiting')`;
  const { rows } = await sql<{ id: string }>`
    with hit as (
      select r.id, r.person_id, r.seq, r.step_id from flow_runs r
      join people p on p.account_id = r.account_id and p.id = r.person_id
      where r.account_id = ${accountId} and r.flow_id = ${flowId} and ${scope} and coalesce(${filter}, false)
      order by r.id
      for update of r
    ),
    counted as (
      insert into flow_conversions (account_id, run_id, flow_id, person_id)
      select ${accountId}, hit.id, ${flowId}, hit.person_id from hit
      on conflict do nothing
    ),
    -- A run converted before its first batch has executed nothing yet: it entered at its trigger, which counts.
    entered as (
      insert into flow_run_steps (account_id, run_id, seq, flow_id, step_id)
      select ${accountId}, hit.id, 1, ${flowId}, hit.step_id from hit where hit.seq = 0 and hit.step_id is not null
      on conflict do nothing
    )
    update flow_runs r set status = 'done', step_id = null, wake_at = null, last_error = null,
      seq = case when r.seq = 0 and r.step_id is not null then 1 else r.seq end,
      finished_at = coalesce(r.finished_at, now()), updated_at = now()
    from hit where r.account_id = ${accountId} and r.id = hit.id
    returning r.id`.execute(db);
  return rows.map((r) => Number(r.id));
}

/** Conversions and entries of a flow, and per step the runs that passed it and, of those, the converted ones. */
export async function conversionFigures(db: Database, accountId: number, flowId: number) {
  const { rows: totals } = await sql<{ conversions: number; entries: number }>`
    select (select count(*) from flow_conversions where account_id = ${accountId} and flow_id = ${flowId})::int as conversions,
           (select count(*) from flow_runs where account_id = ${accountId} and flow_id = ${flowId})::int as entries`.execute(
    db,
  );
  // Per step through the (account, step) index of flow_run_steps: a flow has at most 200 steps.
  const { rows: steps } = await sql<{ stepId: string; passed: number; converted: number }>`
    select s.id as "stepId", coalesce(x.passed, 0)::int as passed, coalesce(x.converted, 0)::int as converted
    from flow_steps s
    left join lateral (
      select count(distinct rs.run_id) as passed, count(distinct rs.run_id) filter (where c.run_id is not null) as converted
      from flow_run_steps rs
      left join flow_conversions c on c.account_id = rs.account_id and c.run_id = rs.run_id
      where rs.account_id = ${accountId} and rs.step_id = s.id
    ) x on true
    where s.account_id = ${accountId} and s.flow_id = ${flowId}
    order by s.id`.execute(db);
  return {
    ...(totals[0] ?? { conversions: 0, entries: 0 }),
    steps: steps.map((s) => ({ stepId: Number(s.stepId), passed: s.passed, converted: s.converted })),
  };
}

/**
 * The check the flow's job makes before its batches (the people and events triggers wake it when a person with a
 * run in progress changes): every run in progress of an active flow whose person matches the goal converts.
 */
export async function convertFlowGoal(
  events: EventStore,
  db: Database,
  accountId: number,
  flowId: number,
): Promise<number> {
  const head = await db
    .selectFrom('flows')
    .select(['status', 'archived', 'goal'])
    .where('accountId', '=', accountId)
    .where('id', '=', flowId)
    .executeTakeFirst();
  if (!head || head.goal === null || head.status !== 'active' || head.archived) return 0;
  const filter = await goalFilter(events, db, accountId, flowId);
  return filter ? (await convertReached(db, accountId, flowId, filter)).length : 0;
}
