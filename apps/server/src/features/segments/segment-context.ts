import {
  automaticSegmentConditions,
  segmentMessages,
  type AutomaticSegmentType,
  type ConditionNode,
  type PersonFieldType,
  type Segment,
} from '@herald/contracts';
import {
  firstClassFieldTypes,
  referencedSegments,
  segmentFilter,
  validateConditions,
  type CompileContext,
} from '@herald/segments';
import type { RawBuilder, SqlBool } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { EventStore } from '../../db/event-store.ts';
import { badRequest } from '../../http/errors.ts';
import { customFieldTypes, listSegments, type SegmentRow } from './segments.queries.ts';

/** The conditions a stored segment stands for: its own, or, for an automatic one, those defined in code. */
export function conditionsOf(row: Pick<SegmentRow, 'autoType' | 'conditions'>): ConditionNode[] {
  if (row.autoType && row.autoType in automaticSegmentConditions) {
    return automaticSegmentConditions[row.autoType as Exclude<AutomaticSegmentType, 'archived'>];
  }
  return row.conditions as unknown as ConditionNode[];
}

/** The API shape of a stored segment. */
export function toSegment(row: SegmentRow): Segment {
  return {
    id: row.id,
    name: row.name,
    color: row.color,
    autoSegment: row.autoType !== null,
    autoType: row.autoType as Segment['autoType'],
    conditions: conditionsOf(row),
    memberCount: row.autoType === 'allPeople' ? null : row.memberCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Everything the compiler needs about the account: field types and every segment's conditions. */
export async function loadCompileContext(
  db: Database,
  accountId: number,
  now = new Date(),
): Promise<{ ctx: CompileContext; rows: SegmentRow[] }> {
  const [fields, rows] = await Promise.all([customFieldTypes(db, accountId), listSegments(db, accountId)]);
  const fieldTypes = new Map<string, PersonFieldType>(fields.map((f) => [f.name, f.type as PersonFieldType]));
  for (const [name, type] of firstClassFieldTypes) fieldTypes.set(name, type);
  const segments = new Map<number, ConditionNode[]>(rows.map((r) => [r.id, conditionsOf(r)]));
  return { ctx: { accountId, now, fieldTypes, segments }, rows };
}

/**
 * The first problem of a tree as the user sees it (see `validateConditions`), including the problems of the
 * stored segments it refers to, whose conditions are inlined with it: a field one of them uses may have been
 * deleted or changed type since that segment was saved.
 */
export function conditionsProblem(
  conditions: readonly ConditionNode[],
  ctx: CompileContext,
  selfId?: number,
): string | null {
  return problemWithReferences(conditions, ctx, selfId, new Set(selfId === undefined ? [] : [selfId]));
}

function problemWithReferences(
  conditions: readonly ConditionNode[],
  ctx: CompileContext,
  selfId: number | undefined,
  seen: ReadonlySet<number>,
): string | null {
  const problem = validateConditions(conditions, ctx, selfId);
  if (problem) return problem;
  for (const ref of referencedSegments(conditions)) {
    const inner = ctx.segments.get(ref);
    if (!inner || seen.has(ref)) continue;
    const innerProblem = problemWithReferences(inner, ctx, ref, new Set([...seen, ref]));
    if (innerProblem) return innerProblem;
  }
  return null;
}

/**
 * The SQL filter of a tree over `people p`, its event conditions answered by the event store (on ClickHouse, each
 * is a set of people asked there; on PostgreSQL they read the events table): every compile of a tree goes here.
 */
export async function compileTree(
  events: EventStore,
  conditions: readonly ConditionNode[],
  ctx: CompileContext,
  selfId?: number,
): Promise<RawBuilder<SqlBool>> {
  return segmentFilter(conditions, await events.withEventSets(ctx, conditions), selfId);
}

/** The SQL filter of a stored segment, or why its conditions no longer hold (it answers 400 until edited). */
export async function storedSegmentFilter(
  events: EventStore,
  row: Pick<SegmentRow, 'id' | 'autoType' | 'conditions'>,
  ctx: CompileContext,
): Promise<{ filter: RawBuilder<SqlBool> } | { problem: string }> {
  const conditions = conditionsOf(row);
  const problem = conditionsProblem(conditions, ctx, row.id);
  return problem ? { problem } : { filter: await compileTree(events, conditions, ctx, row.id) };
}

/** Refuse a tree the compiler cannot use, with the message the user sees. */
export function assertValid(problem: string | null): void {
  if (problem) throw badRequest(problem);
}

export const stillBuilding = segmentMessages.stillBuilding;
