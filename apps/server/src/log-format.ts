import os from 'node:os';
import { format } from 'node:util';

/** pino's level numbers, which the HTTP server's own log lines (Fastify's logger) carry too. */
const levels = { debug: 20, info: 30, warn: 40, error: 50 } as const;

/**
 * Make every line the process logs one JSON object (`NODE_ENV=production`): the HTTP server's lines already are
 * (pino); this turns the console lines of the rest (start, jobs, sender threads' reports) into the same shape —
 * `{"level":30,"time":…,"pid":…,"hostname":…,"msg":"…"}` — so a log collector reads one format. An Error keeps its
 * stack in `err`.
 */
export function useJsonLogs(
  stream: { write(line: string): unknown } = process.stdout,
  errors: { write(line: string): unknown } = process.stderr,
): void {
  const base = { pid: process.pid, hostname: os.hostname() };
  const writer =
    (level: keyof typeof levels, to: { write(line: string): unknown }) =>
    (...args: unknown[]) => {
      const error = args.find((arg): arg is Error => arg instanceof Error);
      const line: Record<string, unknown> = {
        level: levels[level],
        time: Date.now(),
        ...base,
        msg: format(...args.map((arg) => (arg instanceof Error ? arg.message : arg))),
      };
      if (error) line.err = { type: error.name, message: error.message, stack: error.stack };
      to.write(`${JSON.stringify(line)}\n`);
    };
  console.log = writer('info', stream);
  console.info = writer('info', stream);
  console.debug = writer('debug', stream);
  console.warn = writer('warn', errors);
  console.error = writer('error', errors);
}
