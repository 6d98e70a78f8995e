import { flowGoalMessages, type ConditionNode, type FlowConversions, type FlowGoal } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { badRequest } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { conditionsProblem, loadCompileContext } from '../segments/segment-context.ts';
import { flowOrThrow } from './flow-lookup.ts';
import { scheduleFlow } from './flows.jobs.ts';
import { conversionFigures, readGoal, writeGoal } from './goals.queries.ts';

/** GET /v1/integrations/{id}/goal: the flow's goal conditions, or null. */
export async function getGoal(db: Database, session: Session, flowId: number): Promise<FlowGoal> {
  await flowOrThrow(db, session.accountId, flowId);
  return { conditions: await readGoal(db, session.accountId, flowId) };
}

/**
 * PUT /v1/integrations/{id}/goal: set the goal (checked as a segment's conditions are) or remove it (null). The
 * flow's job is woken so runs in progress whose person already matches convert within seconds.
 */
export async function setGoal(
  db: Database,
  session: Session,
  flowId: number,
  conditions: ConditionNode[] | null,
): Promise<FlowGoal & { message: string }> {
  const { accountId } = session;
  await flowOrThrow(db, accountId, flowId, true);
  if (conditions !== null) {
    if (conditions.length === 0) throw badRequest(flowGoalMessages.emptyGoal);
    const { ctx } = await loadCompileContext(db, accountId);
    const problem = conditionsProblem(conditions, ctx);
    if (problem) throw badRequest(problem);
  }
  await writeGoal(db, accountId, flowId, conditions);
  if (conditions !== null) await scheduleFlow(db, accountId, flowId);
  return { conditions, message: conditions === null ? flowGoalMessages.removed : flowGoalMessages.saved };
}

/** GET /v1/integrations/{id}/conversions: conversions, the rate over entries, and per step the runs passed and converted. */
export async function getConversions(
  db: Database,
  session: Session,
  flowId: number,
): Promise<FlowConversions> {
  const { accountId } = session;
  await flowOrThrow(db, accountId, flowId);
  const [goal, figures] = await Promise.all([
    readGoal(db, accountId, flowId),
    conversionFigures(db, accountId, flowId),
  ]);
  return {
    hasGoal: goal !== null,
    conversions: figures.conversions,
    entries: figures.entries,
    rate: figures.entries === 0 ? 0 : figures.conversions / figures.entries,
    steps: figures.steps,
  };
}
