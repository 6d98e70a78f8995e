/**
 * The fence between a batch's lease and its sends. A claimed row is leased for `leaseSeconds`; the job renews the
 * lease while the row waits in a sender thread's queue. If a renewal does not happen in time (the main thread
 * starved on a loaded machine, the database away) or finds the row claimed again by another worker, that worker may
 * send it too. So each batch carries a fence, shared with the sender thread: the time its lease ends as the job last
 * renewed it, or 0 once another worker may hold its rows. The thread starts no message of the batch less than
 * `fenceMarginMs` before that time: the message is withdrawn (left to its lease, claimed and sent again by whoever
 * holds it next), never sent twice. The margin covers one message in flight: another worker claims a row only once
 * its lease has ended (the sweeper 5 s after that).
 */
export const fenceMarginMs = 10_000;

export type LeaseFence = BigInt64Array;

/** A fence for a batch claimed at `since` (a time taken before the claim) with a lease of `leaseMs`. */
export function newFence(since: number, leaseMs: number): { fence: LeaseFence; buffer: SharedArrayBuffer } {
  const buffer = new SharedArrayBuffer(8);
  const fence = new BigInt64Array(buffer);
  Atomics.store(fence, 0, BigInt(Math.floor(since + leaseMs)));
  return { fence, buffer };
}

/** The fence of a buffer a thread was handed. */
export function fenceOf(buffer: SharedArrayBuffer): LeaseFence {
  return new BigInt64Array(buffer);
}

/** Move the fence to a renewed lease's end; a withdrawn fence stays withdrawn. */
export function extendFence(fence: LeaseFence, endsAt: number): void {
  const current = Atomics.load(fence, 0);
  if (current === 0n) return;
  if (BigInt(Math.floor(endsAt)) > current)
    Atomics.compareExchange(fence, 0, current, BigInt(Math.floor(endsAt)));
}

/** Another worker may hold the batch's rows: start none of its messages any more. */
export function withdrawFence(fence: LeaseFence): void {
  Atomics.store(fence, 0, 0n);
}

/** Whether a message of the batch may still start at `now`. */
export function fenceOpen(fence: LeaseFence, now = Date.now()): boolean {
  return now < Number(Atomics.load(fence, 0)) - fenceMarginMs;
}
