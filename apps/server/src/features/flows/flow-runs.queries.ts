import { decodeInputFields, isOperationKey, operationConfigs, type InputFields } from '@herald/contracts';
import type { EngineStep, FlowDefinition, FlowRun, RunStatus } from '@herald/flow-engine';
import { sql } from 'kysely';
import { intArray } from '../../db/arrays.ts';
import type { Database } from '../../db/connection.ts';

/** SQL of flow runs: claiming due runs, the flow definition a batch runs on, and writing runs back. */

export interface ClaimedRun {
  run: FlowRun;
  /** The person's own time zone field (checked by the caller), when set. */
  personZone: string | null;
}

/**
 * Lock up to `limit` runs of a flow that are due now (active, or waiting with a wake time that has come), oldest
 * first. Rows other workers hold are skipped. The locks last until the transaction ends: a worker that dies gives
 * them back with its connection, and its uncommitted work with them.
 */
export async function claimDueRuns(
  db: Database,
  accountId: number,
  flowId: number,
  limit: number,
): Promise<ClaimedRun[]> {
  const { rows } = await sql<{
    id: string;
    personId: string;
    stepId: string | null;
    status: RunStatus;
    wakeAt: Date | null;
    seq: number;
    lastError: string | null;
    zone: string | null;
  }>`
    with due as (
      select r.id, r.person_id, r.step_id, r.status, r.wake_at, r.seq, r.last_error from flow_runs r
      where r.account_id = ${accountId} and r.flow_id = ${flowId} and r.status in ('active', 'waiting') and r.wake_at <= now()
      order by r.wake_at
      limit ${limit}
      for update skip locked
    )
    select d.id, d.person_id as "personId", d.step_id as "stepId", d.status, d.wake_at as "wakeAt", d.seq, d.last_error as "lastError",
      nullif(p.fields->>'timezone', '') as zone
    from due d left join people p on p.account_id = ${accountId} and p.id = d.person_id
  `.execute(db);
  return rows.map((r) => ({
    run: {
      id: Number(r.id),
      flowId,
      personId: Number(r.personId),
      stepId: r.stepId === null ? null : Number(r.stepId),
      status: r.status,
      wakeAt: r.status === 'waiting' && r.wakeAt ? r.wakeAt.toISOString() : null,
      seq: r.seq,
      lastError: r.lastError,
    },
    personZone: r.zone,
  }));
}

export interface FlowHead {
  status: string;
  archived: boolean;
  version: number;
  /** Whether the flow has a goal (its runs are checked against it). */
  hasGoal: boolean;
  timeZone: string | null;
}

/** The flow's status and version, and its account's time zone. */
export async function flowHead(
  db: Database,
  accountId: number,
  flowId: number,
): Promise<FlowHead | undefined> {
  const { rows } = await sql<FlowHead>`
    select f.status, f.archived, f.version, f.goal is not null as "hasGoal", a.timezone as "timeZone"
    from flows f join accounts a on a.id = f.account_id
    where f.account_id = ${accountId} and f.id = ${flowId}`.execute(db);
  return rows[0];
}

/** The engine's view of a flow: its steps with decoded configuration, and its links. */
export async function loadFlowDefinition(
  db: Database,
  accountId: number,
  flowId: number,
  version: number,
): Promise<FlowDefinition> {
  const [steps, links] = await Promise.all([
    db
      .selectFrom('flowSteps')
      .select(['id', 'operationKey', 'inputFields'])
      .where('accountId', '=', accountId)
      .where('flowId', '=', flowId)
      .execute(),
    db
      .selectFrom('flowLinks')
      .select(['source', 'target', 'condition'])
      .where('accountId', '=', accountId)
      .where('flowId', '=', flowId)
      .execute(),
  ]);
  const byId = new Map<number, EngineStep>();
  for (const step of steps) {
    // A step of a third-party service (not native) has no handler here; runs that reach it fail with its key.
    if (!isOperationKey(step.operationKey)) continue;
    // Read through the operation's schema, which fills in its defaults (a filter's condition saved through the API
    // without a window reads as "ever", as the editor would have saved it); a configuration it refuses stays as stored,
    // and the step's own checks report it.
    const config = decodeInputFields(step.inputFields as InputFields);
    const parsed = operationConfigs[step.operationKey].safeParse(config);
    byId.set(Number(step.id), {
      id: Number(step.id),
      operationKey: step.operationKey,
      config: parsed.success ? (parsed.data as Record<string, unknown>) : config,
    });
  }
  return {
    id: flowId,
    version,
    steps: byId,
    links: links.map((l) => ({ source: Number(l.source), target: Number(l.target), condition: l.condition })),
  };
}

