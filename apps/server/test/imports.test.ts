import { importMessages } from '@herald/contracts';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { uniqueEmail } from './helpers.ts';
import { ctx, owner, useImportsContext } from './imports-fixtures.ts';
import { uploadCsv, waitForImport } from './imports-support.ts';
import { until } from './until.ts';

useImportsContext();

const upload = (content: Buffer | string) => uploadCsv(ctx, owner, content);
const waitFinished = (id: number) => waitForImport(owner, id);

const mapping = [
  { column: 'E-mail', field: 'email' },
  { column: 'First Name', field: 'firstName' },
  { column: 'Plan', field: 'plan', newField: { title: 'Plan', type: 'string' as const } },
  { column: 'Tags', field: 'tags' },
  { column: 'Notes', field: null },
];

describe('imports', () => {
  it('imports a CSV: creates fields, applies tags, reports failed rows exactly, applies repeated emails in file order', async () => {
    const a = uniqueEmail('imp');
    const b = uniqueEmail('imp');
    const csv = [
      'E-mail,First Name,Plan,Tags,Notes',
      `${a},Ann,free,"lead, webinar",x`,
      `${b},"Bob ""the builder""",pro,,"multi`,
      `line note"`,
      'not-an-email,Nobody,free,,',
      `${a.toUpperCase()},Annie,pro,,`,
      `,Empty,free,,`,
    ].join('\r\n');
    const key = await upload(csv);
    const created = await owner.client.post('/v1/imports', {
      name: 'Webinar',
      peopleFileKey: key,
      numPeople: 5,
      fieldMapping: mapping,
      tags: ['imported'],
    });
    expect(created.status).toBe(201);
    const done = await waitFinished(created.body.id);
    expect(done).toMatchObject({
      status: 'done',
      totalRows: 5,
      progress: 1,
      counts: { created: 2, updated: 0, skipped: 0, failed: 2, duplicates: 1 },
    });

    const ann = (await owner.client.get(`/v1/people/search?query=${encodeURIComponent(a)}`)).body.users[0];
    expect(ann).toMatchObject({ firstName: 'Annie', plan: 'pro' });
    // Rows of one email apply in file order: the later values win, the tags of both rows add up.
    expect(ann.tags.split(', ').sort()).toEqual(['imported', 'lead', 'webinar']);
    const bob = (await owner.client.get(`/v1/people/search?query=${encodeURIComponent(b)}`)).body.users[0];
    expect(bob).toMatchObject({ firstName: 'Bob "the builder"', plan: 'pro' });
    expect((await owner.client.get('/v1/fields')).body.items.map((f: { name: string }) => f.name)).toContain(
      'plan',
    );
    // The file's tags and the picked ones are in the account's tag list.
    expect(
      (await owner.client.get('/v1/tags-management')).body.tags.map((t: { tag: string }) => t.tag),
    ).toEqual(expect.arrayContaining(['imported', 'lead', 'webinar']));

    const failures = await owner.client.get(`/v1/imports/${created.body.id}/failures`);
    expect(failures.headers['content-type']).toContain('text/csv');
    expect(String(failures.body)).toBe(
      'row,reason\r\n3,"""not-an-email"" is not a valid email address."\r\n5,The email is missing.\r\n',
    );
    expect((await owner.client.get('/v1/imports')).body.imports[0].id).toBe(created.body.id);
  });

  it("keeps existing people as they are with 'ignore', and fills them with 'update'", async () => {
    const email = uniqueEmail('existing');
    await owner.client.post('/v1/people/', { email, firstName: 'Original' });
    const key = await upload(`E-mail,First Name\n${email},Changed\n${uniqueEmail()},New\n`);
    const fm = [
      { column: 'E-mail', field: 'email' },
      { column: 'First Name', field: 'firstName' },
    ];
    const ignored = await waitFinished(
      (
        await owner.client.post('/v1/imports', {
          peopleFileKey: key,
          fieldMapping: fm,
          existingPeopleStrategy: 'ignore',
        })
      ).body.id,
    );
    expect(ignored.counts).toMatchObject({ created: 1, updated: 0, skipped: 1 });
    expect(
      (await owner.client.get(`/v1/people/search?query=${encodeURIComponent(email)}`)).body.users[0]
        .firstName,
    ).toBe('Original');
    const updated = await waitFinished(
      (await owner.client.post('/v1/imports', { peopleFileKey: key, fieldMapping: fm })).body.id,
    );
    // The person the first import created already has these values: unchanged, so skipped rather than updated.
    expect(updated.counts).toMatchObject({ created: 0, updated: 1, skipped: 1 });
    expect(
      (await owner.client.get(`/v1/people/search?query=${encodeURIComponent(email)}`)).body.users[0]
        .firstName,
    ).toBe('Changed');
  });

  it('reads semicolons, tabs, a BOM and Latin-1', async () => {
    const e1 = uniqueEmail('semi');
    const e2 = uniqueEmail('latin');
    const semi = await upload(`\uFEFFE-mail;First Name\n${e1};Zoë\n`);
    const latin = await upload(Buffer.from(`E-mail\tFirst Name\n${e2}\tJosé\n`, 'latin1'));
    const fm = [
      { column: 'E-mail', field: 'email' },
      { column: 'First Name', field: 'firstName' },
    ];
    for (const key of [semi, latin])
      expect(
        (
          await waitFinished(
            (await owner.client.post('/v1/imports', { peopleFileKey: key, fieldMapping: fm })).body.id,
          )
        ).counts.created,
      ).toBe(1);
    expect(
      (await owner.client.get(`/v1/people/search?query=${encodeURIComponent(e1)}`)).body.users[0].firstName,
    ).toBe('Zoë');
    expect(
      (await owner.client.get(`/v1/people/search?query=${encodeURIComponent(e2)}`)).body.users[0].firstName,
    ).toBe('José');
  });

  it('refuses bad requests with the spec messages and fails bad files clearly', async () => {
    const key = await upload('E-mail\nx@example.com\n');
    expect((await owner.client.post('/v1/imports', { peopleFileKey: key })).body.message).toBe(
      importMessages.noMapping,
    );
    expect(
      (
        await owner.client.post('/v1/imports', {
          peopleFileKey: key,
          fieldMapping: [{ column: 'E-mail', field: 'firstName' }],
        })
      ).body.message,
    ).toBe(importMessages.noEmailColumn);
    expect(
      (await owner.client.post('/v1/imports', { peopleFileKey: key, numPeople: 0, fieldMapping: mapping }))
        .body.message,
    ).toBe(importMessages.noPeople);
    expect(
      (
        await owner.client.post('/v1/imports', {
          peopleFileKey: key,
          fieldMapping: mapping,
          existingPeopleStrategy: 'merge',
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await owner.client.post('/v1/imports', {
          peopleFileKey: 'imports/1/other-account.csv',
          fieldMapping: mapping,
        })
      ).body.message,
    ).toBe(importMessages.fileMissing);
    expect(
      (
        await owner.client.post('/v1/imports', {
          peopleFileKey: key,
          fieldMapping: [
            { column: 'E-mail', field: 'email' },
            { column: 'X', field: 'nope' },
          ],
        })
      ).status,
    ).toBe(400);
    const fm = [{ column: 'E-mail', field: 'email' }];
    for (const [content, message] of [
      ['E-mail\n', importMessages.noPeople],
      [Buffer.from([0x00, 0x01, 0x02, 0xff, 0x00, 0x10]), 'This file is not a CSV text file.'],
      ['Name\nAda\n', 'No column of the file matches the column mapped to Email.'],
    ] as const) {
      const bad = await upload(content);
      const res = await waitFinished(
        (await owner.client.post('/v1/imports', { peopleFileKey: bad, fieldMapping: fm })).body.id,
      );
      expect(res).toMatchObject({ status: 'failed', error: message });
    }
  });

  it('puts imported people in the segments they match once the import is done', async () => {
    const segment = (
      await owner.client.post('/v1/segments/', {
        name: 'Imported VIPs',
        conditions: [{ type: 'tag', operator: 'has', tag: 'import-vip' }],
      })
    ).body.segment as { id: number };
    const domain = `seg${Date.now().toString(36)}.example`;
    const lines = ['E-mail'];
    for (let i = 0; i < 12_000; i += 1) lines.push(`s${i}@${domain}`);
    const key = await upload(lines.join('\n'));
    const done = await waitFinished(
      (
        await owner.client.post('/v1/imports', {
          peopleFileKey: key,
          fieldMapping: [{ column: 'E-mail', field: 'email' }],
          tags: ['import-vip'],
        })
      ).body.id,
    );
    expect(done.counts).toMatchObject({ created: 12_000 });
    const members = async () =>
      Number(
        (
          await sql<{
            n: string;
          }>`select count(*) as n from segment_members where account_id = ${owner.account.accountId} and segment_id = ${segment.id}`.execute(
            ctx.services.db,
          )
        ).rows[0]!.n,
      );
    await until(async () => (await members()) === 12_000, {
      timeout: 30_000,
      message: async () => `the segment has ${await members()} of 12000 imported people`,
    });
  }, 60_000);
});
