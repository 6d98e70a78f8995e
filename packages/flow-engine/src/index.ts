export { advance, maxStepsPerCall, nextStepId } from './advance.ts';
export { catalogue, stepLabel, type CatalogueItem } from './catalogue.ts';
export { configProblem, parseStepConfig } from './config.ts';
export { dateFieldFireTime, fieldCalendarDate, nextAnnualFire, nextDateFieldFire } from './date-triggers.ts';
export { toFlowDefinition, type LinkRow, type StepRow } from './definition.ts';
export { isWaitOperation, stepHandlers } from './registry.ts';
export { abBucket, chooseVariant } from './steps/ab-test.ts';
export { waitOf } from './steps/delay.ts';
export { isPausingStep, stepBranches, validateFlow, wouldCreateCycleWithoutWait } from './validate.ts';
export { afterDuration, nextWakeTime, nextWindowStart } from './wait-time.ts';
export { isValidTimeZone, localTimeAt, zonedToInstant } from './zoned-time.ts';
export type { StepContext, StepHandler, StepOutcome } from './step-handler.ts';
export type * from './types.ts';
export {
  applyDiff,
  diffVersions,
  isEmptyDiff,
  normalizeSnapshot,
  stepSettingChanges,
} from './version-diff.ts';
export {
  simulateRun,
  type SimulatedStepRecord,
  type SimulationEnding,
  type SimulationHooks,
  type SimulationOptions,
  type SimulationOutcome,
} from './simulate.ts';
