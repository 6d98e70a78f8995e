import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { build, buildSync, type BuildOptions } from 'esbuild';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { recordSent } from './deliveries.queries.ts';
import { journalDir, journalName, orphanedJournals, readJournal } from './send-journal.ts';
import type {
  FromThread,
  ThreadContent,
  ThreadFailed,
  ThreadInit,
  ThreadRows,
  ThreadSent,
  ToThread,
} from './sender-protocol.ts';
import type { MailboxRow } from './transport.ts';

/**
 * The main thread's side of the sender threads (sender-thread.ts): SEND_THREADS threads, each with its share of
 * the SMTP connections and its own send journal. A batch goes to the thread with the fewest rows in hand. A thread
 * that dies fails its batches back to their jobs (the rows keep their lease and are claimed again) after its
 * journal has been replayed into the database, so what it sent is never sent again.
 */
export interface BatchResult {
  sent: ThreadSent[];
  failed: ThreadFailed[];
  /** Rows the thread did not start: their batch's lease fence had passed (lease-fence.ts). */
  withdrawn: number[];
  mailbox: MailboxRow[];
  /** Tell the thread that `count` of its sent rows are in the database (its journal may then be emptied). */
  recorded(count: number): void;
}

interface Slot {
  worker: Worker;
  file: string;
  inHand: number;
  batches: Map<
    number,
    { rows: number; resolve: (result: BatchResult) => void; reject: (error: Error) => void }
  >;
  exited: boolean;
}

/** This process's start, in journal names: a later process with the same pid is told apart by it. */
const processStartedAt = Date.now();
let threadCount = 0;
let batchCount = 0;

let bundled: string | null = null;
let bundling: Promise<string> | null = null;
const fromSource = import.meta.url.endsWith('.ts');
const bundleOptions = (): BuildOptions & { write: false } => ({
  entryPoints: [fileURLToPath(new URL('./sender-thread.ts', import.meta.url))],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  write: false,
  logLevel: 'silent',
});

/** Bundle the thread ahead of the first send (worker start), without holding up the event loop. */
function bundleAhead(): Promise<unknown> {
  if (!fromSource || bundled) return Promise.resolve();
  bundling ??= build(bundleOptions()).then((result) => (bundled ??= result.outputFiles[0]!.text));
  return bundling;
}

/**
 * The thread's code. Run from TypeScript source (as the server is, through tsx), the thread and what it imports
 * are bundled once per process with esbuild into one CommonJS script held in memory: a thread then starts in
 * milliseconds with no loader of its own. Built to JavaScript, the thread is its file.
 */
function threadEntry(): { entry: string | URL; eval: boolean } {
  if (!fromSource) return { entry: new URL('./sender-thread.js', import.meta.url), eval: false };
  bundled ??= buildSync(bundleOptions()).outputFiles[0]!.text;
  return { entry: bundled, eval: true };
}

/** Mark the sent lines of journal files as sent in the database, then remove the files. */
export async function replayJournalFiles(db: Database, files: string[]): Promise<number> {
  let replayed = 0;
  for (const file of files) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const [accountId, entries] of readJournal(text)) {
      await withAccount(db, accountId, (scoped) =>
        recordSent(
          scoped,
          accountId,
          entries.map((e) => ({ id: e.id, messageId: e.messageId, response: null })),
        ),
      );
      replayed += entries.length;
    }
    fs.rmSync(file, { force: true });
  }
  return replayed;
}

/** Replay the journals of processes that died on this machine (worker start, the sweeper, each send job). */
export function replayOrphanedJournals(db: Database, dataDir: string): Promise<number> {
  return replayJournalFiles(
    db,
    orphanedJournals(journalDir(dataDir), { pid: process.pid, startedAt: processStartedAt }),
  );
}

