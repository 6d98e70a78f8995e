import {
  trackingApiMessages as text,
  type IngestMessage,
  type TrackingApiResult,
  type TrackingMessageType,
} from '@herald/contracts';
import type { FastifyRequest } from 'fastify';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { AppError, badRequest } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';
import type { Services } from '../../services.ts';
import { seenOf, subscribeArrivals, type Seen } from '../consent/consent.queries.ts';
import { lockIdentities, resolveByAnonymousId, resolveByExternalId } from '../events/events.queries.ts';
import { ingestAccount, ingestIn } from '../events/events.service.ts';
import { listCustomFields } from '../fields/fields.queries.ts';
import {
  claimMessageIds,
  createTraitFields,
  forgetOldMessageIds,
  mergePerson,
  peopleWithEmail,
  peopleWithoutEmail,
  personByAnonymousId,
  personByEmail,
  personById,
  personByUserId,
  rememberAnonymousId,
  setUserId,
  unknownTraitsSetting,
  type PersonIdentity,
} from './tracking-api.queries.ts';
import { parseBody, readMessages, type ReadMessage } from './tracking-messages.ts';
import { mapTraits } from './tracking-traits.ts';

/** Calls a minute an account may make (every process shares the count: lib/rate-limit.ts); tests lower it. */
export const trackingRateLimit = { requests: 6000, windowSeconds: 60 };

/** The Basic auth user name (Segment's and RudderStack's SDKs send the write key so, the password empty). */
function basicAuthUser(header: string | undefined): string | undefined {
  const encoded = /^Basic\s+(\S+)$/i.exec(header ?? '')?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const user = decoded.includes(':') ? decoded.slice(0, decoded.indexOf(':')) : decoded;
  return user || undefined;
}

/**
 * A call of the Tracking API: the write key (Basic auth user, else `writeKey` in the body, else an API key's
 * session) names the account before anything is read of the messages beyond their JSON; then the messages are
 * checked, the rate limit counted, and everything is written in one transaction (or nothing, on any refusal).
 */
export async function receive(
  services: Services,
  session: Session | undefined,
  request: FastifyRequest,
  kind: 'batch' | TrackingMessageType,
): Promise<TrackingApiResult> {
  const receivedAt = new Date();
  const herald = request.headers['x-write-key'];
  // A beacon (RudderStack's page-unload path) cannot set headers: its key is in the query string.
  const inQuery = (request.query as { writeKey?: unknown } | undefined)?.writeKey;
  const headerKey =
    basicAuthUser(request.headers.authorization) ??
    (typeof herald === 'string' ? herald : undefined) ??
    (typeof inQuery === 'string' && inQuery ? inQuery : undefined);
  // A wrong key in the header is refused before the body is read.
  const headerAccount = headerKey ? await ingestAccount(services, session, headerKey) : undefined;
  const json = parseBody(request.body);
  const read = readMessages(json, kind, receivedAt);
  const writeKey = headerKey ?? read.writeKey;
  if (!session && !writeKey) throw new AppError('AuthError', text.missingWriteKey);
  const accountId = headerAccount ?? (await ingestAccount(services, session, writeKey));
  await enforceRateLimit(
    services.db,
    `tracking-api:${accountId}`,
    trackingRateLimit.requests,
    trackingRateLimit.windowSeconds,
  );
  const seen = seenOf(request);
  return withAccount(services.db, accountId, (db) =>
    store(services, db, accountId, read.messages, seen, receivedAt),
  );
}

