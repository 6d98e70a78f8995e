import {
  decodeInputFields,
  flowApiMessages,
  flowMessages,
  type CreateFlowBody,
  type Flow,
  type InputFields,
  type UpdateFlowBody,
} from '@herald/contracts';
import type { z } from 'zod';
import type { Database } from '../../db/connection.ts';
import { AppError, badRequest } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import type { Services } from '../../services.ts';
import { activationProblem } from './flows.activation.ts';
import { recordFlowVersion } from './flow-versions.service.ts';
import {
  existingEmails,
  existingFields,
  existingSegments,
  flowRunTotals,
  insertFlow,
  listFlowNames,
  listFlowRows,
  peopleAtSteps,
  updateFlowRow,
  type FlowChanges,
  type FlowRow,
} from './flows.queries.ts';
import { listLinks } from './links.queries.ts';
import { listSteps } from './steps.queries.ts';
import { flowOrThrow, type FlowReader } from './flow-lookup.ts';
import { shapeFlows } from './flows.shape.ts';
import { stepReferences } from './steps.shape.ts';

async function shapeOne(db: Database, services: Services, accountId: number, row: FlowRow): Promise<Flow> {
  return (await shapeFlows(db, services, accountId, [row]))[0]!;
}

/** GET /v1/integrations: the account's flows (or the archived ones) with their steps and links. */
export async function getFlows(db: Database, services: Services, session: Session, archived = false) {
  return {
    integrations: await shapeFlows(
      db,
      services,
      session.accountId,
      await listFlowRows(db, session.accountId, archived),
    ),
  };
}

/** GET /v1/integrations/names: id and name of every flow not archived. */
export async function getFlowNames(db: Database, session: Session) {
  const rows = await listFlowNames(db, session.accountId);
  return { integrations: rows.map((r) => ({ id: Number(r.id), name: r.name })) };
}

/** GET /v1/integrations/{id}: one flow; read through a share token, a webhook trigger's inbound URL is left out. */
export async function getFlow(reader: FlowReader, services: Services, id: number) {
  const row = await flowOrThrow(reader.db, reader.accountId, id);
  return {
    integration: (
      await shapeFlows(reader.db, services, reader.accountId, [row], { readOnly: reader.readOnly })
    )[0]!,
  };
}

/** POST /v1/integrations: a new flow, switched off; an empty name is 'Unnamed Flow'; the re-entry rule as sent. */
export async function createFlow(
  db: Database,
  services: Services,
  session: Session,
  body: z.infer<typeof CreateFlowBody>,
) {
  const reentry = body.reentry ?? 'once';
  const reentryDays = body.reentryDays ?? null;
  if (reentry === 'after-days' && reentryDays === null)
    throw new AppError('UnprocessableError', flowApiMessages.reentryDays);
  const row = await insertFlow(db, {
    accountId: session.accountId,
    name: body.name || flowMessages.defaultName,
    createdBy: session.teamMemberId,
    reentry,
    reentryDays,
  });
  return { integration: await shapeOne(db, services, session.accountId, row), message: null };
}

/**
 * PATCH /v1/integrations/{id}: name, status, archived and the re-entry rule. Switching on ('active' or 'on') runs
 * the activation checks (422 with the first problem) and stamps activated_at; archiving an active flow switches
 * it off. The answer carries 'Flow activated.' or 'Flow deactivated.' when the status was set.
 */
