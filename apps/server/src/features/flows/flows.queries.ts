import { sql } from 'kysely';
import { intArray } from '../../db/arrays.ts';
import type { Database } from '../../db/connection.ts';

const flowColumns = [
  'id',
  'name',
  'status',
  'archived',
  'reentry',
  'reentryDays',
  'recipe',
  'warnings',
  'version',
  'activatedAt',
  'lastSaved',
  'createdBy',
  'createdAt',
  'updatedAt',
] as const;

export type FlowRow = NonNullable<Awaited<ReturnType<typeof findFlow>>>;

/** The account's flows, archived or not, most recently changed first. */
export function listFlowRows(db: Database, accountId: number, archived: boolean) {
  return db
    .selectFrom('flows')
    .select(flowColumns)
    .where('accountId', '=', accountId)
    .where('archived', '=', archived)
    .orderBy('updatedAt', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export function listFlowNames(db: Database, accountId: number) {
  return db
    .selectFrom('flows')
    .select(['id', 'name'])
    .where('accountId', '=', accountId)
    .where('archived', '=', false)
    .orderBy('name')
    .orderBy('id')
    .execute();
}

/** Ids of flows not archived, oldest first (the items a flows folder may hold). */
export async function listActiveFlowIds(db: Database, accountId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('flows')
    .select('id')
    .where('accountId', '=', accountId)
    .where('archived', '=', false)
    .orderBy('id')
    .execute();
  return rows.map((r) => Number(r.id));
}

export function findFlow(db: Database, accountId: number, id: number) {
  return db
    .selectFrom('flows')
    .select(flowColumns)
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The flow row locked for the rest of the transaction: edits of one flow's steps and links run one at a time. */
export function lockFlow(db: Database, accountId: number, id: number) {
  return db
    .selectFrom('flows')
    .select(flowColumns)
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export function insertFlow(
  db: Database,
  values: {
    accountId: number;
    name: string;
    createdBy: number;
    reentry?: string;
    reentryDays?: number | null;
  },
) {
  return db
    .insertInto('flows')
    .values({ ...values, lastSaved: sql<Date>`now()` })
    .returning(flowColumns)
    .executeTakeFirstOrThrow();
}

export type FlowChanges = {
  name?: string;
  status?: string;
  archived?: boolean;
  reentry?: string;
  reentryDays?: number | null;
  activatedAt?: Date;
};

export function updateFlowRow(db: Database, accountId: number, id: number, changes: FlowChanges) {
  return db
    .updateTable('flows')
    .set({ ...changes, lastSaved: sql<Date>`now()`, updatedAt: sql<Date>`now()` })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .returning(flowColumns)
    .executeTakeFirstOrThrow();
}

/** After any change to a flow's steps or links: a new version (workers reload the flow) and a new save time. */
export async function bumpFlowVersion(db: Database, accountId: number, id: number) {
  await db
    .updateTable('flows')
    .set({ version: sql<number>`version + 1`, lastSaved: sql<Date>`now()`, updatedAt: sql<Date>`now()` })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .execute();
}

/**
 * People now at each step, for the given flows: a run due to execute a step is at that step; a waiting run is at the
 * wait it is waiting in (its last executed step, from flow_run_steps), though its row already points past it.
 */
export async function peopleAtSteps(
  db: Database,
  accountId: number,
  flowIds: number[],
): Promise<Map<number, number>> {
  if (flowIds.length === 0) return new Map();
  const { rows } = await sql<{ stepId: string; n: string }>`
    select coalesce(s.step_id, r.step_id) as "stepId", count(*) as n
    from flow_runs r
    left join flow_run_steps s on r.status = 'waiting' and s.account_id = r.account_id and s.run_id = r.id and s.seq = r.seq
    where r.account_id = ${accountId} and r.flow_id = any(${intArray(flowIds)}::bigint[]) and r.status in ('active', 'waiting') and r.step_id is not null
    group by 1`.execute(db);
  return new Map(rows.map((r) => [Number(r.stepId), Number(r.n)]));
}

/** A flow's people: now in it, ever entered, and done. */
export async function flowRunTotals(db: Database, accountId: number, flowId: number) {
  const { rows } = await sql<{ active: number; entered: number; completed: number }>`
    select count(*) filter (where status in ('active', 'waiting'))::int as active,
           count(*)::int as entered,
           count(*) filter (where status = 'done')::int as completed
    from flow_runs where account_id = ${accountId} and flow_id = ${flowId}`.execute(db);
  return rows[0] ?? { active: 0, entered: 0, completed: 0 };
}

/** Which of these segments exist (the virtual Archived segment is passed by the caller). */
export async function existingSegments(db: Database, accountId: number, ids: number[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('segments')
    .select(['id', 'name'])
    .where('accountId', '=', accountId)
    .where('id', 'in', ids)
    .orderBy('name')
    .execute();
}

/** Which of these emails exist and are not archived, with what a flow's email list shows. */
export async function existingEmails(db: Database, accountId: number, ids: number[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('emails')
    .select(['id', 'name', 'subject', 'fromEmail', 'fromName'])
    .where('accountId', '=', accountId)
    .where('id', 'in', ids)
    .where('archived', '=', false)
    .orderBy('name')
    .execute();
}

/** Which of these custom fields exist, with their titles. */
export async function existingFields(db: Database, accountId: number, names: string[]) {
  if (names.length === 0) return [];
  return db
    .selectFrom('personFields')
    .select(['name', 'title', 'type'])
    .where('accountId', '=', accountId)
    .where('name', 'in', names)
    .orderBy('name')
    .execute();
}

/** Archive flows (a folder of flows deleted); an active one is switched off as archiving one by one does. */
export async function archiveFlows(db: Database, accountId: number, ids: number[]) {
  if (ids.length === 0) return;
  await db
    .updateTable('flows')
    .set({
      archived: true,
      status: sql<string>`case when status = 'active' then 'deactivated-user' else status end`,
      lastSaved: sql<Date>`now()`,
      updatedAt: sql<Date>`now()`,
    })
    .where('accountId', '=', accountId)
    .where('id', 'in', ids)
    .execute();
}
