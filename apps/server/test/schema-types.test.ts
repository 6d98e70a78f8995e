import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/connection.ts';
import { renderSchemaTypes } from '../src/db/schema-types.ts';
import { testDatabaseUrl } from './helpers.ts';

describe('generated table types', () => {
  it('match the migrated schema (run `npm run db:types` after a migration)', async () => {
    const handle = openDatabase(testDatabaseUrl(), 1);
    try {
      const rendered = await renderSchemaTypes(handle.pool);
      const committed = fs.readFileSync(
        path.resolve(import.meta.dirname, '../src/db/schema.generated.ts'),
        'utf8',
      );
      expect(committed).toBe(rendered);
    } finally {
      await handle.close();
    }
  });

  it('every table except the instance-wide ones carries account_id', async () => {
    const handle = openDatabase(testDatabaseUrl(), 1);
    // marketplace_codes: the operator's list of codes; the tenant role has no access to it at all (migration 0032).
    // two_factor_recovery_codes: a user's, like password_resets (a user may belong to several accounts; migration 0047).
    const instanceWide = new Set([
      'users',
      'accounts',
      'rate_limits',
      'dev_mailbox',
      'password_resets',
      'marketplace_codes',
      'two_factor_recovery_codes',
    ]);
    try {
      const { rows } = await handle.pool.query<{ table_name: string; has: boolean }>(`
        select t.table_name, exists (select 1 from information_schema.columns c where c.table_schema = 'public'
          and c.table_name = t.table_name and c.column_name = 'account_id') as has
        from information_schema.tables t
        where t.table_schema = 'public' and t.table_type = 'BASE TABLE' and t.table_name not like 'schema_migrations%'`);
      for (const row of rows)
        if (!instanceWide.has(row.table_name)) expect(row.has, row.table_name).toBe(true);
    } finally {
      await handle.close();
    }
  });

  it("every table with account_id has row-level security on account_id (sessions are the auth layer's)", async () => {
    const handle = openDatabase(testDatabaseUrl(), 1);
    try {
      const { rows } = await handle.pool.query<{ table_name: string; rls: boolean; policy: string | null }>(`
        select c.relname as table_name, c.relrowsecurity as rls,
               (select pg_get_expr(p.polqual, p.polrelid) from pg_policy p where p.polrelid = c.oid and p.polname = 'tenant') as policy
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind = 'r'
          and exists (select 1 from information_schema.columns col where col.table_schema = 'public' and col.table_name = c.relname and col.column_name = 'account_id')`);
      for (const row of rows.filter((r) => r.table_name !== 'sessions')) {
        expect(row.rls, row.table_name).toBe(true);
        expect(row.policy, row.table_name).toContain('account_id');
      }
      expect(rows.length).toBeGreaterThan(10);
    } finally {
      await handle.close();
    }
  });
});
