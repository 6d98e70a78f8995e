import { describe, expect, it } from 'vitest';
import { eventStoreDdl, metricTables } from '../src/db/clickhouse-schema.ts';

/**
 * The event store's tables on a ClickHouse cluster (CLICKHOUSE_CLUSTER). There is no cluster to run them on here;
 * the single-node statements run in every ClickHouse test. These check the cluster's shape: every statement on the
 * cluster, every stored table replicated, the views on each node's own shard, a distributed table by account over
 * each local one.
 */
describe('ClickHouse tables on a cluster', () => {
  const ddl = eventStoreDdl('herald_cluster');

  it('create every table and view on the cluster, every stored table replicated', () => {
    for (const statement of ddl)
      expect(statement).toMatch(
        /^\s*CREATE (TABLE|MATERIALIZED VIEW) IF NOT EXISTS \S+ ON CLUSTER herald_cluster /,
      );
    const engines = ddl.flatMap((statement) => [...statement.matchAll(/ENGINE = (\w+)/g)].map((m) => m[1]!));
    expect(
      engines.filter((engine) => engine !== 'Distributed').every((engine) => engine.startsWith('Replicated')),
    ).toBe(true);
  });

  it('fill the metrics from each node’s events_local into its local rollups, read through distributed tables by account', () => {
    const views = ddl.filter((statement) => statement.includes('MATERIALIZED VIEW'));
    expect(views).toHaveLength(2);
    for (const view of views) {
      expect(view).toMatch(/FROM events_local\b/);
      expect(view).toMatch(/TO email_metric\w*_local AS/);
    }
    for (const table of ['events', ...metricTables]) {
      const distributed = ddl.find((statement) =>
        new RegExp(`CREATE TABLE IF NOT EXISTS ${table} ON CLUSTER`).test(statement),
      );
      expect(distributed, table).toMatch(
        new RegExp(
          `ENGINE = Distributed\\(herald_cluster, currentDatabase\\(\\), ${table}_local, cityHash64\\(account_id\\)\\)`,
        ),
      );
    }
  });

  it('keep the single-node statements off any cluster', () => {
    for (const statement of eventStoreDdl(undefined)) {
      expect(statement).not.toMatch(/ON CLUSTER|Replicated|Distributed|_local/);
    }
  });
});
