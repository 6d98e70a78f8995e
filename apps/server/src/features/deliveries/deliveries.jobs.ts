/**
 * The `deliver` job: send a source's queued deliveries. Loops claim batches under a lease and hand them to the
 * sender threads (sender-pool.ts), which render with packages/email, send through their pooled SMTP connections
 * and journal every message just before it is complete at the server; the loops record the outcomes in the
 * database as batches finish. When no row is left the broadcast is finished.
 */
import { compileSources, type EmailSources } from '@herald/email';
import { sendingMessages, type CategoryType } from '@herald/contracts';
import { sql } from 'kysely';
import { intArray } from '../../db/arrays.ts';
import type { Database } from '../../db/connection.ts';
import { refreshBulkStatistics } from '../../db/statistics.ts';
import { accountForIdLookup, withAccount } from '../../db/tenancy.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';
import { isConnectionLoss } from '../../lib/connection-loss.ts';
import { startPoller } from '../../jobs/poller.ts';
import type { Services } from '../../services.ts';
import { defaultCategory } from '../categories/categories.service.ts';
import { dkimKeyOf } from '../domains/domains.service.ts';
import { formatAddress } from '../emails/email-test-send.ts';
import { personJsonForTemplates } from '../people/people.queries.ts';
import { senderStanding } from '../senders/sending-rule.ts';
import { deliverableTo, stoppedAmong } from '../suppressions/recipient-rule.ts';
import { raiseAlert, resolveAlert } from '../integrations/alerts.ts';
import { clearSendProblem, claimBatch, failSource, finishBroadcast, nextWork, noteSendProblem, recordFailed, recordSent, recordSkipped, type ClaimedRow } from './deliveries.queries.ts';
import { deliverJobKey, type SourceKind } from './deliveries.service.ts';
import { replayOrphanedJournals, senderPoolFor } from './sender-pool.ts';
import type { ThreadContent, ThreadRow, ThreadRows } from './sender-protocol.ts';
import { sourceContent, type ContentKey } from './source-content.ts';
import { storeInMailbox } from './dev-mailbox-store.ts';

/** Batches in hand per sender thread: some being sent while the next are claimed and recorded. */
const loopsPerThread = 4;
/** A job hands over to a fresh one after this long, so one big send cannot hold a worker forever. */
const jobBudgetMs = 60_000;
const maxAttempts = 6;
const retryDelay = (attempts: number) => Math.min(30 * 2 ** (attempts - 1), 3600);
/**
 * A connection that cannot be opened (connect, TLS, login) is the relay's or the settings' fault, not the message's:
 * its rows wait and are tried again at least this often, for as long as it lasts, and never fail for it; the
 * broadcast shows the cause meanwhile (docs/broadcasts-and-sending.md, "Sending through a real mail server").
 */
const openingRetryCapSeconds = 300;
/** Failed attempts in a row after which the account gets an alert. */
const alertAfterFailures = 3;
const mailServerAlert = 'mail-server';
const contentKeyOf = (row: { emailId: number; variant: number }) => `${row.emailId}:${row.variant}`;

type Prepared = ThreadContent | { refused: string };

async function prepareEmail(services: Services, db: Database, key: ContentKey, account: ThreadContent['account'], linkUtms: boolean): Promise<Prepared> {
  const { accountId } = key;
  const email = await sourceContent(db, key);
  if (!email) return { refused: 'The email of this send no longer exists.' };
  const standing = await senderStanding(db, accountId, email.fromEmail);
  if (!standing.allowed) return { refused: `Address ${email.fromEmail} has not been verified for sending email.` };
  let sources: EmailSources;
  try {
    // Compiled once here (a broken template refuses the whole send); the threads only parse the result.
    sources = compileSources({ subject: email.subject, preheader: email.preheader, html: email.html });
  } catch (error) {
    return { refused: error instanceof Error ? error.message : String(error) };
  }
  const chosen = email.categoryId
    ? await db.selectFrom('communicationCategories').select(['id', 'type']).where('accountId', '=', accountId).where('id', '=', email.categoryId).executeTakeFirst()
    : await defaultCategory(db, accountId);
  const category = chosen ? { id: Number(chosen.id), type: chosen.type as CategoryType } : { id: 0, type: 'marketing' as const };
  const dkim = standing.domainId !== null ? await dkimKeyOf(services, db, accountId, standing.domainId) : null;
  const flowStep = key.kind === 'flow' ? await db.selectFrom('flowSteps').select('flowId').where('accountId', '=', accountId).where('id', '=', key.sourceId).executeTakeFirst() : undefined;
  return {
    key: `${accountId}:${key.kind}:${key.sourceId}:${contentKeyOf(key)}`,
    accountId,
    kind: key.kind,
    sourceId: key.sourceId,
    flowId: flowStep ? Number(flowStep.flowId) : null,
    emailId: key.emailId,
    variant: key.variant,
    // A test send is a preview: its opens and clicks would count as readers' (issue 18, docs/broadcasts-and-sending.md).
    tracking: key.kind !== 'test',
    sources,
    from: formatAddress(email.fromName, email.fromEmail),
    fromEmail: email.fromEmail,
    replyTo: email.replyTo,
    category,
    dkim,
    utmCampaign: linkUtms ? email.name || 'email' : undefined,
    data: email.data,
    account,
  };
}

