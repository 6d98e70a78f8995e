import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { importBatching } from '../src/features/imports/import-merge-sql.ts';
import { runImport } from '../src/features/imports/imports.service.ts';
import { createTestContext, registerUser, type TestContext } from './helpers.ts';
import { uploadCsv } from './imports-support.ts';

// Batches of a few rows, so a short file crosses many of them; no job worker: each import runs here.
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
const defaultRows = importBatching.rows;
beforeAll(async () => {
  ctx = await createTestContext();
  owner = await registerUser(ctx.app);
});
afterEach(() => {
  importBatching.rows = defaultRows;
});
afterAll(() => ctx.close());

type Row = { person: number; firstName: string; tag: string };
type Person = { firstName: string | null; tags: string[] };

const rowArb = fc.record({
  person: fc.nat(5),
  firstName: fc.constantFrom('', 'Ada', 'Bo', 'Cy'),
  tag: fc.constantFrom('', 'lead', 'vip'),
});
const existingArb = fc.dictionary(
  fc.constantFrom('0', '1', '2', '3', '4', '5'),
  fc.record({ firstName: fc.constantFrom(null, 'Ada', 'Zed'), tags: fc.subarray(['lead', 'old']) }),
);

/**
 * What the import must leave: rows of one email apply in file order (a later non-empty cell wins, tags add up);
 * counts: a person's first row in the file counts it as created, updated or skipped, every later row of the same
 * email is a duplicate.
 */
function expected(rows: Row[], existing: Record<string, Person>) {
  const people = new Map<number, Person>(
    Object.entries(existing).map(([k, v]) => [Number(k), { firstName: v.firstName, tags: [...v.tags] }]),
  );
  const counts = { created: 0, updated: 0, skipped: 0, duplicates: 0 };
  const counted = new Set<number>();
  for (const row of rows) {
    const person = people.get(row.person) ?? { firstName: null, tags: [] };
    if (counted.has(row.person)) counts.duplicates += 1;
    else if (!people.has(row.person)) counts.created += 1;
    else if (
      (row.firstName && row.firstName !== person.firstName) ||
      (row.tag && !person.tags.includes(row.tag))
    )
      counts.updated += 1;
    else counts.skipped += 1;
    counted.add(row.person);
    if (row.firstName) person.firstName = row.firstName;
    if (row.tag && !person.tags.includes(row.tag)) person.tags.push(row.tag);
    people.set(row.person, person);
  }
  return { counts, people };
}

describe('imports across batches', () => {
  it('applies the rows of an email in file order and counts each person once, however the file falls into batches', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { minLength: 1, maxLength: 14 }),
        existingArb,
        fc.integer({ min: 1, max: 5 }),
        async (rows, existing, batchRows) => {
          run += 1;
          const domain = `b${run}x${Date.now().toString(36)}.example`;
          const email = (person: number) => `p${person}@${domain}`;
          const accountId = owner.account.accountId;
          for (const [person, values] of Object.entries(existing)) {
            await ctx.services.db
              .insertInto('people')
              .values({
                accountId,
                email: email(Number(person)),
                firstName: values.firstName,
                tags: values.tags,
              })
              .execute();
          }
          const csv = [
            'E-mail,First Name,Tags',
            ...rows.map((r) => `${email(r.person)},${r.firstName},${r.tag}`),
          ].join('\n');
          const key = await uploadCsv(ctx, owner, csv);
          const fieldMapping = [
            { column: 'E-mail', field: 'email' },
            { column: 'First Name', field: 'firstName' },
            { column: 'Tags', field: 'tags' },
          ];
          const { id } = await ctx.services.db
            .insertInto('imports')
            .values({ accountId, name: 'Batches', fileKey: key, fieldMapping: JSON.stringify(fieldMapping) })
            .returning('id')
            .executeTakeFirstOrThrow();
          importBatching.rows = batchRows;
          await runImport(ctx.services, accountId, id);

          const want = expected(rows, existing);
          const done = await ctx.services.db
            .selectFrom('imports')
            .select(['status', 'created', 'updated', 'skipped', 'duplicates', 'failed'])
            .where('id', '=', id)
            .executeTakeFirstOrThrow();
          expect(done).toEqual({ status: 'done', ...want.counts, failed: 0 });
          const got = await ctx.services.db
            .selectFrom('people')
            .select(['email', 'firstName', 'tags'])
            .where('accountId', '=', accountId)
            .where('email', 'like', `%@${domain}`)
            .execute();
          expect(got.length).toBe(want.people.size);
          for (const person of got) {
            const model = want.people.get(Number(/^p(\d+)@/.exec(person.email!)![1]))!;
            expect({ firstName: person.firstName, tags: [...person.tags].sort() }).toEqual({
              firstName: model.firstName,
              tags: [...model.tags].sort(),
            });
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 180_000);
});
