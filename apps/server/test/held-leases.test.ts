import { describe, expect, it } from 'vitest';
import { HeldLeases } from '../src/features/deliveries/held-leases.ts';

describe('the leases a deliver job holds', () => {
  it('renews only the rows near the end of their lease, and forgets the rows recorded', () => {
    // A 30 s lease renewed every 10 s: a row is due with less than 25 s left.
    const held = new HeldLeases(30_000, 10_000);
    held.hold(
      [
        { id: 1, attempts: 1 },
        { id: 2, attempts: 3 },
      ],
      0,
    );
    expect(held.due(4_000)).toEqual(new Map());
    expect(held.due(5_001)).toEqual(
      new Map([
        [1, 1],
        [2, 3],
      ]),
    );
    held.hold([{ id: 3, attempts: 1 }], 6_000);
    held.renewed([1, 3, 99], 6_000);
    // Row 2 kept its first lease (ends at 30 s); rows 1 and 3 end at 36 s.
    expect([...held.due(10_000).keys()]).toEqual([2]);
    expect([...held.due(11_001).keys()].sort()).toEqual([1, 2, 3]);
    held.release([2, 3]);
    expect([...held.due(20_000).keys()]).toEqual([1]);
    expect(held.size).toBe(1);
  });
});
