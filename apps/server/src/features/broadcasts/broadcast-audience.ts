import { Audience, broadcastMessages, sendingMessages, type CategoryType } from '@herald/contracts';
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { AppError, badRequest } from '../../http/errors.ts';
import { defaultCategory } from '../categories/categories.service.ts';
import { assertSegmentValid, filterOfSegment } from '../segments/segment-people.service.ts';
import type { EventStore } from '../../db/event-store.ts';
import { senderStanding } from '../senders/sending-rule.ts';
import { activeEmail, existingSegmentIds } from './broadcasts.queries.ts';

const anyOf = (parts: RawBuilder<SqlBool>[]) =>
  parts.length ? sql<SqlBool>`(${sql.join(parts, sql` or `)})` : sql<SqlBool>`false`;
const tagsOverlap = (tags: string[]) => sql<SqlBool>`p.tags && ${sql.val(tags)}::text[]`;

/** The segments an audience names, each existing (else 400 with `missing(id)`). */
async function audienceSegments(
  db: Database,
  accountId: number,
  audience: Audience,
  missing: (id: number) => string,
): Promise<number[]> {
  const included = audience.type === 'segments' ? audience.segmentIds : [];
  const ids = [...new Set([...included, ...(audience.excludeSegmentIds ?? [])])];
  const existing = await existingSegmentIds(db, accountId, ids);
  const gone = ids.find((id) => !existing.has(id));
  if (gone !== undefined) throw badRequest(missing(gone));
  return ids;
}

/** An audience's segments exist and their conditions hold (400 otherwise); nothing is compiled or counted. */
export async function assertAudience(
  db: Database,
  accountId: number,
  audience: Audience,
  missing: (id: number) => string,
): Promise<void> {
  for (const id of await audienceSegments(db, accountId, audience, missing))
    await assertSegmentValid(db, accountId, id);
}

/**
 * The people an audience stands for, as one condition over `people p`: everyone, anyone in one of the
 * segments (their conditions as they are now), or anyone with one of the tags; minus anyone in an excluded
 * segment or with an excluded tag. A segment that no longer exists is a 400 with `missing(id)`.
 */
export async function audienceCondition(
  events: EventStore,
  db: Database,
  accountId: number,
  audience: Audience,
  missing: (id: number) => string,
): Promise<RawBuilder<SqlBool>> {
  const included = audience.type === 'segments' ? audience.segmentIds : [];
  const excludedSegments = audience.excludeSegmentIds ?? [];
  const ids = await audienceSegments(db, accountId, audience, missing);
  const filters = new Map<number, RawBuilder<SqlBool>>();
  for (const id of ids) filters.set(id, await filterOfSegment(events, db, accountId, id));

  const base =
    audience.type === 'all'
      ? sql<SqlBool>`true`
      : audience.type === 'segments'
        ? anyOf(included.map((id) => filters.get(id)!))
        : tagsOverlap(audience.tags);
  const exclusions: RawBuilder<SqlBool>[] = excludedSegments.map((id) => filters.get(id)!);
  if (audience.excludeTags?.length) exclusions.push(tagsOverlap(audience.excludeTags));
  return exclusions.length ? sql<SqlBool>`(${base} and not coalesce(${anyOf(exclusions)}, false))` : base;
}

/** The category an email is sent under: its own, else the account's default. */
export async function categoryOfEmail(
  db: Database,
  accountId: number,
  categoryId: number | null,
): Promise<{ id: number; type: CategoryType }> {
  const row = categoryId
    ? await db
        .selectFrom('communicationCategories')
        .select(['id', 'type'])
        .where('accountId', '=', accountId)
        .where('id', '=', categoryId)
        .executeTakeFirst()
    : await defaultCategory(db, accountId);
  if (!row) throw badRequest('The email has no communication category. Choose one in the email settings.');
  return { id: Number(row.id), type: row.type as CategoryType };
}

type ActiveEmail = NonNullable<Awaited<ReturnType<typeof activeEmail>>>;

/**
 * What a broadcast about to be queued (its start, an A/B test's winner) still needs, checked again at that moment:
 * its email (`emailGone` when it no longer exists), a verified sender, an audience whose segments exist, and the
 * email's category. A failure is the reason the broadcast fails with.
 */
export async function sendableAudience(
  events: EventStore,
  db: Database,
  accountId: number,
  audience: unknown,
  emailId: number,
  emailGone: string,
): Promise<
  | { email: ActiveEmail; condition: RawBuilder<SqlBool>; category: { id: number; type: CategoryType } }
  | { failure: string }
> {
  const email = await activeEmail(db, accountId, emailId);
  if (!email) return { failure: emailGone };
  if (!(await senderStanding(db, accountId, email.fromEmail)).allowed)
    return { failure: sendingMessages.notVerified(email.fromEmail) };
  const parsed = Audience.safeParse(audience);
  if (!parsed.success) return { failure: broadcastMessages.audienceInvalid };
  let condition: RawBuilder<SqlBool>;
  try {
    condition = await audienceCondition(events, db, accountId, parsed.data, broadcastMessages.segmentGone);
  } catch (error) {
    if (error instanceof AppError && error.statusCode < 500) return { failure: error.message };
    throw error;
  }
  return {
    email,
    condition,
    category: await categoryOfEmail(
      db,
      accountId,
      email.categoryId === null ? null : Number(email.categoryId),
    ),
  };
}
