import { describe, expect, it } from 'vitest';
import { Client, uniqueEmail } from './helpers.ts';
import { ctx, owner, useImportsContext } from './imports-fixtures.ts';
import { uploadCsv, waitForImport } from './imports-support.ts';

// Imports and double opt-in (docs/senders-and-consent.md): an import never makes anyone wait to confirm, records a
// subscribe from the import for each person of the file, and with `alreadyConfirmed` marks them confirmed.
useImportsContext();

const mapping = [
  { column: 'email', field: 'email' },
  { column: 'first', field: 'firstName' },
];

async function runImport(rows: string[], alreadyConfirmed?: boolean) {
  const key = await uploadCsv(ctx, owner, ['email,first', ...rows].join('\r\n'));
  const created = await owner.client.post('/v1/imports', {
    peopleFileKey: key,
    fieldMapping: mapping,
    ...(alreadyConfirmed === undefined ? {} : { alreadyConfirmed }),
  });
  expect(created.status).toBe(201);
  expect(await waitForImport(owner, created.body.id)).toMatchObject({ status: 'done' });
}

const consentOf = async (email: string) => {
  const found = await owner.client.get(`/v1/people/search?query=${encodeURIComponent(email)}`);
  return (await owner.client.get(`/v1/people/${found.body.users[0].id}/consent`)).body;
};

describe('imports and double opt-in', () => {
  it('records the import as the source; an import marked confirmed ends a wait, an ordinary one makes nobody wait', async () => {
    const settings = await owner.client.request('PUT', '/v1/settings/double-opt-in', {
      body: { doubleOptIn: true, forms: {}, confirmationEmailId: null },
    });
    expect(settings.status).toBe(200);
    const waiting = uniqueEmail('waiting');
    const ingest = await new Client(ctx.app).request('POST', '/v1/ingest', {
      body: { type: 'identify', email: waiting },
      headers: { 'x-write-key': owner.account.writeKey },
    });
    expect(ingest.status).toBe(200);
    expect((await consentOf(waiting)).status).toBe('pending');

    const plain = uniqueEmail('plain');
    await runImport([`${plain},Plain`]);
    const plainConsent = await consentOf(plain);
    expect(plainConsent.status).toBeNull();
    expect(plainConsent.records).toEqual([
      expect.objectContaining({
        action: 'subscribe',
        source: 'import',
        details: expect.objectContaining({ alreadyConfirmed: false }),
      }),
    ]);

    const fresh = uniqueEmail('fresh');
    await runImport([`${waiting},Waiting`, `${fresh},Fresh`], true);
    const ended = await consentOf(waiting);
    expect(ended.status).toBe('confirmed');
    expect(ended.records.map((r: { source: string }) => r.source)).toEqual(['import', 'api']);
    expect((await consentOf(fresh)).status).toBe('confirmed');
  });
});