/** Write the batch's runs back in one statement; active runs become due now, waiting ones at their wake time. */
export async function saveRuns(db: Database, accountId: number, runs: FlowRun[]): Promise<void> {
  if (!runs.length) return;
  const ids = intArray(runs.map((r) => r.id));
  await sql`
    update flow_runs r set
      step_id = v.step_id, status = v.status, seq = v.seq, last_error = v.last_error,
      wake_at = case v.status when 'waiting' then v.wake_at when 'active' then now() else null end,
      finished_at = case when v.status in ('done', 'exited', 'failed') then now() end,
      updated_at = now()
    from (
      select unnest(${ids}::bigint[]) as id,
        unnest(${intArray(runs.map((r) => r.stepId))}::bigint[]) as step_id,
        unnest(${sql.val(runs.map((r) => r.status))}::text[]) as status,
        unnest(${intArray(runs.map((r) => r.seq))}::int[]) as seq,
        unnest(${sql.val(runs.map((r) => r.lastError))}::text[]) as last_error,
        unnest(${sql.val(runs.map((r) => r.wakeAt))}::timestamptz[]) as wake_at
    ) v
    where r.account_id = ${accountId} and r.id = v.id
      -- The runs are reached through their row addresses, each looked up by primary key (offset 0 keeps it a lookup):
      -- joined by id alone, the planner hashed every run of the account (100,000 in the flow bench) for each batch.
      -- The batch holds the runs' row locks, so their addresses stay as read.
      and r.ctid = any(array(
        select f.ctid from unnest(${ids}::bigint[]) as i(id)
        cross join lateral (select ctid from flow_runs f where f.account_id = ${accountId} and f.id = i.id offset 0) f
      ))
  `.execute(db);
}

export interface ExecutedStep {
  runId: number;
  seq: number;
  stepId: number;
}

/**
 * Record executed steps under the primary key (run, seq). A plain insert: a step recorded twice for the same run and
 * sequence number is an error that rolls the whole batch back, never a silent second execution.
 */
export async function recordExecuted(
  db: Database,
  accountId: number,
  flowId: number,
  steps: ExecutedStep[],
): Promise<void> {
  if (!steps.length) return;
  await sql`
    insert into flow_run_steps (account_id, run_id, seq, flow_id, step_id)
    select ${accountId}, unnest(${intArray(steps.map((s) => s.runId))}::bigint[]), unnest(${intArray(steps.map((s) => s.seq))}::int[]),
      ${flowId}, unnest(${intArray(steps.map((s) => s.stepId))}::bigint[])
  `.execute(db);
}

/** When the flow next has a run to execute (the earliest wake time of its live runs); null when none. */
export async function nextWake(db: Database, accountId: number, flowId: number): Promise<Date | null> {
  const { rows } = await sql<{ at: Date | null }>`
    select min(wake_at) as at from flow_runs where account_id = ${accountId} and flow_id = ${flowId} and status in ('active', 'waiting')`.execute(
    db,
  );
  return rows[0]?.at ?? null;
}

/** Add a warning to the flow (once), shown in its warning banner. */
export async function addFlowWarning(
  db: Database,
  accountId: number,
  flowId: number,
  warning: string,
): Promise<void> {
  await sql`
    update flows set warnings = warnings || jsonb_build_array(${warning}::text)
    where account_id = ${accountId} and id = ${flowId} and not warnings @> jsonb_build_array(${warning}::text)`.execute(
    db,
  );
}

/** Flows with runs due for a while that no worker has taken (owner connection: every account). */
export async function overdueFlows(
  db: Database,
  graceSeconds: number,
): Promise<{ accountId: number; flowId: number }[]> {
  const { rows } = await sql<{ accountId: string; flowId: string }>`
    select distinct r.account_id as "accountId", r.flow_id as "flowId" from flow_runs r
    join flows f on f.account_id = r.account_id and f.id = r.flow_id and f.status = 'active'
    where r.status in ('active', 'waiting') and r.wake_at < now() - make_interval(secs => ${graceSeconds})
    limit 200`.execute(db);
  return rows.map((r) => ({ accountId: Number(r.accountId), flowId: Number(r.flowId) }));
}

/** Enter people into a flow at its trigger step, by the flow's re-entry rule; returns how many runs started. */
export async function enterPeople(
  db: Database,
  accountId: number,
  flowId: number,
  triggerStepId: number,
  personIds: number[],
): Promise<number> {
  if (!personIds.length) return 0;
  const matches = personIds.map((id) => [accountId, flowId, id, triggerStepId]);
  const { rows } = await sql<{
    n: number;
  }>`select herald_flow_enter(${JSON.stringify(matches)}::jsonb) as n`.execute(db);
  return rows[0]?.n ?? 0;
}
