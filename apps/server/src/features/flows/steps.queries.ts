import { sql } from 'kysely';
import type { InputFields } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';

/** The step's columns; the webhook trigger's secret is read to sign its URL and never leaves the server (toStep). */
const stepColumns = [
  'id',
  'flowId',
  'type',
  'serviceId',
  'operationKey',
  'inputFields',
  'outputFields',
  'x',
  'y',
  'position',
  'integrationId',
  'secret',
  'createdAt',
  'updatedAt',
] as const;

export type StepRow = NonNullable<Awaited<ReturnType<typeof findStep>>>;

export function listSteps(db: Database, accountId: number, flowIds: number[]) {
  if (flowIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('flowSteps')
    .select(stepColumns)
    .where('accountId', '=', accountId)
    .where('flowId', 'in', flowIds)
    .orderBy('id')
    .execute();
}

export function findStep(db: Database, accountId: number, id: number) {
  return db
    .selectFrom('flowSteps')
    .select(stepColumns)
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function countFlowSteps(db: Database, accountId: number, flowId: number) {
  const row = await db
    .selectFrom('flowSteps')
    .select([
      (eb) => eb.fn.countAll<string>().as('steps'),
      sql<string>`count(*) filter (where type = 'trigger')`.as('triggers'),
    ])
    .where('accountId', '=', accountId)
    .where('flowId', '=', flowId)
    .executeTakeFirstOrThrow();
  return { steps: Number(row.steps), triggers: Number(row.triggers) };
}

export function insertStep(
  db: Database,
  values: {
    accountId: number;
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
  return db
    .insertInto('flowSteps')
    .values({ ...values, inputFields: JSON.stringify(values.inputFields) })
    .returning(stepColumns)
    .executeTakeFirstOrThrow();
}

export function updateStepRow(
  db: Database,
  accountId: number,
  id: number,
  changes: { inputFields?: InputFields; x?: number; y?: number; position?: number | null },
) {
  return db
    .updateTable('flowSteps')
    .set({
      ...(changes.inputFields !== undefined ? { inputFields: JSON.stringify(changes.inputFields) } : {}),
      ...(changes.x !== undefined ? { x: changes.x, y: changes.y } : {}),
      ...(changes.position !== undefined ? { position: changes.position } : {}),
      updatedAt: sql<Date>`now()`,
    })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .returning(stepColumns)
    .executeTakeFirstOrThrow();
}

/** Delete a step; its links go with it (foreign keys cascade). */
export async function deleteStepRow(db: Database, accountId: number, id: number) {
  await db.deleteFrom('flowSteps').where('accountId', '=', accountId).where('id', '=', id).execute();
}

/** The people now at a step (a waiting person at the wait they wait in, as peopleAtSteps counts), longest there first. */
export async function peopleAtStep(db: Database, accountId: number, stepId: number, limit: number) {
  const { rows } = await sql<{
    id: string;
    email: string | null;
    firstName: string | null;
    lastName: string | null;
    updatedAt: Date;
    wakeAt: Date | null;
  }>`
    select p.id, p.email, p.first_name as "firstName", p.last_name as "lastName", r.updated_at as "updatedAt", r.wake_at as "wakeAt"
    from flow_runs r
    left join flow_run_steps s on r.status = 'waiting' and s.account_id = r.account_id and s.run_id = r.id and s.seq = r.seq
    join people p on p.account_id = r.account_id and p.id = r.person_id
    where r.account_id = ${accountId}
      and r.flow_id = (select flow_id from flow_steps where account_id = ${accountId} and id = ${stepId})
      and r.status in ('active', 'waiting') and coalesce(s.step_id, r.step_id) = ${stepId}
    order by r.updated_at, r.id
    limit ${limit}`.execute(db);
  return rows;
}
