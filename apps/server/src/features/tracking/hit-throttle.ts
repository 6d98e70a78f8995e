/**
 * How many hits of one (client address, pixel token or click path) are recorded within the current second. The
 * counts live in a fixed open-addressing table of typed arrays, keyed by two 32-bit hashes of the pair, with each
 * slot stamped by the second it was taken in: a new second empties the table without a pass over it, and a hit
 * allocates nothing that outlives it. (A Map of string keys, started afresh each second, kept every key of the
 * second alive across the young generation's collections: copied at each, then promoted and collected again by a
 * full collection, several times a second under load.)
 *
 * Two different pairs are counted together only when both hashes and the probe sequence agree (odds of about one
 * in 2^51 for a pair); a table over half full within a second lets further new pairs through uncounted (recorded),
 * as the Map did when it started afresh at 500,000 keys.
 */
/** The two hashes of the last pair (module state, so that hashing allocates nothing). */
let hashA = 0;
let hashB = 0;

function mix(code: number) {
  hashA = Math.imul(hashA ^ code, 0x01000193);
  hashB = Math.imul(hashB ^ code, 0x85ebca6b);
  hashB ^= hashB >>> 13;
}

/** FNV-1a and a multiply-xorshift hash over the address, a separator no character code can be, and the key, without joining them. */
function hashPair(address: string, key: string) {
  hashA = 0x811c9dc5 | 0;
  hashB = 0x9e3779b9 | 0;
  for (let i = 0; i < address.length; i++) mix(address.charCodeAt(i));
  mix(0x10000);
  for (let i = 0; i < key.length; i++) mix(key.charCodeAt(i));
  hashB = Math.imul(hashB ^ (hashB >>> 16), 0xc2b2ae35);
  hashB ^= hashB >>> 16;
}

export class HitThrottle {
  private readonly mask: number;
  private readonly stamps: Int32Array;
  private readonly tags: Int32Array;
  private readonly counts: Uint8Array;
  private readonly room: number;
  private second = -1;
  private used = 0;

  constructor(
    /** Hits recorded per pair and second. */
    readonly perSecond: number,
    /** Slots (a power of two); up to half of them are used in a second. */
    slots = 1 << 19,
  ) {
    if (slots & (slots - 1)) throw new Error('slots must be a power of two');
    this.mask = slots - 1;
    // Stamps start at -1: no slot belongs to any second yet.
    this.stamps = new Int32Array(slots).fill(-1);
    this.tags = new Int32Array(slots);
    this.counts = new Uint8Array(slots);
    this.room = slots >>> 1;
  }

  /** Count a hit of (`address`, `key`) at `nowMs`; true while the pair has had at most `perSecond` hits this second. */
  allow(address: string, key: string, nowMs: number): boolean {
    // Seconds since 1970 fit an int32 until 2038; wrapping past it only renames the stamps.
    const second = Math.floor(nowMs / 1000) | 0;
    if (second !== this.second) {
      this.second = second;
      this.used = 0;
    }
    hashPair(address, key);
    const b = hashB;
    let slot = (hashA ^ (hashA >>> 15)) & this.mask;
    // A clock that steps back can bring a second's slots back after `used` was reset, and past half the table: the
    // probe stops after a pass over it, and the hit is recorded uncounted.
    for (let probes = 0; probes <= this.mask; probes++) {
      if (this.stamps[slot] !== second) {
        if (this.used >= this.room) return true;
        this.stamps[slot] = second;
        this.tags[slot] = b;
        this.counts[slot] = 1;
        this.used++;
        return 1 <= this.perSecond;
      }
      if (this.tags[slot] === b) {
        const count = this.counts[slot]!;
        if (count < 255) this.counts[slot] = count + 1;
        return count + 1 <= this.perSecond;
      }
      slot = (slot + 1) & this.mask;
    }
    return true;
  }
}
