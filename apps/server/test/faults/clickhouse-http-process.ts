import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startClickHouseHttp } from '../clickhouse-http.ts';

/**
 * ClickHouse's HTTP interface over the embedded engine (../clickhouse-http.ts) in a process of its own, for fault
 * tests whose several Herald processes share one ClickHouse: chdb opens its directory in one process only. Run as
 * `node --import tsx clickhouse-http-process.ts <directory>` with HERALD_CLICKHOUSE_USER, HERALD_CLICKHOUSE_PASSWORD
 * and HERALD_CLICKHOUSE_DATABASE set; once it listens (on a free port of 127.0.0.1) it prints `{"url": …}` on one line
 * of stdout, and on SIGTERM it closes the engine and exits.
 *
 * The URL is a pass-through in front of the interface that counts the inserts by deduplication token
 * (`insert_deduplication_token`, the forwarder's `herald-forward-<id>`): `GET /faults/inserts` answers, for each token,
 * how many times an insert with it was sent and how many of those the engine answered with 200. A token answered
 * twice is a forward repeated after its insert had gone through: only the table's deduplication kept it from storing
 * its events twice.
 *
 * HERALD_CLICKHOUSE_LOSE_EVERY=n (2 or more) makes such repeats happen: of every n inserts with a token, one has its
 * answer lost after the engine stored it (the connection closes instead of the 200, as when a network fails), so the
 * forwarder keeps its events in the spool and forwards them again under the same token.
 */
const directory = process.argv[2] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'herald-faults-clickhouse-'));
const auth = {
  user: process.env.HERALD_CLICKHOUSE_USER ?? 'herald',
  password: process.env.HERALD_CLICKHOUSE_PASSWORD ?? 'herald',
  database: process.env.HERALD_CLICKHOUSE_DATABASE ?? 'herald',
};
const clickhouse = await startClickHouseHttp(directory, auth);
const front = new URL(clickhouse.url());
const agent = new http.Agent({ keepAlive: true });
const inserts = new Map<string, { sent: number; answered: number }>();
const loseEvery = Number(process.env.HERALD_CLICKHOUSE_LOSE_EVERY ?? 0);
if (loseEvery === 1) throw new Error('HERALD_CLICKHOUSE_LOSE_EVERY=1 would lose every answer');
let tokenInserts = 0;

const proxy = http.createServer((req, res) => {
  if (req.url === '/faults/inserts') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(Object.fromEntries(inserts)));
    return;
  }
  const token = new URL(req.url ?? '/', 'http://localhost').searchParams.get('insert_deduplication_token');
  const counts = token === null ? undefined : (inserts.get(token) ?? { sent: 0, answered: 0 });
  if (token !== null && counts) {
    counts.sent += 1;
    inserts.set(token, counts);
  }
  const lose = counts !== undefined && loseEvery > 1 && ++tokenInserts % loseEvery === 0;
  const upstream = http.request(
    {
      host: front.hostname,
      port: front.port,
      method: req.method,
      path: req.url,
      headers: req.headers,
      agent,
    },
    (answer) => {
      if (counts && answer.statusCode === 200) counts.answered += 1;
      if (lose && answer.statusCode === 200) {
        answer.resume();
        res.destroy();
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', (error) => {
    if (res.headersSent) res.destroy();
    else {
      res.statusCode = 502;
      res.end(`Code: 210. DB::Exception: ${error.message}\n`);
    }
  });
  // A client that goes away mid-request (a killed Herald process) takes its request to the engine with it.
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
});
await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const { port } = proxy.address() as AddressInfo;
const url = `http://${auth.user}:${auth.password}@127.0.0.1:${port}/${auth.database}`;
process.stdout.write(`${JSON.stringify({ url })}\n`);

process.once('SIGTERM', () => {
  proxy.close();
  proxy.closeAllConnections();
  agent.destroy();
  void clickhouse.close().finally(() => process.exit(0));
});
