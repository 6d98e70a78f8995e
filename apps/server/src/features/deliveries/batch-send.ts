/**
 * One content's rows of a claimed batch, sent: who may still receive it is handed to a sender thread, the rest is
 * skipped, and what the threads answer is recorded or collected as outcomes for the job to record.
 */
import { sql } from 'kysely';
import { intArray } from '../../db/arrays.ts';
import type { Database } from '../../db/connection.ts';
import { accountForIdLookup, withAccount } from '../../db/tenancy.ts';
import { isConnectionLoss } from '../../lib/connection-loss.ts';
import { deliveriesSent } from '../../lib/prometheus.ts';
import type { Services } from '../../services.ts';
import { personJsonForTemplates } from '../people/people.queries.ts';
import { deliverableTo, stoppedAmong } from '../suppressions/recipient-rule.ts';
import { recordSent, type ClaimedRow } from './deliveries.queries.ts';
import type { Prepared } from './prepared-content.ts';
import { senderPoolFor } from './sender-pool.ts';
import type { ThreadContent, ThreadRow, ThreadRows } from './sender-protocol.ts';
import { storeInMailbox } from './dev-mailbox-store.ts';

const maxAttempts = 6;
const retryDelay = (attempts: number) => Math.min(30 * 2 ** (attempts - 1), 3600);
/**
 * A connection that cannot be opened (connect, TLS, login) is the relay's or the settings' fault, not the message's:
 * its rows wait and are tried again at least this often, for as long as it lasts, and never fail for it; the
 * broadcast shows the cause meanwhile (docs/broadcasts-and-sending.md, "Sending through a real mail server").
 */
const openingRetryCapSeconds = 300;

/** What became of a batch's rows. */
export interface Outcomes {
  failures: { id: number; error: string; retryInSeconds: number | null }[];
  skipped: number[];
  /** Messages the server took. */
  sent: number;
  /** Rows not started: their batch's lease fence had passed (lease-fence.ts); left to their lease. */
  withdrawn: number[];
  /** Why the connection could not be opened, when it could not. */
  opening: string | null;
}

/**
 * The people of a batch, re-checked now (unsubscribed, suppressed, opted out or archived since they were queued
 * means no mail) and written by PostgreSQL as one JSON text of thread rows: the main thread hands the text to a
 * sender thread as it is, without building an object per person.
 */
async function peopleToSend(
  db: Database,
  accountId: number,
  category: ThreadContent['category'],
  rows: ClaimedRow[],
) {
  const {
    rows: [result],
  } = await sql<{ json: string; count: number; skipped: number[] }>`
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
async function addressesToSend(
  db: Database,
  accountId: number,
  category: ThreadContent['category'],
  rows: ClaimedRow[],
  outcomes: Outcomes,
): Promise<ThreadRow[]> {
  const stopped = await stoppedAmong(
    db,
    accountId,
    rows.map((r) => r.toAddress.toLowerCase()),
    category.type,
  );
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
async function recordSentSurely(
  db: Database,
  accountId: number,
  rows: Parameters<typeof recordSent>[2],
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await withAccount(db, accountId, (scoped) => recordSent(scoped, accountId, rows));
      if (attempt > 1)
        console.error(`[send] recorded ${rows.length} sent messages after the database came back`);
      return;
    } catch (error) {
      if (!isConnectionLoss(error)) throw error;
      if (attempt === 1)
        console.error(
          `[send] the database is away; ${rows.length} sent messages are recorded once it is back:`,
          (error as Error).message,
        );
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** Hand rows to a sender thread and record what it answers. */
async function sendThroughThread(
  services: Services,
  prepared: ThreadContent,
  rows: ThreadRows,
  attemptsOf: Map<number, number>,
  outcomes: Outcomes,
  fence: SharedArrayBuffer,
) {
  const { accountId } = prepared;
  const result = await senderPoolFor(services.config, services.secret, services.db).send(
    prepared,
    rows,
    fence,
  );
  outcomes.withdrawn.push(...result.withdrawn);
  // herald_deliveries_sent_total: counted here, in the main thread, as the thread hands back what the server took.
  deliveriesSent.inc(result.sent.length);
  if (result.sent.length) {
    await recordSentSurely(
      services.db,
      accountId,
      result.sent.map((r) => ({ id: r.id, messageId: r.messageId, response: r.response.slice(0, 500) })),
    );
    result.recorded(result.sent.length);
  }
  outcomes.sent += result.sent.length;
  for (const failed of result.failed) {
    const attempts = attemptsOf.get(failed.id) ?? maxAttempts;
    if (failed.opening) outcomes.opening ??= failed.error;
    const retryInSeconds = failed.opening
      ? Math.min(retryDelay(attempts), openingRetryCapSeconds)
      : failed.permanent || attempts >= maxAttempts
        ? null
        : retryDelay(attempts);
    outcomes.failures.push({ id: failed.id, error: failed.error.slice(0, 1000), retryInSeconds });
  }
  if (result.mailbox.length)
    await storeInMailbox(services.db, result.mailbox, services.config.sending.devMailboxKeep);
}
/**
 * Send one content's rows of a claimed batch: who may still receive it goes to a sender thread, none of it started
 * past the batch's lease fence (lease-fence.ts); the rest are skipped.
 */
export async function sendRows(
  services: Services,
  prepared: Prepared,
  rows: ClaimedRow[],
  outcomes: Outcomes,
  fence: SharedArrayBuffer,
) {
  if ('refused' in prepared) {
    for (const row of rows)
      outcomes.failures.push({ id: row.id, error: prepared.refused, retryInSeconds: null });
    return;
  }
  const { accountId, category } = prepared;
  const attemptsOf = new Map(rows.map((r) => [r.id, r.attempts]));
  const withPerson = rows.filter((r) => r.personId !== null);
  const withoutPerson = rows.filter((r) => r.personId === null);
  const sends: Promise<void>[] = [];
  if (withPerson.length) {
    const people = await withAccount(services.db, accountId, (db) =>
      peopleToSend(db, accountId, category, withPerson),
    );
    outcomes.skipped.push(...people.skipped.map(Number));
    if (people.count)
      sends.push(
        sendThroughThread(
          services,
          prepared,
          { json: people.json, count: people.count },
          attemptsOf,
          outcomes,
          fence,
        ),
      );
  }
  if (withoutPerson.length) {
    const toSend = await addressesToSend(services.db, accountId, category, withoutPerson, outcomes);
    if (toSend.length) sends.push(sendThroughThread(services, prepared, toSend, attemptsOf, outcomes, fence));
  }
  await Promise.all(sends);
}
