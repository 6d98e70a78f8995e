/**
 * Tracking hits wait in memory and go to the `events` table in batches: one COPY per flush, at least once a
 * second and whenever 5,000 are waiting. Each hit waits as its COPY line, written when it comes in into the bytes
 * of its batch, so a flush sends a batch as it is and does not hold up the requests of its moment while it makes
 * 5,000 lines. The bytes are outside the JavaScript heap: waiting hits are nothing for the young generation's
 * collections to copy and promote (kept as strings, each line was copied several times and then collected by a
 * full collection). A request does not wait for the database while the buffer has room. Past a limit of waiting
 * hits (the database slower than the hits, or away), requests wait for room (`whenRoom`) up to `holdMs`, and only
 * past that is a hit answered and dropped (counted), so a long outage cannot exhaust memory.
 */
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { rollupLockKey } from '../../db/migrations/0038-rollup-without-row-keys.ts';
import { directRollupSetting } from '../../db/migrations/0044-tracking-rollup-at-write.ts';
import { registerSpool } from '../../lib/prometheus.ts';
import { rollupWorkMem } from '../metrics/metrics.jobs.ts';
import type { DecodedMessage } from './tracking-token.ts';
import type { UserAgentClass } from './machine-hits.ts';

export interface TrackingHit {
  ref: DecodedMessage;
  name: 'opened' | 'clicked';
  /** The destination of a click. */
  link: string | null;
  agent: UserAgentClass;
  machine: boolean;
  atMs: number;
}

export interface HitBufferOptions {
  flushMs?: number;
  flushRows?: number;
  /** Hits kept while the database does not take them; more are dropped. */
  maxWaiting?: number;
  /** How long an answer waits for room (`whenRoom`) before it goes and its hit is dropped. */
  holdMs?: number;
  /** Requests that wait for room at most; more are answered at once and their hits dropped. */
  maxHeld?: number;
}

/** The key the `sent` event names its source by (deliveries.queries.ts recordSent); opens and clicks use the same. */
const sourceKey = {
  broadcast: 'broadcastId',
  flow: 'flowId',
  transactional: 'sourceId',
  test: 'sourceId',
} as const;

/** COPY's text format: backslash starts an escape; JSON text holds no raw tab or newline. */
const copyText = (value: string) => value.replace(/\\/g, '\\\\');

/** The account a waiting COPY line is for (its first column). */
const accountOf = (line: string) => Number(line.slice(0, line.indexOf('\t')));

/** Bytes a batch starts with; a line that may not fit (3 bytes a UTF-16 unit at most) starts the next batch. */
const batchBytes = 1 << 21;

/** Lines waiting for one COPY: `rows` lines in the first `length` bytes; its first hit came at `firstAtMs`. */
interface Batch {
  bytes: Buffer;
  length: number;
  rows: number;
  firstAtMs: number;
}

/** The first `rows` lines of a batch. */
function firstLines(batch: Batch, rows: number): Batch {
  let end = 0;
  for (let i = 0; i < rows; i++) end = batch.bytes.indexOf(10, end) + 1;
  return { bytes: batch.bytes, length: end, rows, firstAtMs: batch.firstAtMs };
}

/** The ISO text of the last hit's millisecond: hits come many to a millisecond under load. */
let isoMs = Number.NaN;
let isoText = '';

/**
 * A hit's COPY line. The JSON of `data` is written by hand: its keys are fixed, its values whole numbers, the user agent
 * class (a fixed word) and a boolean; only the link, which anyone can write, goes through JSON.stringify. Measured
 * alone, 0.54 µs a line against 1.4 µs for an object through JSON.stringify and a new Date's ISO text every time; the
 * text is the same (test/hit-buffer.test.ts holds it to the object's JSON).
 */
