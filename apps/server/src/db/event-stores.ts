import type pg from 'pg';
import type { Config } from '../config-types.ts';
import { connectClickHouse } from './clickhouse.ts';
import { clickhouseEventStore } from './event-store-clickhouse.ts';
import { postgresEventStore } from './event-store-postgres.ts';
import type { EventStore } from './event-store.ts';
import { registerReadinessCheck } from '../http/readiness.ts';
import { registerSpool } from '../lib/prometheus.ts';

const openNames = new Set<string>();
/** `eventStore`; a second store open in one process (tests) is `eventStore-2`, and so on. */
function readinessName(): string {
  let name = 'eventStore';
  for (let n = 2; openNames.has(name); n += 1) name = `eventStore-${n}`;
  openNames.add(name);
  return name;
}

/**
 * The event store EVENT_STORE names (docs/scaling.md): PostgreSQL's tables, or ClickHouse (its tables are created
 * when missing, at ClickHouse's first answer; the forwarder starts with `start()`).
 */
export async function openEventStore(
  config: Pick<Config, 'eventStore'>,
  pool: pg.Pool,
  log: (line: string) => void = console.log,
): Promise<{ store: EventStore; close(): Promise<void> }> {
  if (config.eventStore.kind === 'postgres')
    return { store: postgresEventStore(), close: async () => undefined };
  // Starting does not wait for ClickHouse: its tables are made at its first answer, and events wait in the spool.
  const ch = await connectClickHouse(config.eventStore.url);
  const store = clickhouseEventStore(ch, pool, config.eventStore.cluster, { log });
  log(`Events are kept in ClickHouse at ${ch.address}`);
  // /readyz asks ClickHouse too, and the spool's size and age are metrics (herald_spool_size{spool="events"}).
  const name = readinessName();
  const unregister = [
    registerReadinessCheck(name, () => store.ping()),
    () => openNames.delete(name),
    registerSpool('events', { size: () => store.spool().size, oldestAtMs: () => store.spool().oldestAtMs }),
  ];
  return {
    store,
    close: async () => {
      for (const done of unregister) done();
      await store.stop();
      await ch.close();
    },
  };
}
