import { flowMessages, operationConfigs, type OperationKey } from '@herald/contracts';
import { stepLabel } from './catalogue.ts';
import { handlerOf } from './registry.ts';

export type ParsedConfig = { ok: true; config: Record<string, unknown> } | { ok: false; message: string };

/**
 * The step's configuration checked against its operation's schema and the step's own rules: the parsed config,
 * or the message a run fails with (the step's own, like 'No email selected.', else "Set up the step …").
 */
export function parseStepConfig(operationKey: OperationKey, config: Record<string, unknown>): ParsedConfig {
  // A flow is loaded once for a batch of runs: parse each step's configuration once, not once per run.
  const known = parsedConfigs.get(config)?.get(operationKey);
  if (known) return known;
  const parsed = parseUncached(operationKey, config);
  const byKey = parsedConfigs.get(config) ?? new Map<OperationKey, ParsedConfig>();
  byKey.set(operationKey, parsed);
  parsedConfigs.set(config, byKey);
  return parsed;
}

/** Parsed configurations by the configuration object (configs are not changed in place once loaded). */
const parsedConfigs = new WeakMap<object, Map<OperationKey, ParsedConfig>>();

function parseUncached(operationKey: OperationKey, config: Record<string, unknown>): ParsedConfig {
  const handler = handlerOf(operationKey);
  const parsed = operationConfigs[operationKey].safeParse(config);
  if (!parsed.success)
    return {
      ok: false,
      message: handler.invalidConfig ?? flowMessages.unconfigured(stepLabel(operationKey)),
    };
  const value = parsed.data as Record<string, unknown>;
  const problem = handler.check?.(value as never) ?? null;
  return problem ? { ok: false, message: problem } : { ok: true, config: value };
}

/** Why a step is not set up (its problem shown on the node), or null when its configuration is complete. */
export function configProblem(operationKey: OperationKey, config: Record<string, unknown>): string | null {
  const parsed = parseStepConfig(operationKey, config);
  return parsed.ok ? null : parsed.message;
}
