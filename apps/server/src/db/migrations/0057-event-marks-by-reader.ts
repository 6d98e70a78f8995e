import { sql, type Kysely } from 'kysely';
import { markEventPeopleDirtySent } from './0016-sent-events-quiet.ts';

/**
 * An event marks its person for a segment re-check only when some segment could read it (issue 56, ingest;
 * docs/segments.md, "Membership").
 *
 * Every tracked event, page view and form marked its person, and each mark cost a re-check against every segment of
 * the account: under `event-ingest` the refreshes of those marks took a third of PostgreSQL's time, though most
 * events (a page view, a "Signed in") were read by no segment at all. Only four conditions read events (`event` by
 * name, `emailActivity` by activity, `pageVisited`, `formSubmitted`; packages/segments/src/event-sets.ts), and the
 * automatic Engaged and Need some love read opens and clicks. An event of a kind that none of the account's segments
 * reads now marks nobody; the `sent` rule of migration 0016 is the email case of the same test.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function herald_mark_event_people_dirty() returns trigger
    language plpgsql security definer set search_path = pg_catalog, public as $fn$
    declare
      acc bigint;
      n bigint;
      reads text;
      marked bigint[];
    begin
      for acc in select distinct account_id from new_rows where person_id is not null and type <> 'segment' loop
        -- What the account's segments read, as one text: the conditions of its own segments, and for Engaged and Need
        -- some love the email activity they read (the automatic segments keep no conditions of their own). New and
        -- Unsubscribed read no events; All People has no members to keep.
        select string_agg(case when s.auto_type is null then s.conditions::text else '"emailActivity" "opened" "clicked"' end, ' ')
          into reads from segments s
          where s.account_id = acc and (s.auto_type is null or s.auto_type in ('engaged', 'needSomeLove'));
        continue when reads is null;
        -- An event can move a person only in a segment with a condition that reads its kind: a tracked event by its
        -- name, email activity by its name (sent, opened, ...), any page view, any form. The names are looked for as
        -- JSON strings anywhere in the text, which can only mark more than needed, never less. Kinds no condition
        -- reads today mark as before.
        select array_agg(distinct r.person_id) into marked from new_rows r
          join (
            select k.type, k.name from (select distinct type, name from new_rows where account_id = acc and person_id is not null and type <> 'segment') k
            where case k.type
              when 'track' then strpos(reads, '"event"') > 0 and strpos(reads, to_jsonb(k.name)::text) > 0
              when 'email' then strpos(reads, '"emailActivity"') > 0 and strpos(reads, to_jsonb(k.name)::text) > 0
              when 'page' then strpos(reads, '"pageVisited"') > 0
              when 'form' then strpos(reads, '"formSubmitted"') > 0
              else true end
          ) read on read.type = r.type and read.name is not distinct from r.name
          where r.account_id = acc and r.person_id is not null;
        n := coalesce(cardinality(marked), 0);
        continue when n = 0;
        if n > 10000 then
          insert into segment_dirty_accounts (account_id) values (acc) on conflict do nothing;
        else
          insert into segment_dirty_people (account_id, person_id) select acc, unnest(marked);
        end if;
      end loop;
      return null;
    end $fn$;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`create or replace ${sql.raw(markEventPeopleDirtySent)}`.execute(db);
}
