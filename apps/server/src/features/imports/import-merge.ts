import type pg from 'pg';
import {
  batchCounts,
  batchStatement,
  importBatching,
  mergeSettings,
  type BatchRow,
  type StagedBatch,
} from './import-merge-sql.ts';
import { withAccountClient } from '../../db/tenancy.ts';
import { confirmImportedPeople, recordImportConsent } from './import-consent.ts';
import { recordTags } from './import-parse.ts';
import { dropStagingTable, stagingTable } from './staging-table.ts';

type MergeImport = {
  accountId: number;
  id: number;
  strategy: 'update' | 'ignore';
  tags: string[];
  /** The file's people confirmed already (double opt-in). */
  alreadyConfirmed?: boolean;
};

/** Connections merging batches at once: one core runs the statement, the other is free for the next. */
const mergeConnections = 2;

/** Fold people's tags pending list into the index (owner rights; tag filters stop scanning the list). */
async function cleanPendingLists(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("set maintenance_work_mem = '256MB'; set statement_timeout = 600000");
    await client.query("select gin_clean_pending_list('people_tags_idx'::regclass)");
  } finally {
    await client.query('reset maintenance_work_mem; reset statement_timeout').catch(() => undefined);
    client.release();
  }
}

/** Ask for the search entries of the people the import wrote (people-search-fill), in the caller's transaction. */
async function enqueueSearchFill(
  client: pg.PoolClient,
  imp: { accountId: number; id: number },
): Promise<void> {
  await client.query(
    `select herald_enqueue('people-search-fill', json_build_object('accountId', account_id, 'since', created_at), 'people-search-fill:' || account_id || ':' || id, null, 10)
     from imports where account_id = $1 and id = $2`,
    [imp.accountId, imp.id],
  );
}

/**
 * The marks of an import's parts done already, so a restarted job does only the others: its merged batches (from 0)
 * and its written consent parts (below 0, `consentPartBatch`).
 */
export async function doneMarks(pool: pg.Pool, imp: { accountId: number; id: number }): Promise<Set<number>> {
  return withAccountClient(pool, imp.accountId, async (client) => {
    const { rows } = await client.query<{ batchNo: number }>(
      'select batch_no as "batchNo" from import_merged_batches where account_id = $1 and import_id = $2',
      [imp.accountId, imp.id],
    );
    return new Set(rows.map((r) => r.batchNo));
  });
}

/**
 * Merges staged batches into people while the parse is still staging later ones, on `mergeConnections` connections.
 * Batches are offered in file order and taken in that order. A batch that may repeat an email of an earlier batch
 * waits until every earlier batch is merged, so rows of one email apply in file order and the file's last values
 * win; other batches touch people no other batch in flight touches and run side by side. Each batch commits with its
 * counts and its entry in `import_merged_batches`, so a restarted job merges exactly the batches not done yet.
 */
