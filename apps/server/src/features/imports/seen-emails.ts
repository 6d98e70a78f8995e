/**
 * The emails a parse has staged, kept as 64-bit hashes in an open-addressing table (8 bytes a slot and 4 for the
 * batch that first had it: 24 MB for a million rows) so the parse can tell whether a batch of the file may repeat
 * an email of its own or of an earlier batch. Equal emails always hash alike, so a repeated email is never
 * missed; two different emails that happen to share a hash only cost the exact duplicate checks in the database
 * that a repeat would have needed anyway.
 */
export class SeenEmails {
  private slots: Uint32Array;
  /** Per slot, 1 + the batch that added its hash first. */
  private firsts: Uint32Array;
  private mask: number;
  private count = 0;
  /** Whether some email was added twice (or two emails share a hash). */
  repeated = false;
  /** The batch that emails added now belong to; `startBatch` sets it and clears the two flags below. */
  batch = 0;
  /** Whether the current batch added an email twice. */
  repeatedInBatch = false;
  /** Whether the current batch added an email an earlier batch had added. */
  repeatedFromEarlier = false;

  constructor(capacity = 1 << 16) {
    this.slots = new Uint32Array(capacity * 2);
    this.firsts = new Uint32Array(capacity);
    this.mask = capacity - 1;
  }

  startBatch(batch: number): void {
    this.batch = batch;
    this.repeatedInBatch = false;
    this.repeatedFromEarlier = false;
  }

  /** Note an email (already lower-cased); sets `repeated` when its hash was seen before. */
  add(email: string): void {
    // Two independent 32-bit multiplicative hashes over the UTF-16 code units.
    let h1 = 0x811c9dc5;
    let h2 = 0x01000193 ^ email.length;
    for (let i = 0; i < email.length; i += 1) {
      const c = email.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
      h2 ^= h2 >>> 15;
    }
    h1 = (h1 ^ (h1 >>> 16)) >>> 0;
    h2 = (h2 ^ (h2 >>> 13)) >>> 0;
    // Zero in both halves marks an empty slot.
    if (h1 === 0 && h2 === 0) h2 = 1;
    const first = this.insert(h1, h2, this.batch + 1);
    if (first === 0) {
      this.count += 1;
      if (this.count * 2 > this.mask + 1) this.grow();
    } else {
      this.repeated = true;
      if (first === this.batch + 1) this.repeatedInBatch = true;
      else this.repeatedFromEarlier = true;
    }
  }

  /** Put the hash in the table with its batch; 0 when it is new, else the stored 1 + batch of its first time. */
  private insert(h1: number, h2: number, firstBatch: number): number {
    const slots = this.slots;
    let i = (h1 ^ Math.imul(h2, 0x9e3779b1)) & this.mask;
    for (;;) {
      const a = slots[i * 2]!;
      const b = slots[i * 2 + 1]!;
      if (a === 0 && b === 0) {
        slots[i * 2] = h1;
        slots[i * 2 + 1] = h2;
        this.firsts[i] = firstBatch;
        return 0;
      }
      if (a === h1 && b === h2) return this.firsts[i]!;
      i = (i + 1) & this.mask;
    }
  }

  private grow(): void {
    const old = this.slots;
    const oldFirsts = this.firsts;
    this.slots = new Uint32Array(old.length * 2);
    this.firsts = new Uint32Array(old.length);
    this.mask = old.length - 1;
    for (let i = 0; i < old.length; i += 2)
      if (old[i] !== 0 || old[i + 1] !== 0) this.insert(old[i]!, old[i + 1]!, oldFirsts[i / 2]!);
  }
}
