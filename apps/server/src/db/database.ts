import type { Config } from '../config.ts';
import { openDatabase, type DatabaseHandle } from './connection.ts';
import { startEmbeddedPostgres } from './embedded-postgres.ts';
import { migrateToLatest } from './migrate.ts';

/** DATABASE_URL when set, otherwise the embedded PostgreSQL; migrated to the latest schema. */
export async function connectDatabase(
  config: Config,
  log: (message: string) => void,
): Promise<DatabaseHandle> {
  let url = config.databaseUrl;
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (!url) {
    const embedded = await startEmbeddedPostgres({
      dataDir: config.dataDir,
      port: config.embeddedPgPort,
      log,
    });
    url = embedded.url;
    stopEmbedded = embedded.stop;
  }
  // Migrations may rewrite large tables: they run on their own connection without a statement time-out.
  const migrations = openDatabase(url, 1, 0);
  try {
    await migrateToLatest(migrations.db as never);
  } catch (error) {
    await migrations.close();
    await stopEmbedded?.();
    throw error;
  }
  await migrations.close();
  const handle = openDatabase(url);
  return {
    ...handle,
    url,
    close: async () => {
      await handle.close();
      await stopEmbedded?.();
    },
  };
}
