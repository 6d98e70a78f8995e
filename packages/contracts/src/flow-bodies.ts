import { z } from 'zod';
import { entityBody } from './entity-body.ts';
import {
  Coordinates,
  FlowStatusInput,
  InputFields,
  flowLimits,
  isOperationKey,
  nativeServiceId,
  reentryModes,
  stepTypeOf,
  stepTypes,
  type StepType,
} from './flows.ts';

/**
 * The bodies of the flow, step and link calls. Each takes its entity whole, as a client that keeps it in its state
 * sends it: the fields a call writes are checked, the ones the server works out or only the client keeps are accepted
 * and ignored (docs/api.md, "Serialized entity bodies").
 */

/** Messages of the rules these bodies add. */
export const flowBodyMessages = {
  flowIdNeeded: 'Choose the flow of the step: send its flowId (or integrationId, the same id).',
  integrationIdInvalid: "A step's integrationId is its flow's id: a number, or its digits as text.",
  integrationIdDisagrees: (integrationId: number, flowId: number) =>
    `The step's integrationId (${integrationId}) and flowId (${flowId}) name different flows; integrationId is the flow's id.`,
  stepTypeMismatch: (type: StepType, operationKey: string, actual: StepType) =>
    `Step type '${type}' does not match the operation ${operationKey}, which is ${actual === 'action' ? 'an' : 'a'} ${actual}.`,
  stepOtherFlow: (flowId: number) =>
    `This step belongs to flow ${flowId}; a step cannot move to another flow.`,
  operationFixed: (operationKey: string) =>
    `This step's operation is ${operationKey} and cannot change: delete the step and add a new one.`,
  linkOtherFlow: (flowId: number) =>
    `The steps of this link belong to flow ${flowId}, not to the flowId sent.`,
  newFlowHasNoSteps:
    'A new flow starts without steps and links: add them with POST /v1/steps/ and POST /v1/links/ once the flow exists.',
} as const;

/** Why a step's `type` (when sent) contradicts its operation, or null; an operation outside the catalogue is judged elsewhere. */
export function stepTypeProblem(operationKey: string, type: StepType | undefined): string | null {
  if (type === undefined || !isOperationKey(operationKey)) return null;
  const actual = stepTypeOf(operationKey);
  return actual === type ? null : flowBodyMessages.stepTypeMismatch(type, operationKey, actual);
}

const flowId = z.number().int().positive();
/** The spec's step names its flow by `integrationId` too (flows are "integrations"): a number, or its digits as text. */
const integrationId = z.union(
  [
    flowId,
    z
      .string()
      .regex(/^[1-9]\d{0,14}$/)
      .transform(Number),
    z.null(),
  ],
  { error: flowBodyMessages.integrationIdInvalid },
);
/** A step's place among its siblings: a whole number the database's integer column holds. */
const StepPosition = z.number().int().min(-2_147_483_648).max(2_147_483_647);

/** What the server works out for a step, and what only the client keeps; accepted and ignored on POST and PATCH. */
const stepIgnored = [
  'outputFields',
  'linkConditions',
  'mustConfig',
  'problem',
  'peopleCount',
  'createdAt',
  'updatedAt',
  'metrics',
  'peopleCounts',
  'ephemeralData',
  'pendingUpdate',
  'pendingDelete',
  'isDuplicate',
] as const;

type FlowNaming = { flowId?: number | undefined; integrationId?: number | null | undefined };

/** flowId and integrationId, both given, name the same flow (400 otherwise). */
function flowIdsAgree(body: FlowNaming, ctx: z.RefinementCtx) {
  const alias = body.integrationId ?? undefined;
  if (alias !== undefined && body.flowId !== undefined && alias !== body.flowId) {
    ctx.addIssue({
      code: 'custom',
      message: flowBodyMessages.integrationIdDisagrees(alias, body.flowId),
      path: ['integrationId'],
    });
  }
}

/** The body with its flow in flowId (taken from integrationId when flowId is absent), integrationId gone. */
function withFlowId<T extends FlowNaming>({ integrationId: alias, ...rest }: T) {
  return { ...rest, flowId: rest.flowId ?? alias ?? undefined };
}

