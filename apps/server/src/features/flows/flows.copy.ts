import {
  emailMessages,
  flowCopyMessages,
  flowMessages,
  hasScopes,
  type FlowCopyCounts,
  type InputFields,
  type ScopeState,
} from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { forbidden } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import type { Services } from '../../services.ts';
import { planCopy, planCounts } from './flows.copy-plan.ts';
import { identityMaps, remapInputFields, type CopyMaps } from './flows.copy-remap.ts';
import { applyCopyPlan, readFlowResources, readTargetState } from './flows.copy-resources.ts';
import { insertFlow, updateFlowRow } from './flows.queries.ts';
import { flowOrThrow } from './flow-lookup.ts';
import { shapeFlows } from './flows.shape.ts';
import { shareTokenAccount } from './flows.share.ts';
import { insertLink, listLinks } from './links.queries.ts';
import { insertStep, listSteps } from './steps.queries.ts';
import { newWebhookSecret } from './steps.webhook.ts';

/** The copy's query: the flow, the account to copy into (the session's by default) and a share token. */
export type CopyQuery = {
  source?: number | undefined;
  'target-account'?: number | undefined;
  'read-only-auth'?: string | undefined;
};

type Target = { accountId: number; teamMemberId: number };
const noneCopied: FlowCopyCounts = { emails: 0, segments: 0, fields: 0 };

/** The account the flow is read from: the share token's, else the session's (which then needs flows:read). */
function sourceAccountOf(
  services: Services,
  session: Session,
  sourceId: number,
  token: string | undefined,
): number {
  if (token !== undefined) return shareTokenAccount(services, token, sourceId);
  if (!hasScopes(session, ['flows:read'])) throw forbidden(flowCopyMessages.noReadInSource);
  return session.accountId;
}

/** The account copied into: one the user belongs to, with flows:write there; the session's own by default. */
async function targetOf(services: Services, session: Session, targetId: number | undefined): Promise<Target> {
  if (targetId === undefined || targetId === session.accountId) {
    if (!hasScopes(session, ['flows:write'])) throw forbidden(flowCopyMessages.noWriteInTarget);
    return { accountId: session.accountId, teamMemberId: session.teamMemberId };
  }
  const member = await services.db
    .selectFrom('teamMembers')
    .innerJoin('accounts', 'accounts.id', 'teamMembers.accountId')
    .select(['teamMembers.id', 'teamMembers.isOwner', 'teamMembers.scopes'])
    .where('teamMembers.accountId', '=', targetId)
    .where('teamMembers.userId', '=', session.userId)
    .where('teamMembers.acceptedAt', 'is not', null)
    .where('accounts.deletingAt', 'is', null)
    .executeTakeFirst();
  if (!member) throw forbidden(flowCopyMessages.notMember);
  if (
    !hasScopes({ isOwner: member.isOwner, scopes: member.scopes as unknown as ScopeState[] }, ['flows:write'])
  )
    throw forbidden(flowCopyMessages.noWriteInTarget);
  return { accountId: targetId, teamMemberId: Number(member.id) };
}

/** Work in one account's transaction: the request's own for the session's account, else a new one. */
function accountRunner(db: Database, services: Services, session: Session) {
  return <T>(accountId: number, work: (scoped: Database) => Promise<T>): Promise<T> =>
    accountId === session.accountId ? work(db) : withAccount(services.db, accountId, work);
}

/** Who reads the source and who receives the copy, checked (403s, then 404 for a flow the source lacks). */
async function resolveSides(
  db: Database,
  services: Services,
  session: Session,
  sourceId: number,
  query: CopyQuery,
) {
  const sourceAccount = sourceAccountOf(services, session, sourceId, query['read-only-auth']);
  const target = await targetOf(services, session, query['target-account']);
  return {
    sourceAccount,
    target,
    sameAccount: sourceAccount === target.accountId,
    run: accountRunner(db, services, session),
  };
}

