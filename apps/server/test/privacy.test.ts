import { privacyMessages, scopeIds, type ScopeId } from '@herald/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notPersonTables, personTables } from '../src/features/privacy/person-tables.ts';
import { createTestContext, registerUser, storedEvents, uniqueEmail, type TestContext } from './helpers.ts';
import { rowsNaming, seedPerson, tablesWithPersonColumns } from './privacy-fixtures.ts';

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof registerUser>>;
let accountId: number;
beforeAll(async () => {
  ctx = await createTestContext();
  owner = await registerUser(ctx.app);
  accountId = owner.account.accountId as number;
});
afterAll(() => ctx.close());

const seed = (email = uniqueEmail('erin')) => seedPerson(ctx.services.db, owner.client, accountId, email);

async function auditEntries(action: string) {
  const { rows } = await sql<{ resourceId: string | null; changes: unknown }>`
    select resource_id as "resourceId", changes from audit_log
    where account_id = ${accountId} and action = ${action} order by id`.execute(ctx.services.db);
  return rows;
}

/** A member of the owner's account with only these scopes, signed in to it. */
async function memberWith(scopes: ScopeId[]) {
  const member = await registerUser(ctx.app);
  const states = scopeIds.map((id) => ({ id, enabled: scopes.includes(id) }));
  await owner.client.post('/v1/team-members', { name: 'Member', email: member.email, scopes: states });
  await member.client.post(`/v1/accounts/${accountId}/switch`);
  return member.client;
}

describe('the tables that hold a person', () => {
  it('lists every table with a person column as covered by export and erase, or as holding no person', async () => {
    const found = await tablesWithPersonColumns(ctx.services.db);
    const unreviewed = [...found.keys()].filter((t) => !(t in personTables) && !(t in notPersonTables));
    expect(unreviewed, 'tables of person data that export and erase do not cover').toEqual([]);
    // A listed table that no longer exists: the lists are out of date.
    const { rows } = await sql<{ name: string }>`select table_name as name from information_schema.tables
      where table_schema = 'public'`.execute(ctx.services.db);
    const tables = new Set(rows.map((r) => r.name));
    expect(Object.keys({ ...personTables, ...notPersonTables }).filter((t) => !tables.has(t))).toEqual([]);
  });
});

