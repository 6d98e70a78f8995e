import {
  archivedSegmentId,
  decodeInputFields,
  type ConditionNode,
  type InputFields,
} from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { conditionsOf } from '../segments/segment-context.ts';
import { queueSegmentRefresh } from '../segments/segments.jobs.ts';
import {
  insertSegment,
  listSegments,
  lockSegmentWrites,
  type SegmentRow,
} from '../segments/segments.queries.ts';
import { type CopyPlan, type SourceResources, type TargetState } from './flows.copy-plan.ts';
import { conditionReferences, mergeTagFields, remapConditions, type CopyMaps } from './flows.copy-remap.ts';
import { stepReferences } from './steps.shape.ts';

/**
 * The database side of copying a flow's emails, segments and custom fields into another account: read what the
 * steps use in the source (segments those segments refer to, emails and fields their conditions name, fields the
 * emails' merge tags name), read what the target has, and create the plan's items in the target's transaction.
 */

type EmailSource = {
  id: number;
  name: string;
  row: Record<string, unknown> & { categoryName: string | null };
};
type SegmentSource = {
  id: number;
  name: string;
  autoType: string | null;
  color: string | null;
  conditions: ConditionNode[];
};
type FieldSource = {
  name: string;
  type: string;
  title: string;
  mergeTagOnly: boolean;
  row: Record<string, unknown>;
};
export type FlowResources = SourceResources<EmailSource, SegmentSource, FieldSource>;
export type FlowCopyPlan = CopyPlan<EmailSource, SegmentSource, FieldSource>;

/** Everything the steps use, read in the source account's transaction. */
export async function readFlowResources(
  db: Database,
  accountId: number,
  steps: readonly { operationKey: string; inputFields: unknown }[],
): Promise<FlowResources> {
  const emailIds = new Set<number>();
  const segmentIds: number[] = [];
  const fieldNames = new Set<string>();
  for (const step of steps) {
    const refs = stepReferences(step.operationKey, decodeInputFields(step.inputFields as InputFields));
    refs.emails.forEach((id) => emailIds.add(id));
    segmentIds.push(...refs.segments);
    refs.fields.forEach((name) => fieldNames.add(name));
  }

  // Segments: those the steps use and those their conditions refer to, each after the ones it refers to.
  const rows = new Map((await listSegments(db, accountId)).map((row) => [Number(row.id), row]));
  const ordered: SegmentRow[] = [];
  const seen = new Set<number>();
  const visit = (id: number) => {
    const row = rows.get(id);
    if (id === archivedSegmentId || seen.has(id) || !row) return;
    seen.add(id);
    if (!row.autoType) {
      const refs = conditionReferences(conditionsOf(row));
      refs.segments.forEach(visit);
      refs.emails.forEach((e) => emailIds.add(e));
      refs.fields.forEach((f) => fieldNames.add(f));
    }
    ordered.push(row);
  };
  segmentIds.forEach(visit);

  const emailRows = emailIds.size
    ? await db
        .selectFrom('emails')
        .leftJoin('communicationCategories as c', (j) =>
          j.onRef('c.id', '=', 'emails.categoryId').onRef('c.accountId', '=', 'emails.accountId'),
        )
        .selectAll('emails')
        .select('c.name as categoryName')
        .where('emails.accountId', '=', accountId)
        .where('emails.id', 'in', [...emailIds])
        .where('emails.archived', '=', false)
        .orderBy('emails.id')
        .execute()
    : [];
  const mergeTagNames = new Set(emailRows.flatMap((e) => mergeTagFields(e.subject, e.preheader, e.html)));
  const allNames = [...new Set([...fieldNames, ...mergeTagNames])];
  const fieldRows = allNames.length
    ? await db
        .selectFrom('personFields')
        .selectAll()
        .where('accountId', '=', accountId)
        .where('name', 'in', allNames)
        .where('createdBy', '!=', 'system')
        .orderBy('name')
        .execute()
    : [];

  return {
    emails: emailRows.map((row) => ({ id: Number(row.id), name: row.name, row })),
    segments: ordered.map((row) => ({
      id: Number(row.id),
      name: row.name,
      autoType: row.autoType,
      color: row.color,
      conditions: conditionsOf(row),
    })),
    fields: fieldRows.map((row) => ({
      name: row.name,
      type: row.type,
      title: row.title,
      mergeTagOnly: !fieldNames.has(row.name),
      row,
    })),
  };
}

