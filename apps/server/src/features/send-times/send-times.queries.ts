import { sql, type RawBuilder } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { SourceKind } from '../../jobs/job-types.ts';

/** A zone name as PostgreSQL knows it (any letter case), else null. */
const knownZone = (name: RawBuilder<unknown>) =>
  sql`(select z.name from pg_timezone_names z where lower(z.name) = lower(${name}) limit 1)`;

export interface SendTimeSettings {
  /** The account's zone, as PostgreSQL names it; UTC when PostgreSQL does not know it. */
  timeZone: string;
  /** The quiet window ['HH:MM:SS', 'HH:MM:SS'] while quiet hours are on; null while off. */
  quiet: [string, string] | null;
}

export async function sendTimeSettings(db: Database, accountId: number): Promise<SendTimeSettings> {
  const { rows } = await sql<{ timeZone: string; enabled: boolean; start: string; end: string }>`
    select coalesce(${knownZone(sql`a.timezone`)}, 'UTC') as "timeZone", a.quiet_hours_enabled as enabled,
      a.quiet_hours_start::text as start, a.quiet_hours_end::text as "end"
    from accounts a where a.id = ${accountId}
  `.execute(db);
  const row = rows[0];
  if (!row) return { timeZone: 'UTC', quiet: null };
  return { timeZone: row.timeZone, quiet: row.enabled ? [row.start, row.end] : null };
}

export function findQuietHours(db: Database, accountId: number) {
  return db
    .selectFrom('accounts')
    .select(['quietHoursEnabled', 'quietHoursStart', 'quietHoursEnd'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
}

export function saveQuietHours(
  db: Database,
  accountId: number,
  quiet: { enabled: boolean; start: string; end: string },
) {
  return db
    .updateTable('accounts')
    .set({ quietHoursEnabled: quiet.enabled, quietHoursStart: quiet.start, quietHoursEnd: quiet.end })
    .where('id', '=', accountId)
    .returning(['quietHoursEnabled', 'quietHoursStart', 'quietHoursEnd'])
    .executeTakeFirstOrThrow();
}

export interface RecipientWindow {
  /** The wall-clock time every recipient gets it at, 'YYYY-MM-DD HH24:MI:SS'. */
  localTime: string;
  /** When the first zone (UTC+14) reaches it: the send starts. */
  startsAt: Date;
  /** When the last zone (UTC−12) reaches it: the send is due everywhere. */
  endsAt: Date;
}

/** The local time a recipient-time send uses (sendAt read in the account's zone) and the window it spans. */
export async function recipientWindow(
  db: Database,
  timeZone: string,
  sendAt: Date,
): Promise<RecipientWindow> {
  const { rows } = await sql<RecipientWindow>`
    select to_char(l.local, 'YYYY-MM-DD HH24:MI:SS') as "localTime",
      l.local at time zone 'Etc/GMT-14' as "startsAt", l.local at time zone 'Etc/GMT+12' as "endsAt"
    from (select ${sendAt}::timestamptz at time zone ${timeZone} as local) l
  `.execute(db);
  return rows[0]!;
}

/**
 * What the queueing INSERT of a broadcast adds for each person `p`: a join resolving the person's zone (their
 * `timezone` field when PostgreSQL knows it, else the account's), that zone, and the row's not_before. For a send in
 * recipients' time zones the moment is the local time in that zone; one already past when sending starts goes at the
 * next day's local time when that still lies inside the window, else at once. Quiet hours then move a moment that
 * falls inside them to the window's opening. All set-wise: one hash join against pg_timezone_names.
 */
export function deliveryTiming(
  settings: SendTimeSettings,
  notBefore: Date,
  recipient: RecipientWindow | null,
) {
  const local = recipient ? sql`${recipient.localTime}::timestamp` : null;
  const base = local
    ? sql`case when (${local} at time zone tz.zone) >= ${notBefore}::timestamptz then ${local} at time zone tz.zone
        when ((${local} + interval '1 day') at time zone tz.zone) <= ${recipient!.endsAt}::timestamptz then (${local} + interval '1 day') at time zone tz.zone
        else ${notBefore}::timestamptz end`
    : sql`${notBefore}::timestamptz`;
  const quiet = settings.quiet ? sql`${sql.val(settings.quiet)}::time[]` : sql`null::time[]`;
  return {
    joins: sql`
      left join (select name from pg_timezone_names) own_zone on lower(own_zone.name) = lower(p.fields->>'timezone')
      cross join lateral (select coalesce(own_zone.name, ${settings.timeZone}) as zone) tz
      cross join lateral (select ${base} as at) due`,
    timeZone: sql<string>`tz.zone`,
    notBefore: sql<Date>`coalesce(herald_quiet_until(due.at, tz.zone, ${quiet}), due.at)`,
    /** The due time of a row quiet hours move (so a change of them can release it); null for the others. */
    quietDueAt: sql<Date | null>`case when herald_quiet_until(due.at, tz.zone, ${quiet}) is not null then due.at end`,
  };
}

/** The zone, not_before and join a broadcast's queueing INSERT uses (deliveryTiming). */
export async function broadcastTiming(db: Database, accountId: number, notBefore: Date, sendAt: Date | null) {
  const settings = await sendTimeSettings(db, accountId);
  const window = sendAt ? await recipientWindow(db, settings.timeZone, sendAt) : null;
  return deliveryTiming(settings, notBefore, window);
}

/** Move a broadcast's deliveries from one status to another; the number moved. */
async function moveDeliveries(
  db: Database,
  accountId: number,
  broadcastId: number,
  from: 'pending' | 'paused',
  to: 'pending' | 'paused',
): Promise<number> {
  const result = await db
    .updateTable('deliveries')
    .set({ status: to })
    .where('accountId', '=', accountId)
    .where('sourceKind', '=', 'broadcast')
    .where('sourceId', '=', broadcastId)
    .where('status', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Pause: the broadcast's pending deliveries are held; rows being sent finish. */
export const holdDeliveries = (db: Database, accountId: number, broadcastId: number) =>
  moveDeliveries(db, accountId, broadcastId, 'pending', 'paused');

/** Resume: held deliveries are pending again, each keeping its not_before. */
export const releaseDeliveries = (db: Database, accountId: number, broadcastId: number) =>
  moveDeliveries(db, accountId, broadcastId, 'paused', 'pending');

/**
 * After quiet hours change (off, or another window): every row they hold goes back to its due time, or now when that
 * has passed, moved again only by the new window. Answers the sources whose rows moved, so their send jobs run.
 */
export async function releaseQuietHeld(
  db: Database,
  accountId: number,
  quiet: [string, string] | null,
): Promise<{ kind: SourceKind; sourceId: number }[]> {
  const window = quiet ? sql`${sql.val(quiet)}::time[]` : sql`null::time[]`;
  const { rows } = await sql<{ kind: SourceKind; sourceId: number }>`
    with moved as (
      update deliveries d set
        not_before = coalesce(herald_quiet_until(greatest(d.quiet_due_at, now()), d.time_zone, ${window}), greatest(d.quiet_due_at, now())),
        quiet_due_at = case when herald_quiet_until(greatest(d.quiet_due_at, now()), d.time_zone, ${window}) is not null then d.quiet_due_at end
      where d.account_id = ${accountId} and d.status in ('pending', 'paused') and d.quiet_due_at is not null
      returning d.source_kind, d.source_id
    )
    select distinct source_kind as kind, source_id as "sourceId" from moved
  `.execute(db);
  return rows.map((r) => ({ kind: r.kind, sourceId: Number(r.sourceId) }));
}
