import fc from 'fast-check';

/**
 * An account's events as Herald writes them, for event-store-parity.test.ts: the types, names, sources and `data`
 * of the ingestion API (events.service.ts), the site script (site-tracking.service.ts), sends (deliveries.queries.ts
 * recordSent), opens and clicks (tracking/hit-buffer.ts), bounces and complaints (bounces/feedback.service.ts),
 * unsubscribes (preferences.service.ts) and segment entries (segments/membership.queries.ts). People are indexes
 * into the run's person ids, instants are offsets back from the run's start, so a shrunk case replays the same.
 */

export const dayUs = 86_400_000_000;
const minuteUs = 60_000_000;
/** Person slots of a run: the events pick among them, so some have events and some none. */
export const personSlots = 6;
/** The message ids sends, bounces and complaints name (Message-ID as normalizeMessageId writes it). */
export const messageIds = Array.from({ length: 5 }, (_, i) => `<${i}.17612${i}@eu.mail.herald.example>`);
/** The sources a timeline can be filtered by; `import` is one no event has. */
export const sources = ['api', 'site', 'email', 'segments', 'import'] as const;
/** The windows `softBouncedMessages` is asked about (feedback.service.ts asks for 30 days). */
export const softBounceWindows = [1, 7, 30, 45] as const;

export interface EventKind {
  type: string;
  name: string | null;
  url: string | null;
  data: Record<string, unknown>;
  source: string;
}

/** When an event happened: one of the run's shared instants (plus 0, 1 or 999 µs, or 1 ms), or its own. */
export type At = { tie: number; delta: number } | { offset: number };

export interface EventSpec extends EventKind {
  person: number | null;
  at: At;
  where: Place;
}

/**
 * Where an event is when the stores are read: moved to ClickHouse, waiting in PostgreSQL's spool, or both (a
 * forward the forwarder left between its insert into ClickHouse and its delete from the spool, to be repeated).
 */
export type Place = 'clickhouse' | 'spool' | 'both';

export interface WalkSpec {
  filter: { person?: number; source?: number; withoutPeople?: boolean };
  limit: number;
  /** Start after a cursor near one of the events (any cursor the API decodes), else from the newest. */
  start?: { event: number; atShift: number; idShift: number };
}

export type Change = { kind: 'move'; from: number; into: number } | { kind: 'delete'; person: number };

export interface Scenario {
  /** Offsets (µs back from the run's start) that several events share to the microsecond. */
  ties: number[];
  events: EventSpec[];
  walks: WalkSpec[];
  feedback: { name: 'bounced' | 'complained'; message: number; soft: boolean; person: number | null }[];
  changes: Change[];
  /** The window (days) each person slot's soft bounces are counted in. */
  windows: number[];
  /** The person a flow's test run copies the events of (copyPersonForTestRun). */
  testRun: number;
  /** Once the rest of the spool is forwarded after the changes, read the ClickHouse store again. */
  readForwarded: boolean;
}

const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const text = fc.string({ unit: 'grapheme', maxLength: 12 }).filter((s) => !s.includes('\u0000'));
const urls = [
  'https://site.example/pricing',
  'https://site.example/blog/launch?utm_source=news',
  'https://site.example/docs/café',
  'https://other.example/',
];

/**
 * A day back (−2: two days ahead, as an ingested timestamp may be), a minute of that day at least 5 minutes from
 * its edges (`softBouncedMessages` counts whole days back from now: no event sits within seconds of a window's
 * edge while a run reads), and a microsecond.
 */
export const offsetArb = fc
  .record({
    day: fc.integer({ min: -2, max: 50 }),
    minute: fc.integer({ min: 5, max: 1434 }),
    micro: fc.integer({ min: 0, max: minuteUs - 1 }),
  })
  .map(({ day, minute, micro }) => day * dayUs + minute * minuteUs + micro);

const atArb: fc.Arbitrary<At> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({ tie: pick([0, 0, 0, 1, 2]), delta: pick([0, 0, 0, 0, 1, 999, 1000]) }),
  },
  { weight: 1, arbitrary: offsetArb.map((offset) => ({ offset })) },
);

