import { sql, type Kysely } from 'kysely';

/**
 * Three more foreign keys checked once a statement instead of once a row (issue 19). Migration 0040 did this for
 * `events`; these are the keys a flow's or a broadcast's bulk statements check 100,000 times:
 *
 * | child             | key                   | parent     | written in bulk by                                   |
 * |-------------------|-----------------------|------------|------------------------------------------------------|
 * | `segment_members` | account_id, segment_id | `segments` | a segment's refresh (everyone who entered)           |
 * | `flow_runs`       | account_id, flow_id   | `flows`    | a flow's entry (one run a person who entered)        |
 * | `deliveries`      | account_id            | `accounts` | a broadcast's audience, a flow's send steps          |
 *
 * A row-by-row key looks its parent up and key-share locks it for every row: about 4 µs a row (100,000
 * segment members: 0.95 s with the key, 0.57 s without). The first two are written by one statement, the
 * segment's refresh, that the flow's entry triggers fire inside; while it runs one core is busy and the other
 * idle, so what it spends is time a flow-100k run waits.
 *
 * The statement checks keep the key's guarantees, as 0040's does:
 * - **Insert.** A statement trigger (`herald_parent_rows_check`) key-share locks each distinct parent the
 *   statement names and refuses the statement with the key's own error (23503, the key's name and detail) when
 *   one is missing. The lock holds until commit: a parent delete that comes later waits, and then deletes the new
 *   rows with the others; a parent deleted first is not found, and the insert fails.
 * - **Delete of the parent.** A statement trigger on the parent (`herald_parent_rows_deleted`) deletes the rows
 *   that named it, as `on delete cascade` did. Cascades chain as before: an account's delete takes its flows and
 *   segments through their keys, and their triggers take the runs and members.
 * - **Update.** A row cannot move to another parent (`herald_parent_key_fixed`), as 0040's events cannot. Herald
 *   never moves one; the key refused a move to a parent that does not exist, and this refuses every move. Parents'
 *   ids are identity columns and are never changed.
 *
 * Each key gets its own two functions, written from one template below: static statements, whose plans PL/pgSQL
 * keeps. (One generic function building its statements from the trigger's arguments cost about 75 µs more for
 * each single-row insert, planning its dynamic statements every time.)
 */
const keys = [
  {
    child: 'segment_members',
    childKey: ['account_id', 'segment_id'],
    parent: 'segments',
    parentKey: ['account_id', 'id'],
    name: 'segment_members_account_id_segment_id_fkey',
  },
  {
    child: 'flow_runs',
    childKey: ['account_id', 'flow_id'],
    parent: 'flows',
    parentKey: ['account_id', 'id'],
    name: 'flow_runs_account_id_flow_id_fkey',
  },
  {
    child: 'deliveries',
    childKey: ['account_id'],
    parent: 'accounts',
    parentKey: ['id'],
    name: 'deliveries_account_id_fkey',
  },
] as const;

type Key = (typeof keys)[number];

/** `a.x = b.y and …` over the key's columns (child's in `child`, parent's in `parent`). */
const joined = (key: Key, child: string, parent: string) =>
  sql.raw(key.childKey.map((c, i) => `${child}.${c} = ${parent}.${key.parentKey[i]}`).join(' and '));

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- tg_argv: the parent's name in the message.
    create function herald_parent_key_fixed() returns trigger
    language plpgsql as $fn$
    begin
      raise exception 'a row of % cannot move to another %', tg_table_name, tg_argv[0] using errcode = 'foreign_key_violation', table = tg_table_name;
    end $fn$;
  `.execute(db);

  for (const key of keys) {
    const columns = sql.raw(key.childKey.join(', '));
    const shown = sql.lit(
      `Key (${key.childKey.join(', ')})=(${key.childKey.map(() => '%s').join(', ')}) is not present in table "${key.parent}".`,
    );
    const message = sql.lit(
      `insert or update on table "${key.child}" violates foreign key constraint "${key.name}"`,
    );
    const check = sql.raw(`herald_${key.child}_parent_check`);
    const cascade = sql.raw(`herald_${key.parent}_deleted_${key.child}`);
    await sql`
      alter table ${sql.table(key.child)} drop constraint ${sql.ref(key.name)};

      -- Each distinct parent of the statement, key-share locked once; a missing one refuses the statement.
      create function ${check}() returns trigger
      language plpgsql security definer set search_path = pg_catalog, public as $fn$
      declare
        k record;
      begin
        -- A key with a null column is not checked, as the key's MATCH SIMPLE did not check it.
        for k in select distinct ${columns} from new_rows where ${sql.raw(key.childKey.map((c) => `${c} is not null`).join(' and '))} loop
          perform 1 from ${sql.table(key.parent)} p where ${joined(key, 'k', 'p')} for key share;
          if not found then
            raise exception ${message} using errcode = 'foreign_key_violation', table = ${sql.lit(key.child)}, constraint = ${sql.lit(key.name)},
              detail = format(${shown}, ${sql.raw(key.childKey.map((c) => `k.${c}`).join(', '))});
          end if;
        end loop;
        return null;
      end $fn$;
      create trigger ${sql.ref(`${key.child}_inserted_parent`)} after insert on ${sql.table(key.child)}
        referencing new table as new_rows for each statement execute function ${check}();

      create trigger ${sql.ref(`${key.child}_parent_fixed`)} before update of ${columns} on ${sql.table(key.child)}
        for each row when (${sql.raw(key.childKey.map((c) => `old.${c} is distinct from new.${c}`).join(' or '))})
        execute function herald_parent_key_fixed(${sql.lit(key.parent)});

      -- What the key's on delete cascade did.
      create function ${cascade}() returns trigger
      language plpgsql security definer set search_path = pg_catalog, public as $fn$
      begin
        delete from ${sql.table(key.child)} c using old_rows o where ${joined(key, 'c', 'o')};
        return null;
      end $fn$;
      create trigger ${sql.ref(`${key.parent}_deleted_${key.child}`)} after delete on ${sql.table(key.parent)}
        referencing old table as old_rows for each statement execute function ${cascade}();
    `.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const key of keys) {
    await sql`
      drop trigger ${sql.ref(`${key.parent}_deleted_${key.child}`)} on ${sql.table(key.parent)};
      drop function ${sql.raw(`herald_${key.parent}_deleted_${key.child}`)}();
      drop trigger ${sql.ref(`${key.child}_parent_fixed`)} on ${sql.table(key.child)};
      drop trigger ${sql.ref(`${key.child}_inserted_parent`)} on ${sql.table(key.child)};
      drop function ${sql.raw(`herald_${key.child}_parent_check`)}();
      delete from ${sql.table(key.child)} c where not exists (select 1 from ${sql.table(key.parent)} p where ${joined(key, 'c', 'p')});
      alter table ${sql.table(key.child)} add constraint ${sql.ref(key.name)} foreign key (${sql.raw(key.childKey.join(', '))})
        references ${sql.table(key.parent)} (${sql.raw(key.parentKey.join(', '))}) on delete cascade;
    `.execute(db);
  }
  await sql`drop function herald_parent_key_fixed()`.execute(db);
}
