import crypto from 'node:crypto';
import { domainOfAddress, sendingMessages, type SenderAddress } from '@herald/contracts';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { badRequest, conflict, gone, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { hashToken } from '../../lib/tokens.ts';
import { enforceRateLimit } from '../../lib/rate-limit.ts';
import { openToken, sealToken } from '../../lib/sealed-tokens.ts';
import { queueMail } from '../../mail/mailer.ts';
import { senderVerificationEmail } from '../../mail/templates/sender-verification.ts';
import type { Services } from '../../services.ts';

/** Verification links live three days; an account may send 30 verification mails an hour. */
const linkDays = 3;
const mailsPerHour = 30;

interface AddressRow {
  accountId: string | number;
  email: string;
  status: string;
  verificationSentAt: Date | null;
  verifiedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

async function verifiedDomains(db: Database, accountId: number): Promise<Set<string>> {
  const rows = await db
    .selectFrom('senderDomains')
    .select('domain')
    .where('accountId', '=', accountId)
    .where('status', '=', 'verified')
    .execute();
  return new Set(rows.map((r) => r.domain));
}

function toAddress(row: AddressRow, domains: Set<string>): SenderAddress {
  const byDomain = domains.has(domainOfAddress(row.email));
  const verifiedBy = row.status === 'verified' ? 'address' : byDomain ? 'domain' : null;
  return {
    email: row.email,
    status: verifiedBy ? 'verified' : 'pending',
    accountId: Number(row.accountId),
    data: { verifiedBy, verificationSentAt: row.verificationSentAt?.toISOString() ?? null },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export async function listAddresses(db: Database, session: Session) {
  const [rows, domains] = await Promise.all([
    db
      .selectFrom('senderAddresses')
      .selectAll()
      .where('accountId', '=', session.accountId)
      .orderBy('email')
      .execute(),
    verifiedDomains(db, session.accountId),
  ]);
  return { emails: rows.map((r) => toAddress(r, domains)) };
}

/** Mail a fresh verification link to each address; the previous link of each stops working. */
async function sendVerificationMails(services: Services, db: Database, session: Session, emails: string[]) {
  await enforceRateLimit(services.db, `sender-verification:${session.accountId}`, mailsPerHour, 3600);
  const account = await db
    .selectFrom('accounts')
    .select(['name'])
    .where('id', '=', session.accountId)
    .executeTakeFirstOrThrow();
  for (const email of emails) {
    const nonce = crypto.randomBytes(16).toString('base64url');
    await db
      .updateTable('senderAddresses')
      .set({ verificationNonce: hashToken(nonce), verificationSentAt: new Date(), updatedAt: new Date() })
      .where('accountId', '=', session.accountId)
      .where('email', '=', email)
      .execute();
    const token = sealToken(
      { a: session.accountId, e: email, n: nonce },
      services.secret,
      'sender-verification',
      linkDays * 86_400,
    );
    const link = `${services.config.publicUrl}/public/verify-sender?token=${token}`;
    const mail = senderVerificationEmail({
      accountName: account.name ?? 'Your team',
      address: email,
      link,
      days: linkDays,
    });
    await queueMail(db, services.config, {
      ...mail,
      to: email,
      accountId: session.accountId,
      idempotencyKey: `sender-verification:${session.accountId}:${email}:${nonce}`,
    });
  }
}

/** POST /v1/settings/email/addresses: add an address; unless a verified domain covers it, its verification mail goes out. */
export async function addAddress(services: Services, db: Database, session: Session, address: string) {
  const email = address.trim().toLowerCase();
  const inserted = await db
    .insertInto('senderAddresses')
    .values({ accountId: session.accountId, email })
    .onConflict((c) => c.columns(['accountId', 'email']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!inserted) throw conflict('This sender address is already added.');
  const domains = await verifiedDomains(db, session.accountId);
  if (!domains.has(domainOfAddress(email))) await sendVerificationMails(services, db, session, [email]);
  const row = await db
    .selectFrom('senderAddresses')
    .selectAll()
    .where('accountId', '=', session.accountId)
    .where('email', '=', email)
    .executeTakeFirstOrThrow();
  const result = toAddress(row, domains);
  return {
    email: result,
    message:
      result.status === 'verified' ? sendingMessages.addressVerified(email) : sendingMessages.addressAdded,
  };
}

/** POST /v1/settings/email/addresses/verification: resend the link to addresses of the account that still wait for it. */
export async function resendVerification(
  services: Services,
  db: Database,
  session: Session,
  addresses: string[],
) {
  const emails = [...new Set(addresses.map((a) => a.trim().toLowerCase()))];
  const rows = await db
    .selectFrom('senderAddresses')
    .select(['email', 'status'])
    .where('accountId', '=', session.accountId)
    .where('email', 'in', emails)
    .execute();
  const known = new Map(rows.map((r) => [r.email, r.status]));
  const missing = emails.find((e) => !known.has(e));
  if (missing) throw notFound(`${sendingMessages.addressNotFound} (${missing})`);
  const already = emails.find((e) => known.get(e) === 'verified');
  if (already) throw badRequest(`${already} is already verified.`);
  await sendVerificationMails(services, db, session, emails);
  return { message: sendingMessages.verificationSent };
}

export async function removeAddress(db: Database, session: Session, address: string) {
  const removed = await db
    .deleteFrom('senderAddresses')
    .where('accountId', '=', session.accountId)
    .where('email', '=', address.trim().toLowerCase())
    .returning('email')
    .executeTakeFirst();
  if (!removed) throw notFound(sendingMessages.addressNotFound);
}

/**
 * POST /v1/sender-verification: the link's token names the account, the address and a nonce (sealed, so none
 * of them shows). Only the latest link of an address works, once: a used link is 410, an unknown, changed,
 * superseded or expired one 400, and neither changes anything.
 */
export async function confirmAddress(services: Services, token: string) {
  const payload = openToken(token, services.secret, 'sender-verification');
  const accountId = typeof payload?.a === 'number' ? payload.a : null;
  const email = typeof payload?.e === 'string' ? payload.e : null;
  const nonce = typeof payload?.n === 'string' ? payload.n : null;
  if (!accountId || !email || !nonce) throw badRequest(sendingMessages.verificationLinkInvalid);
  return withAccount(services.db, accountId, async (db) => {
    const row = await db
      .selectFrom('senderAddresses')
      .selectAll()
      .where('accountId', '=', accountId)
      .where('email', '=', email)
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw badRequest(sendingMessages.verificationLinkInvalid);
    if (row.verificationNonce === null && row.status === 'verified')
      throw gone(sendingMessages.verificationLinkUsed);
    if (row.verificationNonce !== hashToken(nonce)) throw badRequest(sendingMessages.verificationLinkInvalid);
    await db
      .updateTable('senderAddresses')
      .set({ status: 'verified', verifiedAt: new Date(), verificationNonce: null, updatedAt: new Date() })
      .where('accountId', '=', accountId)
      .where('email', '=', email)
      .execute();
    return { email, message: sendingMessages.addressVerified(email) };
  });
}
