import {
  firstClassFieldNames,
  segmentMessages,
  simulateMessages,
  type ConditionNode,
  type ConditionVerdict,
  type OperationConfig,
} from '@herald/contracts';
import { explainQuery, segmentFilter, type CompileContext } from '@herald/segments';
import { isValidTimeZone, type EngineStep } from '@herald/flow-engine';
import { sql } from 'kysely';
import crypto from 'node:crypto';
import type { z } from 'zod';
import type { SimulatePerson, SimulatedEvent } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { postgresEventStore } from '../../db/event-store-postgres.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import { personJsonForTemplates } from '../people/people.queries.ts';
import { writableTableColumns } from '../people/person-values.ts';
import { conditionsProblem } from '../segments/segment-context.ts';
import { filterCondition } from './flow-runs.facts.ts';
import { asNodes, explainVerdicts } from './simulate.explain.ts';

/**
 * The simulated person inside the simulation's savepoint: a real one found by email, or a made-up one inserted there
 * (with their events, which appear as the simulated clock reaches them). Filters and the goal are answered with the
 * same compiled SQL the runtime uses, at the simulated time. The caller rolls the savepoint back: nothing stays.
 */

export interface SimPerson {
  id: number;
  email: string | null;
  synthetic: boolean;
  /** The person's own time zone field, when valid. */
  zone: string | null;
}

/** Columns of the first-class fields a made-up person may set (the rest are custom fields). */
const columns: Record<string, string> = writableTableColumns;

export async function simulatedPerson(
  db: Database,
  accountId: number,
  spec: z.infer<typeof SimulatePerson>,
): Promise<SimPerson> {
  if ('email' in spec) {
    const { rows } = await sql<{ id: string; email: string | null; zone: string | null }>`
      select id, email, nullif(fields->>'timezone', '') as zone from people
      where account_id = ${accountId} and lower(email) = lower(${spec.email}) limit 1`.execute(db);
    const row = rows[0];
    if (!row) throw notFound(simulateMessages.personNotFound);
    return {
      id: Number(row.id),
      email: row.email,
      synthetic: false,
      zone: row.zone && isValidTimeZone(row.zone) ? row.zone : null,
    };
  }
  if (spec.timezone !== undefined && !isValidTimeZone(spec.timezone))
    throw badRequest(simulateMessages.badTimeZone);
  const custom: Record<string, unknown> = {};
  const set: Record<string, string | null> = {};
  for (const [name, value] of Object.entries(spec.fields)) {
    if (columns[name]) set[columns[name]] = value === null ? null : String(value);
    else if (!firstClassFieldNames.includes(name) && value !== null) custom[name] = value;
  }
  if (spec.timezone) custom.timezone = spec.timezone;
  // A made-up address unless one is given; an address of a real person would collide with them.
  const email = set.email ?? `test-run-${crypto.randomUUID()}@example.invalid`;
  const taken = await sql<{
    id: string;
  }>`select id from people where account_id = ${accountId} and lower(email) = lower(${email}) limit 1`.execute(
    db,
  );
  if (taken.rows.length) throw badRequest(simulateMessages.emailTaken);
  set.email = email;
  const names = Object.keys(set);
  const { rows } = await sql<{ id: string }>`
    insert into people (account_id, ${sql.join(names.map((n) => sql.ref(n)))}, fields, tags)
    values (${accountId}, ${sql.join(names.map((n) => sql`${set[n]}`))}, ${JSON.stringify(custom)}::jsonb, ${sql.val([...new Set(spec.tags)])}::text[])
    returning id`.execute(db);
  return { id: Number(rows[0]!.id), email, synthetic: true, zone: spec.timezone ?? null };
}

/** Inserts the made-up events whose time has come on the simulated clock (once each, in time order). */
export function eventFeed(
  db: Database,
  accountId: number,
  personId: number,
  events: readonly z.infer<typeof SimulatedEvent>[],
) {
  const pending = [...events].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  let next = 0;
  return {
    moments: pending.map((e) => new Date(e.at)),
    async until(at: Date): Promise<void> {
      const due: typeof pending = [];
      while (next < pending.length && Date.parse(pending[next]!.at) <= at.getTime())
        due.push(pending[next++]!);
      if (!due.length) return;
      await sql`
        insert into events (account_id, person_id, type, name, data, created_at)
        select ${accountId}, ${personId}, 'track', e.name, e.data, e.at
        from unnest(${sql.val(due.map((e) => e.name))}::text[], ${sql.val(due.map((e) => JSON.stringify(e.properties)))}::jsonb[], ${sql.val(due.map((e) => e.at))}::timestamptz[])
          as e(name, data, at)`.execute(db);
    },
  };
}

