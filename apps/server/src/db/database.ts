import type { Config } from '../config.ts';
import { openDatabase, type DatabaseHandle } from './connection.ts';
import { startEmbeddedPostgres } from './embedded-postgres.ts';
import { migrateToLatest } from './migrate.ts';

/** DATABASE_URL when set, otherwise the embedded PostgreSQL; migrated to the latest schema. */
export async function connectDatabase(config: Config, log: (message: string) => void): Promise<DatabaseHandle> {
  let url = config.databaseUrl;
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (!url) {
    const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort, log });
    url = embedded.url;
    stopEmbedded = embedded.stop;
  }
  const handle = openDatabase(url);
  try {
    await migrateToLatest(handle.db as never);
  } catch (error) {
    await handle.close();
    await stopEmbedded?.();
    throw error;
  }
  return {
    ...handle,
    url,
    close: async () => {
      await handle.close();
      await stopEmbedded?.();
    },
  };
}
