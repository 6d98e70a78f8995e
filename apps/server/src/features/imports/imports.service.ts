import crypto from 'node:crypto';
import {
  cleanFieldName,
  firstClassFieldNames,
  importMessages,
  maxImportBytes,
  normaliseTag,
  peopleMessages,
  type ColumnMapping,
  type CreateImportBody,
  type Import,
} from '@herald/contracts';
import type { z } from 'zod';
import type { Database } from '../../db/connection.ts';
import { withAccount } from '../../db/tenancy.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import type { Session } from '../../http/route.ts';
import { enqueueJob } from '../../jobs/enqueue.ts';
import type { Services } from '../../services.ts';
import { csvRow } from '../../lib/csv.ts';
import { listCustomFields } from '../fields/fields.queries.ts';
import { afterFailedMerge, finishImport, ImportMerger, doneMarks, stagedBatches } from './import-merge.ts';
import { holdSegmentRefreshes } from '../../db/refresh-hold.ts';
import { withAccountClient } from '../../db/tenancy.ts';
import { ImportFailure, parseImportFile } from './import-parse.ts';
import { importJobKey, lockImportRun } from './imports.jobs.ts';
import { mappedFieldName, stagingColumns } from './import-plan.ts';
import {
  dropStagingTable,
  emptyStagingTable,
  ensureStagingTable,
  stagingTable,
  sweepStagingTables,
} from './staging-table.ts';

type ImportRow = NonNullable<Awaited<ReturnType<typeof findImport>>>;

