import type { CategoryType } from '@herald/contracts';
import { sql } from 'kysely';
import { intArray } from '../../db/arrays.ts';
import type { Database } from '../../db/connection.ts';
import { accountForIdLookup } from '../../db/tenancy.ts';
import { deliverableTo } from '../suppressions/recipient-rule.ts';

/** SQL of the effects of flow steps, each applied set-wise for a batch of runs. */

/** Add a tag to people who lack it (their tag triggers fire from the people trigger). */
export async function addTagTo(
  db: Database,
  accountId: number,
  tag: string,
  personIds: number[],
): Promise<void> {
  await db
    .insertInto('tags')
    .values({ accountId, tag })
    .onConflict((c) => c.columns(['accountId', 'tag']).doNothing())
    .execute();
  await sql`
    update people set tags = array_append(tags, ${tag}::text), updated_at = now()
    where account_id = ${accountId} and id = any(${intArray(personIds)}::bigint[]) and not (tags @> array[${tag}::text])`.execute(
    db,
  );
}

export async function removeTagFrom(
  db: Database,
  accountId: number,
  tag: string,
  personIds: number[],
): Promise<void> {
  await sql`
    update people set tags = array_remove(tags, ${tag}::text), updated_at = now()
    where account_id = ${accountId} and id = any(${intArray(personIds)}::bigint[]) and tags @> array[${tag}::text]`.execute(
    db,
  );
}

/** First-class fields a flow may change, and their columns; every other name is a custom field. */
const fieldColumns: Record<string, string> = {
  firstName: 'first_name',
  lastName: 'last_name',
  phone: 'phone',
  company: 'company',
  website: 'website',
  userId: 'external_id',
};

export async function changeField(
  db: Database,
  accountId: number,
  field: string,
  value: string | number | boolean | null,
  personIds: number[],
): Promise<void> {
  const column = fieldColumns[field];
  if (column) {
    await sql`update people set ${sql.ref(column)} = ${value === null ? null : String(value)}, updated_at = now()
      where account_id = ${accountId} and id = any(${intArray(personIds)}::bigint[])`.execute(db);
    return;
  }
  await sql`update people set fields = case when ${value === null} then fields - ${field}::text else fields || jsonb_build_object(${field}::text, ${JSON.stringify(value)}::jsonb) end,
      updated_at = now()
    where account_id = ${accountId} and id = any(${intArray(personIds)}::bigint[])`.execute(db);
}

/** The lead score is the custom field leadScore (a number); a change adds to it, from 0 when unset. */
export async function changeLeadScore(
  db: Database,
  accountId: number,
  change: number,
  personIds: number[],
): Promise<void> {
  await sql`update people set fields = fields || jsonb_build_object('leadScore',
      coalesce(case when jsonb_typeof(fields->'leadScore') = 'number' then (fields->>'leadScore')::numeric end, 0) + ${change}::numeric),
      updated_at = now()
    where account_id = ${accountId} and id = any(${intArray(personIds)}::bigint[])`.execute(db);
}

export async function archivePeople(db: Database, accountId: number, personIds: number[]): Promise<void> {
  await sql`update people set archived_at = now(), updated_at = now()
    where account_id = ${accountId} and id = any(${intArray(personIds)}::bigint[]) and archived_at is null`.execute(
    db,
  );
}

/** The email a send step names, with its category; undefined when it no longer exists. */
export async function emailForSend(
  db: Database,
  accountId: number,
  emailId: number,
): Promise<{ id: number; category: { id: number; type: CategoryType } } | undefined> {
  const { rows } = await sql<{ id: string; categoryId: string | null; categoryType: CategoryType | null }>`
    select e.id, c.id as "categoryId", c.type as "categoryType" from emails e
    left join communication_categories c on c.account_id = e.account_id
      and c.id = coalesce(e.category_id, (select d.id from communication_categories d where d.account_id = e.account_id and d.is_default limit 1))
    where e.account_id = ${accountId} and e.id = ${emailId}`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  return {
    id: Number(row.id),
    category: { id: Number(row.categoryId ?? 0), type: row.categoryType ?? 'marketing' },
  };
}

export interface FlowSend {
  runId: number;
  seq: number;
  personId: number;
}

/**
 * Queue one delivery per send of the batch (source 'flow', the send step), unique per (run, seq): a retried batch
 * queues nothing twice. People who may not receive the email's category (unsubscribed, suppressed, opted out,
 * archived, no address) get no row. Returns how many rows were queued.
 */
export async function queueFlowDeliveries(
  db: Database,
  accountId: number,
  stepId: number,
  email: { id: number; category: { id: number; type: CategoryType } },
  sends: FlowSend[],
): Promise<number> {
  const result = await sql`
    insert into deliveries (account_id, source_kind, source_id, person_id, email_id, to_address, flow_run_id, flow_seq)
    select p.account_id, 'flow', ${stepId}, p.id, ${email.id}, p.email, v.run_id, v.seq
    from unnest(${intArray(sends.map((s) => s.runId))}::bigint[], ${intArray(sends.map((s) => s.seq))}::int[], ${intArray(sends.map((s) => s.personId))}::bigint[])
      as v(run_id, seq, person_id)
    -- One primary-key lookup per send (offset 0 keeps it a lookup), never a hash of the whole account's people.
    cross join lateral (select * from people p where p.account_id = ${accountForIdLookup(accountId)} and p.id = v.person_id offset 0) p
    where ${deliverableTo(email.category.id, email.category.type)}
    on conflict (account_id, flow_run_id, flow_seq) where flow_run_id is not null do nothing`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Team members' addresses among `addresses` (a notification goes to the account's own team only). */
export async function teamAddresses(
  db: Database,
  accountId: number,
  addresses: string[],
): Promise<Set<string>> {
  const { rows } = await sql<{ email: string }>`
    select lower(u.email) as email from team_members t join users u on u.id = t.user_id
    where t.account_id = ${accountId} and lower(u.email) = any(${sql.val(addresses.map((a) => a.toLowerCase()))}::text[])`.execute(
    db,
  );
  return new Set(rows.map((r) => r.email));
}

/** The people of a batch as merge data for notifications and webhook payloads. */
export async function peopleData(db: Database, accountId: number, personIds: number[]) {
  const { rows } = await sql<{
    id: string;
    email: string | null;
    firstName: string | null;
    lastName: string | null;
    fields: Record<string, unknown>;
    tags: string[];
  }>`
    select id, email, first_name as "firstName", last_name as "lastName", fields, tags from people
    where account_id = ${accountId} and id = any(${intArray(personIds)}::bigint[])`.execute(db);
  return new Map(rows.map((r) => [Number(r.id), { ...r, id: Number(r.id) }]));
}

export interface WebhookCall {
  key: string;
  flowId: number;
  stepId: number;
  runId: number;
  personId: number;
  url: string;
  payload: unknown;
}

/** Store webhook calls in the outbox under their idempotency keys (a retried batch stores none twice). */
export async function storeWebhookCalls(
  db: Database,
  accountId: number,
  calls: WebhookCall[],
): Promise<void> {
  if (!calls.length) return;
  await db
    .insertInto('flowWebhookCalls')
    .values(
      calls.map((c) => ({
        accountId,
        idempotencyKey: c.key,
        flowId: c.flowId,
        stepId: c.stepId,
        runId: c.runId,
        personId: c.personId,
        url: c.url,
        payload: JSON.stringify(c.payload),
      })),
    )
    .onConflict((c) => c.columns(['accountId', 'idempotencyKey']).doNothing())
    .execute();
}