const subjectArb = fc.oneof(
  fc.integer({ min: 1, max: 30 }).map((id): Record<string, unknown> => ({ broadcastId: id })),
  fc
    .integer({ min: 1, max: 30 })
    .map((id): Record<string, unknown> => ({ flowId: id, stepId: String(100 + id) })),
  fc.integer({ min: 1, max: 30 }).map((id): Record<string, unknown> => ({ sourceId: id })),
);
const messageArb = fc.nat({ max: messageIds.length - 1 }).map((i) => messageIds[i]!);
const variantArb = optional(fc.integer({ min: 1, max: 3 }));
const withVariant = (variant: number | undefined) => (variant ? { variant } : {});

const sent = fc
  .record({
    subject: subjectArb,
    emailId: fc.integer({ min: 1, max: 9 }),
    messageId: messageArb,
    v: variantArb,
  })
  .map(({ subject, emailId, messageId, v }): EventKind => ({
    type: 'email',
    name: 'sent',
    url: null,
    source: 'email',
    data: { ...subject, emailId, messageId, ...withVariant(v) },
  }));

const hit = fc
  .record({
    name: pick(['opened', 'clicked'] as const),
    subject: subjectArb,
    emailId: fc.integer({ min: 1, max: 9 }),
    v: variantArb,
    link: pick(urls),
    userAgent: pick(['privacy-proxy', 'image-proxy', 'scanner', 'mobile', 'desktop', 'unknown']),
    machine: fc.boolean(),
  })
  .map(({ name, subject, emailId, v, link, userAgent, machine }): EventKind => ({
    type: 'email',
    name,
    url: null,
    source: 'email',
    data: {
      ...subject,
      emailId,
      ...withVariant(v),
      ...(name === 'clicked' ? { link } : {}),
      userAgent,
      machine,
    },
  }));

/** A bounce (soft or hard) or a complaint, as recordFeedback writes it; its person may be unknown. */
const feedback = fc
  .record({
    name: pick(['bounced', 'bounced', 'complained'] as const),
    soft: fc.boolean(),
    subject: subjectArb,
    emailId: fc.integer({ min: 1, max: 9 }),
    messageId: messageArb,
    via: pick(['dsn', 'arf', 'ses', 'postmark', 'sendgrid', 'mailgun']),
    detail: pick(['550 5.1.1 User unknown', '452 4.2.2 Mailbox full', '', 'Abuse report']),
  })
  .map(({ name, soft, subject, emailId, messageId, via, detail }): EventKind => ({
    type: 'email',
    name,
    url: null,
    source: 'email',
    data: {
      ...subject,
      emailId,
      messageId,
      detail,
      via,
      ...(name === 'bounced' && soft ? { soft: true } : {}),
    },
  }));

const unsubscribed = fc
  .record({
    subject: subjectArb,
    via: pick(['one-click', 'link']),
    categoryId: optional(fc.integer({ min: 1, max: 4 })),
  })
  .map(({ subject, via, categoryId }): EventKind => ({
    type: 'email',
    name: 'unsubscribed',
    url: null,
    source: 'email',
    data: { ...subject, via, ...(categoryId ? { categoryId } : {}) },
  }));

const segment = fc
  .record({ name: pick(['entered', 'left']), segmentId: fc.integer({ min: 1, max: 5 }) })
  .map(({ name, segmentId }): EventKind => ({
    type: 'segment',
    name,
    url: null,
    source: 'segments',
    data: { segmentId },
  }));

const identify = fc
  .record({ firstName: optional(pick(['Ada', 'Zoë', "O'Brien"])), plan: optional(pick(['pro', 'free'])) })
  .map(({ firstName, plan }): EventKind => ({
    type: 'identify',
    name: null,
    url: null,
    source: 'api',
    data: { ...(firstName ? { firstName } : {}), ...(plan ? { plan } : {}) },
  }));

const track = fc
  .record({
    name: pick(['Signed up', 'Order completed', 'Viewed product', 'Añadido al carrito']),
    url: fc.option(pick(urls), { nil: null }),
    plan: optional(pick(['pro', 'free'])),
    cents: optional(fc.integer({ min: 0, max: 100_000 })),
    note: optional(text),
  })
  .map(({ name, url, plan, cents, note }): EventKind => ({
    type: 'track',
    name,
    url,
    source: 'api',
    data: {
      ...(plan ? { plan } : {}),
      ...(cents !== undefined ? { amount: cents / 100 } : {}),
      ...(note !== undefined ? { note } : {}),
    },
  }));