/** The person as templates and explanations see them (custom fields beside first-class ones, tags a list). */
export async function personValues(
  db: Database,
  accountId: number,
  personId: number,
): Promise<Record<string, unknown>> {
  const { rows } = await sql<{
    person: Record<string, unknown>;
  }>`select ${personJsonForTemplates} as person from people p where p.account_id = ${accountId} and p.id = ${personId}`.execute(
    db,
  );
  return rows[0]?.person ?? {};
}

export interface FilterVerdict {
  answer: boolean;
  why: string;
  verdicts: ConditionVerdict[];
}

/** The conditions a filter step explains itself with (a has-tag step as a tag condition). */
function explainedNodes(
  step: EngineStep,
  ctx: CompileContext,
): { nodes: ConditionNode[]; selfId?: number; label: string } | null {
  const config = step.config;
  switch (step.operationKey) {
    case '/has-tag':
      return {
        nodes: [{ type: 'tag', operator: 'has', tag: (config as OperationConfig<'/has-tag'>).tag }],
        label: 'Has tag',
      };
    case '/in-segment': {
      const id = (config as OperationConfig<'/in-segment'>).segment.id;
      const nodes = ctx.segments.get(id);
      return nodes ? { nodes, selfId: id, label: `In segment ${id}` } : null;
    }
    default:
      return { nodes: asNodes((config as { condition: ConditionNode }).condition), label: 'Condition' };
  }
}

/** A filter's answer for the person at `at` (the runtime's SQL), with each condition's verdict and the person's values. */
export async function answerFilter(
  db: Database,
  accountId: number,
  personId: number,
  step: EngineStep,
  ctx: CompileContext,
): Promise<FilterVerdict | { problem: string }> {
  // A test run reads event conditions in PostgreSQL: its made-up events live only in its own transaction, and on the
  // ClickHouse store the person's stored events were copied in (copyPersonForTestRun).
  const condition = await filterCondition(postgresEventStore(), db, accountId, step, () =>
    Promise.resolve(ctx),
  );
  if ('problem' in condition) return condition;
  const { rows } = await sql<{ yes: boolean }>`
    select coalesce(${condition.filter}, false) as yes from people p where p.account_id = ${accountId} and p.id = ${personId}`.execute(
    db,
  );
  const answer = rows[0]?.yes ?? false;
  const explained = explainedNodes(step, ctx);
  if (!explained || explained.nodes.length === 0) {
    return {
      answer,
      verdicts: [],
      why: explained
        ? 'The segment has no conditions: everyone not archived is in it.'
        : segmentMessages.unknownSegment(0),
    };
  }
  const { query, toVerdicts } = explainQuery(explained.nodes, ctx, personId, explained.selfId);
  const row = (await query.execute(db)).rows[0];
  const verdicts = row ? toVerdicts(row) : [];
  const person = await personValues(db, accountId, personId);
  return { answer, verdicts, why: `${answer ? 'Yes' : 'No'}: ${explainVerdicts(verdicts, person)}` };
}

/** Whether the person matches the goal at `at`; null when the flow has no goal or it no longer compiles. */
export function goalCheck(
  db: Database,
  accountId: number,
  personId: number,
  goal: ConditionNode[] | null,
  base: CompileContext,
) {
  if (!goal || goal.length === 0 || conditionsProblem(goal, base)) return undefined;
  return async (at: Date): Promise<boolean> => {
    const ctx = { ...base, now: at };
    const { rows } = await sql<{ yes: boolean }>`
      select coalesce(${segmentFilter(goal, ctx)}, false) as yes from people p where p.account_id = ${accountId} and p.id = ${personId}`.execute(
      db,
    );
    return rows[0]?.yes ?? false;
  };
}
