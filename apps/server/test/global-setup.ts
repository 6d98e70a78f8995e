import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/db/connection.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { prepareJobQueue } from '../src/jobs/runner.ts';
import { adminDatabaseUrl, createDatabase, dropDatabase } from './test-database.ts';
import { workerSlots } from './worker-slots.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** One migrated database per worker slot (see `testDatabaseUrl` in helpers.ts). */
    databaseUrls: string[];
    adminDatabaseUrl: string;
  }
}

/**
 * One migrated database for each worker slot, copied from one migrated template: files that run at the same time
 * never share a job queue (a worker of one file would run the other's jobs with its own settings) nor whole-table
 * counts. Within a slot, files run one after another and isolate themselves by creating their own accounts.
 */
export default async function setup(project: TestProject) {
  const admin = await adminDatabaseUrl();
  const template = `herald_test_${process.pid}`;
  const templateUrl = await createDatabase(admin.url, template);
  const handle = openDatabase(templateUrl);
  await migrateToLatest(handle.db as never);
  await prepareJobQueue(handle.pool);
  await handle.close();
  // As many as the run's workers (the fault suite runs all its files at once), and never fewer than the slots.
  const slots = Math.max(workerSlots, Number(project.config.maxWorkers) || 0);
  const names = Array.from({ length: slots }, (_, i) => `${template}_${i + 1}`);
  const urls: string[] = [];
  for (const name of names) urls.push(await createDatabase(admin.url, name, template));
  project.provide('databaseUrls', urls);
  project.provide('adminDatabaseUrl', admin.url);
  return async () => {
    for (const name of [...names, template]) await dropDatabase(admin.url, name);
    await admin.stop();
  };
}
