import { sql, type Kysely } from 'kysely';
import { takeMarksSettings } from './0043-segment-marks-take-plan.ts';

/**
 * The take of segment marks finds each picked mark by its address whatever the statistics say
 * (docs/tracking-and-metrics.md, "The loop the right way round"). 0043 left the delete no hash or merge join, which still let a nested loop run the
 * wrong way: with no statistics on `segment_dirty_people` (a new install: nothing had analyzed it), the planner
 * estimated the account's marks at one row, read them through the policy's index as the outer side and compared each
 * with every picked address (3,000 marks: 9 million comparisons, 1.3-1.5 s a take, found by auto_explain in the
 * test suite). With index, bitmap and sequential scans off as well, the only path to the marks that is not disabled
 * is the TID scan by a picked address, so the picked addresses drive the loop. The pick itself still reads the
 * account's marks (every way to it is disabled alike, so its usual costs choose among them). A disabled path costs
 * 10^10, far past the costs that set off JIT compilation: without `jit = off` a take of two marks compiled itself
 * first and took 300-570 ms (seen in the journeys under auto_explain).
 */
export const takeMarksByAddressSettings = {
  ...takeMarksSettings,
  enable_indexscan: 'off',
  enable_bitmapscan: 'off',
  enable_seqscan: 'off',
  jit: 'off',
} as const;

const setAll = (settings: Record<string, string>) =>
  sql.raw(
    Object.entries(settings)
      .map(([name, value]) => `set ${name} = ${value}`)
      .join(' '),
  );

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter function herald_take_segment_marks(bigint, int) ${setAll(takeMarksByAddressSettings)}`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter function herald_take_segment_marks(bigint, int) reset all`.execute(db);
  await sql`alter function herald_take_segment_marks(bigint, int) ${setAll(takeMarksSettings)}`.execute(db);
}
