import type { HeraldProcess } from './herald-process.ts';
import { httpGet } from './hit-load.ts';

/** A worker process of a fault test, with what its metrics server said it sent. */
export interface Worker {
  name: string;
  herald: HeraldProcess;
  metricsPort: number;
  /** herald_deliveries_sent_total as last read, for each start of the process (the counter starts at 0 each time). */
  sentByStart: number[];
}

/** A metric of a process's metrics server: the first sample of `name` (with its labels, if any). */
export async function metric(port: number, name: string): Promise<number | undefined> {
  const { status, body } = await httpGet(port, '/metrics');
  const value = new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(body)?.[1];
  return status === 200 && value !== undefined ? Number(value) : undefined;
}

/** The worker's herald_deliveries_sent_total now, kept for its current start; undefined while it is down. */
export async function readSent(worker: Worker): Promise<number | undefined> {
  const start = worker.herald.starts;
  if (!worker.herald.isRunning()) return undefined;
  const value = await metric(worker.metricsPort, 'herald_deliveries_sent_total').catch(() => undefined);
  if (value === undefined) return undefined;
  worker.sentByStart[start - 1] = Math.max(worker.sentByStart[start - 1] ?? 0, value);
  return value;
}

export const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
