import { sql } from 'kysely';
import type { FlowSnapshot, InputFields } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';

/** The account's flow versions, newest first, with the name and address of who made each (null once they left). */
export function listVersionRows(db: Database, accountId: number, flowId: number) {
  return db
    .selectFrom('flowVersions as v')
    .leftJoin('teamMembers as m', (join) =>
      join.onRef('m.accountId', '=', 'v.accountId').onRef('m.id', '=', 'v.createdBy'),
    )
    .leftJoin('users as u', 'u.id', 'm.userId')
    .select([
      'v.number',
      'v.snapshot',
      'v.createdAt',
      'v.createdBy',
      'm.name as memberName',
      'u.name as userName',
      'u.email',
    ])
    .where('v.accountId', '=', accountId)
    .where('v.flowId', '=', flowId)
    .orderBy('v.number', 'desc')
    .execute();
}
export type VersionRow = Awaited<ReturnType<typeof listVersionRows>>[number];

export function findVersionRow(db: Database, accountId: number, flowId: number, number: number) {
  return db
    .selectFrom('flowVersions as v')
    .leftJoin('teamMembers as m', (join) =>
      join.onRef('m.accountId', '=', 'v.accountId').onRef('m.id', '=', 'v.createdBy'),
    )
    .leftJoin('users as u', 'u.id', 'm.userId')
    .select([
      'v.number',
      'v.snapshot',
      'v.createdAt',
      'v.createdBy',
      'm.name as memberName',
      'u.name as userName',
      'u.email',
    ])
    .where('v.accountId', '=', accountId)
    .where('v.flowId', '=', flowId)
    .where('v.number', '=', number)
    .executeTakeFirst();
}

/** The newest version's number and snapshot, if the flow has one. */
export function lastVersionRow(db: Database, accountId: number, flowId: number) {
  return db
    .selectFrom('flowVersions')
    .select(['number', 'snapshot'])
    .where('accountId', '=', accountId)
    .where('flowId', '=', flowId)
    .orderBy('number', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function insertVersion(
  db: Database,
  values: { accountId: number; flowId: number; number: number; snapshot: FlowSnapshot; createdBy: number },
) {
  await db
    .insertInto('flowVersions')
    .values({ ...values, snapshot: JSON.stringify(values.snapshot) })
    .execute();
}

/**
 * A step put back by a restore, under the id it had: ids come from one sequence and are never handed out twice,
 * so the id is free, and a run still pointing at it (the flow was off) finds its step again.
 */
export async function reinsertStep(
  db: Database,
  values: {
    accountId: number;
    id: number;
    flowId: number;
    type: string;
    serviceId: string;
    operationKey: string;
    inputFields: InputFields;
    x: number;
    y: number;
    position: number | null;
    secret: string | null;
  },
) {
  await sql`
    insert into flow_steps (account_id, id, flow_id, type, service_id, operation_key, input_fields, x, y, position, secret)
    overriding system value
    values (${values.accountId}, ${values.id}, ${values.flowId}, ${values.type}, ${values.serviceId}, ${values.operationKey},
            ${JSON.stringify(values.inputFields)}::jsonb, ${values.x}, ${values.y}, ${values.position}, ${values.secret})`.execute(
    db,
  );
}

/** Is this step id taken by any step of the account (another flow's)? */
export async function stepIdTaken(db: Database, accountId: number, id: number): Promise<boolean> {
  return (
    (await db
      .selectFrom('flowSteps')
      .select('id')
      .where('accountId', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst()) !== undefined
  );
}

export async function deleteFlowLinks(db: Database, accountId: number, flowId: number) {
  await db.deleteFrom('flowLinks').where('accountId', '=', accountId).where('flowId', '=', flowId).execute();
}

export async function setReentry(
  db: Database,
  accountId: number,
  flowId: number,
  settings: FlowSnapshot['settings'],
) {
  await db
    .updateTable('flows')
    .set({ reentry: settings.reentry, reentryDays: settings.reentryDays })
    .where('accountId', '=', accountId)
    .where('id', '=', flowId)
    .execute();
}
