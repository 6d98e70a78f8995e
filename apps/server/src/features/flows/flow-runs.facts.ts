import { flowMessages, type ConditionNode, type OperationConfig } from '@herald/contracts';
import type { CompileContext } from '@herald/segments';
import type { EngineStep } from '@herald/flow-engine';
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { intArray } from '../../db/arrays.ts';
import type { Database } from '../../db/connection.ts';
import { compileTree, conditionsProblem, loadCompileContext } from '../segments/segment-context.ts';
import type { EventStore } from '../../db/event-store.ts';

/**
 * Answers of filter steps, computed set-wise: one query per filter step for every run of the batch stopped at it.
 * Conditions compile with @herald/segments as segments do; "has tag" and "is in segment" are plain SQL.
 */

export type FilterAnswers = { answers: Map<number, boolean> } | { problem: string };

/** The condition over `people p` a filter step stands for, or why it cannot be answered (a segment deleted). */
export async function filterCondition(
  events: EventStore,
  db: Database,
  accountId: number,
  step: EngineStep,
  context: () => Promise<CompileContext>,
): Promise<{ filter: RawBuilder<SqlBool> } | { problem: string }> {
  const config = step.config;
  switch (step.operationKey) {
    case '/has-tag':
      return { filter: sql<SqlBool>`p.tags @> array[${(config as OperationConfig<'/has-tag'>).tag}::text]` };
    case '/in-segment': {
      const segmentId = (config as OperationConfig<'/in-segment'>).segment.id;
      const ctx = await context();
      const conditions = ctx.segments.get(segmentId);
      if (!conditions) return { problem: flowMessages.segmentGone(segmentId) };
      const problem = conditionsProblem(conditions, ctx, segmentId);
      if (problem) return { problem };
      return { filter: await compileTree(events, conditions, ctx, segmentId) };
    }
    case '/check-email-activity':
    case '/check-field':
    case '/visited-page': {
      const condition = (config as { condition: ConditionNode }).condition;
      const ctx = await context();
      const problem = conditionsProblem([condition], ctx);
      if (problem) return { problem };
      return { filter: await compileTree(events, [condition], ctx) };
    }
    default:
      return { problem: flowMessages.unknownStep };
  }
}

/**
 * Answer each filter step for its people. `asked` maps a filter step to the people whose runs stopped at it.
 * A filter that cannot be answered (its segment or field is gone) gives its problem instead.
 */
export async function answerFilters(
  events: EventStore,
  db: Database,
  accountId: number,
  steps: ReadonlyMap<number, EngineStep>,
  asked: Map<number, number[]>,
): Promise<Map<number, FilterAnswers>> {
  let ctx: Promise<CompileContext> | undefined;
  const context = () => (ctx ??= loadCompileContext(db, accountId).then((c) => c.ctx));
  const out = new Map<number, FilterAnswers>();
  for (const [stepId, personIds] of asked) {
    const step = steps.get(stepId);
    if (!step) continue;
    const condition = await filterCondition(events, db, accountId, step, context);
    if ('problem' in condition) {
      out.set(stepId, condition);
      continue;
    }
    const ids = [...new Set(personIds)];
    const { rows } = await sql<{ id: string; yes: boolean }>`
      select p.id, coalesce(${condition.filter}, false) as yes from people p
      where p.account_id = ${accountId} and p.id = any(${intArray(ids)}::bigint[])`.execute(db);
    // A person deleted meanwhile answers no.
    const answers = new Map<number, boolean>(ids.map((id) => [id, false]));
    for (const row of rows) answers.set(Number(row.id), row.yes);
    out.set(stepId, { answers });
  }
  return out;
}
