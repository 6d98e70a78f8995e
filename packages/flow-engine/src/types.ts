import type { OperationKey } from '@herald/contracts';

/**
 * The engine's view of a flow: steps with their decoded configuration (`decodeInputFields`), and links. The engine
 * is pure (docs/flows.md): the server loads this from the database, calls `advance`, and writes the
 * returned run and effects in one transaction.
 */
export type EngineStep = {
  id: number;
  operationKey: OperationKey;
  /** The decoded inputFields; the engine validates it against `operationConfigs[operationKey]`. */
  config: Record<string, unknown>;
};

export type EngineLink = { source: number; target: number; condition: string | null };

export type FlowDefinition = {
  id: number;
  /** Changes with every edit of steps or links. */
  version: number;
  steps: ReadonlyMap<number, EngineStep>;
  links: readonly EngineLink[];
};

export type RunStatus = 'active' | 'waiting' | 'done' | 'exited' | 'failed';

export type FlowRun = {
  id: number;
  flowId: number;
  personId: number;
  /** The step to execute next; null when the run is over. */
  stepId: number | null;
  status: RunStatus;
  /** ISO time a waiting run is due; null when not waiting. */
  wakeAt: string | null;
  /** Steps executed so far. The effect of the step executed as number n has the key `${run.id}:${n}`. */
  seq: number;
  /** Why the run stopped, when it failed or exited early. */
  lastError: string | null;
};

export type AdvanceInput = {
  /** Answers of filter steps for this run, keyed by step id, computed by the caller (set-wise, from the database). */
  facts?: Readonly<Record<number, boolean>>;
  /** The person's IANA time zone, else the account's; weekday waits and date triggers read clocks in it. */
  timeZone: string;
};

type Keyed = { key: string; stepId: number };
export type Effect =
  /** Every executed step records one, so "no step executed twice" can be counted from the database. */
  | (Keyed & { kind: 'executed'; operationKey: OperationKey })
  | (Keyed & { kind: 'send'; emailId: number })
  | (Keyed & { kind: 'addTag'; tag: string })
  | (Keyed & { kind: 'removeTag'; tag: string })
  | (Keyed & { kind: 'changeField'; field: string; value: string | number | boolean | null })
  | (Keyed & { kind: 'leadScore'; change: number })
  | (Keyed & { kind: 'archivePerson' })
  | (Keyed & { kind: 'notify'; to: string[]; subject: string; body: string })
  | (Keyed & { kind: 'webhook'; url: string })
  | (Keyed & { kind: 'slack'; text: string });

export type AdvanceResult = {
  run: FlowRun;
  effects: Effect[];
  /**
   * Set when the run stopped at a filter whose answer is not in `input.facts`: the caller applies `effects`,
   * evaluates the filter for this run (with all others stopped there, in one query), and calls advance again.
   */
  needs: { stepId: number } | null;
};

/** `advance(flow, run, input, now)`: execute the run from its current step until it waits, ends, or needs a fact. */
export type Advance = (flow: FlowDefinition, run: FlowRun, input: AdvanceInput, now: Date) => AdvanceResult;