export function createSenderPool(config: Config, secret: string, db: Database) {
  const threads = config.sending.threads;
  const dir = journalDir(config.dataDir);
  const slots: (Slot | null)[] = Array.from({ length: threads }, () => null);
  let closing = false;

  const spawn = (index: number): Slot => {
    const file = path.join(dir, journalName(process.pid, processStartedAt, threadCount++));
    const init: ThreadInit = {
      config: {
        publicUrl: config.publicUrl,
        smtpUrl: config.smtpUrl,
        smtpTls: config.smtpTls,
        sending: config.sending,
      },
      secret,
      connections: Math.max(1, Math.ceil(config.sending.maxConnections / threads)),
      ratePerSecond: config.sending.ratePerSecond / threads,
      journalFile: file,
    };
    const code = threadEntry();
    // A thread holds a few messages at a time: small heaps keep a big send's memory flat. A young generation of 16 MB lets
    // the messages in flight die young instead of being promoted (8 MB spent a fifth of the thread in the collector).
    const worker = new Worker(code.entry, {
      workerData: init,
      eval: code.eval,
      resourceLimits: { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 64 },
    });
    const slot: Slot = { worker, file, inHand: 0, batches: new Map(), exited: false };
    worker.on('message', (message: FromThread) => {
      if (message.t !== 'done') return;
      const batch = slot.batches.get(message.batch);
      if (!batch) return;
      slot.batches.delete(message.batch);
      slot.inHand -= batch.rows;
      batch.resolve({
        sent: message.sent,
        failed: message.failed,
        withdrawn: message.withdrawn,
        mailbox: message.mailbox,
        recorded: (count) => !slot.exited && worker.postMessage({ t: 'recorded', count } satisfies ToThread),
      });
    });
    const died = (error: Error) => {
      if (slot.exited) return;
      slot.exited = true;
      if (slots[index] === slot) slots[index] = null;
      // What the thread sent is recorded before its batches are given back; their rows then wait for their lease.
      void replayJournalFiles(db, [file])
        .catch((replayError: unknown) => console.error('[send] journal replay failed:', replayError))
        .finally(() => {
          for (const batch of slot.batches.values()) batch.reject(error);
          slot.batches.clear();
        });
    };
    worker.on('error', died);
    worker.on('exit', (code) => died(new Error(`A sender thread stopped (exit code ${code}).`)));
    slots[index] = slot;
    return slot;
  };

  return {
    /** Start the threads ahead of the first send (a worker that starts), so a send does not wait for them. */
    async warm(): Promise<void> {
      await bundleAhead();
      for (let i = 0; i < threads; i++) if (!closing && !slots[i]) spawn(i);
    },
    /**
     * Render and send `rows` of one content, none of them started past the batch's lease fence (lease-fence.ts);
     * resolves when every row has an outcome.
     */
    send(content: ThreadContent, rows: ThreadRows, fence: SharedArrayBuffer): Promise<BatchResult> {
      if (closing) return Promise.reject(new Error('The sender threads are stopping.'));
      let best = -1;
      for (let i = 0; i < threads; i++) {
        const slot = slots[i] ?? spawn(i);
        if (best < 0 || slot.inHand < slots[best]!.inHand) best = i;
      }
      const slot = slots[best]!;
      const batch = ++batchCount;
      const count = Array.isArray(rows) ? rows.length : rows.count;
      slot.inHand += count;
      return new Promise((resolve, reject) => {
        slot.batches.set(batch, { rows: count, resolve, reject });
        slot.worker.postMessage({ t: 'batch', batch, content, rows, fence } satisfies ToThread);
      });
    },
    /** Stop the threads (their connections say QUIT), then record anything their journals still hold. */
    async close(): Promise<void> {
      closing = true;
      const live = slots.filter((s): s is Slot => s !== null && !s.exited);
      await Promise.all(
        live.map(async (slot) => {
          const closed = new Promise<void>((resolve) => {
            slot.worker.on('message', (m: FromThread) => m.t === 'closed' && resolve());
            slot.worker.once('exit', () => resolve());
          });
          slot.worker.postMessage({ t: 'close' } satisfies ToThread);
          await Promise.race([closed, new Promise((r) => setTimeout(r, 2000))]);
          slot.exited = true;
          await slot.worker.terminate();
        }),
      );
      await replayJournalFiles(
        db,
        live.map((s) => s.file),
      ).catch(() => 0);
    },
  };
}

export type SenderPool = ReturnType<typeof createSenderPool>;

const pools = new Map<string, SenderPool>();

/** The process's sender pool for this configuration, started on first use and shared by every send job. */
export function senderPoolFor(config: Config, secret: string, db: Database): SenderPool {
  const key = `${config.smtpUrl ?? 'mailbox'}|${config.smtpTls.verify}|${config.smtpTls.ca ?? ''}|${config.sending.maxConnections}|${config.sending.ratePerSecond}|${config.sending.threads}|${config.dataDir}`;
  let pool = pools.get(key);
  if (!pool) {
    pool = createSenderPool(config, secret, db);
    pools.set(key, pool);
  }
  return pool;
}

/** Stop every sender pool (server stop, test teardown). */
export async function closeSenderPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((pool) => pool.close()));
}
