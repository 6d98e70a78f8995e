import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { openDatabase } from '../src/db/connection.ts';
import { renderSchemaTypes } from '../src/db/schema-types.ts';

describe('generated table types', () => {
  it('match the migrated schema (run `npm run db:types` after a migration)', async () => {
    const handle = openDatabase(inject('databaseUrl'), 1);
    try {
      const rendered = await renderSchemaTypes(handle.pool);
      const committed = fs.readFileSync(path.resolve(import.meta.dirname, '../src/db/schema.generated.ts'), 'utf8');
      expect(committed).toBe(rendered);
    } finally {
      await handle.close();
    }
  });

  it('every table except the instance-wide ones carries account_id', async () => {
    const handle = openDatabase(inject('databaseUrl'), 1);
    const instanceWide = new Set(['users', 'accounts', 'rate_limits', 'dev_mailbox', 'password_resets']);
    try {
      const { rows } = await handle.pool.query<{ table_name: string; has: boolean }>(`
        select t.table_name, exists (select 1 from information_schema.columns c where c.table_schema = 'public'
          and c.table_name = t.table_name and c.column_name = 'account_id') as has
        from information_schema.tables t
        where t.table_schema = 'public' and t.table_type = 'BASE TABLE' and t.table_name not like 'schema_migrations%'`);
      for (const row of rows) if (!instanceWide.has(row.table_name)) expect(row.has, row.table_name).toBe(true);
    } finally {
      await handle.close();
    }
  });
});
