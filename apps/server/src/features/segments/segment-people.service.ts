import type { RawBuilder, SqlBool } from 'kysely';
import {
  archivedSegmentId,
  segmentMessages,
  type ConditionNode,
  type ExplainBody,
  type PreviewConditionsBody,
  type SegmentPeopleQuery,
} from '@herald/contracts';
import { explainQuery, type CompileContext } from '@herald/segments';
import type { z } from 'zod';
import type { Database } from '../../db/connection.ts';
import type { EventStore } from '../../db/event-store.ts';
import { AppError, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { toPerson } from '../people/people.queries.ts';
import {
  assertValid,
  compileTree,
  conditionsOf,
  conditionsProblem,
  loadCompileContext,
} from './segment-context.ts';
import {
  countMatching,
  findSegment,
  idsMatching,
  limitStatementTime,
  pageMatching,
  recentEventNames,
} from './segments.queries.ts';

/** How long a count or a page may take (and wait for a table lock) before the answer is "still building". */
const readLimits = { statementMs: 20_000, lockMs: 3_000 };

/** Run segment reads under a time limit; a time-out or lock time-out answers 503 'Segment is still building'. */
async function timeLimited<T>(db: Database, work: () => Promise<T>): Promise<T> {
  await limitStatementTime(db, readLimits);
  try {
    return await work();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === '57014' || code === '55P03')
      throw new AppError('ServiceError', segmentMessages.stillBuilding);
    throw error;
  }
}

/** The conditions a segment stands for (id 1 is the virtual Archived segment), with the account's compile context; 404 if unknown. */
async function segmentConditions(
  db: Database,
  accountId: number,
  id: number,
): Promise<{ ctx: CompileContext; conditions: ConditionNode[]; selfId?: number }> {
  const { ctx } = await loadCompileContext(db, accountId);
  if (id === archivedSegmentId) return { ctx, conditions: [{ type: 'status', status: 'archived' }] };
  const row = await findSegment(db, accountId, id);
  if (!row) throw notFound(segmentMessages.notFound);
  return { ctx, conditions: conditionsOf(row), selfId: id };
}

/** 404 unless the segment exists; 400 with the reason when its stored conditions no longer hold. Compiles nothing. */
export async function assertSegmentValid(db: Database, accountId: number, id: number): Promise<void> {
  const { ctx, conditions, selfId } = await segmentConditions(db, accountId, id);
  assertValid(conditionsProblem(conditions, ctx, selfId));
}

/** The SQL filter of a segment; 400 with the reason when its stored conditions no longer hold. */
export async function filterOfSegment(
  events: EventStore,
  db: Database,
  accountId: number,
  id: number,
): Promise<RawBuilder<SqlBool>> {
  const { ctx, conditions, selfId } = await segmentConditions(db, accountId, id);
  assertValid(conditionsProblem(conditions, ctx, selfId));
  return compileTree(events, conditions, ctx, selfId);
}

/** GET /v1/segments/{id}/preview: how many people match now. */
export async function previewSegment(events: EventStore, db: Database, session: Session, id: number) {
  const filter = await filterOfSegment(events, db, session.accountId, id);
  return timeLimited(db, () => countMatching(db, filter));
}

/** POST /v1/segments/preview: the live count of a tree being edited. */
export async function previewConditions(
  events: EventStore,
  db: Database,
  session: Session,
  body: z.infer<typeof PreviewConditionsBody>,
) {
  const conditions = body.conditions as ConditionNode[];
  const { ctx } = await loadCompileContext(db, session.accountId);
  assertValid(conditionsProblem(conditions, ctx, body.segmentId));
  const filter = await compileTree(events, conditions, ctx, body.segmentId);
  return timeLimited(db, () => countMatching(db, filter));
}

/** GET /v1/segments/{id}/people: one page, sorted; one extra row tells whether more follow. */
export async function segmentPeople(
  events: EventStore,
  db: Database,
  session: Session,
  id: number,
  query: z.infer<typeof SegmentPeopleQuery>,
) {
  const filter = await filterOfSegment(events, db, session.accountId, id);
  const rows = await timeLimited(db, () =>
    pageMatching(db, session.accountId, filter, { ...query, limit: query.limit + 1 }),
  );
  return { users: rows.slice(0, query.limit).map(toPerson), hasMore: rows.length > query.limit };
}

/** POST /v1/segments/{id}/explain: each condition's verdict for one person (saved or unsaved conditions). */
export async function explainPerson(
  events: EventStore,
  db: Database,
  session: Session,
  id: number,
  body: z.infer<typeof ExplainBody>,
) {
  const stored = await segmentConditions(db, session.accountId, id);
  const conditions = (body.conditions as ConditionNode[] | undefined) ?? stored.conditions;
  assertValid(conditionsProblem(conditions, stored.ctx, stored.selfId));
  const ctx = await events.withEventSets(stored.ctx, conditions);
  const { query, toVerdicts } = explainQuery(conditions, ctx, body.personId, stored.selfId);
  const { rows } = await timeLimited(db, () => query.execute(db));
  const row = rows[0];
  if (!row) throw notFound(segmentMessages.personNotFound);
  return { personId: body.personId, matches: row.matches === true, verdicts: toVerdicts(row) };
}

/** GET /v1/segments/event-names: the newest 200 tracked event names, for the event condition's suggestions. */
export async function eventNames(db: Database, session: Session) {
  return { names: await recentEventNames(db, session.accountId, 200) };
}

/** Ids of everyone a segment holds now, for bulk actions (404 for an unknown segment). */
export async function segmentPeopleIds(
  events: EventStore,
  db: Database,
  accountId: number,
  id: number,
): Promise<number[]> {
  return idsMatching(db, await filterOfSegment(events, db, accountId, id));
}