export class ImportMerger {
  private readonly queue: StagedBatch[] = [];
  private readonly merged: Set<number>;
  private readonly lanes: Promise<void>[];
  private closed = false;
  private failure: unknown = undefined;
  private wake: () => void = () => undefined;
  private changed: Promise<void>;
  private analyzed: Promise<void> | undefined;
  private lowest = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly imp: MergeImport,
    done: Set<number>,
  ) {
    this.merged = new Set(done);
    this.changed = this.nextChange();
    this.lanes = Array.from({ length: mergeConnections }, () => this.lane());
    for (const lane of this.lanes) lane.catch(() => undefined);
  }

  /** Queue a staged batch (in file order); throws the merge's failure, so the parse stops too. */
  offer(batch: StagedBatch): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.merged.has(batch.batch)) return;
    this.queue.push(batch);
    this.signal();
  }

  /** No more batches: wait until every queued one is merged; throws the first failure. */
  async finish(): Promise<void> {
    this.closed = true;
    this.signal();
    await Promise.allSettled(this.lanes);
    if (this.failure !== undefined) throw this.failure;
  }

  /** Stop taking batches (the parse failed) and wait for those in flight. */
  async stop(): Promise<void> {
    this.queue.length = 0;
    this.closed = true;
    this.signal();
    await Promise.allSettled(this.lanes);
  }

  private nextChange(): Promise<void> {
    return new Promise<void>((resolve) => (this.wake = resolve));
  }

  private signal(): void {
    const wake = this.wake;
    this.changed = this.nextChange();
    wake();
  }

  /** Every batch before `batch` is merged. */
  private earlierMerged(batch: number): boolean {
    while (this.merged.has(this.lowest)) this.lowest += 1;
    return this.lowest >= batch;
  }

  private async lane(): Promise<void> {
    for (;;) {
      if (this.failure !== undefined) return;
      const next = this.queue[0];
      if (next && (!next.repeatsEarlier || this.earlierMerged(next.batch))) {
        this.queue.shift();
        try {
          await this.mergeBatch(next);
        } catch (error) {
          this.failure ??= error;
          this.signal();
          throw error;
        }
        this.merged.add(next.batch);
        this.signal();
        continue;
      }
      if (!next && this.closed) return;
      await this.changed;
    }
  }

  private async mergeBatch(b: StagedBatch): Promise<void> {
    const { pool, imp } = this;
    // Fresh staging rows have no statistics yet; a small sample of the first chunk is enough to plan by row range.
    this.analyzed ??= pool
      .query(`begin; set local default_statistics_target = 10; analyze ${stagingTable(imp.id)}; commit`)
      .then(() => undefined);
    await this.analyzed;
    await withAccountClient(pool, imp.accountId, async (client) => {
      await client.query(mergeSettings);
      const c = { created: 0, updated: 0, skipped: 0, duplicates: 0 };
      const add = (row: BatchRow) => {
        const counts = batchCounts(row);
        for (const k of ['created', 'updated', 'skipped', 'duplicates'] as const) c[k] += counts[k];
      };
      if (b.repeatsInBatch || b.repeatsEarlier) {
        // Round n takes the n-th row of each email in the batch, until a round finds none.
        const statement = batchStatement(imp.strategy, imp.id, true);
        for (let round = 1; ; round += 1) {
          const { rows } = await client.query<BatchRow>(statement, [
            imp.accountId,
            b.from,
            b.to,
            imp.tags,
            round,
          ]);
          if (rows[0]!.batch === 0) break;
          add(rows[0]!);
        }
      } else {
        add(
          (
            await client.query<BatchRow>(batchStatement(imp.strategy, imp.id, false), [
              imp.accountId,
              b.from,
              b.to,
              imp.tags,
            ])
          ).rows[0]!,
        );
      }
      await client.query(
        'insert into import_merged_batches (account_id, import_id, batch_no) values ($1, $2, $3)',
        [imp.accountId, imp.id, b.batch],
      );
      await client.query(
        `update imports set merged_rows = merged_rows + $3, created = created + $4, updated = updated + $5, skipped = skipped + $6, duplicates = duplicates + $7
         where account_id = $1 and id = $2`,
        [imp.accountId, imp.id, b.to - b.from, c.created, c.updated, c.skipped, c.duplicates],
      );
    });
  }
}

/** Every batch of `totalRows` staged rows as `ImportMerger` takes them, all as possibly repeating (a restart). */
export function stagedBatches(upTo: number): StagedBatch[] {
  const size = importBatching.rows;
  const out: StagedBatch[] = [];
  for (let b = 0; b * size < upTo; b += 1)
    out.push({
      batch: b,
      from: b * size,
      to: Math.min((b + 1) * size, upTo),
      repeatsInBatch: true,
      repeatsEarlier: true,
    });
  return out;
}

/**
 * End a merged import: fold the tags pending list, write its consent records (in parts side by side, each resumable),
 * then record its tags, confirm its people when asked, mark it done and ask for its people's search entries in one
 * transaction, then drop its staging table (stopped before that, the next import's sweep drops it).
 */
export async function finishImport(pool: pg.Pool, imp: MergeImport): Promise<void> {
  await cleanPendingLists(pool);
  await recordImportConsent(pool, imp, await doneMarks(pool, imp));
  await withAccountClient(pool, imp.accountId, async (client) => {
    // The file's own tags were recorded with each staged chunk; these are the ones picked for the import.
    await recordTags(client, imp.accountId, imp.tags);
    await client.query('delete from import_merged_batches where account_id = $1 and import_id = $2', [
      imp.accountId,
      imp.id,
    ]);
    await confirmImportedPeople(client, imp);
    await client.query(
      "update imports set status = 'done', finished_at = now() where account_id = $1 and id = $2",
      [imp.accountId, imp.id],
    );
    await enqueueSearchFill(client, imp);
  });
  await dropStagingTable(pool, imp.id);
}

/** After a failed merge: fold the tags pending list and have the people written so far indexed for search. */
export async function afterFailedMerge(pool: pg.Pool, imp: { accountId: number; id: number }): Promise<void> {
  await cleanPendingLists(pool).catch(() => undefined);
  // A retry that finishes the import asks for the same fill again; the second one finds it done.
  await withAccountClient(pool, imp.accountId, (client) => enqueueSearchFill(client, imp)).catch(
    () => undefined,
  );
}
