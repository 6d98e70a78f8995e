import type pg from 'pg';
import { importAccount } from './import-merge-sql.ts';
import { withAccountClient } from '../../db/tenancy.ts';
import { stagingTable } from './staging-table.ts';

/**
 * Proof of consent for an import (docs/senders-and-consent.md): each person of the file gets a `subscribe` record
 * from the import. The records are written once the merge is done, in `consentParts` parts side by side on as many
 * connections (one statement wrote a million of them in 14-15 s on one core while the other waited; docs/imports.md,
 * "Figures"). Part k holds the file's people whose id is k modulo `consentParts`: each part looks them all up as the
 * single statement did and keeps its own after the lookup (`offset 0` keeps the filter out of the lookup's plan).
 * - A filter on people inside the lookup made the planner expect a few of them; on a fresh database's statistics it
 *   then compared each with every staged row.
 * - A filter on the staged emails took the people in email order, and records written out of the people's order
 *   (their key checked, their index entries placed) took 1.7 times as long.
 *
 * Each part commits with its entry in `import_merged_batches` (batch `consentPartBatch(k)`, below the merge's
 * batches, which count from 0), so a restarted job writes exactly the parts not written yet.
 */
export const consentParts = 2;

/** The entry of `import_merged_batches` that says consent part `part` is written. */
export const consentPartBatch = (part: number) => -1 - part;

type ConsentImport = { accountId: number; id: number; alreadyConfirmed?: boolean };

/** `p` is a person of the import's file: their email is one of its staged rows ($1 is the account). */
const inFile = (importId: number) =>
  `p.account_id = ${importAccount} and p.email_key in (select s.email_lower from ${stagingTable(importId)} s where s.account_id = $1)`;

async function writePart(pool: pg.Pool, imp: ConsentImport, part: number): Promise<void> {
  await withAccountClient(pool, imp.accountId, async (client) => {
    await client.query(
      `insert into consent_records (account_id, person_id, action, source, details)
       select $1, p.id, 'subscribe', 'import', jsonb_build_object('importId', $2::bigint, 'alreadyConfirmed', $3::boolean)
       from (select p.id from people p where ${inFile(imp.id)} offset 0) p where p.id % $4 = $5`,
      [imp.accountId, imp.id, imp.alreadyConfirmed === true, consentParts, part],
    );
    await client.query(
      'insert into import_merged_batches (account_id, import_id, batch_no) values ($1, $2, $3)',
      [imp.accountId, imp.id, consentPartBatch(part)],
    );
  });
}

/**
 * Write the consent records of every part without its mark in `done` (the import's marks, `doneMarks`), side by side;
 * throws the first failure once all stop.
 */
export async function recordImportConsent(
  pool: pg.Pool,
  imp: ConsentImport,
  done: Set<number>,
): Promise<void> {
  const parts = Array.from({ length: consentParts }, (_, part) => part).filter(
    (part) => !done.has(consentPartBatch(part)),
  );
  const results = await Promise.allSettled(parts.map((part) => writePart(pool, imp, part)));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** With `alreadyConfirmed`, the file's people are marked confirmed and stop waiting for a confirmation. */
export async function confirmImportedPeople(client: pg.PoolClient, imp: ConsentImport): Promise<void> {
  if (!imp.alreadyConfirmed) return;
  await client.query(
    `update people p set confirmed_at = coalesce(p.confirmed_at, now()), confirmation_pending_at = null
     where ${inFile(imp.id)} and (p.confirmed_at is null or p.confirmation_pending_at is not null)`,
    [imp.accountId],
  );
}