describe('export', () => {
  it('answers everything about the person, a row of every covered table, and records an entry without their data', async () => {
    const person = await seed();
    const res = await owner.client.post(`/v1/people/${person.id}/export`);
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="person-${person.id}.json"`);
    expect(res.body.person.emailKey).toBeUndefined();
    expect(res.body.person).toMatchObject({ id: person.id, email: person.email, firstName: 'Erin' });
    const empty = Object.entries(personTables)
      .map(([table, { export: key }]) => [table, key] as const)
      .filter(([, key]) => key !== 'derived' && key !== 'person')
      .filter(([, key]) => !(res.body[key] as unknown[]).length);
    expect(empty, 'covered tables whose seeded row the export left out').toEqual([]);
    expect(res.body.events.map((e: { name: string }) => e.name).sort()).toEqual(['Upgraded', 'opened']);
    expect(res.body.segments[0]).toMatchObject({ name: `Seg ${person.id}` });
    const [entry] = await auditEntries('POST /v1/people/:id/export');
    expect(entry!.resourceId).toBe(String(person.id));
    expect(JSON.stringify(entry!.changes)).not.toContain(person.email);
  });

  it('refuses an unknown person, another account’s person (404) and a member without people:export (403)', async () => {
    expect((await owner.client.post('/v1/people/999999999/export')).status).toBe(404);
    const other = await registerUser(ctx.app);
    const theirs = (await other.client.post('/v1/people/?source=manual', { email: uniqueEmail() })).body.user
      .id;
    expect((await owner.client.post(`/v1/people/${theirs}/export`)).status).toBe(404);
    expect((await owner.client.post(`/v1/people/${theirs}/erase`)).status).toBe(404);
    expect((await other.client.get(`/v1/people/${theirs}`)).status).toBe(200);
    const person = await seed();
    const reader = await memberWith(['people:read', 'people:write']);
    expect((await reader.post(`/v1/people/${person.id}/export`)).status).toBe(403);
    const exporter = await memberWith(['people:read', 'people:export']);
    expect((await exporter.post(`/v1/people/${person.id}/export`)).status).toBe(200);
    expect((await exporter.post(`/v1/people/${person.id}/erase`)).status).toBe(403);
    expect((await exporter.post('/v1/people/erase', { csv: person.email })).status).toBe(403);
  });
});

describe('erase', () => {
  it('deletes the person everywhere, ends their run, cancels their unsent mail, keeps the address as a hash', async () => {
    const person = await seed();
    expect((await owner.client.patch(`/v1/people/${person.id}`, { lastName: 'Hidden-Name' })).status).toBe(
      200,
    );
    // On ClickHouse, the events are moved out of the spool first: the erase deletes them from both.
    await ctx.services.events.settle();
    const res = await owner.client.post(`/v1/people/${person.id}/erase`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      erased: 1,
      flowRunsEnded: 1,
      deliveriesCanceled: 1,
      webhookCallsCanceled: 1,
      message: privacyMessages.personErased,
    });
    const columns = await tablesWithPersonColumns(ctx.services.db);
    const left: string[] = [];
    for (const [table, { erase }] of Object.entries(personTables)) {
      const cols = (columns.get(table) ?? []).filter(
        (c) => erase !== 'ended, kept without personal data' || c !== 'person_id',
      );
      if (cols.length && (await rowsNaming(ctx.services.db, table, cols, accountId, person)) > 0)
        left.push(table);
    }
    expect(left, 'tables still naming the erased person').toEqual([]);
    const { rows: hooks } = await sql<{ n: string }>`select count(*)::text as n from webhook_events
      where account_id = ${accountId} and (data ->> 'id' = ${String(person.id)} or data -> 'person' ->> 'id' = ${String(person.id)})`.execute(
      ctx.services.db,
    );
    expect(hooks[0]!.n).toBe('0');
    expect((await storedEvents(ctx.services, accountId)).filter((e) => e.personId === person.id)).toEqual([]);
    // The run ended with a visible outcome; the deliveries keep their outcomes without the address.
    const { rows: runs } = await sql<{
      status: string;
      lastError: string;
    }>`select status, last_error as "lastError"
      from flow_runs where account_id = ${accountId} and id = ${person.runId}`.execute(ctx.services.db);
    expect(runs[0]).toEqual({ status: 'exited', lastError: 'Ended: the person was erased on request' });
    const { rows: sends } = await sql<{
      status: string;
      toAddress: string;
    }>`select status, to_address as "toAddress"
      from deliveries where account_id = ${accountId} and to_address = 'erased@erased.invalid' order by source_id`.execute(
      ctx.services.db,
    );
    expect(sends.map((s) => s.status)).toEqual(['canceled', 'sent']);
    const { rows: hashes } = await sql<{ n: string }>`select count(*)::text as n from erased_addresses
      where account_id = ${accountId} and address_hash = herald_erased_hash(${accountId}, ${person.email})`.execute(
      ctx.services.db,
    );
    expect(hashes[0]!.n).toBe('1');
    expect((await owner.client.get(`/v1/people/${person.id}`)).status).toBe(404);
    expect((await owner.client.post(`/v1/people/${person.id}/erase`)).status).toBe(404);
    const [entry] = (await auditEntries('POST /v1/people/:id/erase')).filter(
      (e) => e.resourceId === String(person.id),
    );
    expect(JSON.stringify(entry!.changes)).not.toContain(person.email);
    expect(JSON.stringify(entry!.changes)).toContain('emailHash');
    // The earlier entries about the person keep who did what and when, without their data.
    const { rows: named } = await sql<{ action: string }>`select action from audit_log
      where account_id = ${accountId} and (changes::text like '%Hidden-Name%' or lower(changes::text) like ${`%${person.email}%`})`.execute(
      ctx.services.db,
    );
    expect(named).toEqual([]);
    expect((await auditEntries('PATCH /v1/people/:id')).some((e) => e.resourceId === String(person.id))).toBe(
      true,
    );
  });

  it('waits for a flow batch that holds the run, then cancels the delivery the batch wrote (nothing half-done)', async () => {
    const person = await seed();
    const batch = await ctx.services.pool.connect();
    try {
      // A flow's send step mid-way: the batch holds the run's lock and has written a delivery, not yet committed.
      await batch.query('begin');
      await batch.query('select id from flow_runs where account_id = $1 and id = $2 for update', [
        accountId,
        person.runId,
      ]);
      await batch.query(
        `insert into deliveries (account_id, source_kind, source_id, person_id, email_id, to_address, flow_run_id)
         values ($1, 'flow', 7, $2, 1, $3, $4)`,
        [accountId, person.id, person.email, person.runId],
      );
      const erasing = owner.client.post(`/v1/people/${person.id}/erase`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await batch.query('commit');
      const res = await erasing;
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ flowRunsEnded: 1, deliveriesCanceled: 2 });
    } finally {
      batch.release();
    }
    const { rows } = await sql<{
      status: string;
      personId: number | null;
    }>`select status, person_id as "personId"
      from deliveries where account_id = ${accountId} and flow_run_id = ${person.runId}`.execute(
      ctx.services.db,
    );
    expect(rows).toEqual([{ status: 'canceled', personId: null }]);
  });

  it('adds an erased address suppressed when it comes back through the API', async () => {
    const person = await seed();
    await owner.client.post(`/v1/people/${person.id}/erase`);
    const back = await owner.client.post('/v1/people/?source=manual', { email: person.email.toUpperCase() });
    expect(back.status).toBe(201);
    expect(back.body.user).toMatchObject({ unsubscribed: true, unsubscribeReason: 'erased' });
    const list = await owner.client.get(`/v1/suppressions?search=${encodeURIComponent(person.email)}`);
    expect(list.body.suppressions[0]).toMatchObject({ email: person.email.toLowerCase(), reason: 'erased' });
  });

  it('erases in bulk from a CSV: how many, and which addresses were not found or not addresses', async () => {
    const a = await seed();
    const b = await seed();
    const unknown = uniqueEmail('nobody');
    const csv = `Name,Email\nA,${a.email.toUpperCase()}\nB,"${b.email}"\nC,${unknown}\nD,not-an-address\nE,${a.email}\n`;
    const res = await owner.client.post('/v1/people/erase', { csv });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      erased: 2,
      flowRunsEnded: 2,
      deliveriesCanceled: 2,
      notFound: [unknown],
      invalid: ['not-an-address'],
      message: privacyMessages.peopleErased(2),
    });
    for (const person of [a, b]) expect((await owner.client.get(`/v1/people/${person.id}`)).status).toBe(404);
    const [entry] = (await auditEntries('POST /v1/people/erase')).slice(-1);
    expect(JSON.stringify(entry!.changes)).not.toContain(a.email);
    expect(JSON.stringify(entry!.changes)).not.toContain(unknown);
    // One address a line, no header.
    const c = await seed();
    expect((await owner.client.post('/v1/people/erase', { csv: `${c.email}\r\n` })).body.erased).toBe(1);
  });

  it.each([
    ['an empty file', '', privacyMessages.csvEmpty],
    ['a file without addresses', 'email\nnot-an-address\n', privacyMessages.csvEmpty],
    ['an unclosed quote', 'email\n"ada@example.com\n', 'Line 2 cannot be read'],
  ])('refuses %s (400)', async (_name, csv, message) => {
    const res = await owner.client.post('/v1/people/erase', { csv });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(message);
  });

  it('refuses a body that is not a CSV text (400)', async () => {
    expect((await owner.client.post('/v1/people/erase', { emails: ['a@example.com'] })).status).toBe(400);
  });
});