export function copyLine(hit: TrackingHit): string {
  const { ref } = hit;
  // A flow's mail comes from a send step: the event names the flow and the step, as the sent event does.
  let data =
    ref.sourceKind === 'flow'
      ? `{${ref.flowId !== undefined ? `"flowId":${ref.flowId},` : ''}"stepId":"${ref.sourceId}","emailId":${ref.emailId}`
      : `{"${sourceKey[ref.sourceKind]}":${ref.sourceId},"emailId":${ref.emailId}`;
  if (ref.variant > 0) data += `,"variant":${ref.variant}`;
  if (hit.link !== null) data += `,"link":${copyText(JSON.stringify(hit.link))}`;
  data += `,"userAgent":"${hit.agent}","machine":${hit.machine}}`;
  if (hit.atMs !== isoMs) {
    isoText = new Date(hit.atMs).toISOString();
    isoMs = hit.atMs;
  }
  return `${ref.accountId}\t${ref.personId}\temail\t${hit.name}\temail\t${data}\t${isoText}\n`;
}

export class HitBuffer {
  /** Batches in order; only the last takes new lines. */
  private waiting: Batch[] = [];
  private waitingRows = 0;
  /** Bytes of batches written, for the next batches. */
  private spare: Buffer[] = [];
  private running: Promise<void> | undefined;
  /** The batch being written, until it is in the table or back in `waiting`. */
  private writing: Batch | undefined;
  private readonly unregister: () => void;
  private timer: NodeJS.Timeout;
  private closed = false;
  readonly flushRows: number;
  private readonly maxWaiting: number;
  /** Hits written, and hits dropped because too many were waiting. */
  written = 0;
  dropped = 0;
  /** Requests held back while the buffer is full (`whenRoom`), oldest first, with when each came. */
  private held: { run: () => void; atMs: number }[] = [];
  private heldTimer: NodeJS.Timeout | undefined;
  private readonly holdMs: number;
  private readonly maxHeld: number;

  constructor(
    private readonly pool: pg.Pool,
    options: HitBufferOptions = {},
  ) {
    this.flushRows = options.flushRows ?? 5000;
    this.maxWaiting = options.maxWaiting ?? 200_000;
    this.holdMs = options.holdMs ?? 10_000;
    this.maxHeld = options.maxHeld ?? 10_000;
    this.timer = setInterval(() => void this.flush(), options.flushMs ?? 1000);
    this.timer.unref();
    // herald_spool_size and herald_ingest_lag_seconds (lib/prometheus.ts), read when Prometheus scrapes.
    this.unregister = registerSpool('tracking_hits', {
      size: () => this.waitingRows + (this.writing?.rows ?? 0),
      oldestAtMs: () => (this.writing ?? this.waiting[0])?.firstAtMs,
    });
  }

  add(hit: TrackingHit): void {
    if (this.waitingRows >= this.maxWaiting) {
      this.dropped++;
      return;
    }
    const line = copyLine(hit);
    let batch = this.waiting[this.waiting.length - 1];
    if (!batch || batch.rows >= this.flushRows || batch.bytes.length - batch.length < line.length * 3) {
      const size = Math.max(batchBytes, line.length * 3);
      batch = {
        bytes: (size === batchBytes && this.spare.pop()) || Buffer.allocUnsafeSlow(size),
        length: 0,
        rows: 0,
        firstAtMs: hit.atMs,
      };
      this.waiting.push(batch);
    }
    batch.length += batch.bytes.write(line, batch.length);
    batch.rows++;
    this.waitingRows++;
    if (this.waitingRows >= this.flushRows && !this.running) void this.flush();
  }

  get pending(): number {
    return this.waitingRows;
  }

  /** Requests waiting for room. */
  get holding(): number {
    return this.held.length;
  }

  /**
   * Run `handle` (which records at most one hit, and answers) when its hit would be kept: at once when there is
   * room and no request waits before it; else once a flush takes a batch from the waiting ones, in the order
   * the requests came. So while the database takes hits more slowly than they come, answers slow down to its pace
   * rather than hits being dropped. A request that waited `holdMs` (the database away) runs anyway: it is
   * answered, and its hit dropped and counted, as before; so does one that finds `maxHeld` requests waiting (each
   * holds its connection).
   */
  whenRoom(handle: () => void): void {
    if (!this.held.length && this.waitingRows < this.maxWaiting) return handle();
    if (this.held.length >= this.maxHeld) return handle();
    this.held.push({ run: handle, atMs: Date.now() });
    if (!this.heldTimer) {
      this.heldTimer = setInterval(() => this.release(), Math.min(250, this.holdMs));
      this.heldTimer.unref();
    }
  }

