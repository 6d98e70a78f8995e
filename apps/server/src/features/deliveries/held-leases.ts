import { extendFence, withdrawFence, type LeaseFence } from './lease-fence.ts';

/**
 * The rows a `deliver` job has in hand (claimed, not yet recorded) and when each one's lease runs out, so that a
 * renewal updates only the rows that need it. Renewing every row in hand every time cost a flow-100k or
 * broadcast-100k run seconds of PostgreSQL (a new version of thousands of rows every ten seconds), while on a machine
 * that keeps up a claimed row is sent within a second or two and its first lease is never at risk.
 */
export class HeldLeases {
  private readonly rows = new Map<number, { attempts: number; endsAt: number; fence: LeaseFence | null }>();

  /**
   * @param leaseMs how long a claim or a renewal holds a row
   * @param renewEveryMs how often the job renews; a row is due when less than `leaseMs - renewEveryMs / 2` of its
   *   lease is left, so that it is renewed at least one and a half periods before it runs out
   */
  constructor(
    private readonly leaseMs: number,
    private readonly renewEveryMs: number,
  ) {}

  /**
   * Rows just claimed (`since`: a time taken before the claim, so the lease is never thought longer than it is), with
   * the fence their sender thread checks (lease-fence.ts), moved as they are renewed.
   */
  hold(rows: { id: number; attempts: number }[], since: number, fence: LeaseFence | null = null): void {
    for (const row of rows)
      this.rows.set(row.id, { attempts: row.attempts, endsAt: since + this.leaseMs, fence });
  }

  /** Rows whose outcome is recorded. */
  release(ids: number[]): void {
    for (const id of ids) this.rows.delete(id);
  }

  /** The rows (id → the claim's attempts) to renew at `now`. */
  due(now: number): Map<number, number> {
    const horizon = now + this.leaseMs - this.renewEveryMs / 2;
    const due = new Map<number, number>();
    for (const [id, row] of this.rows) if (row.endsAt < horizon) due.set(id, row.attempts);
    return due;
  }

  /**
   * The answer to a renewal of `asked` by a statement that started at `since`: the rows in `renewed` hold a new
   * lease; the others were claimed again by another worker (their lease had run out), so their batch's fence is
   * withdrawn and none of its messages starts any more. Rows released meanwhile are left out.
   */
  renewed(renewed: Iterable<number>, since: number, asked: Iterable<number> = renewed): void {
    const done = new Set(renewed);
    for (const id of asked) {
      const row = this.rows.get(id);
      if (!row) continue;
      if (done.has(id)) {
        row.endsAt = since + this.leaseMs;
        if (row.fence) extendFence(row.fence, row.endsAt);
      } else if (row.fence) withdrawFence(row.fence);
    }
  }

  get size(): number {
    return this.rows.size;
  }
}
