import { peopleMessages } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { runBulkAction } from '../src/features/bulk/bulk.service.ts';
import { csvCell } from '../src/lib/csv.ts';
import { createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { startSmtpServer } from './smtp.ts';
import { until } from './until.ts';
import fc from 'fast-check';

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let owner: Awaited<ReturnType<typeof registerUser>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  ctx = await createTestContext({ SMTP_URL: smtp.url });
  await ctx.startWorker();
  owner = await registerUser(ctx.app);
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

async function addPeople(n: number, extra: Record<string, unknown> = {}) {
  const ids: number[] = [];
  for (let i = 0; i < n; i += 1)
    ids.push((await owner.client.post('/v1/people/', { email: uniqueEmail('bulk'), ...extra })).body.user.id);
  return ids;
}

async function waitDone(id: number) {
  let last: unknown;
  return until(
    async () => {
      const res = await owner.client.get(`/v1/bulk-actions/${id}`);
      last = res.body;
      return (res.body.status === 'done' || res.body.status === 'failed') && res.body;
    },
    { timeout: 20_000, message: () => `bulk action ${id} done (it is ${JSON.stringify(last)})` },
  );
}

describe('bulk actions', () => {
  it('tags people in the background', async () => {
    const ids = await addPeople(3);
    const res = await owner.client.post('/v1/tags/bulk', { tag: ' VIP ', people: ids });
    expect(res.status).toBe(202);
    expect(res.body.message).toBe(peopleMessages.peopleWillBeTagged);
    const done = await waitDone(res.body.bulkActionId);
    expect(done).toMatchObject({ status: 'done', total: 3, done: 3, result: { changed: 3 } });
    for (const id of ids) expect((await owner.client.get(`/v1/people/${id}`)).body.users[0].tags).toBe('VIP');
  });

  it('tags more people than one batch holds, is done with its last batch, and a second run changes nothing', async () => {
    const marker = `many${Date.now().toString(36)}`;
    const { rows } = await sql<{ id: string }>`insert into people (account_id, email)
      select ${owner.account.accountId}, ${marker} || '-' || g || '@example.com' from generate_series(1, 10050) g
      returning id`.execute(ctx.services.db);
    const ids = rows.map((r) => Number(r.id));
    const res = await owner.client.post('/v1/tags/bulk', { tag: marker, people: ids });
    expect(res.status).toBe(202);
    const done = await waitDone(res.body.bulkActionId);
    expect(done).toMatchObject({ status: 'done', total: 10_050, done: 10_050, result: { changed: 10_050 } });
    expect(done.finishedAt).not.toBeNull();
    // Progress answers with its figures only (the people stay in the action).
    expect(Object.keys(done).sort()).toEqual(
      ['createdAt', 'done', 'finishedAt', 'id', 'kind', 'result', 'status', 'total'].sort(),
    );
    const tagged = await sql<{ n: number }>`select count(*)::int as n from people
      where account_id = ${owner.account.accountId} and ${marker} = any(tags)`.execute(ctx.services.db);
    expect(tagged.rows[0]!.n).toBe(10_050);
    // A retried job finds the action done and leaves it as it is.
    await runBulkAction(ctx.services, owner.account.accountId, res.body.bulkActionId);
    expect((await owner.client.get(`/v1/bulk-actions/${res.body.bulkActionId}`)).body).toEqual(done);
  }, 60_000);

  it('a job retried after one of its two batches committed repeats the pair and counts each person once', async () => {
    const accountId = owner.account.accountId as number;
    const marker = `pair${Date.now().toString(36)}`;
    const { rows } = await sql<{ id: string }>`insert into people (account_id, email)
      select ${accountId}, ${marker} || '-' || g || '@example.com' from generate_series(1, 20050) g
      returning id`.execute(ctx.services.db);
    const ids = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
    // As a crash leaves it: the first batch of the first pair committed (its people tagged, its count added), the
    // second did not, and `done` never moved. No job is queued; the retry is run by hand.
    const { rows: made } = await sql<{
      id: string;
    }>`insert into bulk_actions (account_id, kind, params, total, status, result)
      values (${accountId}, 'tag', ${JSON.stringify({ people: ids, tag: marker })}, ${ids.length}, 'running', '{"changed": 10000}')
      returning id`.execute(ctx.services.db);
    const actionId = Number(made[0]!.id);
    await sql`update people set tags = array_append(tags, ${marker})
      where account_id = ${accountId} and id = any(${ids.slice(0, 10_000)}::bigint[])`.execute(
      ctx.services.db,
    );
    await runBulkAction(ctx.services, accountId, actionId);
    const done = (await owner.client.get(`/v1/bulk-actions/${actionId}`)).body;
    expect(done).toMatchObject({ status: 'done', total: 20_050, done: 20_050, result: { changed: 20_050 } });
    const tagged = await sql<{ n: number; twice: number }>`select count(*)::int as n,
        count(*) filter (where array_position(tags, ${marker}) <> array_length(tags, 1))::int as twice
      from people where account_id = ${accountId} and ${marker} = any(tags)`.execute(ctx.services.db);
    expect(tagged.rows[0]).toEqual({ n: 20_050, twice: 0 });
  }, 60_000);

  it('archives and restores people; archived people leave the search', async () => {
    const marker = `arch${Date.now().toString(36)}`;
    const ids: number[] = [];
    for (let i = 0; i < 2; i += 1)
      ids.push(
        (await owner.client.post('/v1/people/', { email: `${marker}-${i}@example.com` })).body.user.id,
      );
    const archive = await owner.client.request('DELETE', '/v1/people/bulk', { body: { people: ids } });
    expect(archive.body.message).toBe(peopleMessages.peopleWillBeArchived);
    await waitDone(archive.body.bulkActionId);
    expect((await owner.client.get(`/v1/people/search?query=${marker}`)).body.users).toHaveLength(0);
    expect((await owner.client.get(`/v1/people/${ids[0]}`)).body.users[0].archived).toBe(true);
    const restore = await owner.client.post('/v1/people/restore', { people: ids });
    await waitDone(restore.body.bulkActionId);
    expect((await owner.client.get(`/v1/people/search?query=${marker}`)).body.users).toHaveLength(2);
  });

  it('exports people to CSV with formula cells escaped, and emails a link that needs a session', async () => {
    const ids = await addPeople(1, { firstName: '=HYPERLINK("http://evil")', company: 'Acme, Inc.' });
    const res = await owner.client.post('/v1/people/export', { notifyEmail: owner.email, people: ids });
    expect(res.status).toBe(202);
    const done = await waitDone(res.body.bulkActionId);
    expect(done.result.rows).toBe(1);
    const mail = await smtp.waitFor(owner.email);
    const link = /https?:\/\/\S+\/download/.exec(mail.text ?? '')![0];
    const path = new URL(link).pathname;
    const file = await owner.client.get(path);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toContain('text/csv');
    const csv = String(file.body);
    expect(csv).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(csv).toContain('"Acme, Inc."');
    const stranger = await registerUser(ctx.app);
    expect((await stranger.client.get(path)).status).toBe(404);
  });

  it.each([
    ['/v1/tags/bulk', 'POST', { tag: 'x' }, peopleMessages.noPeopleOrSegment.tag],
    ['/v1/people/export', 'POST', { notifyEmail: 'a@example.com' }, peopleMessages.noPeopleOrSegment.export],
    ['/v1/people/bulk', 'DELETE', {}, peopleMessages.noPeopleOrSegment.archive],
    ['/v1/tags/bulk', 'POST', { tag: ',,', people: [1] }, peopleMessages.missingTagName],
    ['/v1/people/export', 'POST', { people: [1] }, peopleMessages.exportNeedsEmail],
  ] as const)('%s %s refuses %o with the spec message', async (url, method, body, message) => {
    const res = await owner.client.request(method, url, { body });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
  });

  it('escapes every formula-looking cell and quotes what needs quoting', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        const cell = csvCell(text);
        const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
        expect(/^[=+\-@\t\r]/.test(unquoted)).toBe(false);
        if (/[",\n\r]/.test(text)) expect(cell.startsWith('"') && cell.endsWith('"')).toBe(true);
      }),
    );
  });
});
