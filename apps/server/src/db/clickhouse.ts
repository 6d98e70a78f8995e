import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';

/**
 * ClickHouse, for EVENT_STORE=clickhouse (docs/scaling.md): over HTTP through the official client
 * (`CLICKHOUSE_URL=http://user:password@host:8123/database`), or the engine embedded in this process through chdb
 * (`CLICKHOUSE_URL=chdb:<directory>`: one process only, for development and tests). Both take the same SQL with
 * named, typed parameters (`{name:Type}`), so no value is ever spliced into a query.
 */
export interface ClickHouse {
  /** Where it is, without credentials (for messages). */
  readonly address: string;
  /** The rows of a query, as JSON objects (64-bit integers arrive as numbers). */
  rows<T>(query: string, params?: Params): Promise<T[]>;
  /** The first column of a query's rows as numbers: person ids, counts. */
  numbers(query: string, params?: Params): Promise<number[]>;
  /** A statement without rows (DDL, ALTER … DELETE). */
  command(query: string, params?: Params, settings?: Settings): Promise<void>;
  /**
   * Insert rows (JSON objects, one per row). `settings.insert_deduplication_token` makes a retried batch a no-op
   * (the table keeps a window of recent tokens).
   */
  insert(table: string, rows: readonly object[], settings?: Settings): Promise<void>;
  /** Insert rows already written as TabSeparated text (PostgreSQL's COPY text format reads the same). */
  insertTabSeparated(table: string, data: Buffer, settings?: Settings): Promise<void>;
  /** Throws when ClickHouse does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type Params = Record<string, string | number | boolean | readonly (string | number)[]>;
export type Settings = Record<string, string | number>;

/** Settings every query runs with: 64-bit integers as JSON numbers (ids and counts stay below 2^53). */
const outputSettings = { output_format_json_quote_64bit_integers: 0 } as const;

export async function connectClickHouse(url: string): Promise<ClickHouse> {
  if (url.startsWith('chdb:')) return embeddedClickHouse(url.slice('chdb:'.length) || './data/clickhouse');
  return httpClickHouse(url);
}

function parseNumbers(text: string): number[] {
  const out: number[] = [];
  let start = 0;
  for (let i = 0; i <= text.length; i += 1) {
    if (i === text.length || text.charCodeAt(i) === 10) {
      if (i > start) out.push(Number(text.slice(start, i)));
      start = i + 1;
    }
  }
  return out;
}

async function httpClickHouse(url: string): Promise<ClickHouse> {
  const { createClient, ClickHouseLogLevel } = await import('@clickhouse/client');
  const parsed = new URL(url);
  const database = decodeURIComponent(parsed.pathname.replace(/^\/+/, '')) || 'default';
  const client: ClickHouseClient = createClient({
    url: `${parsed.protocol}//${parsed.host}`,
    username: decodeURIComponent(parsed.username) || 'default',
    password: decodeURIComponent(parsed.password),
    database,
    request_timeout: 60_000,
    clickhouse_settings: outputSettings,
    // Failures reach the caller, which says what they mean (the forwarder logs an outage once, not every try).
    log: { level: ClickHouseLogLevel.OFF },
  });
  return {
    address: `${parsed.protocol}//${parsed.host}/${database}`,
    async rows<T>(query: string, params?: Params) {
      const result = await client.query({ query, query_params: params, format: 'JSONEachRow' });
      return result.json<T>();
    },
    async numbers(query, params) {
      const result = await client.query({ query, query_params: params, format: 'TabSeparated' });
      return parseNumbers(await result.text());
    },
    async command(query, params, settings) {
      await client.command({ query, query_params: params, clickhouse_settings: settings });
    },
    async insert(table, rows, settings) {
      if (rows.length === 0) return;
      await client.insert({
        table,
        values: rows as object[],
        format: 'JSONEachRow',
        clickhouse_settings: settings,
      });
    },
    async insertTabSeparated(table, data, settings) {
      await client.insert({
        table,
        values: Readable.from([data]),
        format: 'TabSeparated',
        clickhouse_settings: settings,
      });
    },
    async ping() {
      const answer = await client.ping();
      if (!answer.success) throw answer.error;
    },
    close: () => client.close(),
  };
}

interface ChdbSession {
  queryBindAsync(query: string, params: object, opts?: { format?: string }): Promise<{ text(): string }>;
  insert(params: {
    table: string;
    values: Buffer;
    format: 'JSONEachRow' | 'TabSeparated';
    settings?: Record<string, string | number | boolean>;
  }): Promise<unknown>;
  close(): void;
}

/** One embedded engine per process and directory (chdb allows one session at a time). */
const embedded = new Map<string, Promise<ClickHouse>>();

function embeddedClickHouse(directory: string): Promise<ClickHouse> {
  const existing = embedded.get(directory);
  if (existing) return existing;
  const opening = (async (): Promise<ClickHouse> => {
    const chdb = (await import('chdb')) as unknown as { Session: new (path: string) => ChdbSession };
    const session = new chdb.Session(directory);
    const withSettings = (query: string) =>
      `${query} SETTINGS ${Object.entries(outputSettings)
        .map(([k, v]) => `${k} = ${v}`)
        .join(', ')}`;
    let closed = false;
    // One call at a time on the session: the engine runs each off the event loop, in order.
    let chain: Promise<unknown> = Promise.resolve();
    const serial = <T>(work: () => Promise<T>): Promise<T> => {
      const next = chain.then(work);
      chain = next.catch(() => undefined);
      return next;
    };
    return {
      address: `chdb:${directory}`,
      rows<T>(query: string, params: Params = {}) {
        return serial(async () => {
          const result = await session.queryBindAsync(withSettings(query), params, { format: 'JSONEachRow' });
          return result
            .text()
            .split('\n')
            .filter((line) => line.length > 0)
            .map((line) => JSON.parse(line) as T);
        });
      },
      numbers(query, params = {}) {
        return serial(async () =>
          parseNumbers((await session.queryBindAsync(query, params, { format: 'TabSeparated' })).text()),
        );
      },
      command(query, params = {}, settings) {
        const text = settings
          ? `${query} SETTINGS ${Object.entries(settings)
              .map(
                ([k, v]) =>
                  `${k} = ${typeof v === 'number' ? v : `'${String(v).replace(/[\\']/g, '\\$&')}'`}`,
              )
              .join(', ')}`
          : query;
        return serial(async () => {
          await session.queryBindAsync(text, params, { format: 'TabSeparated' });
        });
      },
      insert(table, rows, settings) {
        if (rows.length === 0) return Promise.resolve();
        const values = Buffer.from(rows.map((row) => JSON.stringify(row)).join('\n'));
        return serial(async () => {
          await session.insert({ table, values, format: 'JSONEachRow', ...(settings ? { settings } : {}) });
        });
      },
      insertTabSeparated(table, data, settings) {
        return serial(async () => {
          await session.insert({
            table,
            values: data,
            format: 'TabSeparated',
            ...(settings ? { settings } : {}),
          });
        });
      },
      async ping() {
        if (closed) throw new Error('The embedded ClickHouse is closed');
        await serial(() => session.queryBindAsync('SELECT 1', {}, { format: 'TabSeparated' }));
      },
      async close() {
        if (closed) return;
        closed = true;
        embedded.delete(directory);
        session.close();
      },
    };
  })();
  embedded.set(directory, opening);
  opening.catch(() => embedded.delete(directory));
  return opening;
}