/** POST /v1/steps/: a serialized step; the server gives it its id, and its type follows from the operation. */
export const CreateStepBody = entityBody(
  {
    flowId: flowId.optional(),
    integrationId: integrationId.optional(),
    /** Checked against the operation's type in the step catalogue. */
    type: z.enum(stepTypes).optional(),
    /** The client's temporary id, echoed back so it can swap it for the server id. */
    tempId: z
      .union([z.string().max(100), z.number().finite()])
      .nullable()
      .optional(),
    serviceId: z.string().max(100).default(nativeServiceId),
    operationKey: z.string().max(200),
    inputFields: InputFields.optional(),
    coordinates: Coordinates.optional(),
    position: StepPosition.nullable().optional(),
  },
  ['id', ...stepIgnored],
)
  .superRefine((body, ctx) => {
    flowIdsAgree(body, ctx);
    if (body.flowId === undefined && (body.integrationId ?? undefined) === undefined)
      ctx.addIssue({ code: 'custom', message: flowBodyMessages.flowIdNeeded, path: ['flowId'] });
  })
  .transform((body) => {
    const { flowId: id, ...rest } = withFlowId(body);
    return { ...rest, flowId: id! };
  });

/**
 * PATCH /v1/steps/{id}: a serialized step. Settings, canvas place and position change; the id, the flow
 * (flowId / integrationId), the operation (serviceId, operationKey) and the type are checked against the stored step.
 */
export const UpdateStepBody = entityBody(
  {
    id: z.number().int().optional(),
    flowId: flowId.optional(),
    integrationId: integrationId.optional(),
    type: z.enum(stepTypes).optional(),
    serviceId: z.string().max(100).optional(),
    operationKey: z.string().max(200).optional(),
    inputFields: InputFields.optional(),
    coordinates: Coordinates.optional(),
    position: StepPosition.nullable().optional(),
    /** Set by the client after the user confirmed editing an active flow; required for a change that alters behaviour of an active flow. */
    confirmActiveEdit: z.boolean().optional(),
  },
  ['tempId', ...stepIgnored],
)
  .superRefine(flowIdsAgree)
  .transform(withFlowId);

/** POST /v1/links/: a serialized link; its flow is its steps' flow (a flowId sent must be that one). */
export const CreateLinkBody = entityBody(
  {
    source: z.number().int().positive(),
    target: z.number().int().positive(),
    condition: z.string().max(40).nullable().optional(),
    flowId: flowId.optional(),
  },
  ['id', 'beingCreated', 'linkPopupCoordinates'],
);

/** What the server works out for a flow; accepted and ignored on POST and PATCH. */
const flowIgnored = ['recipe', 'warnings', 'lastSaved', 'createdAt', 'updatedAt'] as const;
const flowName = z.string().trim().max(flowLimits.maxNameLength);
const reentryDays = z.number().int().min(1).max(flowLimits.maxReentryDays).nullable();

/**
 * POST /v1/integrations: a flow body. A new flow is switched off and not archived (status and archived are ignored)
 * and starts empty: steps and links, when sent, must be empty (400 otherwise).
 */
export const CreateFlowBody = entityBody(
  {
    name: flowName.optional(),
    reentry: z.enum(reentryModes).optional(),
    reentryDays: reentryDays.optional(),
    steps: z
      .record(z.string(), z.unknown())
      .refine((steps) => Object.keys(steps).length === 0, flowBodyMessages.newFlowHasNoSteps)
      .optional(),
    links: z.array(z.unknown()).max(0, flowBodyMessages.newFlowHasNoSteps).optional(),
  },
  ['id', 'status', 'archived', ...flowIgnored],
);

/** PATCH /v1/integrations/{id}: a flow body; its steps and links are saved through their own calls and ignored here. */
export const UpdateFlowBody = entityBody(
  {
    id: z.number().int().optional(),
    name: flowName.min(1).optional(),
    status: FlowStatusInput.optional(),
    archived: z.boolean().optional(),
    reentry: z.enum(reentryModes).optional(),
    reentryDays: reentryDays.optional(),
  },
  ['steps', 'links', ...flowIgnored],
);
