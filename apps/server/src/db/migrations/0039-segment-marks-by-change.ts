import { sql, type Kysely } from 'kysely';

/**
 * A person's membership mark says what changed when all that changed was tags (issue 19). A flow's add-tag step
 * marked 100,000 people, and each of them was then re-checked against every segment of the account (New, Engaged,
 * …) though no segment read the tag it added.
 *
 * `segment_dirty_people.tags` is null for any change (a new person, an event, a field), and for an update of tags
 * alone it lists the tags added or removed. Which columns an update sets decides, so no row is compared:
 * - an update that sets any column but tags and updated_at marks its people as changed in any way;
 * - an update that sets only tags or updated_at marks its people with the tags that changed (none when only
 *   updated_at did), and only when some stored segment of the account names one of those tags or updatedAt
 *   (automatic segments read neither): a tag no segment reads marks no one.
 * The refresh re-checks a person marked with tags only against segments that read one of them or updatedAt
 * (`tagChangeReads` of @herald/segments, following references).
 *
 * A trigger with a column list cannot see the changed rows, so two triggers share the work. The one with the column
 * list (`people_updated_segment_columns`) only notes, for the transaction, that the statement set such a column; the
 * marking trigger (`people_updated_segments`) fires right after it (triggers of one event fire in name order, and
 * no other trigger's name falls between) and takes the note back.
 *
 * `peopleColumnsMarkedAny` is every column of people an update can set but tags and updated_at; a test holds it to
 * the table's columns, so a column added later is not forgotten.
 */
export const peopleColumnsMarkedAny = [
  'account_id',
  'email',
  'first_name',
  'last_name',
  'phone',
  'company',
  'website',
  'external_id',
  'anonymous_id',
  'fields',
  'created_at',
  'archived_at',
  'unsubscribed_at',
  'unsubscribe_reason',
] as const;

/** The marking function of tags-only updates as this migration wrote it (migration 0056's down writes it back). */
export const markPeopleUpdatedDirty = `function herald_mark_people_updated_dirty() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    declare
      acc bigint;
      n bigint;
      any_change boolean := coalesce(current_setting('herald.people_columns_set', true), '') = 'yes';
      changed text[];
    begin
      perform set_config('herald.people_columns_set', '', true);
      for acc, n in select account_id, count(*) from new_rows group by account_id loop
        continue when not exists (select 1 from segments s where s.account_id = acc and s.auto_type is distinct from 'allPeople');
        if not any_change then
          -- The tags somebody gained or lost (a tag every changed person kept is no change).
          select coalesce(array_agg(distinct x.t), '{}') into changed from (
            select t from new_rows nr join old_rows o on o.account_id = nr.account_id and o.id = nr.id, unnest(nr.tags) t
            where nr.account_id = acc and not (t = any(o.tags))
            union all
            select t from new_rows nr join old_rows o on o.account_id = nr.account_id and o.id = nr.id, unnest(o.tags) t
            where nr.account_id = acc and not (t = any(nr.tags))
          ) x;
          continue when not exists (
            select 1 from segments s where s.account_id = acc and s.auto_type is null
              and (strpos(s.conditions::text, '"updatedAt"') > 0
                or exists (select 1 from unnest(changed) t where strpos(s.conditions::text, to_jsonb(t)::text) > 0)));
        end if;
        if n > 10000 then
          insert into segment_dirty_accounts (account_id) values (acc) on conflict do nothing;
        elsif any_change then
          insert into segment_dirty_people (account_id, person_id) select account_id, id from new_rows where account_id = acc;
        else
          insert into segment_dirty_people (account_id, person_id, tags)
          select nr.account_id, nr.id,
            array((select t from unnest(nr.tags) t except select t from unnest(o.tags) t)
                  union (select t from unnest(o.tags) t except select t from unnest(nr.tags) t))
          from new_rows nr join old_rows o on o.account_id = nr.account_id and o.id = nr.id
          where nr.account_id = acc;
        end if;
      end loop;
      return null;
    end $fn$;`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table segment_dirty_people add column tags text[];

    create function herald_people_segment_columns_set() returns trigger
    language plpgsql as $fn$
    begin
      perform set_config('herald.people_columns_set', 'yes', true);
      return null;
    end $fn$;

    create ${sql.raw(markPeopleUpdatedDirty)}

    create trigger people_updated_segment_columns after update of ${sql.raw(peopleColumnsMarkedAny.join(', '))} on people
      for each statement execute function herald_people_segment_columns_set();
    drop trigger people_updated_segments on people;
    create trigger people_updated_segments after update on people
      referencing old table as old_rows new table as new_rows for each statement execute function herald_mark_people_updated_dirty();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger people_updated_segments on people;
    drop trigger people_updated_segment_columns on people;
    create trigger people_updated_segments after update on people
      referencing new table as new_rows for each statement execute function herald_mark_people_dirty();
    drop function herald_mark_people_updated_dirty();
    drop function herald_people_segment_columns_set();
    alter table segment_dirty_people drop column tags;
  `.execute(db);
}
