import { peopleMessages, type IngestMessage } from '@herald/contracts';
import { z } from 'zod';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { AppError, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import type { Services } from '../../services.ts';
import { listCustomFields } from '../fields/fields.queries.ts';
import { addTag, findPerson, updatePerson } from '../people/people.queries.ts';
import { checkPersonValues } from '../people/person-values.ts';
import { personEmailCounts } from '../metrics/metrics.queries.ts';
import {
  insertEvents,
  pageEvents,
  resolveByAnonymousId,
  resolveByEmail,
  resolveByExternalId,
  type EventRow,
} from './events.queries.ts';

const emailSchema = z.email();

/** The account a write key (or an API key's session) belongs to. */
export async function ingestAccount(
  services: Services,
  session: Session | undefined,
  writeKey: string | undefined,
): Promise<number> {
  if (session) return session.accountId;
  if (writeKey && writeKey.length <= 200) {
    const row = await services.db
      .selectFrom('accounts')
      .select('id')
      .where('writeKey', '=', writeKey)
      .where('deletingAt', 'is', null)
      .executeTakeFirst();
    if (row) return row.id;
  }
  throw new AppError('AuthError', peopleMessages.invalidWriteKey);
}

/**
 * Identify people and record events in batches: people are resolved set-wise (by email, then the
 * account's user id, then the anonymous id), events are written in one multi-row insert.
 * A message that fails its checks is reported by index; the others are kept.
 */
export async function ingest(services: Services, accountId: number, batch: IngestMessage[]) {
  const rejected: { index: number; message: string }[] = [];
  const valid: { index: number; message: IngestMessage }[] = [];
  batch.forEach((message, index) => {
    if (message.email && !emailSchema.safeParse(message.email).success)
      rejected.push({ index, message: 'Enter a valid email address.' });
    else if (!message.email && !message.userId && !message.anonymousId)
      rejected.push({ index, message: 'Each message needs an email, a userId or an anonymousId.' });
    else if (message.type === 'track' && !message.name)
      rejected.push({ index, message: 'A track message needs a name.' });
    else valid.push({ index, message });
  });
  await withAccount(services.db, accountId, async (db) => {
    const distinct = (values: (string | undefined)[]) => [
      ...new Set(values.filter((v): v is string => Boolean(v))),
    ];
    const byEmail = await resolveByEmail(
      db,
      accountId,
      distinct(valid.map((v) => v.message.email?.toLowerCase())),
    );
    const byUserId = await resolveByExternalId(
      db,
      accountId,
      distinct(valid.filter((v) => !v.message.email).map((v) => v.message.userId)),
    );
    const byAnonymous = await resolveByAnonymousId(
      db,
      accountId,
      distinct(valid.filter((v) => !v.message.email && !v.message.userId).map((v) => v.message.anonymousId)),
    );
    const personOf = (m: IngestMessage) =>
      m.email
        ? byEmail.get(m.email.toLowerCase())
        : m.userId
          ? byUserId.get(m.userId)
          : byAnonymous.get(m.anonymousId!);

    const identifies = valid.filter(
      (v) => v.message.type === 'identify' && (v.message.traits || v.message.userId),
    );
    const fields = identifies.length ? await listCustomFields(db, accountId) : [];
    const rows: EventRow[] = [];
    for (const { index, message } of valid) {
      const personId = personOf(message) ?? null;
      if (message.type === 'identify' && personId !== null) {
        try {
          const checked = checkPersonValues(
            {
              ...(message.traits ?? {}),
              ...(message.userId && message.email ? { userId: message.userId } : {}),
            },
            fields,
            { allowTags: true },
          );
          await updatePerson(db, accountId, personId, checked.columns, checked.fields);
          for (const tag of checked.tags ?? []) await addTag(db, accountId, [personId], tag);
        } catch (error) {
          rejected.push({ index, message: error instanceof Error ? error.message : String(error) });
          continue;
        }
      }
      rows.push({
        accountId,
        personId,
        type: message.type,
        name: message.type === 'page' ? (message.name ?? 'Page viewed') : (message.name ?? null),
        url: message.url ?? null,
        data: JSON.stringify(
          message.type === 'identify' ? (message.traits ?? {}) : (message.properties ?? {}),
        ),
        source: 'api',
        createdAt: message.timestamp ? new Date(message.timestamp) : new Date(),
      });
    }
    await insertEvents(db, rows);
  });
  return { accepted: batch.length - rejected.length, rejected: rejected.sort((a, b) => a.index - b.index) };
}

const encodeCursor = (row: { createdAt: Date; id: number }) =>
  Buffer.from(JSON.stringify([row.createdAt.toISOString(), row.id])).toString('base64url');
function decodeCursor(cursor: string | undefined) {
  if (!cursor) return undefined;
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [string, number];
    const createdAt = new Date(at);
    if (Number.isNaN(createdAt.getTime()) || !Number.isInteger(id)) throw new Error('bad cursor');
    return { createdAt, id };
  } catch {
    throw new AppError('BadRequestError', 'The paging cursor is not valid.');
  }
}

/** A page of events, newest first; `paging.after` fetches the next page. */
export async function listEvents(
  db: Database,
  session: Session,
  personId: number | 'all',
  query: {
    cursor?: string | undefined;
    limit: number;
    source?: string | undefined;
    includeEndUsers?: 'true' | 'false' | undefined;
  },
) {
  if (personId !== 'all' && !(await findPerson(db, session.accountId, personId)))
    throw notFound(peopleMessages.personNotFound);
  const rows = await pageEvents(
    db,
    session.accountId,
    {
      ...(personId === 'all' ? {} : { personId }),
      ...(query.source ? { source: query.source } : {}),
      withoutPeople: query.includeEndUsers === 'false',
    },
    decodeCursor(query.cursor),
    query.limit,
  );
  const page = rows.slice(0, query.limit);
  return {
    events: page.map((r) => ({
      ...r,
      data: r.data as Record<string, unknown>,
      createdAt: r.createdAt.toISOString(),
    })),
    paging: { after: rows.length > query.limit ? encodeCursor(page[page.length - 1]!) : null },
  };
}

export async function personMetrics(db: Database, session: Session, personId: number) {
  if (!(await findPerson(db, session.accountId, personId))) throw notFound(peopleMessages.personNotFound);
  const counts = await personEmailCounts(db, session.accountId, personId);
  const metric = (name: string) => counts[name] ?? 0;
  return {
    metrics: {
      sent: metric('sent'),
      opened: metric('opened'),
      clicked: metric('clicked'),
      bounced: metric('bounced'),
      unsubscribed: metric('unsubscribed'),
    },
  };
}
