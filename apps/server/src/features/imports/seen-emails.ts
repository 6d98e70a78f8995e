/**
 * The emails a parse has staged, kept as 64-bit hashes in an open-addressing table (8 bytes a slot,
 * 16 MB for a million rows) so the parse can tell whether the file may repeat an email. Equal emails
 * always hash alike, so a repeated email is never missed; two different emails that happen to share
 * a hash only cost the exact duplicate pass in the database that a repeat would have needed anyway.
 */
export class SeenEmails {
  private slots: Uint32Array;
  private mask: number;
  private count = 0;
  /** Whether some email was added twice (or two emails share a hash). */
  repeated = false;

  constructor(capacity = 1 << 16) {
    this.slots = new Uint32Array(capacity * 2);
    this.mask = capacity - 1;
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
    if (this.insert(h1, h2)) {
      this.count += 1;
      if (this.count * 2 > this.mask + 1) this.grow();
    } else {
      this.repeated = true;
    }
  }

  /** Put the hash in the table; false when it is there already. */
  private insert(h1: number, h2: number): boolean {
    const slots = this.slots;
    let i = (h1 ^ Math.imul(h2, 0x9e3779b1)) & this.mask;
    for (;;) {
      const a = slots[i * 2]!;
      const b = slots[i * 2 + 1]!;
      if (a === 0 && b === 0) {
        slots[i * 2] = h1;
        slots[i * 2 + 1] = h2;
        return true;
      }
      if (a === h1 && b === h2) return false;
      i = (i + 1) & this.mask;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    this.mask = old.length - 1;
    for (let i = 0; i < old.length; i += 2) if (old[i] !== 0 || old[i + 1] !== 0) this.insert(old[i]!, old[i + 1]!);
  }
}
