import {
  archivedSegmentId,
  decodeInputFields,
  flowMessages,
  isOperationKey,
  stepTypeOf,
  type InputFields,
  type Step,
  type StepType,
} from '@herald/contracts';
import { configProblem, stepBranches } from '@herald/flow-engine';
import type { Database } from '../../db/connection.ts';
import { existingEmails, existingSegments } from './flows.queries.ts';
import type { StepRow } from './steps.queries.ts';
import { webhookTriggerUrl } from './steps.webhook.ts';

/** What a step's configuration points at: segments, emails and person fields. */
export type StepReferences = { segments: number[]; emails: number[]; fields: string[] };

const positiveId = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;
const objectAt = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

/** The segments, emails and fields a step uses, read from its decoded configuration (valid or not). */
export function stepReferences(operationKey: string, config: Record<string, unknown>): StepReferences {
  const refs: StepReferences = { segments: [], emails: [], fields: [] };
  const segment = positiveId(objectAt(config.segment).id);
  const email = positiveId(objectAt(config.email).id);
  const condition = objectAt(config.condition);
  switch (operationKey) {
    case '/entered-segment':
    case '/left-segment':
    case '/in-segment':
    case '/time':
      if (segment) refs.segments.push(segment);
      break;
    case '/send':
    case '/email-trigger':
      if (email) refs.emails.push(email);
      break;
    case '/check-email-activity': {
      const subject = objectAt(condition.subject);
      const id = positiveId(subject.id);
      if (subject.type === 'email' && id) refs.emails.push(id);
      break;
    }
    case '/dateFieldTrigger':
    case '/annualTrigger':
    case '/change-field':
      if (typeof config.field === 'string' && config.field) refs.fields.push(config.field);
      break;
    case '/check-field':
      if (typeof condition.field === 'string' && condition.field) refs.fields.push(condition.field);
      break;
  }
  return refs;
}

/** Which referenced segments and emails still exist, for many steps at once. */
export type ResourceLookup = { segments: Set<number>; emails: Set<number> };

export async function loadResourceLookup(
  db: Database,
  accountId: number,
  rows: readonly Pick<StepRow, 'operationKey' | 'inputFields'>[],
): Promise<ResourceLookup> {
  const segmentIds = new Set<number>();
  const emailIds = new Set<number>();
  for (const row of rows) {
    const refs = stepReferences(row.operationKey, decodeInputFields(row.inputFields as InputFields));
    refs.segments.forEach((id) => segmentIds.add(id));
    refs.emails.forEach((id) => emailIds.add(id));
  }
  const [segments, emails] = await Promise.all([
    existingSegments(db, accountId, [...segmentIds]),
    existingEmails(db, accountId, [...emailIds]),
  ]);
  return {
    segments: new Set([archivedSegmentId, ...segments.map((s) => Number(s.id))]),
    emails: new Set(emails.map((e) => Number(e.id))),
  };
}

/** Why a step's settings do not fit its operation ('Unknown step' for an operation outside the catalogue), or null. */
export function setupProblem(operationKey: string, config: Record<string, unknown>): string | null {
  return isOperationKey(operationKey) ? configProblem(operationKey, config) : flowMessages.unknownStep;
}

/** Why a step cannot run as configured (its set-up, or a segment or email gone), or null. */
export function stepProblem(
  operationKey: string,
  config: Record<string, unknown>,
  lookup: ResourceLookup,
  setUpProblem = setupProblem(operationKey, config),
): string | null {
  if (setUpProblem) return setUpProblem;
  const refs = stepReferences(operationKey, config);
  const segment = refs.segments.find((id) => !lookup.segments.has(id));
  if (segment !== undefined) return flowMessages.segmentGone(segment);
  const email = refs.emails.find((id) => !lookup.emails.has(id));
  if (email !== undefined) return flowMessages.emailGone(email);
  return null;
}

/** Link conditions a step offers: 'yes'/'no' for filters, the variant names of an A/B test, null otherwise. */
export function linkConditionsOf(operationKey: string, config: Record<string, unknown>): string[] | null {
  if (!isOperationKey(operationKey)) return null;
  return stepBranches({ id: 0, operationKey, config });
}

/** showInboundUrl: false for a flow read through a share token (the webhook trigger's URL lets anyone enter people). */
export type StepShapeContext = {
  lookup: ResourceLookup;
  peopleAt: ReadonlyMap<number, number>;
  publicUrl: string;
  showInboundUrl: boolean;
};

/** The Step the API answers with. */
export function toStep(row: StepRow, context: StepShapeContext): Step {
  const id = Number(row.id);
  const inputFields = (row.inputFields ?? {}) as InputFields;
  const config = decodeInputFields(inputFields);
  const known = isOperationKey(row.operationKey);
  const setUp = setupProblem(row.operationKey, config);
  const problem = stepProblem(row.operationKey, config, context.lookup, setUp);
  const outputFields =
    row.operationKey === '/webhook-trigger' && row.secret && context.showInboundUrl
      ? {
          ...((row.outputFields ?? {}) as Record<string, unknown>),
          url: webhookTriggerUrl(context.publicUrl, id, row.secret),
        }
      : ((row.outputFields ?? null) as Record<string, unknown> | null);
  return {
    id,
    flowId: Number(row.flowId),
    type: (known ? stepTypeOf(row.operationKey as never) : row.type) as StepType,
    serviceId: row.serviceId,
    operationKey: row.operationKey,
    inputFields,
    outputFields,
    coordinates: { x: row.x, y: row.y },
    position: row.position,
    linkConditions: linkConditionsOf(row.operationKey, config),
    mustConfig: setUp !== null,
    problem,
    peopleCount: context.peopleAt.get(id) ?? 0,
    integrationId: String(row.flowId),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