function findImport(db: Database, accountId: number, id: number) {
  return db
    .selectFrom('imports')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

function toImport(row: ImportRow): Import {
  const total = row.totalRows ?? Math.max(row.numPeople, row.parsedRows, 1);
  // Half for reading the file, half for merging it; both move at once (chunks merge while later ones are read).
  const progress =
    row.status === 'done'
      ? 1
      : Math.min(0.99, 0.5 * Math.min(1, row.parsedRows / total) + 0.5 * Math.min(1, row.mergedRows / total));
  return {
    id: row.id,
    name: row.name,
    status: row.status as Import['status'],
    existingPeopleStrategy: row.existingPeopleStrategy as Import['existingPeopleStrategy'],
    tags: row.tags,
    numPeople: row.numPeople,
    totalRows: row.totalRows,
    progress,
    counts: {
      created: row.created,
      updated: row.updated,
      skipped: row.skipped,
      failed: row.failed,
      duplicates: row.duplicates,
    },
    error: row.error,
    createdAt: row.createdAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}

/** POST /v1/imports/upload-url: where the browser PUTs the CSV (no cookie needed), valid one hour. */
export function importUploadUrl(services: Services, session: Session) {
  const key = `imports/${session.accountId}/${crypto.randomBytes(16).toString('hex')}.csv`;
  return { url: services.storage.createUploadUrl(key, 'text/csv', maxImportBytes, 3600), key };
}

/** POST /v1/imports: check the mapping against the account's fields, record the import, start its job. */
export async function createImport(
  services: Services,
  db: Database,
  session: Session,
  body: z.infer<typeof CreateImportBody>,
) {
  if (body.numPeople === 0) throw badRequest(importMessages.noPeople);
  const mapping = (body.fieldMapping ?? []).filter((m) => m.field || m.newField);
  if (mapping.length === 0) throw badRequest(importMessages.noMapping);
  if (!mapping.some((m) => m.field === 'email')) throw badRequest(importMessages.noEmailColumn);
  if (!body.peopleFileKey.startsWith(`imports/${session.accountId}/`))
    throw badRequest(importMessages.fileMissing);
  const custom = new Set((await listCustomFields(db, session.accountId)).map((f) => f.name));
  for (const m of mapping) {
    const name = mappedFieldName(m);
    if (!name) throw badRequest(peopleMessages.invalidFieldName);
    if (m.newField) {
      if (firstClassFieldNames.includes(name) || custom.has(name))
        throw badRequest(peopleMessages.fieldExists(name));
    } else if (!Object.hasOwn(stagingColumns, name) && name !== 'tags' && !custom.has(name)) {
      throw badRequest(peopleMessages.unknownField(name));
    }
  }
  const stream = await services.storage.readStream(body.peopleFileKey);
  if (!stream) throw badRequest(importMessages.fileMissing);
  stream.destroy();
  const row = await db
    .insertInto('imports')
    .values({
      accountId: session.accountId,
      name: body.name || `Import ${new Date().toISOString().slice(0, 16).replace('T', ' ')}`,
      fileKey: body.peopleFileKey,
      numPeople: body.numPeople ?? 0,
      fieldMapping: JSON.stringify(mapping),
      tags: [...new Set((body.tags ?? []).map(normaliseTag).filter(Boolean))],
      existingPeopleStrategy: body.existingPeopleStrategy,
      alreadyConfirmed: body.alreadyConfirmed ?? false,
      createdBy: session.teamMemberId,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await enqueueJob(
    db,
    'import-people',
    { accountId: session.accountId, importId: row.id },
    { jobKey: importJobKey(session.accountId, row.id), maxAttempts: 5 },
  );
  return { id: row.id };
}

export async function listImports(db: Database, session: Session) {
  const rows = await db
    .selectFrom('imports')
    .selectAll()
    .where('accountId', '=', session.accountId)
    .orderBy('id', 'desc')
    .limit(200)
    .execute();
  return { imports: rows.map(toImport) };
}

export async function getImport(db: Database, session: Session, id: number) {
  const row = await findImport(db, session.accountId, id);
  if (!row) throw notFound(importMessages.importNotFound);
  return toImport(row);
}

/** The failed rows as CSV: row number and reason. */
export async function failuresCsv(db: Database, session: Session, id: number) {
  if (!(await findImport(db, session.accountId, id))) throw notFound(importMessages.importNotFound);
  const rows = await db
    .selectFrom('importFailures')
    .select(['rowNo', 'reason'])
    .where('accountId', '=', session.accountId)
    .where('importId', '=', id)
    .orderBy('rowNo')
    .execute();
  return [csvRow(['row', 'reason']), ...rows.map((r) => csvRow([r.rowNo, r.reason]))].join('');
}

async function setImport(
  services: Services,
  accountId: number,
  id: number,
  changes: Record<string, unknown>,
) {
  await withAccount(services.db, accountId, (db) =>
    db.updateTable('imports').set(changes).where('accountId', '=', accountId).where('id', '=', id).execute(),
  );
}

/** Whether staged rows are missing: every parsed row is staged or failed until the import is done. */
async function stagingLost(
  services: Services,
  accountId: number,
  id: number,
  expected: number,
): Promise<boolean> {
  const staged = await withAccountClient(
    services.pool,
    accountId,
    async (client) =>
      (await client.query<{ n: number }>(`select count(*)::int as n from ${stagingTable(id)}`)).rows[0]!.n,
  );
  return staged !== expected;
}

/**
 * The import-people job: create mapped new fields, then parse into staging while staged chunks merge into people
 * (`ImportMerger`); resumable at each chunk and batch. One job at a time runs an import (its run lock, held until
 * the end); a job that finds it held leaves the import to the live one.
 */
export async function runImport(services: Services, accountId: number, id: number): Promise<void> {
  const unlock = await lockImportRun(services.pool, id);
  if (!unlock) return;
  try {
    await runLockedImport(services, accountId, id);
  } finally {
    await unlock();
  }
}

async function runLockedImport(services: Services, accountId: number, id: number): Promise<void> {
  await sweepStagingTables(services.pool);
  const imp = await withAccount(services.db, accountId, (db) => findImport(db, accountId, id));
  if (!imp || imp.status === 'done' || imp.status === 'failed') return;
  const mapping = imp.fieldMapping as unknown as ColumnMapping[];
  const merging = {
    accountId,
    id,
    strategy: imp.existingPeopleStrategy as 'update' | 'ignore',
    tags: imp.tags,
    alreadyConfirmed: imp.alreadyConfirmed,
  };
  try {
    const staged = await ensureStagingTable(services.pool, id);
    if (
      imp.parsedRows > 0 &&
      (!staged || (await stagingLost(services, accountId, id, imp.parsedRows - imp.failed)))
    ) {
      // The staging table is unlogged: a PostgreSQL crash empties it. Parse again; merged batches stay merged
      // (with their counts), the others merge from the new parse.
      await emptyStagingTable(services.pool, id);
      await withAccount(services.db, accountId, async (db) => {
        await db
          .deleteFrom('importFailures')
          .where('accountId', '=', accountId)
          .where('importId', '=', id)
          .execute();
        await db
          .updateTable('imports')
          .set({ parsedRows: 0, failed: 0, totalRows: null })
          .where('accountId', '=', accountId)
          .where('id', '=', id)
          .execute();
      });
      imp.parsedRows = 0;
      imp.totalRows = null;
    }
    const release = await holdSegmentRefreshes(services.pool, accountId);
    try {
      const merger = new ImportMerger(services.pool, merging, await doneMarks(services.pool, merging));
      try {
        if (imp.totalRows === null) {
          await withAccount(services.db, accountId, async (db) => {
            for (const m of mapping.filter((entry) => entry.newField)) {
              await db
                .insertInto('personFields')
                .values({
                  accountId,
                  name: cleanFieldName(m.field ?? m.newField!.title),
                  title: m.newField!.title,
                  type: m.newField!.type,
                })
                .onConflict((c) => c.columns(['accountId', 'name']).doNothing())
                .execute();
            }
          });
          await setImport(services, accountId, id, { status: 'parsing' });
          // Chunks staged before a restart merge while the rest of the file is read.
          for (const batch of stagedBatches(imp.parsedRows)) merger.offer(batch);
          const parsed = await parseImportFile(
            services,
            { accountId, id, fileKey: imp.fileKey, fieldMapping: mapping, parsedRows: imp.parsedRows },
            (batch) => merger.offer(batch),
          );
          await setImport(services, accountId, id, { totalRows: parsed.totalRows, status: 'importing' });
        } else {
          for (const batch of stagedBatches(imp.totalRows)) merger.offer(batch);
        }
        await merger.finish();
      } catch (error) {
        await merger.stop();
        throw error;
      }
      await finishImport(services.pool, merging);
    } catch (error) {
      if (!(error instanceof ImportFailure)) await afterFailedMerge(services.pool, merging);
      throw error;
    } finally {
      await release();
    }
  } catch (error) {
    if (error instanceof ImportFailure) {
      await setImport(services, accountId, id, {
        status: 'failed',
        error: error.message,
        finishedAt: new Date(),
      });
      await dropStagingTable(services.pool, id);
      return;
    }
    throw error;
  }
}