async function store(
  services: Services,
  db: Database,
  accountId: number,
  all: ReadMessage[],
  from: Seen,
  receivedAt: Date,
): Promise<TrackingApiResult> {
  const ip = from.ip ?? '';
  // A messageId seen before (or twice in this call) stores nothing new; the call still succeeds.
  await forgetOldMessageIds(db, accountId);
  const fresh = await claimMessageIds(db, accountId, [
    ...new Set(all.flatMap((m) => (m.messageId ? [m.messageId] : []))),
  ]);
  const seen = new Set<string>();
  const messages = all.filter((m) => {
    if (!m.messageId) return true;
    const isNew = fresh.has(m.messageId) && !seen.has(m.messageId);
    seen.add(m.messageId);
    return isNew;
  });
  if (messages.length === 0) return { success: true, accepted: 0, duplicates: all.length };
  // The call's identities are held until it commits: a concurrent call with the same new userId waits and then
  // finds the person this one made, instead of making a second (events.queries.ts lockIdentities).
  await lockIdentities(
    db,
    accountId,
    messages.flatMap((m) => [
      ...(m.userId ? [`u:${m.userId}`] : []),
      ...(m.anonymousId ? [`a:${m.anonymousId}`] : []),
      ...(m.previousId ? [`u:${m.previousId}`, `a:${m.previousId}`] : []),
    ]),
  );

  const setting = await unknownTraitsSetting(db, accountId);
  const fields: { name: string }[] = messages.some((m) => m.type === 'identify')
    ? await listCustomFields(db, accountId)
    : [];
  const people = new People(services, db, accountId);
  const batch: IngestMessage[] = [];
  const personIds: number[] = [];
  const data: Record<string, unknown>[] = [];
  for (const m of messages) {
    const meta: Record<string, unknown> = {
      type: m.type,
      messageId: m.messageId ?? null,
      userId: m.userId ?? null,
      anonymousId: m.anonymousId ?? null,
      context: { ...m.context, ip: m.context.ip ?? ip },
      originalTimestamp: m.timestamp ?? m.originalTimestamp ?? null,
      sentAt: m.sentAt ?? null,
      receivedAt: receivedAt.toISOString(),
    };
    const base = { userId: m.userId, anonymousId: m.anonymousId, timestamp: m.at.toISOString() };
    if (m.type === 'alias') {
      const { personId, outcome } = await people.alias(m.previousId!, m.userId!);
      personIds.push(personId);
      batch.push({ ...base, type: 'track', name: 'Alias' });
      data.push({ previousId: m.previousId, userId: m.userId, outcome, $segment: meta });
      continue;
    }
    if (m.type === 'identify') {
      const mapped = mapTraits(m.traits, fields, setting);
      await createTraitFields(db, accountId, mapped.create);
      fields.push(...mapped.create);
      const email = typeof mapped.values.email === 'string' ? mapped.values.email.trim() : undefined;
      personIds.push(await people.resolve(m.userId, m.anonymousId, email));
      batch.push({ ...base, type: 'identify', traits: mapped.values });
      if (mapped.dropped.length) meta.droppedTraits = mapped.dropped;
      data.push({ ...m.traits, $segment: meta });
      continue;
    }
    personIds.push(await people.resolve(m.userId, m.anonymousId, undefined));
    if (m.type === 'track') {
      batch.push({ ...base, type: 'track', name: m.event! });
      data.push({ ...m.properties, $segment: meta });
    } else if (m.type === 'group') {
      batch.push({ ...base, type: 'track', name: 'Group' });
      data.push({ groupId: m.groupId, ...m.traits, $segment: meta });
    } else {
      const page = m.context.page as Record<string, unknown> | undefined;
      const url = m.properties.url ?? page?.url;
      batch.push({
        ...base,
        type: 'page',
        name: m.name ?? (m.type === 'screen' ? 'Screen viewed' : 'Page viewed'),
        ...(typeof url === 'string' ? { url: url.slice(0, 2048) } : {}),
      });
      data.push({ ...m.properties, ...(m.category ? { category: m.category } : {}), $segment: meta });
    }
  }
  // People without an address before this call (new, or only ever anonymous) who have one after it arrive now: like
  // the ingest API's new people, they subscribe, and wait to confirm when double opt-in is on (docs/people.md).
  const withoutAddress = await peopleWithoutEmail(db, accountId, personIds);
  const result = await ingestIn(db, accountId, batch, { personIds, data });
  // Any refusal (a trait of the wrong type, an address another person has) refuses the call: the transaction
  // rolls back, so nothing of it is written and a fixed retry is not taken for a duplicate.
  const refused = result.rejected[0];
  if (refused) {
    const index = all.indexOf(messages[refused.index]!);
    throw badRequest(text.invalidMessage(index, refused.message));
  }
  const arrived = await peopleWithEmail(db, accountId, withoutAddress);
  await subscribeArrivals(db, accountId, arrived, { source: 'api', seen: from, formKey: null });
  return { success: true, accepted: messages.length, duplicates: all.length - messages.length };
}

