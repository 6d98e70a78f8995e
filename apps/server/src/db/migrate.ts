import { Migrator, type Kysely } from 'kysely';
import { migrations } from './migrations/index.ts';
import { ensureTagContainmentLeakproof } from './tag-containment.ts';

/** Bring the schema up to date; throws with the failing migration's name. */
export async function migrateToLatest(db: Kysely<unknown>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
    // Migrations written side by side land in either order (0050 was merged before 0049): a database that already
    // ran a later one still runs an earlier newcomer instead of refusing to start.
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${reason}`);
  }
  // A catalog mark a backup does not carry, so it is checked at every start (tag-containment.ts).
  await ensureTagContainmentLeakproof(db);
}
