import pg from 'pg';
import { beforeAll } from 'vitest';
import { testDatabaseUrl } from './helpers.ts';

/**
 * Each test file starts on an empty job queue, with no segment marks left by earlier files. A worker slot's files
 * share one database one after another, and a file whose worker stopped in the middle of a job (the import-recovery
 * tests stop theirs on purpose) leaves that job locked for hours: `queueDrained` in a later file of the slot then
 * waited for it and timed out (seen with one core kept busy, and with three slots). Runs before the file's own hooks,
 * when no context of the file exists yet.
 */
beforeAll(async () => {
  const client = new pg.Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    const { rows } = await client.query<{ jobs: boolean; marks: boolean }>(
      `select to_regclass('graphile_worker._private_jobs') is not null as jobs,
              to_regclass('segment_dirty_people') is not null as marks`,
    );
    if (rows[0]?.jobs)
      await client.query(
        'delete from graphile_worker._private_jobs; delete from graphile_worker._private_job_queues',
      );
    // Nor on the segment marks earlier files left (a file that starts no worker leaves every change it made marked):
    // this file's worker would take them up for those files' accounts, and a refresh of an earlier file's marks ran
    // through the whole 30 s of a test waiting for the queue to drain (CI, 2026-12-07, in the time-out report).
    if (rows[0]?.marks)
      await client.query('delete from segment_dirty_people; delete from segment_dirty_accounts');
  } finally {
    await client.end();
  }
});
