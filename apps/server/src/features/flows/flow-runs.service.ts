import { flowMessages } from '@herald/contracts';
import {
  advance,
  isValidTimeZone,
  type Effect,
  type FlowDefinition,
  type FlowRun,
} from '@herald/flow-engine';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { Services } from '../../services.ts';
import { applyEffects, seqOf } from './flow-effects.service.ts';
import { emailForSend } from './flow-effects.queries.ts';
import { answerFilters } from './flow-runs.facts.ts';
import {
  addFlowWarning,
  claimDueRuns,
  flowHead,
  loadFlowDefinition,
  recordExecuted,
  saveRuns,
  type ExecutedStep,
} from './flow-runs.queries.ts';
import { convertReached, goalFilter } from './goals.queries.ts';

/**
 * One batch of a flow's due runs, in one transaction: claim (row locks are the lease), advance each run with the
 * pure engine, answer the filters they stopped at set-wise and advance them again, then write effects, executed
 * steps and runs. A crash anywhere rolls the whole batch back; the runs are claimed again as they were.
 */

/** Rounds of "answer the filters, advance again" per batch; a run still asking after them goes on next batch. */
const maxFilterRounds = 8;

/** Flow definitions by flow, kept while their version is current (a batch checks the version each time). */
const definitions = new Map<string, FlowDefinition>();

async function definitionOf(
  db: Database,
  accountId: number,
  flowId: number,
  version: number,
): Promise<FlowDefinition> {
  const key = `${accountId}:${flowId}`;
  const cached = definitions.get(key);
  if (cached && cached.version === version) return cached;
  const flow = await loadFlowDefinition(db, accountId, flowId, version);
  if (definitions.size > 500) definitions.clear();
  definitions.set(key, flow);
  return flow;
}

interface RunState {
  run: FlowRun;
  zone: string;
  facts: Record<number, boolean>;
  effects: Effect[];
  needs: number | null;
}

/** Fail a run softly at a step (its segment or email is gone): effects from that step on are dropped. */
function failAt(state: RunState, stepId: number, seq: number, message: string) {
  state.effects = state.effects.filter((e) => seqOf(e.key) < seq);
  state.run = { ...state.run, status: 'failed', stepId, seq: seq - 1, wakeAt: null, lastError: message };
  state.needs = null;
}

export interface BatchResult {
  /** Runs claimed; 0 when none was due (or the flow is not active). */
  claimed: number;
  /** Send steps that queued deliveries: their `deliver` job is woken after commit. */
  sendSteps: Set<number>;
}

export async function processBatch(
  services: Services,
  db: Database,
  accountId: number,
  flowId: number,
  limit: number,
): Promise<BatchResult> {
  await sql`select set_config('statement_timeout', '0', true), set_config('synchronous_commit', 'off', true)`.execute(
    db,
  );
  const head = await flowHead(db, accountId, flowId);
  // A flow switched off keeps its people where they are; they go on when it is switched on again.
  if (!head || head.status !== 'active' || head.archived) return { claimed: 0, sendSteps: new Set() };
  const due = await claimDueRuns(db, accountId, flowId, limit);
  if (!due.length) return { claimed: 0, sendSteps: new Set() };
  // A run whose person has reached the flow's goal ends instead of advancing (checked again after the batch's effects).
  const goal = head.hasGoal ? await goalFilter(services.events, db, accountId, flowId) : null;
  const converted = goal
    ? new Set(
        await convertReached(
          db,
          accountId,
          flowId,
          goal,
          due.map((c) => c.run.id),
        ),
      )
    : new Set<number>();
  const claimed = converted.size ? due.filter((c) => !converted.has(c.run.id)) : due;
  if (!claimed.length) return { claimed: due.length, sendSteps: new Set() };
  const flow = await definitionOf(db, accountId, flowId, head.version);
  const { rows: clock } = await sql<{ now: Date }>`select now() as now`.execute(db);
  // The database's clock decided the runs were due; the engine must not find them early.
  const now = new Date(Math.max(Date.now(), clock[0]!.now.getTime()));
  const accountZone = head.timeZone && isValidTimeZone(head.timeZone) ? head.timeZone : 'UTC';
  const states: RunState[] = claimed.map(({ run, personZone }) => ({
    run,
    zone: personZone && isValidTimeZone(personZone) ? personZone : accountZone,
    facts: {},
    effects: [],
    needs: null,
  }));

  let pending = states;
  for (let round = 0; pending.length && round <= maxFilterRounds; round++) {
    const asked = new Map<number, number[]>();
    for (const state of pending) {
      const result = advance(flow, state.run, { facts: state.facts, timeZone: state.zone }, now);
      state.run = result.run;
      state.effects.push(...result.effects);
      state.needs = result.needs?.stepId ?? null;
      if (state.needs !== null) {
        const list = asked.get(state.needs);
        if (list) list.push(state.run.personId);
        else asked.set(state.needs, [state.run.personId]);
      }
    }
    pending = pending.filter((s) => s.needs !== null);
    if (!pending.length || round === maxFilterRounds) break;
    const answers = await answerFilters(services.events, db, accountId, flow.steps, asked);
    for (const state of pending) {
      const answer = answers.get(state.needs!);
      if (!answer) continue;
      if ('problem' in answer) {
        failAt(state, state.needs!, state.run.seq + 1, answer.problem);
        await addFlowWarning(db, accountId, flowId, answer.problem);
        continue;
      }
      state.facts = { ...state.facts, [state.needs!]: answer.answers.get(state.run.personId) ?? false };
    }
    pending = pending.filter((s) => s.needs !== null);
  }

  // Send steps whose email was deleted: those runs fail softly at that step, and the flow says why.
  const emailIds = new Set<number>();
  for (const state of states) for (const e of state.effects) if (e.kind === 'send') emailIds.add(e.emailId);
  const emails = new Map<number, NonNullable<Awaited<ReturnType<typeof emailForSend>>>>();
  for (const id of emailIds) {
    const email = await emailForSend(db, accountId, id);
    if (email) emails.set(id, email);
    else await addFlowWarning(db, accountId, flowId, flowMessages.emailGone(id));
  }
  for (const state of states) {
    const gone = state.effects.find((e) => e.kind === 'send' && !emails.has(e.emailId));
    if (gone && gone.kind === 'send')
      failAt(state, gone.stepId, seqOf(gone.key), flowMessages.emailGone(gone.emailId));
  }

  const executed: ExecutedStep[] = [];
  for (const state of states)
    for (const e of state.effects)
      if (e.kind === 'executed') executed.push({ runId: state.run.id, seq: seqOf(e.key), stepId: e.stepId });
  await recordExecuted(db, accountId, flowId, executed);
  const sendSteps = await applyEffects(
    services,
    db,
    accountId,
    flowId,
    states.map((s) => ({ runId: s.run.id, personId: s.run.personId, effects: s.effects })),
    emails,
  );
  await saveRuns(
    db,
    accountId,
    states.map((s) => s.run),
  );
  if (goal)
    await convertReached(
      db,
      accountId,
      flowId,
      goal,
      states.map((s) => s.run.id),
    );
  return { claimed: due.length, sendSteps };
}
