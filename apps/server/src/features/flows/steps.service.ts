import {
  decodeInputFields,
  flowApiMessages,
  flowBodyMessages,
  flowLimits,
  flowMessages,
  isOperationKey,
  nativeServiceId,
  stepTypeOf,
  stepTypeProblem,
  type CreateStepBody,
  type InputFields,
  type UpdateStepBody,
} from '@herald/contracts';
import { validateFlow } from '@herald/flow-engine';
import type { z } from 'zod';
import type { Database } from '../../db/connection.ts';
import { AppError, badRequest, conflict, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { checkOutgoingUrl } from '../../lib/outgoing-url.ts';
import { resolveAlert } from '../integrations/alerts.ts';
import type { Services } from '../../services.ts';
import { bumpFlowVersion, peopleAtSteps, type FlowRow } from './flows.queries.ts';
import { flowOrThrow } from './flow-lookup.ts';
import { definitionOf } from './flows.shape.ts';
import { deleteLinksOutsideBranches, listLinks } from './links.queries.ts';
import {
  countFlowSteps,
  deleteStepRow,
  findStep,
  insertStep,
  listSteps,
  peopleAtStep,
  updateStepRow,
  type StepRow,
} from './steps.queries.ts';
import { linkConditionsOf, loadResourceLookup, setupProblem, toStep } from './steps.shape.ts';
import { newWebhookSecret } from './steps.webhook.ts';

const unprocessable = (message: string, errorCode?: string) =>
  new AppError('UnprocessableError', message, errorCode ? { errorCode } : {});

/** A step's settings within the size limit, and a webhook step's address allowed (422 otherwise). */
async function checkInputFields(services: Services, operationKey: string, inputFields: InputFields) {
  if (JSON.stringify(inputFields).length > flowLimits.maxInputFieldsChars)
    throw unprocessable(flowMessages.inputTooLarge, 'inputTooLarge');
  if (operationKey === '/send-webhook') {
    const { url } = decodeInputFields(inputFields);
    if (typeof url === 'string' && url.trim() !== '') {
      const problem = await checkOutgoingUrl(url.trim(), services.config.outgoing);
      if (problem) throw unprocessable(problem, 'webhookRefused');
    }
  }
}

/** A change that alters what an active flow does needs the user's confirmation (the web shows a modal and retries). */
function assertConfirmed(flow: FlowRow, confirmed: boolean | undefined) {
  if (flow.status === 'active' && confirmed !== true)
    throw conflict(flowMessages.confirmActiveEdit, 'confirmActiveEdit');
}

/**
 * A wait set to less than a minute must not leave a loop that nothing stops (422, as drawing such a link is). A wait
 * whose settings are incomplete is let through: it is shown as not set up, and activation refuses it anyway.
 */
async function assertLoopsKeepAWait(
  db: Database,
  accountId: number,
  flow: FlowRow,
  stepId: number,
  operationKey: '/delay' | '/delay-v2',
  inputFields: InputFields,
) {
  if (setupProblem(operationKey, decodeInputFields(inputFields)) !== null) return;
  const flowId = Number(flow.id);
  const [steps, links] = await Promise.all([
    listSteps(db, accountId, [flowId]),
    listLinks(db, accountId, [flowId]),
  ]);
  const changed = steps.map((s) =>
    Number(s.id) === stepId ? { ...s, inputFields: inputFields as never } : s,
  );
  const loops = (rows: typeof steps) =>
    validateFlow(definitionOf(flow, rows, links)).includes(flowMessages.cycleWithoutWait);
  if (loops(changed) && !loops(steps)) throw unprocessable(flowMessages.cycleWithoutWait, 'cycleWithoutWait');
}

async function stepOrThrow(db: Database, accountId: number, id: number): Promise<StepRow> {
  const row = await findStep(db, accountId, id);
  if (!row) throw notFound(flowMessages.stepNotFound);
  return row;
}

/** The API's Step for one row, with its problem and the people at it now. */
async function shapeStep(
  db: Database,
  services: Services,
  accountId: number,
  row: StepRow,
  withPeople = true,
) {
  const [lookup, peopleAt] = await Promise.all([
    loadResourceLookup(db, accountId, [row]),
    withPeople
      ? peopleAtSteps(db, accountId, [Number(row.flowId)])
      : Promise.resolve(new Map<number, number>()),
  ]);
  return toStep(row, { lookup, peopleAt, publicUrl: services.config.publicUrl, showInboundUrl: true });
}

/**
 * POST /v1/steps/: a native step in a flow of the account ('Unknown step' for any other operation), at most
 * flowLimits.maxSteps per flow and one trigger. A webhook trigger gets its signing secret here.
 */
export async function createStep(
  db: Database,
  services: Services,
  session: Session,
  body: z.infer<typeof CreateStepBody>,
) {
  const { accountId } = session;
  const typeProblem = stepTypeProblem(body.operationKey, body.type);
  if (typeProblem) throw badRequest(typeProblem);
  const flow = await flowOrThrow(db, accountId, body.flowId, true);
  if (body.serviceId !== nativeServiceId || !isOperationKey(body.operationKey))
    throw unprocessable(flowMessages.unknownStep, 'unknownStep');
  const inputFields = body.inputFields ?? {};
  await checkInputFields(services, body.operationKey, inputFields);
  const type = stepTypeOf(body.operationKey);
  const counts = await countFlowSteps(db, accountId, Number(flow.id));
  if (counts.steps >= flowLimits.maxSteps) throw unprocessable(flowMessages.tooManySteps, 'tooManySteps');
  if (type === 'trigger' && counts.triggers > 0) throw unprocessable(flowMessages.oneTrigger, 'oneTrigger');
  const row = await insertStep(db, {
    accountId,
    flowId: Number(flow.id),
    type,
    serviceId: nativeServiceId,
    operationKey: body.operationKey,
    inputFields,
    x: body.coordinates?.x ?? 0,
    y: body.coordinates?.y ?? 0,
    position: body.position ?? null,
    secret: body.operationKey === '/webhook-trigger' ? newWebhookSecret() : null,
  });
  await bumpFlowVersion(db, accountId, Number(flow.id));
  return {
    step: await shapeStep(db, services, accountId, row, false),
    ...(body.tempId !== undefined && body.tempId !== null ? { tempId: body.tempId } : {}),
  };
}

/** A serialized step sent back names the stored step's flow, operation and type, or is refused (400). */
function assertSameStep(current: StepRow, body: z.infer<typeof UpdateStepBody>) {
  if (body.flowId !== undefined && body.flowId !== Number(current.flowId))
    throw badRequest(flowBodyMessages.stepOtherFlow(Number(current.flowId)));
  if (
    (body.serviceId !== undefined && body.serviceId !== current.serviceId) ||
    (body.operationKey !== undefined && body.operationKey !== current.operationKey)
  ) {
    throw badRequest(flowBodyMessages.operationFixed(current.operationKey));
  }
  const typeProblem = stepTypeProblem(current.operationKey, body.type);
  if (typeProblem) throw badRequest(typeProblem);
}

/**
 * PATCH /v1/steps/{id}: settings, place on the canvas, position. New settings on an active flow need
 * confirmActiveEdit; an A/B test whose variants changed loses the links of variants it no longer has.
 */
export async function updateStep(
  db: Database,
  services: Services,
  session: Session,
  id: number,
  body: z.infer<typeof UpdateStepBody>,
) {
  if (body.id !== undefined && body.id !== id) throw badRequest(flowApiMessages.stepIdMismatch);
  const { accountId } = session;
  const current = await stepOrThrow(db, accountId, id);
  assertSameStep(current, body);
  const flow = await flowOrThrow(db, accountId, Number(current.flowId), true);
  const settingsChanged =
    body.inputFields !== undefined &&
    JSON.stringify(body.inputFields) !== JSON.stringify(current.inputFields);
  if (settingsChanged) {
    assertConfirmed(flow, body.confirmActiveEdit);
    await checkInputFields(services, current.operationKey, body.inputFields!);
    if (current.operationKey === '/delay' || current.operationKey === '/delay-v2')
      await assertLoopsKeepAWait(db, accountId, flow, id, current.operationKey, body.inputFields!);
  }
  const row = await updateStepRow(db, accountId, id, {
    ...(settingsChanged ? { inputFields: body.inputFields } : {}),
    ...(body.coordinates ? { x: body.coordinates.x, y: body.coordinates.y } : {}),
    ...(body.position !== undefined ? { position: body.position } : {}),
  });
  // A webhook step given a new address closes the alert its refused address raised.
  if (settingsChanged && current.operationKey === '/send-webhook')
    await resolveAlert(db, accountId, `flow-webhook:${id}`);
  if (settingsChanged && current.operationKey === '/ab-test') {
    const branches = linkConditionsOf(current.operationKey, decodeInputFields(body.inputFields));
    // An A/B test being edited into shape (no valid variants yet) keeps its links until it has variants again.
    if (branches && branches.length > 0) await deleteLinksOutsideBranches(db, accountId, id, branches);
  }
  await bumpFlowVersion(db, accountId, Number(flow.id));
  return { step: await shapeStep(db, services, accountId, row) };
}

/** GET /v1/steps/{id}: the step; refresh=false leaves out the people count (0). */
export async function getStep(
  db: Database,
  services: Services,
  session: Session,
  id: number,
  refresh: boolean,
) {
  const row = await stepOrThrow(db, session.accountId, id);
  return { step: await shapeStep(db, services, session.accountId, row, refresh) };
}

/** DELETE /v1/steps/{id}: the step and its links; on an active flow only with confirmActiveEdit=true. */
export async function deleteStep(db: Database, session: Session, id: number, confirmed: boolean | undefined) {
  const { accountId } = session;
  const current = await stepOrThrow(db, accountId, id);
  const flow = await flowOrThrow(db, accountId, Number(current.flowId), true);
  assertConfirmed(flow, confirmed);
  const links = await listLinks(db, accountId, [Number(flow.id)]);
  const removedLinks = links
    .filter((l) => Number(l.source) === id || Number(l.target) === id)
    .map((l) => Number(l.id));
  await deleteStepRow(db, accountId, id);
  await bumpFlowVersion(db, accountId, Number(flow.id));
  return { id, flowId: Number(flow.id), removedLinks };
}

/** GET /v1/steps/{id}/people: the people now at the step, longest waiting first. */
export async function stepPeople(db: Database, session: Session, id: number, limit: number) {
  await stepOrThrow(db, session.accountId, id);
  const rows = await peopleAtStep(db, session.accountId, id, limit);
  return {
    people: rows.map((r) => ({
      id: Number(r.id),
      email: r.email,
      firstName: r.firstName,
      lastName: r.lastName,
      waitingSince: r.updatedAt.toISOString(),
      wakeAt: r.wakeAt?.toISOString() ?? null,
    })),
  };
}
