import {
  bulkEraseMax,
  EmailAddress,
  peopleMessages,
  privacyMessages,
  type BulkEraseResponse,
  type EraseTally,
  type PersonExport,
} from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import type { EventStore, PageCursor } from '../../db/event-store.ts';
import { eventStoreError } from '../../db/event-store.ts';
import type { AuditTrail } from '../../http/audit.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { CsvReader } from '../imports/csv-reader.ts';
import { detectDelimiter } from '../imports/csv-sniff.ts';
import {
  deletePeopleKeepingHashes,
  erasePeopleRows,
  lockPeople,
  personRows,
  selectEventRetention,
  updateEventRetention,
} from './privacy.queries.ts';

const eventPage = 1000;

/** Every event of the person, newest first, through the event store (PostgreSQL or ClickHouse). */
async function personEvents(events: EventStore, db: Database, accountId: number, personId: number) {
  const out: PersonExport['events'] = [];
  let after: PageCursor | undefined;
  for (;;) {
    const page = await events.page(db, accountId, { personId }, after, eventPage).catch((error: unknown) => {
      throw eventStoreError(error);
    });
    for (const e of page.slice(0, eventPage))
      out.push({
        id: e.id,
        type: e.type,
        name: e.name,
        url: e.url,
        data: e.data,
        source: e.source,
        createdAt: e.createdAt.toISOString(),
      });
    if (page.length <= eventPage) return out;
    after = page[eventPage - 1]!;
  }
}

/**
 * POST /v1/people/:id/export: everything Herald holds about the person as one JSON document (docs/people.md, "Export
 * and erase"). The audit entry names the person's id only, never their data.
 */
export async function exportPerson(
  events: EventStore,
  db: Database,
  session: Session,
  audit: AuditTrail,
  id: number,
): Promise<PersonExport> {
  const [person] = await lockPeople(db, session.accountId, { ids: [id] });
  if (!person) throw notFound(peopleMessages.personNotFound);
  const stored = await personRows(db, session.accountId, id, person.email);
  const result: PersonExport = {
    exportedAt: new Date().toISOString(),
    ...stored,
    events: await personEvents(events, db, session.accountId, id),
  };
  audit.change('people', id, null, { exported: true });
  return result;
}

/**
 * Erase people (their ids, locked): every table's rows, then their events through the event store, then the people,
 * keeping each address as a hash that suppresses it when it comes back. All in the caller's transaction: an error
 * anywhere leaves nothing half-erased (on ClickHouse, the events' delete is a mutation sent before the commit; a
 * rolled-back erase is asked again, and deleting twice is harmless).
 */
async function erase(
  events: EventStore,
  db: Database,
  accountId: number,
  people: { id: number; email: string | null }[],
): Promise<EraseTally & { hashes: string[] }> {
  if (people.length === 0)
    return { erased: 0, flowRunsEnded: 0, deliveriesCanceled: 0, webhookCallsCanceled: 0, hashes: [] };
  const counts = await erasePeopleRows(db, accountId, people);
  await events.erasePeople(
    db,
    accountId,
    people.map((p) => p.id),
  );
  const hashes = await deletePeopleKeepingHashes(db, accountId, people);
  return { erased: people.length, ...counts, hashes };
}

/** POST /v1/people/:id/erase. */
export async function erasePerson(
  events: EventStore,
  db: Database,
  session: Session,
  audit: AuditTrail,
  id: number,
) {
  const people = await lockPeople(db, session.accountId, { ids: [id] });
  if (people.length === 0) throw notFound(peopleMessages.personNotFound);
  const { hashes, ...tally } = await erase(events, db, session.accountId, people);
  audit.change('people', id, null, { ...tally, emailHash: hashes[0] ?? null });
  return { ...tally, message: privacyMessages.personErased };
}

/** The addresses of a CSV file: the column headed "email" (any case), else the first; each once, lower case. */
export function addressesOfCsv(csv: string): { emails: string[]; invalid: string[] } {
  const text = csv.replace(/^\uFEFF/, '');
  const firstLine = text.slice(0, text.search(/\r|\n|$/));
  const records: string[][] = [];
  let problem: string | undefined;
  const reader = new CsvReader(detectDelimiter(firstLine).charCodeAt(0), 1000, (record) => {
    if (record.error && problem === undefined)
      problem = privacyMessages.csvUnreadable(records.length + 1, record.error);
    records.push(record.cells);
  });
  reader.write(text);
  reader.end();
  if (problem) throw badRequest(problem);
  const header = (records[0] ?? []).map((cell) => cell.trim().toLowerCase());
  const headed = header.findIndex(
    (cell) => cell === 'email' || cell === 'email address' || cell === 'e-mail',
  );
  const column = headed === -1 ? 0 : headed;
  const body = headed === -1 ? records : records.slice(1);
  const emails = new Set<string>();
  const invalid: string[] = [];
  for (const cells of body) {
    const cell = (cells[column] ?? '').trim();
    if (cell === '') continue;
    const parsed = EmailAddress.safeParse(cell);
    if (parsed.success) emails.add(parsed.data.toLowerCase());
    else if (invalid.length < 100) invalid.push(cell.slice(0, 254));
  }
  if (emails.size === 0) throw badRequest(privacyMessages.csvEmpty);
  if (emails.size > bulkEraseMax) throw badRequest(privacyMessages.csvTooMany(bulkEraseMax));
  return { emails: [...emails], invalid };
}

/** POST /v1/people/erase: everyone a CSV of addresses names, in one transaction; the rest are reported, not erased. */
export async function bulkErase(
  events: EventStore,
  db: Database,
  session: Session,
  audit: AuditTrail,
  csv: string,
): Promise<BulkEraseResponse> {
  const { emails, invalid } = addressesOfCsv(csv);
  const people = await lockPeople(db, session.accountId, { emails });
  const found = new Set(people.flatMap((p) => (p.email ? [p.email.toLowerCase()] : [])));
  const notFound = emails.filter((email) => !found.has(email));
  const { hashes, ...tally } = await erase(events, db, session.accountId, people);
  // The entry counts and names people by id and address hash only: the file's addresses are personal data.
  audit.change('people', null, null, {
    erased: tally.erased,
    notFound: notFound.length,
    flowRunsEnded: tally.flowRunsEnded,
    deliveriesCanceled: tally.deliveriesCanceled,
    personIds: people.map((p) => p.id),
    emailHashes: hashes,
  });
  return { ...tally, message: privacyMessages.peopleErased(tally.erased), notFound, invalid };
}

export async function getEventRetention(db: Database, session: Session) {
  return { eventRetentionMonths: await selectEventRetention(db, session.accountId) };
}

export async function setEventRetention(db: Database, session: Session, months: number | null) {
  await updateEventRetention(db, session.accountId, months);
  return { eventRetentionMonths: months, message: privacyMessages.retentionSaved };
}