/** Names and automatic segments of the target account, read in its transaction. */
export async function readTargetState(db: Database, accountId: number): Promise<TargetState> {
  const [fields, emails, segments] = await Promise.all([
    db
      .selectFrom('personFields')
      .select(['name', 'type', 'title'])
      .where('accountId', '=', accountId)
      .execute(),
    db.selectFrom('emails').select('name').where('accountId', '=', accountId).execute(),
    db.selectFrom('segments').select(['id', 'name', 'autoType']).where('accountId', '=', accountId).execute(),
  ]);
  return {
    fields,
    emailNames: emails.map((e) => e.name),
    segmentNames: segments.map((s) => s.name),
    automatic: new Map(segments.filter((s) => s.autoType).map((s) => [s.autoType!, Number(s.id)])),
  };
}

/**
 * Create the plan's fields, emails and segments in the target (in this order: conditions name fields, emails and
 * earlier segments) and answer the maps from source ids and keys to the target's. `flow` maps the copied flow.
 */
export async function applyCopyPlan(
  db: Database,
  target: { accountId: number; teamMemberId: number },
  plan: FlowCopyPlan,
  flow: (id: number) => number,
): Promise<CopyMaps> {
  const { accountId } = target;
  const fieldKeys = new Map<string, string>();
  for (const item of plan.fields) {
    fieldKeys.set(item.source.name, item.key);
    if (!item.create) continue;
    const r = item.source.row;
    await db
      .insertInto('personFields')
      .values({
        accountId,
        name: item.key,
        title: item.title,
        type: item.source.type,
        icon: r.icon as string | null,
        tooltip: r.tooltip as string | null,
        format: r.format as string | null,
        isArray: r.isArray as boolean,
        canMapFrom: r.canMapFrom as boolean,
        enumValues: r.enumValues === null ? null : JSON.stringify(r.enumValues),
        enumNames: r.enumNames === null ? null : JSON.stringify(r.enumNames),
        allowNewEnumValues: r.allowNewEnumValues as boolean,
      })
      .execute();
  }

  const categoryNames = plan.emails
    .map((e) => e.source.row.categoryName)
    .filter((n): n is string => n !== null);
  const categories = categoryNames.length
    ? await db
        .selectFrom('communicationCategories')
        .select(['id', 'name'])
        .where('accountId', '=', accountId)
        .where('isArchived', '=', false)
        .where('name', 'in', categoryNames)
        .orderBy('id')
        .execute()
    : [];
  const categoryByName = new Map<string, number>();
  for (const c of categories) if (!categoryByName.has(c.name)) categoryByName.set(c.name, Number(c.id));
  const emailIds = new Map<number, number>();
  for (const item of plan.emails) {
    const r = item.source.row;
    const created = await db
      .insertInto('emails')
      .values({
        accountId,
        name: item.name,
        subject: r.subject as string,
        preheader: r.preheader as string,
        fromName: r.fromName as string,
        fromEmail: r.fromEmail as string,
        replyTo: r.replyTo as string | null,
        html: r.html as string,
        type: r.type as string,
        editor: JSON.stringify(r.editor),
        categoryId: r.categoryName === null ? null : (categoryByName.get(r.categoryName) ?? null),
        createdBy: target.teamMemberId,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    emailIds.set(item.source.id, Number(created.id));
  }

  const segmentIds = new Map<number, number>();
  const maps: CopyMaps = {
    email: (id) => emailIds.get(id) ?? id,
    segment: (id) => segmentIds.get(id) ?? id,
    field: (name) => fieldKeys.get(name) ?? name,
    flow,
  };
  if (plan.segments.some((s) => s.create)) await lockSegmentWrites(db, accountId);
  for (const item of plan.segments) {
    if (!item.create) {
      segmentIds.set(item.source.id, item.targetId);
      continue;
    }
    const row = await insertSegment(db, accountId, {
      name: item.name,
      color: item.source.color,
      conditions: remapConditions(item.source.conditions, maps),
    });
    segmentIds.set(item.source.id, Number(row.id));
    await queueSegmentRefresh(db, accountId, Number(row.id));
  }
  return maps;
}
