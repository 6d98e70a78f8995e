import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { inject } from 'vitest';
import type { ConditionNode, PersonFieldType } from '@herald/contracts';
import { firstClassFieldTypes, segmentFilter, type CompileContext } from '../src/index.ts';
import { customFieldTypes, testNow, type DataSet } from './data-set.ts';

pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** A Kysely over the test database (no camel-case plugin: the compiler writes SQL names itself). */
export function openTestDb(): Kysely<any> {
  return new Kysely<any>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: inject('databaseUrl'), max: 4 }) }),
  });
}

/** A compile context for a data set, with the given stored segments. */
export function contextFor(data: DataSet, segments: Record<number, ConditionNode[]> = {}): CompileContext {
  const fieldTypes = new Map<string, PersonFieldType>(firstClassFieldTypes);
  for (const [name, type] of Object.entries(customFieldTypes)) fieldTypes.set(name, type);
  return {
    accountId: data.accountId,
    now: testNow,
    fieldTypes,
    segments: new Map(Object.entries(segments).map(([id, nodes]) => [Number(id), nodes])),
  };
}

/** Ids the compiled filter selects, under the same row-level security as a signed-in request. */
export async function selectIds(
  db: Kysely<any>,
  nodes: readonly ConditionNode[],
  ctx: CompileContext,
): Promise<Set<number>> {
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('herald.account_id', ${String(ctx.accountId)}, true), set_config('role', 'herald_app', true)`.execute(
      trx,
    );
    const { rows } = await sql<{
      id: number;
    }>`select p.id from people p where ${segmentFilter(nodes, ctx)}`.execute(trx);
    return new Set(rows.map((r) => r.id));
  });
}

export const sorted = (ids: Iterable<number>) => [...ids].sort((a, b) => a - b);
