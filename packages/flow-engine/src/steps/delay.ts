import { flowLimits, flowMessages, type OperationConfig, type WaitConfig } from '@herald/contracts';
import type { StepHandler } from '../step-handler.ts';
import { nextWakeTime } from '../wait-time.ts';

const unitDays = { minutes: 1 / 1440, hours: 1 / 24, days: 1, weeks: 7 } as const;

/** The wait a /delay or /delay-v2 step describes (the older /delay is always a duration). */
export function waitOf(config: OperationConfig<'/delay'> | OperationConfig<'/delay-v2'>): WaitConfig {
  return 'wait' in config ? config.wait : { mode: 'duration', amount: config.amount, unit: config.unit };
}

/** A duration longer than the longest wait allowed is refused (a wait until a date is as long as it says). */
function checkWait(wait: WaitConfig): string | null {
  if (wait.mode === 'duration' && wait.amount * unitDays[wait.unit] > flowLimits.maxWaitDays)
    return flowMessages.waitTooLong;
  return null;
}

/** A wait counts as executed when it starts; the run sleeps until the wake time, then goes on along the plain link. */
export const delayHandler: StepHandler<'/delay'> = {
  label: 'Wait',
  description: 'Waits for a time before going on.',
  icon: 'IconHourglass',
  invalidConfig: flowMessages.noDateTime,
  check: (config) => checkWait(waitOf(config)),
  execute: (config, { now, timeZone }) => ({
    kind: 'wait',
    effects: [],
    wakeAt: nextWakeTime(waitOf(config), now, timeZone),
  }),
};

export const delayV2Handler: StepHandler<'/delay-v2'> = {
  label: 'Wait',
  description: 'Waits for a time, until a date, or until a weekday and time in the person’s time zone.',
  icon: 'IconHourglass',
  invalidConfig: flowMessages.noDateTime,
  check: (config) => checkWait(config.wait),
  execute: (config, { now, timeZone }) => ({
    kind: 'wait',
    effects: [],
    wakeAt: nextWakeTime(config.wait, now, timeZone),
  }),
};
