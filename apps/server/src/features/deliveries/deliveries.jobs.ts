/**
 * The `deliver` job: send a source's queued deliveries. Two loops claim batches under a lease, render each message
 * with packages/email, send through the pooled transport, and record outcomes as they come (sent rows in small
 * flushes, so a crash re-sends as little as possible). When no row is left the broadcast is finished.
 */
import { compileEmail, dkimSign, renderCompiled, TemplateError, toMime, type CompiledEmail } from '@herald/email';
import type { CategoryType } from '@herald/contracts';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';
import { startPoller } from '../../jobs/poller.ts';
import { messageIdFor } from '../../mail/mailer.ts';
import type { Services } from '../../services.ts';
import { defaultCategory } from '../categories/categories.service.ts';
import { dkimKeyOf } from '../domains/domains.service.ts';
import { formatAddress } from '../emails/email-test-send.ts';
import { personColumns, toPerson } from '../people/people.queries.ts';
import { recipientLinks } from '../preferences/preference-links.ts';
import { senderStanding } from '../senders/sending-rule.ts';
import { deliverableTo, stoppedAmong } from '../suppressions/recipient-rule.ts';
import { claimBatch, failSource, finishBroadcast, nextWork, recordFailed, recordSent, recordSkipped, type ClaimedRow, type SentRow } from './deliveries.queries.ts';
import { deliverJobKey, type SourceKind } from './deliveries.service.ts';
import { sourceContent, type ContentKey } from './source-content.ts';
import { storeInMailbox, transportFor } from './transport.ts';

const batchSize = 250;
const contentKeyOf = (row: { emailId: number; variant: number }) => `${row.emailId}:${row.variant}`;
const loops = 2;
/** A job hands over to a fresh one after this long, so one big send cannot hold a worker forever. */
const jobBudgetMs = 60_000;
const maxAttempts = 6;
const retryDelay = (attempts: number) => Math.min(30 * 2 ** (attempts - 1), 3600);

interface Prepared {
  compiled: CompiledEmail;
  from: string;
  fromEmail: string;
  replyTo: string | null;
  category: { id: number; type: CategoryType };
  dkim: { domainName: string; keySelector: string; privateKey: string } | null;
  utmCampaign: string | undefined;
  data: Record<string, unknown> | undefined;
}

interface SourceContext {
  account: { name: string | null; mailingAddress: string | null; site: string | null };
  /** Keyed by `contentKeyOf` (email and variant). */
  emails: Map<string, Prepared | { refused: string }>;
}

async function prepareEmail(services: Services, db: Database, key: ContentKey, linkUtms: boolean): Promise<Prepared | { refused: string }> {
  const { accountId } = key;
  const email = await sourceContent(db, key);
  if (!email) return { refused: 'The email of this send no longer exists.' };
  const standing = await senderStanding(db, accountId, email.fromEmail);
  if (!standing.allowed) return { refused: `Address ${email.fromEmail} has not been verified for sending email.` };
  let compiled: CompiledEmail;
  try {
    compiled = compileEmail({ subject: email.subject, preheader: email.preheader, html: email.html });
  } catch (error) {
    return { refused: error instanceof Error ? error.message : String(error) };
  }
  const chosen = email.categoryId
    ? await db.selectFrom('communicationCategories').select(['id', 'type']).where('accountId', '=', accountId).where('id', '=', email.categoryId).executeTakeFirst()
    : await defaultCategory(db, accountId);
  const category = chosen ? { id: Number(chosen.id), type: chosen.type as CategoryType } : { id: 0, type: 'marketing' as const };
  const dkim = standing.domainId !== null ? await dkimKeyOf(services, db, accountId, standing.domainId) : null;
  return {
    compiled,
    from: formatAddress(email.fromName, email.fromEmail),
    fromEmail: email.fromEmail,
    replyTo: email.replyTo,
    category,
    dkim,
    utmCampaign: linkUtms ? email.name || 'email' : undefined,
    data: email.data,
  };
}

/** Sent rows wait here briefly and are written together: fewer transactions, and a small window for a crash. */
class SentFlusher {
  private rows: SentRow[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  constructor(private readonly write: (rows: SentRow[]) => Promise<void>) {}
  add(row: SentRow) {
    this.rows.push(row);
    if (this.rows.length >= 200) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), 25);
  }
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const rows = this.rows.splice(0, this.rows.length);
    if (rows.length) this.writing = this.writing.then(() => this.write(rows));
    return this.writing;
  }
}

