import { spawn, type ChildProcess } from 'node:child_process';
import { stopChild } from './herald-process.ts';

/** What Herald answered to one hit: status, the headers a client sees, and the body (base64). */
export interface RecordedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Headers Node's HTTP server writes on its own, or that belong to one connection or moment. */
const ownHeaders = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** Asks Herald once for `path` (no redirect followed) and keeps its answer, for the bare server to repeat. */
export async function recordAnswer(base: string, path: string, userAgent: string): Promise<RecordedAnswer> {
  const res = await fetch(`${base}${path}`, { redirect: 'manual', headers: { 'user-agent': userAgent } });
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!ownHeaders.has(name)) headers[name] = value;
  });
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()).toString('base64') };
}

/**
 * The bare server, in a process of its own as Herald is: Node's HTTP server answering each open with the pixel
 * Herald sent, byte for byte, and each click with Herald's redirect to the link in the path's `u` parameter. No
 * token is checked and nothing is recorded: the least any Node server does for the same hits.
 */
const bareServerScript = `
import http from 'node:http';
const { pixel, redirect } = JSON.parse(process.env.FLOOR_ANSWERS);
const body = Buffer.from(pixel.body, 'base64');
const server = http.createServer((req, res) => {
  if (req.url.startsWith('/t/o/')) {
    res.writeHead(pixel.status, pixel.headers);
    res.end(body);
    return;
  }
  const query = req.url.indexOf('?u=');
  const link = query < 0 ? '/' : decodeURIComponent(req.url.slice(query + 3));
  res.writeHead(redirect.status, { ...redirect.headers, location: link });
  res.end();
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write('PORT ' + server.address().port + '\\n'));
`;

export interface BareServer {
  base: string;
  pid: number;
  stop: () => Promise<void>;
}

export async function startBareServer(answers: {
  pixel: RecordedAnswer;
  redirect: RecordedAnswer;
}): Promise<BareServer> {
  const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', bareServerScript], {
    env: { ...process.env, FLOOR_ANSWERS: JSON.stringify(answers) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /PORT (\d+)/.exec(chunk.toString());
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`the bare server stopped (exit code ${code})`)));
  });
  return {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () => stopChild(child),
  };
}
