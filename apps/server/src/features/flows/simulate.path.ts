import type { ConditionVerdict, OperationConfig, SimulatedStep } from '@herald/contracts';
import {
  chooseVariant,
  isWaitOperation,
  parseStepConfig,
  stepLabel,
  type FlowDefinition,
  type SimulatedStepRecord,
} from '@herald/flow-engine';

/** The simulated path in words: each step's outcome and why, with times on the person's clock. */

export interface RenderedSend {
  stepId: number;
  emailId: number;
  at: string;
  subject: string;
  html: string;
}

/** A moment on the person's clock: 'Tue 3 Mar 2026, 09:00 CET'. */
export function localTime(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  }).format(at);
}

const q = (v: unknown) => `“${String(v)}”`;

interface Context {
  flow: FlowDefinition;
  timeZone: string;
  /** Filter answers by step, in the order they were asked (a step met twice was asked twice). */
  verdicts: Map<number, { answer: boolean; why: string; verdicts: ConditionVerdict[] }[]>;
  sends: Map<string, RenderedSend>;
}

export function describePath(steps: readonly SimulatedStepRecord[], context: Context): SimulatedStep[] {
  const asked = new Map<number, number>();
  return steps.map((record) => {
    const { operationKey, stepId } = record;
    const base = {
      seq: record.seq,
      stepId,
      operationKey,
      name: stepLabel(operationKey),
      at: record.at.toISOString(),
      localAt: localTime(record.at, context.timeZone),
    };
    const config = context.flow.steps.get(stepId)?.config ?? {};
    const effect = record.effects[0];
    if (record.branch !== undefined && operationKey !== '/ab-test') {
      const n = asked.get(stepId) ?? 0;
      asked.set(stepId, n + 1);
      const verdict = context.verdicts.get(stepId)?.[n];
      return {
        ...base,
        outcome: record.branch,
        why: verdict?.why ?? (record.branch === 'yes' ? 'Yes.' : 'No.'),
        verdicts: verdict?.verdicts ?? [],
      };
    }
    if (operationKey === '/ab-test') {
      const parsed = parseStepConfig('/ab-test', config);
      const variant =
        record.branch ??
        (parsed.ok ? chooseVariant(parsed.config as OperationConfig<'/ab-test'>, 0, stepId) : '');
      return {
        ...base,
        outcome: variant,
        why: `Takes path ${q(variant)} (people are split between the variants by weight; the same person always takes the same one).`,
      };
    }
    if (isWaitOperation(operationKey) && record.wakeAt) {
      const wake = record.wakeAt;
      const now = wake.getTime() <= record.at.getTime();
      return {
        ...base,
        outcome: 'wait',
        why: now
          ? 'The wait is already over: goes on at once.'
          : `Waits until ${localTime(wake, context.timeZone)} (${context.timeZone}).`,
        wakeAt: wake.toISOString(),
        wakeLocal: localTime(wake, context.timeZone),
      };
    }
    switch (effect?.kind) {
      case 'send': {
        const sent = context.sends.get(effect.key);
        return {
          ...base,
          outcome: 'send',
          why: `Would send email ${effect.emailId}${sent ? `, subject ${q(sent.subject)}` : ''} (nothing is sent in a test run).`,
        };
      }
      case 'addTag':
        return {
          ...base,
          outcome: 'would add tag',
          why: `Would add the tag ${q(effect.tag)}; later steps of this test see it.`,
        };
      case 'removeTag':
        return {
          ...base,
          outcome: 'would remove tag',
          why: `Would remove the tag ${q(effect.tag)}; later steps of this test see it.`,
        };
      case 'changeField':
        return {
          ...base,
          outcome: 'would change field',
          why:
            effect.value === null
              ? `Would clear ${effect.field}.`
              : `Would set ${effect.field} to ${q(effect.value)}; later steps of this test see it.`,
        };
      case 'leadScore':
        return {
          ...base,
          outcome: 'would change lead score',
          why: `Would change the lead score by ${effect.change > 0 ? '+' : ''}${effect.change}.`,
        };
      case 'archivePerson':
        return { ...base, outcome: 'would archive', why: 'Would archive the person.' };
      case 'notify':
        return {
          ...base,
          outcome: 'would notify',
          why: `Would email ${effect.to.join(', ')} (team members) the notification ${q(effect.subject)}.`,
        };
      case 'webhook':
        return {
          ...base,
          outcome: 'would call webhook',
          why: `Would post the person’s data to ${effect.url}.`,
        };
      default:
        break;
    }
    if (operationKey === '/end-flow') return { ...base, outcome: 'end', why: 'Ends the flow here.' };
    if (record.seq === 1)
      return {
        ...base,
        outcome: 'entered',
        why: `Enters the flow at the trigger ${q(stepLabel(operationKey))}.`,
      };
    return { ...base, outcome: 'done', why: `${stepLabel(operationKey)}.` };
  });
}