async function sendBatch(services: Services, accountId: number, kind: SourceKind, sourceId: number, ctx: SourceContext, rows: ClaimedRow[], flushers: Map<string, SentFlusher>) {
  const personIds = rows.flatMap((r) => (r.personId === null ? [] : [r.personId]));
  const byContent = new Map<string, ClaimedRow[]>();
  for (const row of rows) byContent.set(contentKeyOf(row), [...(byContent.get(contentKeyOf(row)) ?? []), row]);
  const failures: { id: number; error: string; retryInSeconds: number | null }[] = [];
  const skipped: number[] = [];
  const sends: Promise<void>[] = [];
  for (const [contentKey, emailRows] of byContent) {
    const { emailId, variant } = emailRows[0]!;
    const prepared = ctx.emails.get(contentKey)!;
    if ('refused' in prepared) {
      for (const row of emailRows) failures.push({ id: row.id, error: prepared.refused, retryInSeconds: null });
      continue;
    }
    // People are re-checked now: unsubscribed, suppressed or archived since they were queued means no mail.
    const people = await withAccount(services.db, accountId, (db) =>
      db.selectFrom('people as p').select([...personColumns.map((c) => `p.${c}` as const), sql<boolean>`${deliverableTo(prepared.category.id, prepared.category.type)}`.as('ok')])
        .where('p.accountId', '=', accountId).where('p.id', 'in', personIds.length ? personIds : [-1]).execute(),
    );
    const personById = new Map(people.map((p) => [Number(p.id), p]));
    // Rows without a person (a transactional send to an address) are checked against the suppression list.
    const addresses = emailRows.filter((r) => r.personId === null).map((r) => r.toAddress.toLowerCase());
    const stoppedAddresses = await stoppedAmong(services.db, accountId, addresses, prepared.category.type);
    let flusher = flushers.get(contentKey);
    if (!flusher) {
      flusher = new SentFlusher((sent) => withAccount(services.db, accountId, (db) => recordSent(db, accountId, kind, sourceId, { emailId, variant }, sent)));
      flushers.set(contentKey, flusher);
    }
    for (const row of emailRows) {
      const person = row.personId === null ? undefined : personById.get(row.personId);
      if (row.personId !== null ? !person || !person.ok : stoppedAddresses.has(row.toAddress.toLowerCase())) {
        skipped.push(row.id);
        continue;
      }
      const messageId = messageIdFor(`delivery:${accountId}:${row.id}`, services.config.publicUrl);
      let message;
      let summary;
      try {
        const links = row.personId === null ? {} : recipientLinks(services, { accountId, personId: row.personId, categoryId: prepared.category.id || null, source: `${kind}:${sourceId}` });
        const base = person ? { ...toPerson(person), email: person.email ?? '', tags: person.tags } : { email: row.toAddress };
        const shaped = prepared.data ? { ...base, ...prepared.data } : base;
        const rendered = renderCompiled(prepared.compiled, shaped, ctx.account, { messageId, ...links, ...(prepared.utmCampaign ? { utmCampaign: prepared.utmCampaign } : {}) });
        // The message is written as MIME here in one pass (packages/email), and the transport only sends it.
        const mime = toMime({ from: prepared.from, to: row.toAddress, replyTo: prepared.replyTo, subject: rendered.subject, html: rendered.html, text: rendered.text, messageId, headers: rendered.headers });
        message = { envelope: { from: prepared.fromEmail, to: row.toAddress }, raw: prepared.dkim ? dkimSign(mime, prepared.dkim) : mime, wireReady: true };
        summary = { to: row.toAddress, from: prepared.from, subject: rendered.subject, text: rendered.text, html: rendered.html };
      } catch (error) {
        failures.push({ id: row.id, error: error instanceof TemplateError ? error.message : String(error), retryInSeconds: null });
        continue;
      }
      const flush = flusher;
      sends.push(
        transportFor(services.config).send(message, summary).then((outcome) => {
          if (outcome.ok) flush.add({ id: row.id, messageId, response: outcome.response });
          else failures.push({ id: row.id, error: outcome.error, retryInSeconds: outcome.permanent || row.attempts >= maxAttempts ? null : retryDelay(row.attempts) });
        }),
      );
    }
  }
  await Promise.all(sends);
  await Promise.all([...flushers.values()].map((f) => f.flush()));
  await withAccount(services.db, accountId, async (db) => {
    await recordFailed(db, accountId, failures);
    await recordSkipped(db, accountId, skipped, 'No longer receives this mail (unsubscribed, suppressed, opted out or archived).');
  });
  await storeInMailbox(services.db, transportFor(services.config).takeMailbox(), services.config.sending.devMailboxKeep);
}