interface Outcomes {
  failures: { id: number; error: string; retryInSeconds: number | null }[];
  skipped: number[];
  /** Messages the server took. */
  sent: number;
  /** Why the connection could not be opened, when it could not. */
  opening: string | null;
}

/**
 * The people of a batch, re-checked now (unsubscribed, suppressed, opted out or archived since they were queued
 * means no mail) and written by PostgreSQL as one JSON text of thread rows: the main thread hands the text to a
 * sender thread as it is, without building an object per person.
 */
async function peopleToSend(db: Database, accountId: number, category: ThreadContent['category'], rows: ClaimedRow[]) {
  const { rows: [result] } = await sql<{ json: string; count: number; skipped: number[] }>`
    select coalesce(json_agg(json_build_object('id', b.id, 'to', b.to_address, 'personId', b.person_id, 'person', b.person) order by b.ord) filter (where b.ok), '[]')::text as json,
      count(*) filter (where b.ok)::int as count, coalesce(array_agg(b.id) filter (where not b.ok), '{}') as skipped
    from (
      select r.id, r.to_address, r.person_id, r.ord, coalesce(${deliverableTo(category.id, category.type)}, false) as ok,
        case when p.id is not null then ${personJsonForTemplates} end as person
      from unnest(${intArray(rows.map((r) => r.id))}::bigint[], ${intArray(rows.map((r) => r.personId))}::bigint[], ${sql.val(rows.map((r) => r.toAddress))}::text[])
        with ordinality as r(id, person_id, to_address, ord)
      -- One primary-key lookup per row (offset 0 keeps the subquery a lookup): as a plain join, a planner whose
      -- statistics lag behind a freshly filled account hashed the whole account's people for every batch, which made
      -- a send's database work grow with the square of the account's size.
      left join lateral (select * from people p where p.account_id = ${accountForIdLookup(accountId)} and p.id = r.person_id offset 0) p on true
      -- Kept a subquery (offset 0), so each row's rule is answered once: pulled up, \`ok\` was written out in each of
      -- the three aggregates that read it and its two lookups ran three times a row (a batch of 500: 19 ms → 12 ms).
      offset 0
    ) b
  `.execute(db);
  return result!;
}

/** Rows without a person (a transactional send to an address) are checked against the suppression list. */
async function addressesToSend(db: Database, accountId: number, category: ThreadContent['category'], rows: ClaimedRow[], outcomes: Outcomes): Promise<ThreadRow[]> {
  const stopped = await stoppedAmong(db, accountId, rows.map((r) => r.toAddress.toLowerCase()), category.type);
  const toSend: ThreadRow[] = [];
  for (const row of rows) {
    if (stopped.has(row.toAddress.toLowerCase())) outcomes.skipped.push(row.id);
    else toSend.push({ id: row.id, to: row.toAddress, personId: null, person: null });
  }
  return toSend;
}

/**
 * Record messages the server has taken. While the database is away (a restart), try again every half second for as
 * long as it takes: the rows stay leased to this process, their journal lines stay unrecorded, and once the database
 * is back this is the first to reach it (a claim of the rows after their lease needs the sweeper's next look and a
 * job). Giving up would let the lease run out and send them a second time.
 */
