export { firstClassFieldTypes, type CompileContext } from './context.ts';
export { segmentFilter, mentionsArchived } from './compile.ts';
export { validateConditions, isTimeRelative, referencedSegments } from './validate.ts';
export { explainQuery } from './explain.ts';
export { tagChangeReads, tagChangeMatters, type TagChangeReads } from './dependence.ts';
export { parseConditionDate } from './dates.ts';
export {
  eventConditionsOf,
  eventConditionKey,
  eventSetQuery,
  isEventCondition,
  jsonTextCh,
  type EventCondition,
  type EventSet,
  type EventSetQuery,
} from './event-sets.ts';
