import { peopleMessages, type IngestMessage } from '@herald/contracts';
import { z } from 'zod';
import type { Database } from '../../db/connection.ts';
import { AppError, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import type { Services } from '../../services.ts';
import { subscribeArrivals, unseen, type Seen } from '../consent/consent.queries.ts';
import { listCustomFields } from '../fields/fields.queries.ts';
import { findPerson } from '../people/people.queries.ts';
import { checkPersonValues, type CheckedValues, type PersonColumns } from '../people/person-values.ts';
import type { EventStore, PageCursor } from '../../db/event-store.ts';
import {
  emailsTaken,
  insertEvents,
  writeIdentified,
  type IdentifyWrite,
  resolveByAnonymousId,
  resolveByEmail,
  lockIdentities,
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
 * What a caller that resolved the people itself gives `ingestIn` (the Tracking API, which links anonymous ids to
 * user ids first): each message's person and its event's `data`, by index.
 */
export interface ResolvedIngest {
  personIds: number[];
  data: Record<string, unknown>[];
}

/**
 * Identify people and record events in the caller's transaction (`withAccount`): people are resolved set-wise (by
 * email, then the account's user id, then the anonymous id), events are written in one multi-row insert. A message
 * that fails its checks is reported by index; the others are kept. `resolved` replaces the people lookups and the
 * events' data.
 * `seen` is who sent the batch, or, for calls written together (ingest-groups.ts), who sent the message at an index:
 * a person the batch creates subscribes with what the call of the first message naming them showed.
 */
export async function ingestIn(
  db: Database,
  accountId: number,
  batch: IngestMessage[],
  resolved?: ResolvedIngest,
  seen: Seen | ((index: number) => Seen) = unseen,
) {
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
  const distinct = (values: (string | undefined)[]) => [
    ...new Set(values.filter((v): v is string => Boolean(v))),
  ];
  const toResolve = resolved ? [] : valid;
  const indexOf = new Map(batch.map((m, i) => [m, i]));
  const created: number[] = [];
  const byEmail = await resolveByEmail(
    db,
    accountId,
    distinct(toResolve.map((v) => v.message.email?.toLowerCase())),
    created,
  );
  const userIds = distinct(toResolve.filter((v) => !v.message.email).map((v) => v.message.userId));
  // Held until the batch commits, so a concurrent call with the same new user id finds this one's person.
  await lockIdentities(
    db,
    accountId,
    userIds.map((id) => `u:${id}`),
  );
  const byUserId = await resolveByExternalId(db, accountId, userIds);
  const byAnonymous = await resolveByAnonymousId(
    db,
    accountId,
    distinct(
      toResolve.filter((v) => !v.message.email && !v.message.userId).map((v) => v.message.anonymousId),
    ),
  );
  const personOf = (m: IngestMessage) =>
    resolved
      ? resolved.personIds[indexOf.get(m)!]
      : m.email
        ? byEmail.get(m.email.toLowerCase())
        : m.userId
          ? byUserId.get(m.userId)
          : byAnonymous.get(m.anonymousId!);

  const identifies = valid.filter(
    (v) => v.message.type === 'identify' && (v.message.traits || v.message.userId),
  );
  const fields = identifies.length ? await listCustomFields(db, accountId) : [];
  // Each identify call's traits are checked alone (a bad one is rejected with its event); the good ones are merged
  // per person in the batch's order and written together (writeIdentified).
  const checked = new Map<number, { personId: number; values: CheckedValues }>();
  for (const { index, message } of identifies) {
    const personId = personOf(message);
    if (personId === undefined) continue;
    try {
      const values = checkPersonValues(
        {
          ...(message.traits ?? {}),
          ...(message.userId && message.email ? { userId: message.userId } : {}),
        },
        fields,
        { allowTags: true },
      );
      checked.set(index, { personId, values });
    } catch (error) {
      rejected.push({ index, message: error instanceof Error ? error.message : String(error) });
    }
  }
  // A new address that another person has (or that another call of the batch gives first) is refused.
  const taken = await emailsTaken(
    db,
    accountId,
    [...checked.values()].flatMap(({ personId, values }) =>
      values.columns.email ? [{ id: personId, emailKey: values.columns.email.toLowerCase() }] : [],
    ),
  );
  const writes = new Map<number, IdentifyWrite>();
  const claimed = new Map<string, number>();
  const rows: EventRow[] = [];
  for (const { index, message } of valid) {
    const personId = personOf(message) ?? null;
    if (message.type === 'identify' && rejected.some((r) => r.index === index)) continue;
    const identified = checked.get(index);
    if (identified) {
      const { columns, fields: values, tags } = identified.values;
      const emailKey = columns.email?.toLowerCase();
      if (
        emailKey &&
        (taken.has(emailKey) || (claimed.get(emailKey) ?? identified.personId) !== identified.personId)
      ) {
        rejected.push({ index, message: peopleMessages.emailTaken });
        continue;
      }
      if (emailKey) claimed.set(emailKey, identified.personId);
      mergeIdentify(writes, identified.personId, columns, values, tags ?? []);
    }
    rows.push({
      accountId,
      personId,
      type: message.type,
      name: message.type === 'page' ? (message.name ?? 'Page viewed') : (message.name ?? null),
      url: message.url ?? null,
      data: JSON.stringify(
        resolved
          ? resolved.data[index]
          : message.type === 'identify'
            ? (message.traits ?? {})
            : (message.properties ?? {}),
      ),
      source: 'api',
      createdAt: message.timestamp ? new Date(message.timestamp) : new Date(),
    });
  }
  await writeIdentified(db, accountId, [...writes.values()]);
  await insertEvents(db, rows);
  // People the API brought in subscribe; with double opt-in on they wait for confirmation (docs/senders-and-consent.md).
  for (const [arrival, people] of arrivalsBySeen(created, valid, personOf, seen))
    await subscribeArrivals(db, accountId, people, { source: 'api', seen: arrival, formKey: null });
  return { accepted: batch.length - rejected.length, rejected: rejected.sort((a, b) => a.index - b.index) };
}

/**
 * The people a batch created, by who sent the first message that named each (one entry for a single call). Calls
 * that showed the same address and user agent share an entry, so a group of calls from one sender subscribes its
 * people in one statement.
 */
function arrivalsBySeen(
  created: number[],
  valid: { index: number; message: IngestMessage }[],
  personOf: (message: IngestMessage) => number | undefined,
  seen: Seen | ((index: number) => Seen),
): [Seen, number[]][] {
  if (!created.length) return [];
  if (typeof seen !== 'function') return [[seen, created]];
  const waiting = new Set(created);
  const groups = new Map<string, [Seen, number[]]>();
  for (const { index, message } of valid) {
    const personId = personOf(message);
    if (personId === undefined || !waiting.delete(personId)) continue;
    const arrival = seen(index);
    const key = JSON.stringify([arrival.ip, arrival.userAgent]);
    const group = groups.get(key) ?? groups.set(key, [arrival, []]).get(key)!;
    group[1].push(personId);
  }
  return [...groups.values()];
}

/** One more identify call for a person: later columns and fields win (a null field removes it), tags add up. */
function mergeIdentify(
  writes: Map<number, IdentifyWrite>,
  id: number,
  columns: PersonColumns,
  fields: Record<string, unknown>,
  tags: string[],
) {
  const write = writes.get(id) ?? { id, columns: {}, fields: {}, tags: [] };
  Object.assign(write.columns, columns);
  Object.assign(write.fields, fields);
  for (const tag of tags) if (!write.tags.includes(tag)) write.tags.push(tag);
  writes.set(id, write);
}

/** The next page's cursor: the last event's instant in microseconds and its id (PageCursor in db/event-store.ts). */
const encodeCursor = (row: PageCursor) =>
  Buffer.from(JSON.stringify([row.atMicros, row.id])).toString('base64url');
function decodeCursor(cursor: string | undefined): PageCursor | undefined {
  if (!cursor) return undefined;
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [unknown, unknown];
    // A cursor handed out before microseconds (an ISO time) still works, to the millisecond.
    const atMicros = typeof at === 'string' ? Date.parse(at) * 1000 : at;
    if (!Number.isSafeInteger(atMicros) || !Number.isSafeInteger(id)) throw new Error('bad cursor');
    return { atMicros: atMicros as number, id: id as number };
  } catch {
    throw new AppError('BadRequestError', 'The paging cursor is not valid.');
  }
}

/** A page of events, newest first; `paging.after` fetches the next page. */
export async function listEvents(
  events: EventStore,
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
  const rows = await events.page(
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
    events: page.map(({ atMicros: _at, ...r }) => ({
      ...r,
      data: r.data as Record<string, unknown>,
      createdAt: r.createdAt.toISOString(),
    })),
    paging: { after: rows.length > query.limit ? encodeCursor(page[page.length - 1]!) : null },
  };
}

export async function personMetrics(events: EventStore, db: Database, session: Session, personId: number) {
  if (!(await findPerson(db, session.accountId, personId))) throw notFound(peopleMessages.personNotFound);
  const counts = await events.personEmailCounts(db, session.accountId, personId);
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
