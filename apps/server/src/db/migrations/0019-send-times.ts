import { sql, type Kysely } from 'kysely';

/**
 * Send times (issue 17): quiet hours per account, each broadcast delivery's recipient time zone, and pausing.
 *
 * - `accounts.quiet_hours_*`: no broadcast mail between start and end in the recipient's local time while on.
 * - `deliveries.time_zone`: the recipient's zone, resolved when the row is queued (the person's `timezone` field when
 *   PostgreSQL knows it, else the account's); null for rows quiet hours do not apply to (tests, transactional sends).
 * - `deliveries.status` 'paused': held by a paused broadcast; neither claimed nor swept until it is resumed.
 * - `broadcasts.paused_at`: set while a broadcast is paused (its status stays what the spec names).
 *
 * `herald_quiet_until(at, tz, quiet)` is the arithmetic: the moment the quiet window holding `at` opens in zone `tz`,
 * null when `at` is not quiet (or nothing is quiet). It is one SQL expression, so the planner inlines it.
 * `herald_hold_quiet_delivery` moves one row that a claim met inside quiet hours to that moment and answers false,
 * so the claim skips it; rows a claim cannot lock at once are left for the next claim.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table accounts
      add column quiet_hours_enabled boolean not null default false,
      add column quiet_hours_start time not null default '21:00',
      add column quiet_hours_end time not null default '08:00';
    alter table broadcasts add column paused_at timestamptz;
    alter table deliveries add column time_zone text;
    alter table deliveries drop constraint deliveries_status_check;
    alter table deliveries add constraint deliveries_status_check
      check (status in ('pending', 'sending', 'sent', 'failed', 'canceled', 'paused')) not valid;
    alter table deliveries validate constraint deliveries_status_check;

    create function herald_quiet_until(at timestamptz, tz text, quiet time[]) returns timestamptz
    language sql immutable parallel safe as $fn$
      select case
        when quiet is null or tz is null or quiet[1] = quiet[2] then null
        -- A window within one day (12:00–14:00): it opens at its end on the same local day.
        when quiet[1] < quiet[2] then
          case when (at at time zone tz)::time >= quiet[1] and (at at time zone tz)::time < quiet[2]
            then ((at at time zone tz)::date + quiet[2]) at time zone tz end
        -- A window across midnight (21:00–08:00): the evening part opens the next local morning.
        when (at at time zone tz)::time >= quiet[1] then ((at at time zone tz)::date + 1 + quiet[2]) at time zone tz
        when (at at time zone tz)::time < quiet[2] then ((at at time zone tz)::date + quiet[2]) at time zone tz
      end
    $fn$;

    create function herald_quiet_hours(account bigint) returns time[]
    language sql stable parallel safe as $fn$
      select case when quiet_hours_enabled then array[quiet_hours_start, quiet_hours_end] end from accounts where id = account
    $fn$;

    create function herald_hold_quiet_delivery(account bigint, delivery bigint, opens timestamptz) returns boolean
    language sql volatile as $fn$
      update deliveries set not_before = opens, status = 'pending', lease_until = null
      where account_id = account and id = (
        select id from deliveries where account_id = account and id = delivery and status in ('pending', 'sending')
        for update skip locked
      );
      select false;
    $fn$;

    grant execute on function herald_quiet_until(timestamptz, text, time[]) to herald_app;
    grant execute on function herald_quiet_hours(bigint) to herald_app;
    grant execute on function herald_hold_quiet_delivery(bigint, bigint, timestamptz) to herald_app;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop function herald_hold_quiet_delivery(bigint, bigint, timestamptz);
    drop function herald_quiet_hours(bigint);
    drop function herald_quiet_until(timestamptz, text, time[]);
    update deliveries set status = 'pending' where status = 'paused';
    alter table deliveries drop constraint deliveries_status_check;
    alter table deliveries add constraint deliveries_status_check check (status in ('pending', 'sending', 'sent', 'failed', 'canceled'));
    alter table deliveries drop column time_zone;
    alter table broadcasts drop column paused_at;
    alter table accounts drop column quiet_hours_enabled, drop column quiet_hours_start, drop column quiet_hours_end;
  `.execute(db);
}
