import { sql, type Kysely } from 'kysely';

/**
 * Tag conditions use the tags index under row-level security (issue 56; docs/security.md, "Tag conditions under
 * row-level security"). PostgreSQL lets a query of `herald_app` use an index only through leakproof operators, and
 * `@>` on arrays (`arraycontains`) is not marked so: a segment with "has tag" read every person of the account
 * (a parallel scan of the whole table) where the owner's connection read the tag's holders through the tags index,
 * 560 ms against 250 for `segment-count` on 1.5M people. Containment compares elements with their type's equality,
 * and the arrays Herald keeps under row-level security are of text and bigint, whose equalities (`texteq`,
 * `int8eq`) PostgreSQL itself marks leakproof: the comparison cannot raise an error that tells a value. So this
 * database marks `arraycontains` leakproof too. Only a superuser may; a database migrated by another role keeps
 * the old plans (the same answers, read without the index), and says so in the log.
 *
 * Not a migration: the mark lives in this database's catalog, which a dump does not carry, so a database restored
 * from a backup would have a migration recorded and no mark. Every start checks it after the migrations
 * (`migrateToLatest`).
 */
async function isSuperuser(db: Kysely<unknown>) {
  const { rows } = await sql<{
    yes: boolean;
  }>`select rolsuper as yes from pg_roles where rolname = current_user`.execute(db);
  return rows[0]?.yes === true;
}

/** Mark `arraycontains` leakproof when it is not yet and the role may; the warning when it may not. */
export async function ensureTagContainmentLeakproof(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{
    marked: boolean;
  }>`select proleakproof as marked from pg_proc where oid = 'pg_catalog.arraycontains(anyarray, anyarray)'::regprocedure`.execute(
    db,
  );
  if (rows[0]?.marked) return;
  if (await isSuperuser(db))
    await sql`alter function pg_catalog.arraycontains(anyarray, anyarray) leakproof`.execute(db);
  else
    console.warn(
      'The database role is not a superuser, so tag conditions cannot use the tags index under row-level ' +
        'security (docs/security.md, "Tag conditions under row-level security").',
    );
}
