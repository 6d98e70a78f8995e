import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/db/connection.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { prepareJobQueue } from '../src/jobs/runner.ts';
import { adminDatabaseUrl, createDatabase, dropDatabase } from './test-database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    adminDatabaseUrl: string;
  }
}

/** One migrated database for the run; tests isolate themselves by creating their own accounts. */
export default async function setup(project: TestProject) {
  const admin = await adminDatabaseUrl();
  const name = `herald_test_${process.pid}`;
  const url = await createDatabase(admin.url, name);
  const handle = openDatabase(url);
  await migrateToLatest(handle.db as never);
  await prepareJobQueue(handle.pool);
  await handle.close();
  project.provide('databaseUrl', url);
  project.provide('adminDatabaseUrl', admin.url);
  return async () => {
    await dropDatabase(admin.url, name);
    await admin.stop();
  };
}