export async function runDeliver(services: Services, payload: { accountId: number; kind: SourceKind; sourceId: number }): Promise<void> {
  const { accountId, kind, sourceId } = payload;
  const started = Date.now();
  const account = await services.db.selectFrom('accounts').select(['name', 'mailingAddress', 'site', 'linkUtms', 'blocked']).where('id', '=', accountId).executeTakeFirst();
  if (!account) return;
  const again = (runAt: Date) => withAccount(services.db, accountId, (db) => enqueueJob(db, 'deliver', payload, { jobKey: deliverJobKey(accountId, kind, sourceId), runAt }));
  // An account under review sends nothing: its mail waits.
  if (account.blocked) return again(new Date(Date.now() + 10 * 60_000));
  const ctx: SourceContext = { account: { name: account.name, mailingAddress: account.mailingAddress, site: account.site }, emails: new Map() };
  const flushers = new Map<string, SentFlusher>();
  const loop = async () => {
    while (Date.now() - started < jobBudgetMs) {
      const rows = await withAccount(services.db, accountId, (db) => claimBatch(db, accountId, kind, sourceId, batchSize));
      if (!rows.length) return;
      for (const row of rows) {
        const key = contentKeyOf(row);
        if (!ctx.emails.has(key)) ctx.emails.set(key, await withAccount(services.db, accountId, (db) => prepareEmail(services, db, { accountId, kind, sourceId, emailId: row.emailId, variant: row.variant }, account.linkUtms)));
      }
      await sendBatch(services, accountId, kind, sourceId, ctx, rows, flushers);
    }
  };
  await Promise.all(Array.from({ length: loops }, loop));
  const refused = [...ctx.emails.values()].find((p): p is { refused: string } => 'refused' in p);
  await withAccount(services.db, accountId, async (db) => {
    if (refused) await failSource(db, accountId, kind, sourceId, refused.refused);
    const next = Date.now() - started >= jobBudgetMs ? new Date() : await nextWork(db, accountId, kind, sourceId);
    if (next) await enqueueJob(db, 'deliver', payload, { jobKey: deliverJobKey(accountId, kind, sourceId), runAt: next });
    else if (kind === 'broadcast') await finishBroadcast(db, accountId, sourceId);
  });
}

/** How often the sweeper looks for sends nobody is working on. */
const sweepMs = 10_000;

/**
 * A worker killed mid-send (SIGKILL, a crash, a lost machine) leaves its `deliver` job locked in the job queue
 * for hours. The sweeper starts a fresh job for every source that has work but no live worker: rows whose lease
 * ran out, or rows due for a minute with none being sent. A spare job at worst runs beside a live one, and the
 * claims (SKIP LOCKED) keep them apart.
 */
export function startDeliveriesSweeper(db: Database, onError: (error: unknown) => void): () => Promise<void> {
  const sweep = async () => {
    const { rows } = await sql<{ accountId: number; kind: SourceKind; sourceId: number }>`
      select account_id as "accountId", source_kind as kind, source_id as "sourceId" from deliveries
      where status in ('pending', 'sending')
      group by account_id, source_kind, source_id
      having bool_or(status = 'sending' and lease_until < now() - interval '5 seconds')
        or (bool_or(status = 'pending' and not_before < now() - interval '60 seconds') and not bool_or(status = 'sending'))
      limit 100
    `.execute(db);
    for (const row of rows) {
      const payload = { accountId: Number(row.accountId), kind: row.kind, sourceId: Number(row.sourceId) };
      await withAccount(db, payload.accountId, (scoped) => enqueueJob(scoped, 'deliver', payload, { jobKey: deliverJobKey(payload.accountId, payload.kind, payload.sourceId) }));
    }
  };
  return startPoller(sweep, sweepMs, onError);
}
