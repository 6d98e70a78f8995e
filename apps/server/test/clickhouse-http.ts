import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * ClickHouse's HTTP interface in front of the embedded engine (chdb), for tests: the official client
 * (`@clickhouse/client`, the production path of EVENT_STORE=clickhouse) talks to it exactly as to a ClickHouse
 * server. It takes what the client sends: `GET /ping`; POST with the query in the body, or `query=INSERT … FORMAT …`
 * in the URL and the rows in the body; `param_<name>` values for `{name:Type}` placeholders; other URL parameters as
 * settings. Errors answer 500 with ClickHouse's `Code: N. DB::Exception: …` text. `stop()` and `start()` take it off
 * the network and back (an outage), keeping the data.
 */
export interface ClickHouseHttp {
  url(credentials?: string): string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** A query on the engine directly (for checks), answering TabSeparated text. */
  query(sql: string): Promise<string>;
  /** Requests seen, by kind (the tests check the client really came over HTTP). */
  seen: { ping: number; query: number; insert: number };
  close(): Promise<void>;
}

interface Session {
  queryBindAsync(query: string, params: object, opts?: { format?: string }): Promise<{ text(): string }>;
  insert(params: {
    table: string;
    values: Buffer;
    format: 'JSONEachRow';
    settings?: Record<string, string | number | boolean>;
  }): Promise<unknown>;
  close(): void;
}

const notSettings = new Set([
  'query',
  'query_id',
  'database',
  'default_format',
  'session_id',
  'wait_end_of_query',
]);

export async function startClickHouseHttp(
  directory: string,
  auth: { user: string; password: string; database: string },
): Promise<ClickHouseHttp> {
  const chdb = (await import('chdb')) as unknown as { Session: new (path: string) => Session };
  const session = new chdb.Session(directory);
  const seen = { ping: 0, query: 0, insert: 0 };
  let port = 0;
  let server: http.Server | undefined;
  const sockets = new Set<import('node:net').Socket>();

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/ping') {
      seen.ping += 1;
      res.end('Ok.\n');
      return;
    }
    const basic = (req.headers.authorization ?? '').replace(/^Basic /, '');
    const [user, password] = Buffer.from(basic, 'base64').toString('utf8').split(':');
    const headerUser = req.headers['x-clickhouse-user'];
    const headerKey = req.headers['x-clickhouse-key'];
    const given = headerUser ? [headerUser, headerKey] : [user, password];
    if (given[0] !== auth.user || given[1] !== auth.password) {
      res.statusCode = 516;
      res.end(
        `Code: 516. DB::Exception: ${String(given[0])}: Authentication failed. (AUTHENTICATION_FAILED)\n`,
      );
      return;
    }
    if ((url.searchParams.get('database') ?? 'default') !== auth.database) {
      res.statusCode = 404;
      res.end(
        `Code: 81. DB::Exception: Database ${url.searchParams.get('database')} does not exist. (UNKNOWN_DATABASE)\n`,
      );
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const params: Record<string, string> = {};
    const settings: Record<string, string> = {};
    for (const [key, value] of url.searchParams) {
      if (key.startsWith('param_')) params[key.slice('param_'.length)] = value;
      else if (!notSettings.has(key)) settings[key] = value;
    }
    const inUrl = url.searchParams.get('query');
    if (inUrl && /^\s*INSERT\s+INTO/i.test(inUrl)) {
      seen.insert += 1;
      const match = /^\s*INSERT\s+INTO\s+([\w.]+)[\s\S]*FORMAT\s+(\w+)\s*$/i.exec(inUrl);
      if (!match || match[2] !== 'JSONEachRow') throw new Error(`Unsupported insert: ${inUrl}`);
      await session.insert({ table: match[1]!, values: body, format: 'JSONEachRow', settings });
      res.end('');
      return;
    }
    seen.query += 1;
    let text = `${inUrl ?? ''}${body.toString('utf8')}`.trim();
    let format = 'TabSeparated';
    const formatMatch = /\s+FORMAT\s+(\w+)\s*;?\s*$/i.exec(text);
    if (formatMatch) {
      format = formatMatch[1]!;
      text = text.slice(0, formatMatch.index);
    }
    const settingList = Object.entries(settings).filter(([key]) => !key.startsWith('log_'));
    if (settingList.length && /^\s*(SELECT|WITH)\b/i.test(text))
      text += ` SETTINGS ${settingList.map(([k, v]) => `${k} = ${/^\d+$/.test(v) ? v : `'${v.replace(/'/g, "\\'")}'`}`).join(', ')}`;
    const result = await session.queryBindAsync(text, params, { format });
    res.setHeader('content-type', 'text/plain; charset=UTF-8');
    res.setHeader('x-clickhouse-format', format);
    res.end(result.text());
  };

  const start = async () => {
    server = http.createServer((req, res) => {
      handle(req, res).catch((error: unknown) => {
        res.statusCode = 500;
        const message = (error as Error).message ?? String(error);
        res.end(/^Code: \d+/.test(message) ? message : `Code: 1000. DB::Exception: ${message}\n`);
      });
    });
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  };
  const stop = async () => {
    if (!server) return;
    const closing = new Promise<void>((resolve) => server!.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closing;
    server = undefined;
  };
  await start();
  return {
    url: (credentials = `${auth.user}:${auth.password}`) =>
      `http://${credentials}@127.0.0.1:${port}/${auth.database}`,
    start,
    stop,
    query: async (sql) => (await session.queryBindAsync(sql, {}, { format: 'TabSeparated' })).text(),
    seen,
    close: async () => {
      await stop();
      session.close();
    },
  };
}
