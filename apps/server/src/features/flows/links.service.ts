import {
  decodeInputFields,
  flowApiMessages,
  flowBodyMessages,
  flowMessages,
  stepTypeOf,
  isOperationKey,
  type CreateLinkBody,
  type InputFields,
} from '@herald/contracts';
import { wouldCreateCycleWithoutWait } from '@herald/flow-engine';
import type { z } from 'zod';
import type { Database } from '../../db/connection.ts';
import { AppError, badRequest, conflict, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { bumpFlowVersion } from './flows.queries.ts';
import { flowOrThrow } from './flow-lookup.ts';
import { definitionOf, toLink } from './flows.shape.ts';
import {
  deleteLinkRow,
  findLink,
  findLinkByPair,
  insertLink,
  listLinks,
  type LinkRow,
} from './links.queries.ts';
import { findStep, listSteps } from './steps.queries.ts';
import { linkConditionsOf } from './steps.shape.ts';

const unprocessable = (message: string, errorCode: string) =>
  new AppError('UnprocessableError', message, { errorCode });

/**
 * POST /v1/links/: join two steps of one flow of the account. The target is not a trigger nor the source itself;
 * a filter or A/B test link names one of the source's branches (a plain step's link names none); each branch and
 * each pair is linked once; and no link may close a loop without a wait.
 */
export async function createLink(db: Database, session: Session, body: z.infer<typeof CreateLinkBody>) {
  const { accountId } = session;
  const [source, target] = await Promise.all([
    findStep(db, accountId, body.source),
    findStep(db, accountId, body.target),
  ]);
  if (!source || !target) throw notFound(flowMessages.stepNotFound);
  if (Number(source.flowId) !== Number(target.flowId))
    throw unprocessable(flowMessages.linkToOtherFlow, 'linkToOtherFlow');
  if (body.flowId !== undefined && body.flowId !== Number(source.flowId))
    throw badRequest(flowBodyMessages.linkOtherFlow(Number(source.flowId)));
  if (body.source === body.target) throw unprocessable(flowMessages.linkSelf, 'linkSelf');
  if (isOperationKey(target.operationKey) && stepTypeOf(target.operationKey) === 'trigger')
    throw unprocessable(flowMessages.linkToTrigger, 'linkToTrigger');
  const flow = await flowOrThrow(db, accountId, Number(source.flowId), true);

  const branches = linkConditionsOf(
    source.operationKey,
    decodeInputFields(source.inputFields as InputFields),
  );
  const condition = body.condition ?? null;
  if (branches === null && condition !== null)
    throw unprocessable(flowMessages.unknownBranch(condition), 'unknownBranch');
  if (branches !== null && condition === null)
    throw unprocessable(flowApiMessages.conditionRequired, 'conditionRequired');
  if (branches !== null && condition !== null && !branches.includes(condition))
    throw unprocessable(flowMessages.unknownBranch(condition), 'unknownBranch');

  const [steps, links] = await Promise.all([
    listSteps(db, accountId, [Number(flow.id)]),
    listLinks(db, accountId, [Number(flow.id)]),
  ]);
  if (links.some((l) => Number(l.source) === body.source && Number(l.target) === body.target))
    throw conflict(flowMessages.linkExists, 'linkExists');
  if (links.some((l) => Number(l.source) === body.source && l.condition === condition))
    throw conflict(
      condition === null ? flowApiMessages.nextTaken : flowMessages.branchTaken(condition),
      'branchTaken',
    );
  if (
    wouldCreateCycleWithoutWait(definitionOf(flow, steps, links), {
      source: body.source,
      target: body.target,
    })
  ) {
    throw unprocessable(flowMessages.cycleWithoutWait, 'cycleWithoutWait');
  }
  const row = await insertLink(db, {
    accountId,
    flowId: Number(flow.id),
    source: body.source,
    target: body.target,
    condition,
  });
  await bumpFlowVersion(db, accountId, Number(flow.id));
  return { link: toLink(row) };
}

async function removeLink(db: Database, accountId: number, row: LinkRow | undefined) {
  if (!row) throw notFound(flowMessages.linkNotFound);
  await flowOrThrow(db, accountId, Number(row.flowId), true);
  await deleteLinkRow(db, accountId, Number(row.id));
  await bumpFlowVersion(db, accountId, Number(row.flowId));
  return { link: toLink(row) };
}

/** DELETE /v1/links/{id}. */
export async function deleteLink(db: Database, session: Session, id: number) {
  return removeLink(db, session.accountId, await findLink(db, session.accountId, id));
}

/** DELETE /v1/links/{source}/{target}. */
export async function deleteLinkBetween(db: Database, session: Session, source: number, target: number) {
  return removeLink(db, session.accountId, await findLinkByPair(db, session.accountId, source, target));
}