async function recordSentSurely(db: Database, accountId: number, rows: Parameters<typeof recordSent>[2]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await withAccount(db, accountId, (scoped) => recordSent(scoped, accountId, rows));
      if (attempt > 1) console.error(`[send] recorded ${rows.length} sent messages after the database came back`);
      return;
    } catch (error) {
      if (!isConnectionLoss(error)) throw error;
      if (attempt === 1) console.error(`[send] the database is away; ${rows.length} sent messages are recorded once it is back:`, (error as Error).message);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** Hand rows to a sender thread and record what it answers. */
async function sendThroughThread(services: Services, prepared: ThreadContent, rows: ThreadRows, attemptsOf: Map<number, number>, outcomes: Outcomes) {
  const { accountId } = prepared;
  const result = await senderPoolFor(services.config, services.secret, services.db).send(prepared, rows);
  if (result.sent.length) {
    await recordSentSurely(services.db, accountId, result.sent.map((r) => ({ id: r.id, messageId: r.messageId, response: r.response.slice(0, 500) })));
    result.recorded(result.sent.length);
  }
  outcomes.sent += result.sent.length;
  for (const failed of result.failed) {
    const attempts = attemptsOf.get(failed.id) ?? maxAttempts;
    if (failed.opening) outcomes.opening ??= failed.error;
    const retryInSeconds = failed.opening ? Math.min(retryDelay(attempts), openingRetryCapSeconds) : failed.permanent || attempts >= maxAttempts ? null : retryDelay(attempts);
    outcomes.failures.push({ id: failed.id, error: failed.error.slice(0, 1000), retryInSeconds });
  }
  if (result.mailbox.length) await storeInMailbox(services.db, result.mailbox, services.config.sending.devMailboxKeep);
}

/** Send one content's rows of a claimed batch: who may still receive it goes to a sender thread; the rest are skipped. */
async function sendRows(services: Services, prepared: Prepared, rows: ClaimedRow[], outcomes: Outcomes) {
  if ('refused' in prepared) {
    for (const row of rows) outcomes.failures.push({ id: row.id, error: prepared.refused, retryInSeconds: null });
    return;
  }
  const { accountId, category } = prepared;
  const attemptsOf = new Map(rows.map((r) => [r.id, r.attempts]));
  const withPerson = rows.filter((r) => r.personId !== null);
  const withoutPerson = rows.filter((r) => r.personId === null);
  const sends: Promise<void>[] = [];
  if (withPerson.length) {
    const people = await withAccount(services.db, accountId, (db) => peopleToSend(db, accountId, category, withPerson));
    outcomes.skipped.push(...people.skipped.map(Number));
    if (people.count) sends.push(sendThroughThread(services, prepared, { json: people.json, count: people.count }, attemptsOf, outcomes));
  }
  if (withoutPerson.length) {
    const toSend = await addressesToSend(services.db, accountId, category, withoutPerson, outcomes);
    if (toSend.length) sends.push(sendThroughThread(services, prepared, toSend, attemptsOf, outcomes));
  }
  await Promise.all(sends);
}

/**
 * Make a mail server that cannot be reached visible: a warn line with the cause at each failed attempt, the problem on
 * the source (the broadcast's status answer), an account alert from the third attempt in a row; all cleared by the
 * first message the server takes again.
 */
async function reportConnection(db: Database, source: { accountId: number; kind: SourceKind; sourceId: number }, outcomes: Outcomes) {
  const { accountId, kind, sourceId } = source;
  if (outcomes.opening) {
    const message = outcomes.opening;
    await withAccount(db, accountId, async (scoped) => {
      const { failures, counted } = await noteSendProblem(scoped, accountId, kind, sourceId, message);
      if (!counted) return;
      console.warn(`[send] ${kind} ${sourceId} of account ${accountId} is held up (attempt ${failures}): ${message}`);
      if (failures >= alertAfterFailures) await raiseAlert(scoped, accountId, mailServerAlert, sendingMessages.mailServerAlert(message));
    });
  } else if (outcomes.sent > 0) {
    await withAccount(db, accountId, async (scoped) => {
      const { cleared, othersLeft } = await clearSendProblem(scoped, accountId, kind, sourceId);
      if (cleared) console.warn(`[send] ${kind} ${sourceId} of account ${accountId} reaches the mail server again`);
      if (cleared && !othersLeft) await resolveAlert(scoped, accountId, mailServerAlert);
    });
  }
}

export async function runDeliver(services: Services, payload: { accountId: number; kind: SourceKind; sourceId: number }, stopping?: AbortSignal): Promise<void> {
  const { accountId, kind, sourceId } = payload;
  const started = Date.now();
  const account = await services.db.selectFrom('accounts').select(['name', 'mailingAddress', 'site', 'linkUtms', 'blocked']).where('id', '=', accountId).executeTakeFirst();
  if (!account) return;
  const again = (runAt: Date) => withAccount(services.db, accountId, (db) => enqueueJob(db, 'deliver', payload, { jobKey: deliverJobKey(accountId, kind, sourceId), runAt }));
  // An account under review sends nothing: its mail waits.
  if (account.blocked) return again(new Date(Date.now() + 10 * 60_000));
  // What a worker that died on this machine sent is recorded before any of its rows can be claimed again.
  await replayOrphanedJournals(services.db, services.config.dataDir);
  const shown = { name: account.name, mailingAddress: account.mailingAddress, site: account.site };
  const contents = new Map<string, Prepared>();
  // Out of time or shutting down: the batches in hand are sent and recorded, the rest goes to a fresh job.
  const isHandingOver = () => Date.now() - started >= jobBudgetMs || stopping?.aborted === true;
  const loop = async () => {
    while (!isHandingOver()) {
      // A send just queued is in no statistics yet: the claim's plan needs it to be (db/statistics.ts).
      await refreshBulkStatistics(services.db);
      const rows = await withAccount(services.db, accountId, (db) => claimBatch(db, accountId, kind, sourceId, services.config.sending.batchSize));
      if (!rows.length) return;
      const byContent = new Map<string, ClaimedRow[]>();
      for (const row of rows) byContent.set(contentKeyOf(row), [...(byContent.get(contentKeyOf(row)) ?? []), row]);
      const outcomes: Outcomes = { failures: [], skipped: [], sent: 0, opening: null };
      for (const [key, contentRows] of byContent) {
        let prepared = contents.get(key);
        if (!prepared) {
          const { emailId, variant } = contentRows[0]!;
          prepared = await withAccount(services.db, accountId, (db) => prepareEmail(services, db, { accountId, kind, sourceId, emailId, variant }, shown, account.linkUtms));
          contents.set(key, prepared);
        }
        await sendRows(services, prepared, contentRows, outcomes);
      }
      if (outcomes.failures.length || outcomes.skipped.length) {
        await withAccount(services.db, accountId, async (db) => {
          await recordFailed(db, accountId, outcomes.failures);
          await recordSkipped(db, accountId, outcomes.skipped, 'No longer receives this mail (unsubscribed, suppressed, opted out or archived).');
        });
      }
      await reportConnection(services.db, { accountId, kind, sourceId }, outcomes);
    }
  };
  await Promise.all(Array.from({ length: loopsPerThread * services.config.sending.threads }, loop));
  const refused = [...contents.values()].find((p): p is { refused: string } => 'refused' in p);
  await withAccount(services.db, accountId, async (db) => {
    if (refused) await failSource(db, accountId, kind, sourceId, refused.refused);
    const next = isHandingOver() ? new Date() : await nextWork(db, accountId, kind, sourceId);
    if (next) await enqueueJob(db, 'deliver', payload, { jobKey: deliverJobKey(accountId, kind, sourceId), runAt: next, soonest: true });
    else if (kind === 'broadcast') await finishBroadcast(db, accountId, sourceId);
  });
}

/** How often the sweeper looks for sends nobody is working on. */
const sweepMs = 10_000;

/**
 * A worker killed mid-send (SIGKILL, a crash, a lost machine) leaves its `deliver` job locked in the job queue
 * for hours. The sweeper starts a fresh job for every source that has work but no live worker: rows whose lease
 * ran out, or rows due for a minute with none being sent. A spare job at worst runs beside a live one, and the
 * claims (SKIP LOCKED) keep them apart. Its first look, when the worker starts, also starts a job for every source
 * with rows due now: a worker restarted after a crash sends on at once instead of after the dead one's leases.
 */
export function startDeliveriesSweeper(db: Database, dataDir: string, onError: (error: unknown) => void): () => Promise<void> {
  const sweep = async (atStart: boolean) => {
    await replayOrphanedJournals(db, dataDir);
    const { rows } = await sql<{ accountId: number; kind: SourceKind; sourceId: number }>`
      select account_id as "accountId", source_kind as kind, source_id as "sourceId" from deliveries
      where status in ('pending', 'sending')
      group by account_id, source_kind, source_id
      having bool_or(status = 'sending' and lease_until < now() - interval '5 seconds')
        or (bool_or(status = 'pending' and not_before < now() - interval '60 seconds') and not bool_or(status = 'sending'))
        or (${atStart} and bool_or(status = 'pending' and not_before <= now()))
      limit 100
    `.execute(db);
    for (const row of rows) {
      const payload = { accountId: Number(row.accountId), kind: row.kind, sourceId: Number(row.sourceId) };
      await withAccount(db, payload.accountId, (scoped) => enqueueJob(scoped, 'deliver', payload, { jobKey: deliverJobKey(payload.accountId, payload.kind, payload.sourceId) }));
    }
  };
  const first = sweep(true).catch(onError);
  const stop = startPoller(() => sweep(false), sweepMs, onError);
  return async () => {
    await first;
    await stop();
  };
}