/**
 * People of one call, found or created by userId and anonymousId; the same ids answer the same person for the rest
 * of the call. An anonymous person (no email, no userId) that turns out to be a known one is merged into it.
 */
class People {
  private readonly byUser = new Map<string, number>();
  private readonly byAnonymous = new Map<string, number>();
  constructor(
    private readonly services: Services,
    private readonly db: Database,
    private readonly accountId: number,
  ) {}

  private isAnonymous = (p: PersonIdentity | undefined) => Boolean(p && !p.email && !p.externalId);

  private async anonymous(anonymousId: string) {
    const cached = this.byAnonymous.get(anonymousId);
    if (cached !== undefined) return personById(this.db, this.accountId, cached);
    return personByAnonymousId(this.db, this.accountId, anonymousId);
  }

  async resolve(userId: string | undefined, anonymousId: string | undefined, email: string | undefined) {
    const { db, accountId } = this;
    let known: PersonIdentity | undefined;
    if (userId) {
      const cached = this.byUser.get(userId);
      known =
        cached !== undefined
          ? await personById(db, accountId, cached)
          : await personByUserId(db, accountId, userId);
    }
    // A new userId whose address is already a person's (an import, a form) is that person.
    if (!known && email) known = await personByEmail(db, accountId, email);
    const anon = anonymousId ? await this.anonymous(anonymousId) : undefined;
    let personId: number;
    if (known) {
      personId = known.id;
      if (anon && anon.id !== known.id && this.isAnonymous(anon))
        await mergePerson(this.services.events, db, accountId, anon.id, known.id);
      if (userId && known.externalId !== userId) await setUserId(db, accountId, known.id, userId);
    } else if (anon) {
      personId = anon.id;
      if (userId && this.isAnonymous(anon)) await setUserId(db, accountId, anon.id, userId);
      else if (userId) personId = (await resolveByExternalId(db, accountId, [userId])).get(userId)!;
    } else if (userId) {
      personId = (await resolveByExternalId(db, accountId, [userId])).get(userId)!;
    } else {
      personId = (await resolveByAnonymousId(db, accountId, [anonymousId!])).get(anonymousId!)!;
    }
    if (userId) this.byUser.set(userId, personId);
    if (anonymousId) {
      this.byAnonymous.set(anonymousId, personId);
      await rememberAnonymousId(db, accountId, anonymousId, personId);
    }
    return personId;
  }

  /** `alias`: the person of previousId (a userId or an anonymousId) becomes userId's, merged into it when both exist. */
  async alias(previousId: string, userId: string) {
    const { db, accountId } = this;
    const from = (await personByUserId(db, accountId, previousId)) ?? (await this.anonymous(previousId));
    const into = await personByUserId(db, accountId, userId);
    let outcome = 'linked';
    let personId: number;
    if (from && !into) {
      await setUserId(db, accountId, from.id, userId);
      personId = from.id;
    } else if (from && into && from.id !== into.id) {
      personId = into.id;
      if (from.email) outcome = text.aliasKeptApart;
      else {
        await mergePerson(this.services.events, db, accountId, from.id, into.id);
        outcome = 'merged';
      }
    } else {
      personId = into?.id ?? (await resolveByExternalId(db, accountId, [userId])).get(userId)!;
    }
    this.byUser.set(userId, personId);
    if (outcome !== text.aliasKeptApart) {
      this.byAnonymous.set(previousId, personId);
      await rememberAnonymousId(db, accountId, previousId, personId);
    }
    return { personId, outcome };
  }
}