  /** Run the held requests there is room for, and those that waited too long. */
  private release(all = false) {
    const now = Date.now();
    while (this.held.length) {
      const first = this.held[0]!;
      if (!all && this.waitingRows >= this.maxWaiting && now - first.atMs < this.holdMs) break;
      this.held.shift();
      first.run();
    }
    if (!this.held.length && this.heldTimer) {
      clearInterval(this.heldTimer);
      this.heldTimer = undefined;
    }
  }

  /** Write what is waiting (after the flush under way, if any); resolves when it is in the table or kept for the next try. */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    const batch = this.waiting.shift();
    if (!batch) return;
    this.waitingRows -= batch.rows;
    this.writing = batch;
    if (this.held.length) this.release();
    this.running = this.write(batch).finally(() => {
      this.running = undefined;
    });
    await this.running;
    // Hits that came in while writing and filled another batch go at once, not at the next tick.
    if (this.waitingRows >= this.flushRows && !this.closed) void this.flush();
  }

  private async write(batch: Batch): Promise<void> {
    try {
      let count = batch.rows;
      try {
        await this.copy(batch.bytes.subarray(0, batch.length));
      } catch (error) {
        if ((error as { code?: string }).code !== '23503') throw error;
        // An account deleted since its mail was sent: its hits go, the others are written.
        const rows = batch.bytes.toString('utf8', 0, batch.length).split('\n').slice(0, -1);
        const ids = [...new Set(rows.map(accountOf))];
        const { rows: found } = await this.pool.query<{ id: string }>(
          'select id from accounts where id = any($1::bigint[])',
          [ids],
        );
        const live = new Set(found.map((row) => Number(row.id)));
        const kept = rows.filter((row) => live.has(accountOf(row)));
        this.dropped += rows.length - kept.length;
        if (kept.length) await this.copy(Buffer.from(`${kept.join('\n')}\n`));
        count = kept.length;
      }
      this.written += count;
      if (batch.bytes.length === batchBytes && this.spare.length < 2) this.spare.push(batch.bytes);
    } catch (error) {
      // The database is away: the batch waits for the next flush, within the limit.
      const room = Math.max(0, this.maxWaiting - this.waitingRows);
      const kept = Math.min(room, batch.rows);
      this.dropped += batch.rows - kept;
      if (kept) {
        this.waiting.unshift(kept === batch.rows ? batch : firstLines(batch, kept));
        this.waitingRows += kept;
      }
      if (this.closed) throw error;
    } finally {
      // In the table, or back in `waiting`: counted there from now on.
      this.writing = undefined;
    }
  }

  /**
   * One COPY in a transaction that holds the rollup's lock and has the queue trigger roll the hits up at once
   * (migration 0044): the hits and their counts in the metrics are written together or not at all.
   */
  private async copy(text: Buffer): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('begin');
      await client.query(
        'select pg_advisory_xact_lock($1), set_config($2, $3, true), set_config($4, $5, true)',
        [rollupLockKey, directRollupSetting, 'yes', 'work_mem', rollupWorkMem],
      );
      const copy = client.query(
        copyStreams.from(
          'copy events (account_id, person_id, type, name, source, data, created_at) from stdin',
        ),
      );
      copy.end(text);
      await finished(copy);
      await client.query('commit');
    } catch (error) {
      // A COPY that failed part way may leave the connection unusable, and its transaction open: it is closed, not returned.
      client.release(true);
      throw error;
    }
    client.release();
  }

  /** Stop the timer and write everything that waits (the server's stop). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    // Held requests are answered now; their hits are written below when they fit.
    this.release(true);
    this.unregister();
    for (let tries = 0; this.waiting.length > 0 || this.running; tries++) {
      try {
        await this.flush();
      } catch {
        if (tries >= 2) {
          this.dropped += this.waitingRows;
          this.waiting = [];
          this.waitingRows = 0;
        }
      }
    }
  }
}
