import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { displayDomain, sendingMessages, type DnsRecordCheck, type SenderDomain } from '@herald/contracts';
import type { Selectable } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { SenderDomains } from '../../db/schema.generated.ts';
import { conflict, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';
import { atRestKey, decryptAtRest, encryptAtRest } from '../../lib/sealed-tokens.ts';
import type { Services } from '../../services.ts';
import { checkComplete, checkDomain, domainVerified, expectedRecords } from './dns-check.ts';
import { createDnsLookup } from './dns-lookup.ts';

const generateKeyPair = promisify(crypto.generateKeyPair);

type DomainRow = Selectable<SenderDomains>;

/** An account may run 60 domain checks an hour: each asks the DNS servers a dozen questions. */
const checksPerHour = 60;

function expectationOf(
  services: Services,
  row: Pick<DomainRow, 'domain' | 'dkimSelector' | 'dkimPublicKey'>,
) {
  return {
    domain: row.domain,
    dkimSelector: row.dkimSelector,
    dkimPublicKey: row.dkimPublicKey,
    spfInclude: services.config.dns.spfInclude,
    returnPathDomain: services.config.dns.returnPathDomain,
  };
}

/**
 * The records as last checked (a check may reword a value: the SPF piece to add to an existing record); records
 * the server's settings now ask for (a return path set since) that were never checked show as unchecked.
 */
function senderDomainOf(services: Services, row: DomainRow): SenderDomain {
  const checked = new Map((row.records as DnsRecordCheck[]).map((r) => [`${r.kind}:${r.host}`, r]));
  const records = expectedRecords(expectationOf(services, row)).map(
    (r) => checked.get(`${r.kind}:${r.host}`) ?? r,
  );
  return {
    id: Number(row.id),
    domain: row.domain,
    displayName: displayDomain(row.domain),
    status: row.status as SenderDomain['status'],
    dkimSelector: row.dkimSelector,
    records,
    lastCheckComplete: row.lastCheckComplete,
    checkedAt: row.checkedAt?.toISOString() ?? null,
    verifiedAt: row.verifiedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

async function domainOrThrow(db: Database, accountId: number, id: number) {
  const row = await db
    .selectFrom('senderDomains')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound(sendingMessages.domainNotFound);
  return row;
}

export async function listDomains(services: Services, db: Database, session: Session) {
  const rows = await db
    .selectFrom('senderDomains')
    .selectAll()
    .where('accountId', '=', session.accountId)
    .orderBy('domain')
    .execute();
  return { domains: rows.map((r) => senderDomainOf(services, r)) };
}

export async function getDomain(services: Services, db: Database, session: Session, id: number) {
  return { domain: senderDomainOf(services, await domainOrThrow(db, session.accountId, id)) };
}

/** POST /v1/settings/email/domains: the domain (already reduced by the schema) gets its own 2048-bit DKIM key pair. */
export async function addDomain(services: Services, db: Database, session: Session, domain: string) {
  const existing = await db
    .selectFrom('senderDomains')
    .select('id')
    .where('accountId', '=', session.accountId)
    .where('domain', '=', domain)
    .executeTakeFirst();
  if (existing) throw conflict(sendingMessages.domainExists);
  const { publicKey, privateKey } = await generateKeyPair('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const row = await db
    .insertInto('senderDomains')
    .values({
      accountId: session.accountId,
      domain,
      dkimSelector: `herald${crypto.randomBytes(3).toString('hex')}`,
      dkimPublicKey: publicKey.toString('base64'),
      dkimPrivateKey: encryptAtRest(privateKey, atRestKey(services.secret, 'dkim')),
    })
    .onConflict((c) => c.columns(['accountId', 'domain']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!row) throw conflict(sendingMessages.domainExists);
  return { domain: senderDomainOf(services, row) };
}

/**
 * POST /v1/settings/email/domains/{id}/verify: ask the DNS servers now. Every required record passing makes the
 * domain verified; a failure makes a verified domain failing. When a server did not answer for some record the
 * status stays as it was (never a verified domain from an incomplete check) and the record says 'unknown'.
 */
export async function verifyDomain(services: Services, db: Database, session: Session, id: number) {
  const row = await domainOrThrow(db, session.accountId, id);
  await enforceRateLimit(services.db, `domain-check:${session.accountId}`, checksPerHour, 3600);
  const lookup = createDnsLookup({
    servers: services.config.dns.servers,
    timeoutMs: services.config.dns.timeoutMs,
  });
  const records = await checkDomain(lookup, expectationOf(services, row));
  const complete = checkComplete(records);
  const passed = complete && domainVerified(records);
  const status = !complete
    ? row.status
    : passed
      ? 'verified'
      : row.status === 'verified' || row.status === 'failing'
        ? 'failing'
        : 'pending';
  const updated = await db
    .updateTable('senderDomains')
    .set({
      records: JSON.stringify(records),
      lastCheckComplete: complete,
      checkedAt: new Date(),
      status,
      ...(passed && !row.verifiedAt ? { verifiedAt: new Date() } : {}),
    })
    .where('accountId', '=', session.accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const message = !complete
    ? sendingMessages.domainCouldNotCheck
    : passed
      ? sendingMessages.domainVerified
      : sendingMessages.domainNotVerified;
  return { domain: senderDomainOf(services, updated), message };
}

export async function deleteDomain(db: Database, session: Session, id: number) {
  const removed = await db
    .deleteFrom('senderDomains')
    .where('accountId', '=', session.accountId)
    .where('id', '=', id)
    .returning('id')
    .executeTakeFirst();
  if (!removed) throw notFound(sendingMessages.domainNotFound);
}

/** The signing key of a verified domain, for DKIM on outgoing mail; null when the domain is gone or not verified. */
export async function dkimKeyOf(services: Services, db: Database, accountId: number, domainId: number) {
  const row = await db
    .selectFrom('senderDomains')
    .select(['domain', 'dkimSelector', 'dkimPrivateKey', 'status'])
    .where('accountId', '=', accountId)
    .where('id', '=', domainId)
    .executeTakeFirst();
  if (!row || row.status !== 'verified') return null;
  return {
    domainName: row.domain,
    keySelector: row.dkimSelector,
    privateKey: decryptAtRest(row.dkimPrivateKey, atRestKey(services.secret, 'dkim')),
  };
}
