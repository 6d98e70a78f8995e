import type pg from 'pg';
import { withAccountClient } from './import-parse.ts';

const batchRows = 50_000;

/**
 * Merge staged rows into people, one row range at a time. Only the last row of each email in the
 * file is used (the others count as duplicates); 'update' fills fields and adds tags of existing
 * people, 'ignore' leaves them alone. Counts and the merged row mark commit with each batch.
 */
export async function mergeImport(
  pool: pg.Pool,
  imp: { accountId: number; id: number; mergedRows: number; totalRows: number; strategy: 'update' | 'ignore'; tags: string[] },
  onProgress: (merged: number) => void,
): Promise<void> {
  // Fresh staging rows have no statistics yet; without them the duplicate check plans as a nested scan.
  await pool.query('analyze import_rows');
  for (let from = imp.mergedRows; from < imp.totalRows; from += batchRows) {
    const to = Math.min(from + batchRows, imp.totalRows);
    await withAccountClient(pool, imp.accountId, async (client) => {
      const conflict =
        imp.strategy === 'ignore'
          ? 'do nothing'
          : `do update set
              first_name = coalesce(excluded.first_name, p.first_name), last_name = coalesce(excluded.last_name, p.last_name),
              phone = coalesce(excluded.phone, p.phone), company = coalesce(excluded.company, p.company),
              website = coalesce(excluded.website, p.website), external_id = coalesce(excluded.external_id, p.external_id),
              fields = p.fields || excluded.fields,
              tags = case when excluded.tags <@ p.tags then p.tags else array(select distinct unnest(p.tags || excluded.tags)) end,
              updated_at = now()`;
      const { rows } = await client.query<{ staged: number; created: number; updated: number }>(
        `with batch as (
           select r.* from import_rows r
           where r.account_id = $1 and r.import_id = $2 and r.row_no > $3 and r.row_no <= $4
             and not exists (select 1 from import_rows d where d.account_id = r.account_id and d.import_id = r.import_id
                             and d.email_lower = r.email_lower and d.row_no > r.row_no)
         ), merged as (
           insert into people as p (account_id, email, first_name, last_name, phone, company, website, external_id, fields, tags)
           select $1, email, first_name, last_name, phone, company, website, external_id, fields,
                  array(select distinct unnest(tags || $5::text[]))
           from batch
           on conflict (account_id, email_key) where email_key is not null ${conflict}
           returning (xmax = 0) as inserted
         )
         select (select count(*)::int from import_rows where account_id = $1 and import_id = $2 and row_no > $3 and row_no <= $4) as staged,
                (select count(*)::int from batch) as batch,
                count(*) filter (where inserted)::int as created,
                count(*) filter (where not inserted)::int as updated
         from merged`,
        [imp.accountId, imp.id, from, to, imp.tags],
      );
      const r = rows[0] as { staged: number; batch: number; created: number; updated: number };
      const duplicates = r.staged - r.batch;
      const skipped = r.batch - r.created - r.updated;
      await client.query(
        `update imports set merged_rows = $3, created = created + $4, updated = updated + $5, skipped = skipped + $6, duplicates = duplicates + $7
         where account_id = $1 and id = $2`,
        [imp.accountId, imp.id, to, r.created, r.updated, skipped, duplicates],
      );
    });
    onProgress(to);
  }
  await withAccountClient(pool, imp.accountId, async (client) => {
    await client.query(
      `insert into tags (account_id, tag)
       select $1, t from (select distinct unnest(tags) as t from import_rows where account_id = $1 and import_id = $2
                          union select unnest($3::text[])) all_tags
       on conflict do nothing`,
      [imp.accountId, imp.id, imp.tags],
    );
    await client.query('delete from import_rows where account_id = $1 and import_id = $2', [imp.accountId, imp.id]);
  });
}
