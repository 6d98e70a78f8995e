import { emailMessages, flowMessages } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import type { Session } from '../../http/route.ts';
import type { Services } from '../../services.ts';
import { insertFlow, updateFlowRow } from './flows.queries.ts';
import { flowOrThrow } from './flows.service.ts';
import { shapeFlows } from './flows.shape.ts';
import { insertLink, listLinks } from './links.queries.ts';
import { insertStep, listSteps } from './steps.queries.ts';
import { newWebhookSecret } from './steps.webhook.ts';

/**
 * POST /v1/integrations?source={id}: a copy of one of the account's flows, switched off, named 'Copy of {name}'
 * unless a name is given: the same steps (settings, places on the canvas), links and re-entry rule. A webhook
 * trigger gets a new secret, so the copy has its own inbound URL; people and figures are not copied.
 */
export async function copyFlow(db: Database, services: Services, session: Session, sourceId: number, name: string | undefined) {
  const { accountId } = session;
  const source = await flowOrThrow(db, accountId, sourceId);
  const [steps, links] = await Promise.all([listSteps(db, accountId, [sourceId]), listLinks(db, accountId, [sourceId])]);
  const created = await insertFlow(db, { accountId, name: (name || `${emailMessages.copyPrefix}${source.name}`).slice(0, 200), createdBy: session.teamMemberId });
  const flowId = Number(created.id);
  const newIds = new Map<number, number>();
  for (const step of steps) {
    const copy = await insertStep(db, {
      accountId,
      flowId,
      type: step.type,
      serviceId: step.serviceId,
      operationKey: step.operationKey,
      inputFields: step.inputFields as never,
      x: step.x,
      y: step.y,
      position: step.position,
      secret: step.operationKey === '/webhook-trigger' ? newWebhookSecret() : null,
    });
    newIds.set(Number(step.id), Number(copy.id));
  }
  for (const link of links) {
    const source = newIds.get(Number(link.source));
    const target = newIds.get(Number(link.target));
    if (source !== undefined && target !== undefined) await insertLink(db, { accountId, flowId, source, target, condition: link.condition });
  }
  const row = await updateFlowRow(db, accountId, flowId, { reentry: source.reentry, reentryDays: source.reentryDays });
  const [integration] = await shapeFlows(db, services, accountId, [row]);
  return { integration: integration!, message: flowMessages.copied };
}
