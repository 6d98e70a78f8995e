import {
  suppressionPageSize,
  sendingMessages,
  type AddSuppressionsBody,
  type SuppressionListQuery,
  type SuppressionReason,
} from '@herald/contracts';
import { sql } from 'kysely';
import type { z } from 'zod';
import type { Database } from '../../db/connection.ts';
import { notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { csvRow } from '../../lib/csv.ts';
import { stoppingAll } from './recipient-rule.ts';

export interface SuppressInput {
  email: string;
  reason: SuppressionReason;
  source: string;
  note?: string | null;
}

/**
 * Put addresses on the account's suppression list (the one place every send checks). An address already
 * there keeps its entry unless the new reason stops more mail (a hard bounce after an unsubscribe). Each
 * change is written to the history. Returns how many entries were added or changed.
 */
export async function suppress(db: Database, accountId: number, entries: SuppressInput[]): Promise<number> {
  if (!entries.length) return 0;
  const byEmail = new Map<string, SuppressInput>();
  for (const e of entries) byEmail.set(e.email.trim().toLowerCase(), e);
  const rows = [...byEmail].map(([email, e]) => ({
    accountId,
    email,
    reason: e.reason,
    source: e.source.slice(0, 200),
    note: e.note ?? null,
  }));
  const changed = await db
    .insertInto('suppressions')
    .values(rows)
    .onConflict((c) =>
      c
        .columns(['accountId', 'email'])
        .doUpdateSet({
          reason: (eb) => eb.ref('excluded.reason'),
          source: (eb) => eb.ref('excluded.source'),
          note: (eb) => eb.ref('excluded.note'),
          createdAt: sql`now()`,
          // A stronger reason (one that stops transactional mail too) replaces a weaker one, never the reverse.
        })
        .where(
          sql<boolean>`not (suppressions.reason in (${sql.join(stoppingAll)})) and excluded.reason in (${sql.join(stoppingAll)})`,
        ),
    )
    .returning(['email', 'reason', 'source', 'note'])
    .execute();
  if (changed.length) {
    await db
      .insertInto('suppressionHistory')
      .values(
        changed.map((c) => ({
          accountId,
          email: c.email,
          action: 'added',
          reason: c.reason,
          source: c.source,
          note: c.note,
        })),
      )
      .execute();
  }
  return changed.length;
}

export async function listSuppressions(
  db: Database,
  session: Session,
  query: z.infer<typeof SuppressionListQuery>,
) {
  const accountId = session.accountId;
  let base = db.selectFrom('suppressions as s').where('s.accountId', '=', accountId);
  if (query.search)
    base = base.where('s.email', 'like', `%${query.search.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`);
  if (query.reason) base = base.where('s.reason', '=', query.reason);
  const [rows, total] = await Promise.all([
    base
      .leftJoin('people as p', (j) =>
        j.onRef('p.accountId', '=', 's.accountId').on(sql`lower(p.email)`, '=', sql.ref('s.email')),
      )
      .select(['s.email', 's.reason', 's.source', 's.note', 's.createdAt', 'p.id as personId'])
      .orderBy('s.createdAt', 'desc')
      .orderBy('s.email')
      .limit(suppressionPageSize)
      .offset((query.page - 1) * suppressionPageSize)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    suppressions: rows.map((r) => ({
      email: r.email,
      reason: r.reason as SuppressionReason,
      source: r.source,
      note: r.note,
      personId: r.personId === null ? null : Number(r.personId),
      createdAt: r.createdAt.toISOString(),
    })),
    total: Number(total.n),
    page: query.page,
    pageSize: suppressionPageSize,
  };
}

/** Who changed the list by hand, as the list shows it: the team member's email. */
async function memberSource(db: Database, session: Session): Promise<string> {
  const row = await db
    .selectFrom('teamMembers as t')
    .innerJoin('users as u', 'u.id', 't.userId')
    .select('u.email')
    .where('t.accountId', '=', session.accountId)
    .where('t.id', '=', session.teamMemberId)
    .executeTakeFirst();
  return row?.email ?? 'team member';
}

export async function addSuppressions(
  db: Database,
  session: Session,
  body: z.infer<typeof AddSuppressionsBody>,
) {
  const source = await memberSource(db, session);
  const added = await suppress(
    db,
    session.accountId,
    body.emails.map((email) => ({ email, reason: body.reason, source, note: body.note ?? null })),
  );
  return { added, message: sendingMessages.suppressionAdded(added) };
}

/** One suppression as the audit log's before side shows it (its address, reason, source and note). */
export async function findSuppression(db: Database, session: Session, email: string) {
  return db
    .selectFrom('suppressions')
    .select(['email', 'reason', 'source', 'note'])
    .where('accountId', '=', session.accountId)
    .where('email', '=', email.trim().toLowerCase())
    .executeTakeFirst();
}

/** Lift a suppression; the history keeps what it was, who lifted it and why. */
export async function removeSuppression(
  db: Database,
  session: Session,
  email: string,
  note: string | undefined,
) {
  const source = await memberSource(db, session);
  const removed = await db
    .deleteFrom('suppressions')
    .where('accountId', '=', session.accountId)
    .where('email', '=', email.trim().toLowerCase())
    .returning(['email', 'reason'])
    .executeTakeFirst();
  if (!removed) throw notFound(sendingMessages.suppressionNotFound);
  await db
    .insertInto('suppressionHistory')
    .values({
      accountId: session.accountId,
      email: removed.email,
      action: 'removed',
      reason: removed.reason,
      source,
      note: note ?? null,
    })
    .execute();
}

export async function suppressionHistory(db: Database, session: Session, email: string | undefined) {
  let q = db
    .selectFrom('suppressionHistory')
    .select(['email', 'action', 'reason', 'source', 'note', 'at'])
    .where('accountId', '=', session.accountId);
  if (email) q = q.where('email', '=', email.toLowerCase());
  const rows = await q.orderBy('at', 'desc').orderBy('id', 'desc').limit(500).execute();
  return {
    history: rows.map((r) => ({
      ...r,
      action: r.action as 'added' | 'removed',
      reason: r.reason as SuppressionReason,
      at: r.at.toISOString(),
    })),
  };
}

/** The whole list as CSV (formula cells escaped by csvRow). */
export async function exportSuppressions(db: Database, session: Session): Promise<string> {
  const rows = await db
    .selectFrom('suppressions')
    .select(['email', 'reason', 'source', 'note', 'createdAt'])
    .where('accountId', '=', session.accountId)
    .orderBy('createdAt')
    .execute();
  return (
    csvRow(['email', 'reason', 'source', 'note', 'createdAt']) +
    rows.map((r) => csvRow([r.email, r.reason, r.source, r.note, r.createdAt.toISOString()])).join('')
  );
}
