import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.ts';
import { connectDatabase } from './database.ts';
import { renderSchemaTypes } from './schema-types.ts';

/** CLI: migrate the configured database, then write schema.generated.ts from it. */
const config = loadConfig();
const database = await connectDatabase(config, (m) => console.log(m));
try {
  const text = await renderSchemaTypes(database.pool);
  const file = path.join(import.meta.dirname, 'schema.generated.ts');
  fs.writeFileSync(file, text);
  console.log(`Wrote ${file}`);
} finally {
  await database.close();
}
