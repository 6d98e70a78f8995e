import { sql, type SqlBool } from 'kysely';
import { archivedSegmentId, segmentMessages } from '@herald/contracts';
import type { ConditionCompiler } from '../context.ts';

/** In or not in another segment: that segment's conditions, inlined over the same person. */
export const segmentCompiler: ConditionCompiler<'segment'> = {
  compile: (condition, state) => {
    const inner =
      condition.segmentId === archivedSegmentId
        ? sql<SqlBool>`p.archived_at is not null`
        : state.segmentFilter(condition.segmentId);
    return condition.operator === 'in' ? sql<SqlBool>`(${inner})` : sql<SqlBool>`not (${inner})`;
  },
  validate: (condition, ctx) =>
    condition.segmentId === archivedSegmentId || ctx.segments.has(condition.segmentId)
      ? null
      : segmentMessages.unknownSegment(condition.segmentId),
  // Whether the referenced segment moves with time is decided by the caller, which can follow the reference.
  isTimeRelative: () => false,
};
