import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../../apps/server/src/db/connection.ts';
import { migrateToLatest } from '../../../apps/server/src/db/migrate.ts';
import { adminDatabaseUrl, createDatabase, dropDatabase } from '../../../apps/server/test/test-database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/** One migrated database for the compiler's tests (the same schema the server runs on). */
export default async function setup(project: TestProject) {
  const admin = await adminDatabaseUrl();
  const name = `herald_segments_test_${process.pid}`;
  const url = await createDatabase(admin.url, name);
  const handle = openDatabase(url);
  await migrateToLatest(handle.db as never);
  await handle.close();
  project.provide('databaseUrl', url);
  return async () => {
    await dropDatabase(admin.url, name);
    await admin.stop();
  };
}