const apiPage = fc
  .record({ name: pick(['Page viewed', 'Pricing']), url: pick(urls) })
  .map(({ name, url }): EventKind => ({ type: 'page', name, url, source: 'api', data: {} }));

const anonymousId = pick(['a1b2c3', 'f00dfeed', 'visitor-7']);
const sitePage = fc
  .record({
    url: pick(urls),
    title: fc.option(text, { nil: null }),
    referrer: fc.option(pick(urls), { nil: null }),
    anonymousId,
  })
  .map(({ url, title, referrer, anonymousId }): EventKind => ({
    type: 'page',
    name: 'Page viewed',
    url,
    source: 'site',
    data: { title, referrer, anonymousId },
  }));

const form = fc
  .record({
    url: pick(urls),
    message: text,
    mapping: fc.option(pick(['applied']), { nil: null }),
    anonymousId,
  })
  .map(({ url, message, mapping, anonymousId }): EventKind => ({
    type: 'track',
    name: 'form-submitted',
    url,
    source: 'site',
    data: {
      form: {
        id: 'newsletter',
        fields: [
          { name: 'email', type: 'email' },
          { name: 'message', type: 'textarea' },
        ],
      },
      hash: 'b1946ac92492d234',
      key: 'newsletter:b1946ac9',
      values: { email: 'ada@example.com', message },
      mapping,
      anonymousId,
    },
  }));

const placeArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Place>('clickhouse') },
  { weight: 4, arbitrary: fc.constant<Place>('spool') },
  { weight: 2, arbitrary: fc.constant<Place>('both') },
);
const person = fc.nat({ max: personSlots - 1 });
const maybePerson = fc.option(person, { nil: null, freq: 4 });
const withPerson = (kind: fc.Arbitrary<EventKind>, who: fc.Arbitrary<number | null>) =>
  fc
    .record({ kind, person: who, at: atArb, where: placeArb })
    .map(({ kind, ...rest }): EventSpec => ({ ...kind, ...rest }));

export const eventArb: fc.Arbitrary<EventSpec> = fc.oneof(
  { weight: 2, arbitrary: withPerson(sent, person) },
  { weight: 2, arbitrary: withPerson(hit, person) },
  { weight: 3, arbitrary: withPerson(feedback, maybePerson) },
  { weight: 1, arbitrary: withPerson(unsubscribed, person) },
  { weight: 1, arbitrary: withPerson(segment, person) },
  { weight: 1, arbitrary: withPerson(identify, person) },
  { weight: 2, arbitrary: withPerson(track, person) },
  { weight: 1, arbitrary: withPerson(apiPage, person) },
  { weight: 2, arbitrary: withPerson(sitePage, maybePerson) },
  { weight: 1, arbitrary: withPerson(form, person) },
);

const walkArb: fc.Arbitrary<WalkSpec> = fc.record(
  {
    filter: fc.record(
      { person, source: fc.nat({ max: sources.length - 1 }), withoutPeople: fc.boolean() },
      { requiredKeys: [] },
    ),
    limit: fc.integer({ min: 1, max: 4 }),
    start: fc.record({ event: fc.nat(), atShift: pick([-1, 0, 0, 1]), idShift: pick([-1, 0, 0, 1]) }),
  },
  { requiredKeys: ['filter', 'limit'] },
);

const changeArb: fc.Arbitrary<Change> = fc.oneof(
  fc
    .record({ from: person, into: person })
    .filter(({ from, into }) => from !== into)
    .map(({ from, into }): Change => ({ kind: 'move', from, into })),
  person.map((p): Change => ({ kind: 'delete', person: p })),
);

export const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  ties: fc.array(offsetArb, { minLength: 3, maxLength: 3 }),
  events: fc.array(eventArb, { maxLength: 40, size: 'medium' }),
  walks: fc.array(walkArb, { minLength: 1, maxLength: 4 }),
  feedback: fc.array(
    fc.record({
      name: pick(['bounced', 'complained'] as const),
      message: fc.nat({ max: messageIds.length - 1 }),
      soft: fc.boolean(),
      person: maybePerson,
    }),
    { maxLength: 4 },
  ),
  changes: fc.array(changeArb, { minLength: 1, maxLength: 2 }),
  windows: fc.array(pick(softBounceWindows), { minLength: personSlots, maxLength: personSlots }),
  testRun: person,
  readForwarded: fc.boolean(),
});
