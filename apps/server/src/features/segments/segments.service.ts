import {
  archivedSegmentId,
  automaticSegmentTypes,
  bodyIdMismatch,
  conditionKey,
  segmentMessages,
  type ConditionNode,
  type CreateSegmentBody,
  type Segment,
  type UpdateSegmentBody,
} from '@herald/contracts';
import { referencedSegments } from '@herald/segments';
import type { z } from 'zod';
import type { Database } from '../../db/connection.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { findPerson } from '../people/people.queries.ts';
import {
  assertValid,
  conditionsOf,
  conditionsProblem,
  loadCompileContext,
  toSegment,
} from './segment-context.ts';
import { assertSegmentValid } from './segment-people.service.ts';
import { queueSegmentRefresh } from './segments.jobs.ts';
import {
  countArchived,
  deleteSegment,
  findSegment,
  insertSegment,
  lockSegmentWrites,
  segmentsOfPerson,
  updateSegment,
} from './segments.queries.ts';

const automaticOrder = new Map<string, number>(automaticSegmentTypes.map((t, i) => [t, i]));

/** GET /v1/segments: automatic segments first (with the virtual Archived one), then the account's by name. */
export async function listAccountSegments(db: Database, session: Session): Promise<{ segments: Segment[] }> {
  const { rows } = await loadCompileContext(db, session.accountId);
  // A segment never built yet (a new account's automatic ones) is built now rather than at the next schedule.
  for (const row of rows)
    if (row.refreshedAt === null && row.autoType !== 'allPeople')
      await queueSegmentRefresh(db, session.accountId, row.id);
  const now = new Date().toISOString();
  const archived: Segment = {
    id: archivedSegmentId,
    name: 'Archived',
    color: '#495057',
    autoSegment: true,
    autoType: 'archived',
    conditions: [],
    memberCount: await countArchived(db, session.accountId),
    createdAt: now,
    updatedAt: now,
  };
  const segments = [...rows.map(toSegment), archived].sort((a, b) => {
    const ka = a.autoType ? automaticOrder.get(a.autoType)! : Infinity;
    const kb = b.autoType ? automaticOrder.get(b.autoType)! : Infinity;
    return ka !== kb ? ka - kb : a.name.localeCompare(b.name) || a.id - b.id;
  });
  return { segments };
}

/** POST /v1/segments/: a new segment, its conditions checked against the account, built in the background. */
export async function createSegment(db: Database, session: Session, body: z.infer<typeof CreateSegmentBody>) {
  await lockSegmentWrites(db, session.accountId);
  const conditions = (body.conditions ?? []) as ConditionNode[];
  const { ctx } = await loadCompileContext(db, session.accountId);
  assertValid(conditionsProblem(conditions, ctx));
  const row = await insertSegment(db, session.accountId, {
    name: body.name,
    color: body.color ?? null,
    conditions,
  });
  await queueSegmentRefresh(db, session.accountId, row.id);
  return { segment: toSegment(row), message: segmentMessages.saved };
}

/** Equal trees whatever the order of their keys (a stored tree comes back from jsonb with its keys reordered). */
function sameConditions(a: readonly ConditionNode[], b: readonly ConditionNode[]): boolean {
  return a.length === b.length && a.every((node, i) => conditionKey(node) === conditionKey(b[i]!));
}

async function editableSegment(db: Database, accountId: number, id: number) {
  if (id === archivedSegmentId) throw badRequest(segmentMessages.automatic);
  const row = await findSegment(db, accountId, id);
  if (!row) throw notFound(segmentMessages.notFound);
  if (row.autoType) throw badRequest(segmentMessages.automatic);
  return row;
}

/** PATCH /v1/segments/{id}: name, colour and conditions; changed conditions rebuild the members. */
export async function saveSegment(
  db: Database,
  session: Session,
  id: number,
  body: z.infer<typeof UpdateSegmentBody>,
) {
  if (body.id !== id) throw badRequest(bodyIdMismatch('segment'));
  await lockSegmentWrites(db, session.accountId);
  const row = await editableSegment(db, session.accountId, id);
  const conditions = body.conditions as ConditionNode[] | undefined;
  const conditionsChanged = conditions !== undefined && !sameConditions(conditions, conditionsOf(row));
  if (conditions && conditionsChanged) {
    const { ctx } = await loadCompileContext(db, session.accountId);
    assertValid(conditionsProblem(conditions, ctx, id));
  }
  const saved = await updateSegment(db, session.accountId, id, {
    name: body.name,
    ...(body.color !== undefined ? { color: body.color } : {}),
    ...(conditions !== undefined ? { conditions } : {}),
    conditionsChanged,
  });
  if (conditionsChanged) await queueSegmentRefresh(db, session.accountId, id);
  return { segment: toSegment(saved), message: segmentMessages.saved };
}

/** DELETE /v1/segments/{id}: refused while another segment's conditions use it. */
export async function removeSegment(db: Database, session: Session, id: number) {
  await lockSegmentWrites(db, session.accountId);
  await editableSegment(db, session.accountId, id);
  const { rows } = await loadCompileContext(db, session.accountId);
  const users = rows.filter((r) => r.id !== id && referencedSegments(conditionsOf(r)).includes(id));
  if (users.length)
    throw conflict(
      `This segment is used by the segment ${users.map((u) => `"${u.name}"`).join(', ')}. Remove that condition first.`,
      'segment-in-use',
    );
  await deleteSegment(db, session.accountId, id);
  return { message: segmentMessages.deleted };
}

/** 404 unless the segment exists (id 1, Archived, always does); 400 when its conditions no longer hold. */
export async function assertSegmentUsable(db: Database, accountId: number, id: number) {
  await assertSegmentValid(db, accountId, id);
}

/** GET /v1/people/{id}/segments: the kept segments a person is in now. */
export async function personSegments(db: Database, session: Session, personId: number) {
  if (!(await findPerson(db, session.accountId, personId))) throw notFound(segmentMessages.personNotFound);
  return { segments: await segmentsOfPerson(db, session.accountId, personId) };
}
