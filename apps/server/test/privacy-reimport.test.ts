import { privacyMessages } from '@herald/contracts';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { monthsBefore, runPruneEvents } from '../src/features/privacy/privacy.jobs.ts';
import { stoppedAmong } from '../src/features/suppressions/recipient-rule.ts';
import { Client, storedEvents, uniqueEmail } from './helpers.ts';
import { ctx, owner, useImportsContext } from './imports-fixtures.ts';
import { uploadCsv, waitForImport } from './imports-support.ts';

useImportsContext();

const accountId = () => owner.account.accountId as number;

async function importCsv(csv: string) {
  const key = await uploadCsv(ctx, owner, csv);
  const created = await owner.client.post('/v1/imports', {
    name: 'Back again',
    peopleFileKey: key,
    fieldMapping: [
      { column: 'Email', field: 'email' },
      { column: 'First Name', field: 'firstName' },
    ],
  });
  expect(created.status).toBe(201);
  return waitForImport(owner, created.body.id as number);
}

describe('an erased address', () => {
  it('comes back suppressed through an import, beside an address that was never erased', async () => {
    const erased = uniqueEmail('gone');
    const fresh = uniqueEmail('fresh');
    const person = (await owner.client.post('/v1/people/?source=manual', { email: erased })).body.user;
    const res = await owner.client.post(`/v1/people/${person.id}/erase`);
    expect(res.body.message).toBe(privacyMessages.personErased);
    const done = await importCsv(`Email,First Name\n${erased.toUpperCase()},Back\n${fresh},New\n`);
    expect(done).toMatchObject({ status: 'done' });
    const found = async (email: string) =>
      (await owner.client.get(`/v1/people/search?query=${encodeURIComponent(email)}`)).body.users[0];
    expect(await found(erased)).toMatchObject({
      firstName: 'Back',
      unsubscribed: true,
      unsubscribeReason: 'erased',
    });
    expect(await found(fresh)).toMatchObject({ firstName: 'New', unsubscribed: false });
    const history = await owner.client.get(`/v1/suppressions/history?email=${encodeURIComponent(erased)}`);
    expect(history.body.history).toMatchObject([{ action: 'added', reason: 'erased', source: 'erasure' }]);
  });

  it('comes back suppressed through the ingest API (a site identifying them)', async () => {
    const erased = uniqueEmail('gone');
    const person = (await owner.client.post('/v1/people/?source=manual', { email: erased })).body.user;
    await owner.client.post(`/v1/people/${person.id}/erase`);
    const res = await new Client(ctx.app).post(
      '/v1/ingest/batch',
      { batch: [{ type: 'identify', email: erased, traits: { firstName: 'Again' } }] },
      {
        origin: 'https://customer-site.example',
        headers: { 'x-write-key': owner.account.writeKey as string },
      },
    );
    expect(res.status).toBeLessThan(300);
    const found = (await owner.client.get(`/v1/people/search?query=${encodeURIComponent(erased)}`)).body
      .users;
    expect(found[0]).toMatchObject({ firstName: 'Again', unsubscribed: true, unsubscribeReason: 'erased' });
  });

  it('stops a send to the bare address (no person), and a person whose address changes to it', async () => {
    const erased = uniqueEmail('gone');
    const person = (await owner.client.post('/v1/people/?source=manual', { email: erased })).body.user;
    await owner.client.post(`/v1/people/${person.id}/erase`);
    const stopped = await withAccount(ctx.services.db, accountId(), (db) =>
      stoppedAmong(db, accountId(), [erased, uniqueEmail('other')], 'transactional'),
    );
    expect([...stopped]).toEqual([erased]);
    const other = (await owner.client.post('/v1/people/?source=manual', { email: uniqueEmail('other') })).body
      .user;
    const moved = await owner.client.patch(`/v1/people/${other.id}`, { email: erased });
    expect(moved.body.user).toMatchObject({ email: erased, unsubscribed: true, unsubscribeReason: 'erased' });
  });
});

describe('event retention', () => {
  it('is off by default; set, it deletes the older events every day, through the event store', async () => {
    expect((await owner.client.get('/v1/privacy/event-retention')).body).toEqual({
      eventRetentionMonths: null,
    });
    expect(
      (await owner.client.patch('/v1/privacy/event-retention', { eventRetentionMonths: 0 })).status,
    ).toBe(400);
    const set = await owner.client.patch('/v1/privacy/event-retention', { eventRetentionMonths: 3 });
    expect(set.body).toEqual({ eventRetentionMonths: 3, message: privacyMessages.retentionSaved });
    const person = (await owner.client.post('/v1/people/?source=manual', { email: uniqueEmail() })).body.user;
    await sql`insert into events (account_id, person_id, type, name, created_at) values
      (${accountId()}, ${person.id}, 'custom', 'Old', now() - interval '4 months'),
      (${accountId()}, ${person.id}, 'custom', 'Recent', now() - interval '2 months')`.execute(
      ctx.services.db,
    );
    await ctx.services.events.settle();
    expect(await runPruneEvents(ctx.services)).toBeGreaterThanOrEqual(1);
    const names = (await storedEvents(ctx.services, accountId()))
      .filter((e) => e.personId === person.id && e.type === 'custom')
      .map((e) => e.name);
    expect(names).toEqual(['Recent']);
    await owner.client.patch('/v1/privacy/event-retention', { eventRetentionMonths: null });
    expect((await owner.client.get('/v1/privacy/event-retention')).body.eventRetentionMonths).toBeNull();
  });

  it('counts calendar months, the end of a shorter month its last day', () => {
    expect(monthsBefore(new Date('2026-05-31T10:00:00Z'), 3).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(monthsBefore(new Date('2026-01-15T00:00:00Z'), 24).toISOString()).toBe('2024-01-15T00:00:00.000Z');
  });
});