export async function updateFlow(
  db: Database,
  services: Services,
  session: Session,
  id: number,
  body: z.infer<typeof UpdateFlowBody>,
) {
  if (body.id !== undefined && body.id !== id) throw badRequest(flowApiMessages.idMismatch);
  const { accountId } = session;
  const current = await flowOrThrow(db, accountId, id, true);
  const changes: FlowChanges = {};
  if (body.name !== undefined) changes.name = body.name;
  if (body.archived !== undefined) changes.archived = body.archived;
  if (body.reentry !== undefined) changes.reentry = body.reentry;
  if (body.reentryDays !== undefined) changes.reentryDays = body.reentryDays;
  if (
    (changes.reentry ?? current.reentry) === 'after-days' &&
    (changes.reentryDays === undefined ? current.reentryDays : changes.reentryDays) === null
  ) {
    throw new AppError('UnprocessableError', flowApiMessages.reentryDays);
  }
  const archived = changes.archived ?? current.archived;
  let message: string | null = null;
  if (body.status !== undefined) {
    if (body.status === 'active') {
      if (archived) throw new AppError('UnprocessableError', flowApiMessages.archivedNotActive);
      if (current.status !== 'active') {
        const [steps, links] = await Promise.all([
          listSteps(db, accountId, [id]),
          listLinks(db, accountId, [id]),
        ]);
        const problem = await activationProblem(
          db,
          accountId,
          current,
          steps,
          links,
          new Date(),
          services.config.outgoing,
        );
        if (problem) throw problem;
        await recordFlowVersion(db, session, { ...current, ...changes }, steps, links);
        changes.activatedAt = new Date();
      }
      changes.status = 'active';
      message = flowMessages.activated;
    } else {
      changes.status = body.status;
      message = flowMessages.deactivated;
    }
  }
  if (archived && (changes.status ?? current.status) === 'active') {
    changes.status = 'deactivated-user';
    message = flowMessages.deactivated;
  }
  const row = await updateFlowRow(db, accountId, id, changes);
  return { integration: await shapeOne(db, services, accountId, row), message };
}

/** GET /v1/integrations/{id}/people-counts: people at each step now, in the flow now, ever entered, done. */
export async function flowPeopleCounts(db: Database, session: Session, id: number) {
  await flowOrThrow(db, session.accountId, id);
  const [atSteps, totals] = await Promise.all([
    peopleAtSteps(db, session.accountId, [id]),
    flowRunTotals(db, session.accountId, id),
  ]);
  return { steps: Object.fromEntries([...atSteps].map(([stepId, n]) => [String(stepId), n])), ...totals };
}

/** Everything the flow's steps point at. */
async function referencesOf(db: Database, accountId: number, id: number) {
  await flowOrThrow(db, accountId, id);
  const steps = await listSteps(db, accountId, [id]);
  const segments = new Set<number>();
  const emails = new Set<number>();
  const fields = new Set<string>();
  for (const step of steps) {
    const refs = stepReferences(step.operationKey, decodeInputFields(step.inputFields as InputFields));
    refs.segments.forEach((s) => segments.add(s));
    refs.emails.forEach((e) => emails.add(e));
    refs.fields.forEach((f) => fields.add(f));
  }
  return { segments: [...segments], emails: [...emails], fields: [...fields] };
}

/** GET /v1/integrations/{id}/emails: the emails the flow's steps use (archived or deleted ones left out). */
export async function flowEmails({ db, accountId }: FlowReader, id: number) {
  const refs = await referencesOf(db, accountId, id);
  const rows = await existingEmails(db, accountId, refs.emails);
  return {
    emails: rows.map((r) => ({
      id: Number(r.id),
      name: r.name,
      subject: r.subject,
      fromEmail: r.fromEmail,
      fromName: r.fromName,
    })),
  };
}

/** GET /v1/integrations/{id}/segments: the segments the flow's steps use. */
export async function flowSegments({ db, accountId }: FlowReader, id: number) {
  const refs = await referencesOf(db, accountId, id);
  const rows = await existingSegments(db, accountId, refs.segments);
  return { segments: rows.map((r) => ({ id: Number(r.id), name: r.name })) };
}

/** GET /v1/integrations/{id}/attached: emails, custom fields and segments the flow's steps use. */
export async function flowAttached({ db, accountId }: FlowReader, id: number) {
  const refs = await referencesOf(db, accountId, id);
  const [emails, fields, segments] = await Promise.all([
    existingEmails(db, accountId, refs.emails),
    existingFields(db, accountId, refs.fields),
    existingSegments(db, accountId, refs.segments),
  ]);
  return {
    email: emails.map((e) => ({ id: Number(e.id), name: e.name })),
    field: fields.map((f) => ({ name: f.name, title: f.title })),
    segment: segments.map((s) => ({ id: Number(s.id), name: s.name })),
  };
}
