import type { EventFilter, FeedbackKey, PageCursor, StoredEvent } from '../src/db/event-store.ts';
import type { Change, Place } from './event-store-parity-arbitraries.ts';

/**
 * What the event stores must answer, worked out from the generated events themselves (event-store-parity.test.ts):
 * the property compares the stores with each other, and the PostgreSQL store with this, so that both stores
 * answering nothing (a filter or a row-level policy hiding every row) cannot pass for parity.
 */

/** A generated event with its id, person id and instant: a row of the `events` table. */
export interface ModelEvent extends StoredEvent {
  where: Place;
}

const newestFirst = (x: ModelEvent, y: ModelEvent) => y.atMicros - x.atMicros || y.id - x.id;

/** What `page` must answer, from the model: the filter's events newest first after the cursor, `limit + 1` at most. */
export function modelPage(
  events: readonly ModelEvent[],
  filter: EventFilter,
  after: PageCursor | undefined,
  limit: number,
): StoredEvent[] {
  return events
    .filter((e) => filter.personId === undefined || e.personId === filter.personId)
    .filter((e) => !filter.withoutPeople || e.personId === null)
    .filter((e) => !filter.source || e.source === filter.source)
    .filter(
      (e) => !after || e.atMicros < after.atMicros || (e.atMicros === after.atMicros && e.id < after.id),
    )
    .sort(newestFirst)
    .slice(0, limit + 1)
    .map(({ where: _w, ...e }) => e);
}

const data = (e: ModelEvent) => e.data as Record<string, unknown>;
const isEmail = (e: ModelEvent, personId: number, name?: string) =>
  e.personId === personId && e.type === 'email' && (name === undefined || e.name === name);

export function modelEmailCounts(events: readonly ModelEvent[], personId: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of events)
    if (
      isEmail(e, personId) &&
      ['sent', 'opened', 'clicked', 'unsubscribed', 'bounced'].includes(e.name!) &&
      !(e.name === 'bounced' && data(e).soft === true)
    )
      counts[e.name!] = (counts[e.name!] ?? 0) + 1;
  return counts;
}

export function modelSoftBounces(
  events: readonly ModelEvent[],
  personId: number,
  sinceMicros: number,
): number {
  const ids = events
    .filter((e) => isEmail(e, personId, 'bounced') && data(e).soft === true && e.atMicros > sinceMicros)
    .map((e) => data(e).messageId);
  return new Set(ids).size;
}

export function modelFeedback(events: readonly ModelEvent[], key: FeedbackKey): boolean {
  return events.some(
    (e) =>
      e.type === 'email' &&
      e.name === key.name &&
      data(e).messageId === key.messageId &&
      (data(e).soft === true) === key.soft &&
      (key.personId === null || e.personId === key.personId),
  );
}

/** The model after `movePerson` / `deletePerson`. */
export function modelChange(
  events: readonly ModelEvent[],
  change: Change,
  people: readonly number[],
): ModelEvent[] {
  if (change.kind === 'delete') return events.filter((e) => e.personId !== people[change.person]);
  return events.map((e) =>
    e.personId === people[change.from] ? { ...e, personId: people[change.into]! } : e,
  );
}
