import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export interface SinkStats {
  received: number;
  distinct: number;
  duplicates: number;
  /** When the first message since the sink started (or was reset) arrived, 0 before; ms since the epoch. */
  firstAt: number;
  lastAt: number;
}

/**
 * Which receiver a workload sends into: 'smtp-server' (the library the tests run, smtp-sink.ts) or 'lean'
 * (smtp-sink-lean.ts, which answers pipelined commands in one write, as production MTAs do, and so takes less of the
 * two cores the sender shares with it). The throughput workloads send into smtp-server, as the peers' published
 * figures were measured; BENCH_SINK=lean runs them on the lean sink.
 */
export type SinkKind = 'smtp-server' | 'lean';
export const throughputSink: SinkKind = process.env.BENCH_SINK === 'lean' ? 'lean' : 'smtp-server';

/** The SMTP sink in a process of its own; `stats()` asks it what has arrived. */
export async function startSink(
  kind: SinkKind = 'smtp-server',
): Promise<{ url: string; child: ChildProcess; stats(): Promise<SinkStats>; stop(): void }> {
  const file = kind === 'lean' ? 'smtp-sink-lean.ts' : 'smtp-sink.ts';
  console.log(
    `  SMTP sink: ${kind === 'lean' ? 'lean (smtp-sink-lean.ts)' : 'smtp-server (BENCH_SINK=lean for the lean sink)'}`,
  );
  const child = fork(path.resolve(import.meta.dirname, file), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { type: string; port: number }) =>
      m.type === 'ready' ? resolve(m.port) : reject(new Error('sink did not start')),
    );
    child.once('exit', () => reject(new Error('sink exited')));
  });
  return {
    url: `smtp://127.0.0.1:${port}`,
    child,
    stats: () =>
      new Promise((resolve) => {
        const onMessage = (m: SinkStats & { type: string }) => {
          if (m.type !== 'stats') return;
          child.off('message', onMessage);
          resolve(m);
        };
        child.on('message', onMessage);
        child.send({ type: 'stats' });
      }),
    stop: () => child.kill(),
  };
}
