import fs from 'node:fs';
import path from 'node:path';

/**
 * The send journal: how a send stays exactly-once when the process dies mid-send (kill -9, a crash, a deploy).
 *
 * An SMTP server keeps a message only once it has the final dot. Just before a sender thread writes that dot it
 * appends the delivery to its journal with a synchronous write, so the line is in the operating system's hands
 * before the dot is: a process killed at any instant leaves a journal that lists the messages the server may have
 * kept, wrong only for a kill in the microseconds between the two system calls. A dot the socket cannot take at
 * once (its send buffer is full) waits in the process: the line is taken back at once with an `R` line and written
 * again when the dot has left (smtp-client.ts DotHooks), or a kill in that wait would lose the message. A refusal
 * after the dot appends an `R` line too. The database learns of sends in batches; after a crash, the lines it has
 * not learnt of are replayed into it (`replayJournals`) before the dead worker's leases run out, so nothing is sent
 * twice.
 *
 * One file per sender thread, named after the process, its start and the thread, under DATA_DIR/send-journal.
 * It is emptied whenever everything it lists is in the database. The journal covers a process that dies and a
 * worker restarted on the same machine (the usual self-hosted setup); a machine that is lost with its disk falls
 * back to the leases, which send the unrecorded messages again (at least once).
 */
export interface JournalEntry {
  accountId: number;
  id: number;
  messageId: string;
}

export class SendJournal {
  private fd: number;
  private unrecorded = 0;
  private bytes = 0;

  constructor(readonly file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.fd = fs.openSync(file, 'a');
  }

  /** The message is about to be complete at the server: write its line now (synchronously). */
  sent(entry: JournalEntry): void {
    const line = `S\t${entry.accountId}\t${entry.id}\t${entry.messageId}\n`;
    fs.writeSync(this.fd, line);
    this.bytes += line.length;
    this.unrecorded++;
  }

  /** The message is not sent after all: refused after its dot, or its dot is still waiting in the process. */
  notSent(accountId: number, id: number): void {
    const line = `R\t${accountId}\t${id}\n`;
    fs.writeSync(this.fd, line);
    this.bytes += line.length;
    this.unrecorded--;
  }

  /** `count` sent lines are now in the database; once all are, the file starts again empty. */
  recorded(count: number): void {
    this.unrecorded = Math.max(0, this.unrecorded - count);
    if (this.unrecorded === 0 && this.bytes > 0) {
      fs.ftruncateSync(this.fd, 0);
      this.bytes = 0;
    }
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

export const journalDir = (dataDir: string) => path.join(dataDir, 'send-journal');

/** A journal file's name: the process id and start time say whose it is; the thread number tells threads apart. */
export const journalName = (pid: number, startedAt: number, thread: number) =>
  `journal-${pid}-${startedAt}-${thread}.log`;

/** The sent lines of a journal that were not refused later, by account. */
export function readJournal(text: string): Map<number, JournalEntry[]> {
  const sent = new Map<string, JournalEntry>();
  for (const line of text.split('\n')) {
    const [kind, account, id, messageId] = line.split('\t');
    if (!account || !id) continue;
    const key = `${account}:${id}`;
    if (kind === 'S' && messageId) sent.set(key, { accountId: Number(account), id: Number(id), messageId });
    else if (kind === 'R') sent.delete(key);
  }
  const byAccount = new Map<number, JournalEntry[]>();
  for (const entry of sent.values()) {
    if (!Number.isSafeInteger(entry.accountId) || !Number.isSafeInteger(entry.id)) continue;
    byAccount.set(entry.accountId, [...(byAccount.get(entry.accountId) ?? []), entry]);
  }
  return byAccount;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Journal files whose writer is gone: another process id that no longer runs, or this process id with another
 * start time (a restarted container is often pid 1 again). Files of this process are left to their pool.
 */
export function orphanedJournals(dir: string, self: { pid: number; startedAt: number }): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const match = /^journal-(\d+)-(\d+)-\d+\.log$/.exec(name);
    if (!match) return [];
    const pid = Number(match[1]);
    const startedAt = Number(match[2]);
    if (pid === self.pid) return startedAt === self.startedAt ? [] : [path.join(dir, name)];
    return processAlive(pid) ? [] : [path.join(dir, name)];
  });
}
