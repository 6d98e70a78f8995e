import type { OperationConfig, OperationKey } from '@herald/contracts';
import type { Effect, EngineStep, FlowRun } from './types.ts';

/** An effect as a step handler states it; advance() adds the run's key and the step id. */
export type EffectBody = Effect extends infer E
  ? E extends Effect
    ? Omit<E, 'key' | 'stepId'>
    : never
  : never;

/** What a step handler sees besides its configuration. */
export type StepContext = {
  run: FlowRun;
  step: EngineStep;
  now: Date;
  timeZone: string;
  /** The answer of this step's filter for the run; set for filter steps only (advance asks for it before executing). */
  fact: boolean | undefined;
};

/** What executing a step decided. */
export type StepOutcome =
  /** Go on along the link whose condition is `branch` (null: the plain link). */
  | { kind: 'next'; effects: EffectBody[]; branch: string | null }
  /** Go on along the plain link once `wakeAt` has come (at once when it is not after now). */
  | { kind: 'wait'; effects: EffectBody[]; wakeAt: Date }
  /** The run is over (end flow). */
  | { kind: 'end'; effects: EffectBody[] };

/** One step type: its catalogue entry, and how a run executes it. */
export type StepHandler<K extends OperationKey = OperationKey> = {
  /** Human label, used in the catalogue and in validation messages ('Send email'). */
  label: string;
  /** One line saying what the step does (the catalogue popup's subtitle). */
  description: string;
  /** A Tabler icon component name (`@tabler/icons-react`), e.g. 'IconMail'. */
  icon: string;
  /** The message a run fails with, and the step's problem, when its configuration does not fit its schema. */
  invalidConfig?: string;
  /** Run-time checks beyond the schema (the schema has passed); a message makes the run fail. */
  check?: (config: OperationConfig<K>) => string | null;
  /** True for triggers: a run is created at them, and their configuration is not checked again when executed. */
  isEntryOnly?: boolean;
  execute: (config: OperationConfig<K>, context: StepContext) => StepOutcome;
};

/** Shorthand for the plain "go on" outcome. */
export const next = (effects: EffectBody[] = [], branch: string | null = null): StepOutcome => ({
  kind: 'next',
  effects,
  branch,
});
