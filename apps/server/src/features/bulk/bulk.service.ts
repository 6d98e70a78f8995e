import crypto from 'node:crypto';
import { normaliseTag, peopleMessages, type BulkAction } from '@herald/contracts';
import { z } from 'zod';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { AppError, badRequest, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';
import { queueMail } from '../../mail/mailer.ts';
import type { Services } from '../../services.ts';
import { ensureTags } from '../people/people.queries.ts';
import {
  addChanged,
  applyToBatch,
  findBulkAction,
  findBulkActionStatus,
  insertBulkAction,
  peopleForExport,
  saveResolvedPeople,
  setProgress,
} from './bulk.queries.ts';
import { segmentPeopleIds } from '../segments/segment-people.service.ts';
import { assertSegmentUsable } from '../segments/segments.service.ts';
import { sql } from 'kysely';
import { csvRow } from '../../lib/csv.ts';

type Kind = 'tag' | 'export' | 'archive' | 'restore';
interface BulkParams {
  people: number[];
  segmentId?: number;
  tag?: string;
  notifyEmail?: string;
}

const batchSize = 10_000;
const lanes = 2;
const acceptedMessage: Record<Kind, string> = {
  tag: peopleMessages.peopleWillBeTagged,
  export: peopleMessages.peopleWillBeExported,
  archive: peopleMessages.peopleWillBeArchived,
  restore: peopleMessages.peopleWillBeRestored,
};

/**
 * Record a bulk action and enqueue its job in the request's transaction; the job does the work in
 * batches. A segmentId target is resolved by the job to the segment's people at that moment.
 */
export async function startBulkAction(
  db: Database,
  session: Session,
  kind: Kind,
  body: {
    people?: number[] | undefined;
    segmentId?: number | undefined;
    tag?: string | undefined;
    notifyEmail?: string | undefined;
  },
) {
  const people = [...new Set(body.people ?? [])].sort((a, b) => a - b);
  if (people.length === 0 && body.segmentId === undefined) {
    if (kind === 'restore') throw badRequest(peopleMessages.missingUsers);
    throw badRequest(peopleMessages.noPeopleOrSegment[kind]);
  }
  if (people.length === 0 && body.segmentId !== undefined)
    await assertSegmentUsable(db, session.accountId, body.segmentId);
  const params: BulkParams = {
    people,
    ...(body.segmentId !== undefined ? { segmentId: body.segmentId } : {}),
  };
  if (kind === 'tag') {
    const tag = normaliseTag(body.tag ?? '');
    if (!tag) throw badRequest(peopleMessages.missingTagName);
    params.tag = tag;
    await ensureTags(db, session.accountId, [tag]);
  }
  if (kind === 'export') {
    const email = body.notifyEmail?.trim();
    if (!email) throw badRequest(peopleMessages.exportNeedsEmail);
    if (!z.email().safeParse(email).success) throw badRequest('Enter a valid email address for the export.');
    params.notifyEmail = email;
  }
  const id = await insertBulkAction(db, {
    accountId: session.accountId,
    kind,
    params,
    total: people.length,
    createdBy: session.teamMemberId,
  });
  await enqueueJob(
    db,
    'bulk-action',
    { accountId: session.accountId, bulkActionId: id },
    { jobKey: `bulk-action:${session.accountId}:${id}` },
  );
  return { message: acceptedMessage[kind], bulkActionId: id };
}

export async function getBulkAction(db: Database, session: Session, id: number): Promise<BulkAction> {
  const row = await findBulkActionStatus(db, session.accountId, id);
  if (!row) throw notFound('No such bulk action.');
  return {
    id: row.id,
    kind: row.kind as BulkAction['kind'],
    status: row.status as BulkAction['status'],
    total: row.total,
    done: row.done,
    result: row.result as Record<string, unknown> | null,
    createdAt: row.createdAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}

/**
 * The bulk-action job. Progress (`done`) is committed with each batch, so a job that is retried
 * after a crash continues after the last finished batch; tag, archive and restore are idempotent.
 */
export async function runBulkAction(services: Services, accountId: number, id: number): Promise<void> {
  const action = await withAccount(services.db, accountId, (db) => findBulkAction(db, accountId, id));
  if (!action || action.status === 'done') return;
  const kind = action.kind as Kind;
  const params = action.params as unknown as BulkParams;
  if (params.segmentId !== undefined && params.people.length === 0 && action.total === 0) {
    // Resolve the segment once and keep the ids, so a retried job works on the same people.
    try {
      params.people = await withAccount(services.db, accountId, async (db) => {
        await sql`select set_config('statement_timeout', '0', true)`.execute(db);
        const ids = await segmentPeopleIds(services.events, db, accountId, params.segmentId!);
        await saveResolvedPeople(db, accountId, id, { ...params, people: ids }, ids.length);
        return ids;
      });
    } catch (error) {
      // The segment was deleted, or its conditions stopped holding, after the action was accepted: a retry cannot help.
      if (!(error instanceof AppError) || error.statusCode >= 500) throw error;
      await withAccount(services.db, accountId, (db) =>
        setProgress(db, accountId, id, {
          status: 'failed',
          result: { error: error.message },
          finished: true,
        }),
      );
      return;
    }
  }
  await withAccount(services.db, accountId, (db) => setProgress(db, accountId, id, { status: 'running' }));
  if (kind === 'export') return runExport(services, accountId, id, params);
  // Two batches at a time, each in its own transaction (one per core of a small machine): a batch's update is
  // index and trigger work inside PostgreSQL, and the two never touch the same people. Each batch adds what it
  // changed to the action in its own transaction; `done` moves once both have committed, so a retry repeats at most
  // the pair it stopped in, and those people are already changed (every kind is idempotent), so the count stays right.
  for (let start = action.done; start < params.people.length; start += batchSize * lanes) {
    const end = Math.min(start + batchSize * lanes, params.people.length);
    const batches: number[][] = [];
    for (let from = start; from < end; from += batchSize)
      batches.push(params.people.slice(from, Math.min(from + batchSize, end)));
    // Both finish before a failure ends the job, so its retry never runs beside a batch still going.
    const settled = await Promise.allSettled(
      batches.map((ids) =>
        withAccount(services.db, accountId, async (db) =>
          addChanged(db, accountId, id, await applyToBatch(db, accountId, kind, ids, params.tag)),
        ),
      ),
    );
    for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
    const last = end >= params.people.length;
    await withAccount(services.db, accountId, (db) =>
      setProgress(db, accountId, id, { done: end, ...(last ? { status: 'done', finished: true } : {}) }),
    );
  }
  if (action.done >= params.people.length)
    await withAccount(services.db, accountId, (db) =>
      setProgress(db, accountId, id, {
        status: 'done',
        result: action.result ?? { changed: 0 },
        finished: true,
      }),
    );
}

async function runExport(services: Services, accountId: number, id: number, params: BulkParams) {
  const fieldNames = (
    await withAccount(services.db, accountId, (db) =>
      db
        .selectFrom('personFields')
        .select('name')
        .where('accountId', '=', accountId)
        .orderBy('name')
        .execute(),
    )
  ).map((f) => f.name);
  const header = [
    'id',
    'email',
    'firstName',
    'lastName',
    'phone',
    'company',
    'website',
    'userId',
    'tags',
    'createdAt',
    'archived',
    'unsubscribed',
    ...fieldNames,
  ];
  const chunks: string[] = [csvRow(header)];
  let rows = 0;
  for (let start = 0; start < params.people.length; start += batchSize) {
    const people = await withAccount(services.db, accountId, (db) =>
      peopleForExport(db, accountId, params.people.slice(start, start + batchSize)),
    );
    for (const p of people) {
      const fields = p.fields as Record<string, unknown>;
      chunks.push(
        csvRow([
          p.id,
          p.email,
          p.firstName,
          p.lastName,
          p.phone,
          p.company,
          p.website,
          p.externalId,
          p.tags.join(', '),
          p.createdAt.toISOString(),
          p.archivedAt !== null,
          p.unsubscribedAt !== null,
          ...fieldNames.map((n) => fields[n]),
        ]),
      );
    }
    rows += people.length;
  }
  const key = `exports/${accountId}/${id}-${crypto.randomBytes(12).toString('hex')}.csv`;
  await services.storage.write(key, 'text/csv', Buffer.from(chunks.join(''), 'utf8'));
  const link = `${services.config.publicUrl}/v1/people/exports/${id}/download`;
  await withAccount(services.db, accountId, async (db) => {
    await setProgress(db, accountId, id, {
      status: 'done',
      done: params.people.length,
      result: { fileKey: key, rows },
      finished: true,
    });
    await queueMail(db, services.config, {
      to: params.notifyEmail!,
      accountId,
      subject: 'Your Herald export is ready',
      text: `Your export of ${rows} people is ready. Download it (you need to be signed in):\n\n${link}\n`,
      idempotencyKey: `export:${accountId}:${id}`,
    });
  });
}

/** The export's CSV, for a signed-in member of the account that made it. */
export async function exportFile(services: Services, db: Database, session: Session, id: number) {
  const action = await findBulkActionStatus(db, session.accountId, id);
  const key = (action?.result as { fileKey?: string } | null)?.fileKey;
  if (!action || action.kind !== 'export' || !key)
    throw notFound('This export does not exist or is not ready yet.');
  const file = await services.storage.read(key);
  if (!file) throw notFound('This export file is gone.');
  return file.data;
}
