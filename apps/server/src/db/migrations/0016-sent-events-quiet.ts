import { sql, type Kysely } from 'kysely';

/**
 * A broadcast writes one `sent` email event per person. Marking each of those people for a segment re-check made
 * a 100,000-person send re-check 100,000 people against every segment while it was sending (and the re-checks
 * deadlocked with the send's own writes). `sent` events now mark people only in accounts where some segment's
 * conditions name the `sent` activity; every other event marks people as before.
 */
/** The event marking function as this migration wrote it (migration 0057's down writes it back). */
export const markEventPeopleDirtySent = `function herald_mark_event_people_dirty() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    declare
      acc bigint;
      n bigint;
      reads_sent boolean;
    begin
      for acc in select distinct account_id from new_rows where person_id is not null and type <> 'segment' loop
        continue when not exists (select 1 from segments s where s.account_id = acc and s.auto_type is distinct from 'allPeople');
        reads_sent := exists (select 1 from segments s where s.account_id = acc and s.conditions::text like '%"sent"%');
        select count(distinct person_id) into n from new_rows
          where account_id = acc and person_id is not null and type <> 'segment' and (reads_sent or not (type = 'email' and name = 'sent'));
        continue when n = 0;
        if n > 10000 then
          insert into segment_dirty_accounts (account_id) values (acc) on conflict do nothing;
        else
          insert into segment_dirty_people (account_id, person_id)
            select distinct account_id, person_id from new_rows
            where account_id = acc and person_id is not null and type <> 'segment' and (reads_sent or not (type = 'email' and name = 'sent'));
        end if;
      end loop;
      return null;
    end $fn$;`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace ${sql.raw(markEventPeopleDirtySent)}
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function herald_mark_event_people_dirty() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    declare
      acc bigint;
      n bigint;
    begin
      for acc, n in select account_id, count(distinct person_id) from new_rows where person_id is not null and type <> 'segment' group by account_id loop
        continue when not exists (select 1 from segments s where s.account_id = acc and s.auto_type is distinct from 'allPeople');
        if n > 10000 then
          insert into segment_dirty_accounts (account_id) values (acc) on conflict do nothing;
        else
          insert into segment_dirty_people (account_id, person_id)
            select distinct account_id, person_id from new_rows where account_id = acc and person_id is not null and type <> 'segment';
        end if;
      end loop;
      return null;
    end $fn$;
  `.execute(db);
}