async function readSource(db: Database, accountId: number, sourceId: number, withResources: boolean) {
  const flow = await flowOrThrow(db, accountId, sourceId);
  const [steps, links] = await Promise.all([
    listSteps(db, accountId, [sourceId]),
    listLinks(db, accountId, [sourceId]),
  ]);
  const resources = withResources ? await readFlowResources(db, accountId, steps) : null;
  return { flow, steps, links, resources };
}

/**
 * POST /v1/integrations?source={id}[&target-account={id}][&read-only-auth={token}]: a copy of a flow, switched off,
 * named 'Copy of {name}' unless a name is given: the same steps (settings, places on the canvas), links and
 * re-entry rule. A webhook trigger gets a new secret, so the copy has its own inbound URL; people and figures are
 * not copied. Within one account the copy uses the same emails, segments and fields; into another account they
 * are created there too (flows.copy-plan.ts decides names and keys) and the steps point at them. The target's
 * writes are one transaction: a failure leaves nothing behind.
 */
export async function copyFlow(
  db: Database,
  services: Services,
  session: Session,
  query: CopyQuery,
  name: string | undefined,
) {
  const sourceId = query.source!;
  const { sourceAccount, target, sameAccount, run } = await resolveSides(
    db,
    services,
    session,
    sourceId,
    query,
  );
  const source = await run(sourceAccount, (scoped) =>
    readSource(scoped, sourceAccount, sourceId, !sameAccount),
  );
  return run(target.accountId, async (scoped) => {
    const { accountId } = target;
    const created = await insertFlow(scoped, {
      accountId,
      name: (name || `${emailMessages.copyPrefix}${source.flow.name}`).slice(0, 200),
      createdBy: target.teamMemberId,
    });
    const flowId = Number(created.id);
    let maps: CopyMaps = identityMaps;
    let copied = noneCopied;
    if (source.resources) {
      const plan = planCopy(source.resources, await readTargetState(scoped, accountId));
      maps = await applyCopyPlan(scoped, target, plan, (id) => (id === sourceId ? flowId : id));
      copied = planCounts(plan);
    }
    const newIds = new Map<number, number>();
    for (const step of source.steps) {
      const copy = await insertStep(scoped, {
        accountId,
        flowId,
        type: step.type,
        serviceId: step.serviceId,
        operationKey: step.operationKey,
        inputFields: remapInputFields(
          step.operationKey,
          (step.inputFields ?? {}) as InputFields,
          maps,
        ) as never,
        x: step.x,
        y: step.y,
        position: step.position,
        secret: step.operationKey === '/webhook-trigger' ? newWebhookSecret() : null,
      });
      newIds.set(Number(step.id), Number(copy.id));
    }
    for (const link of source.links) {
      const from = newIds.get(Number(link.source));
      const to = newIds.get(Number(link.target));
      if (from !== undefined && to !== undefined)
        await insertLink(scoped, { accountId, flowId, source: from, target: to, condition: link.condition });
    }
    const row = await updateFlowRow(scoped, accountId, flowId, {
      reentry: source.flow.reentry,
      reentryDays: source.flow.reentryDays,
    });
    const [integration] = await shapeFlows(scoped, services, accountId, [row]);
    return { integration: integration!, message: flowMessages.copied, copied, accountId };
  });
}

/** GET /v1/integrations/{id}/copy-preview: how many emails, segments and fields a copy would create in the target. */
export async function copyPreview(
  db: Database,
  services: Services,
  session: Session,
  sourceId: number,
  query: CopyQuery,
) {
  const { sourceAccount, target, sameAccount, run } = await resolveSides(
    db,
    services,
    session,
    sourceId,
    query,
  );
  const source = await run(sourceAccount, (scoped) =>
    readSource(scoped, sourceAccount, sourceId, !sameAccount),
  );
  if (!source.resources) return { accountId: target.accountId, sameAccount, copied: noneCopied };
  const resources = source.resources;
  const state = await run(target.accountId, (scoped) => readTargetState(scoped, target.accountId));
  return { accountId: target.accountId, sameAccount, copied: planCounts(planCopy(resources, state)) };
}
