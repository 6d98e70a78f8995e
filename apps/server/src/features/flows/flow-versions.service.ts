import {
  FlowSnapshot,
  flowMessages,
  flowVersionMessages,
  isOperationKey,
  nativeServiceId,
  stepTypeOf,
  type FlowVersionSummary,
  type InputFields,
} from '@herald/contracts';
import { diffVersions, isEmptyDiff, normalizeSnapshot } from '@herald/flow-engine';
import type { Database } from '../../db/connection.ts';
import { conflict, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import type { Services } from '../../services.ts';
import { bumpFlowVersion, type FlowRow } from './flows.queries.ts';
import { flowOrThrow } from './flow-lookup.ts';
import { shapeFlows } from './flows.shape.ts';
import {
  deleteFlowLinks,
  findVersionRow,
  insertVersion,
  lastVersionRow,
  listVersionRows,
  reinsertStep,
  setReentry,
  stepIdTaken,
  type VersionRow,
} from './flow-versions.queries.ts';
import { insertLink, listLinks, type LinkRow } from './links.queries.ts';
import { deleteStepRow, insertStep, listSteps, updateStepRow, type StepRow } from './steps.queries.ts';
import { newWebhookSecret } from './steps.webhook.ts';

/** What a flow does now, as a version keeps it: steps by id with settings and places, links, re-entry rule. */
export function snapshotOf(
  flow: Pick<FlowRow, 'reentry' | 'reentryDays'>,
  steps: readonly StepRow[],
  links: readonly LinkRow[],
): FlowSnapshot {
  return normalizeSnapshot({
    steps: steps.map((s) => ({
      id: Number(s.id),
      operationKey: s.operationKey,
      inputFields: (s.inputFields ?? {}) as InputFields,
      coordinates: { x: s.x, y: s.y },
    })),
    links: links.map((l) => ({ source: Number(l.source), target: Number(l.target), condition: l.condition })),
    settings: { reentry: flow.reentry as FlowSnapshot['settings']['reentry'], reentryDays: flow.reentryDays },
  });
}

/** A stored snapshot, read through its schema (a malformed one reads as an empty flow rather than failing the page). */
const storedSnapshot = (value: unknown): FlowSnapshot => {
  const parsed = FlowSnapshot.safeParse(value);
  return parsed.success
    ? parsed.data
    : { steps: [], links: [], settings: { reentry: 'once', reentryDays: null } };
};

/**
 * Called in the transaction that switches a flow on: saves what it does as the next version, unless the last version
 * already does the same (a flow switched off and on unchanged keeps its version). Answers the new number or null.
 */
export async function recordFlowVersion(
  db: Database,
  session: Session,
  flow: Pick<FlowRow, 'id' | 'reentry' | 'reentryDays'>,
  steps: readonly StepRow[],
  links: readonly LinkRow[],
): Promise<number | null> {
  const flowId = Number(flow.id);
  const snapshot = snapshotOf(flow, steps, links);
  const last = await lastVersionRow(db, session.accountId, flowId);
  if (last && isEmptyDiff(diffVersions(storedSnapshot(last.snapshot), snapshot))) return null;
  const number = (last?.number ?? 0) + 1;
  await insertVersion(db, {
    accountId: session.accountId,
    flowId,
    number,
    snapshot,
    createdBy: session.teamMemberId,
  });
  return number;
}

function toSummary(row: VersionRow, snapshot: FlowSnapshot): FlowVersionSummary {
  return {
    number: row.number,
    createdAt: row.createdAt.toISOString(),
    createdBy:
      row.createdBy !== null && row.email
        ? { id: Number(row.createdBy), name: row.memberName || row.userName || row.email, email: row.email }
        : null,
    stepCount: snapshot.steps.length,
    linkCount: snapshot.links.length,
  };
}

async function currentSnapshot(db: Database, accountId: number, flow: FlowRow) {
  const flowId = Number(flow.id);
  const [steps, links] = await Promise.all([
    listSteps(db, accountId, [flowId]),
    listLinks(db, accountId, [flowId]),
  ]);
  return snapshotOf(flow, steps, links);
}

/** GET /v1/integrations/{id}/versions: newest first, and which of them the flow now does the same as. */
export async function listFlowVersions(db: Database, session: Session, flowId: number) {
  const flow = await flowOrThrow(db, session.accountId, flowId);
  const [rows, current] = await Promise.all([
    listVersionRows(db, session.accountId, flowId),
    currentSnapshot(db, session.accountId, flow),
  ]);
  let matchesCurrent: number | null = null;
  const versions = rows.map((row) => {
    const snapshot = storedSnapshot(row.snapshot);
    if (matchesCurrent === null && isEmptyDiff(diffVersions(snapshot, current))) matchesCurrent = row.number;
    return toSummary(row, snapshot);
  });
  return { versions, matchesCurrent };
}

async function versionOrThrow(
  db: Database,
  accountId: number,
  flowId: number,
  number: number,
  message: string = flowVersionMessages.notFound,
) {
  const row = await findVersionRow(db, accountId, flowId, number);
  if (!row) throw notFound(message);
  return { row, snapshot: storedSnapshot(row.snapshot) };
}

/** GET /v1/integrations/{id}/versions/{number}: the snapshot; with ?compare=m, the diff from version m to this one. */
export async function getFlowVersion(
  db: Database,
  session: Session,
  flowId: number,
  number: number,
  compare: number | undefined,
) {
  await flowOrThrow(db, session.accountId, flowId);
  const { row, snapshot } = await versionOrThrow(db, session.accountId, flowId, number);
  const other =
    compare === undefined
      ? null
      : await versionOrThrow(db, session.accountId, flowId, compare, flowVersionMessages.compareNotFound);
  return {
    version: { ...toSummary(row, snapshot), snapshot },
    diff: other ? diffVersions(other.snapshot, snapshot) : null,
  };
}

/**
 * POST /v1/integrations/{id}/versions/{number}/restore: the flow's steps, links and re-entry rule become the
 * version's. A step that still exists keeps its id (people waiting there stay put) and takes the version's settings
 * and place; a step the version lacks is removed (people waiting there exit, as when a step is deleted); a step
 * removed since comes back under its old id. An active flow needs confirmActiveEdit, as every other edit of it.
 */
export async function restoreFlowVersion(
  db: Database,
  services: Services,
  session: Session,
  flowId: number,
  number: number,
  confirmed: boolean | undefined,
) {
  const { accountId } = session;
  const flow = await flowOrThrow(db, accountId, flowId, true);
  const { snapshot } = await versionOrThrow(db, accountId, flowId, number);
  if (flow.status === 'active' && confirmed !== true)
    throw conflict(flowMessages.confirmActiveEdit, 'confirmActiveEdit');

  const steps = await listSteps(db, accountId, [flowId]);
  const current = new Map(steps.map((s) => [Number(s.id), s]));
  const wanted = new Set(snapshot.steps.map((s) => s.id));
  for (const step of steps)
    if (!wanted.has(Number(step.id))) await deleteStepRow(db, accountId, Number(step.id));
  await deleteFlowLinks(db, accountId, flowId);

  const ids = new Map<number, number>();
  for (const [position, step] of snapshot.steps.entries()) {
    if (!isOperationKey(step.operationKey)) continue;
    const existing = current.get(step.id);
    if (existing) {
      await updateStepRow(db, accountId, step.id, {
        inputFields: step.inputFields,
        x: step.coordinates.x,
        y: step.coordinates.y,
      });
      ids.set(step.id, step.id);
      continue;
    }
    const values = {
      accountId,
      flowId,
      type: stepTypeOf(step.operationKey),
      serviceId: nativeServiceId,
      operationKey: step.operationKey,
      inputFields: step.inputFields,
      x: step.coordinates.x,
      y: step.coordinates.y,
      position,
      secret: step.operationKey === '/webhook-trigger' ? newWebhookSecret() : null,
    };
    if (await stepIdTaken(db, accountId, step.id)) {
      ids.set(step.id, Number((await insertStep(db, values)).id));
    } else {
      await reinsertStep(db, { ...values, id: step.id });
      ids.set(step.id, step.id);
    }
  }
  for (const link of snapshot.links) {
    const source = ids.get(link.source);
    const target = ids.get(link.target);
    if (source !== undefined && target !== undefined)
      await insertLink(db, { accountId, flowId, source, target, condition: link.condition });
  }
  await setReentry(db, accountId, flowId, snapshot.settings);
  await bumpFlowVersion(db, accountId, flowId);
  const row = await flowOrThrow(db, accountId, flowId);
  const [integration] = await shapeFlows(db, services, accountId, [row]);
  return {
    integration: integration!,
    message:
      flow.status === 'active'
        ? flowVersionMessages.restoredActive(number)
        : flowVersionMessages.restored(number),
  };
}
