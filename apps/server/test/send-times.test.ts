import { broadcastMessages, scopeIds, sendTimeMessages, type Broadcast, type ScopeId } from '@herald/contracts';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { defaultCategory } from '../src/features/categories/categories.service.ts';
import { enqueueDeliveries } from '../src/features/deliveries/deliveries.service.ts';
import { newEmail } from './email-helpers.ts';
import { Client, createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { queueDrained } from './job-queue.ts';
import { startSmtpServer } from './smtp.ts';
import { until } from './until.ts';

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  // Batches of 250: the pause test's audience is sized so the first claims (loops × batch) leave people pending.
  ctx = await createTestContext({ SMTP_URL: smtp.url, SEND_BATCH_SIZE: '250' });
  await ctx.startWorker();
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

type Owner = Awaited<ReturnType<typeof registerUser>>;
const accountOf = (owner: Owner) => owner.account.accountId as number;
const put = (client: Client, url: string, body: unknown) => client.request('PUT', url, { body });

/** The wall clock of an instant in a zone, 'YYYY-MM-DD HH:MM:SS'. */
function wallClock(instant: number, timeZone: string): string {
  const format = new Intl.DateTimeFormat('en-CA', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const p = Object.fromEntries(format.formatToParts(new Date(instant)).map((part) => [part.type, part.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** The instant a wall clock in a zone names (two passes settle it onto the offset valid then). */
function instantOf(local: string, timeZone: string): number {
  const asUtc = Date.parse(`${local.replace(' ', 'T')}Z`);
  const offsetAt = (instant: number) => Date.parse(`${wallClock(instant, timeZone).replace(' ', 'T')}Z`) - instant;
  const first = asUtc - offsetAt(asUtc);
  return asUtc - offsetAt(first);
}

const addDay = (local: string) => wallClock(Date.parse(`${local.replace(' ', 'T')}Z`) + 86_400_000, 'UTC');

/** An account in `timeZone` with a verified sender and an email. */
async function setup(timeZone: string) {
  const owner = await registerUser(ctx.app);
  const { client } = owner;
  expect((await client.patch('/v1/accounts/me', { timezone: timeZone })).status).toBe(200);
  // People carry their zone in the custom field `timezone`.
  expect((await client.post('/v1/fields', { items: [{ name: 'timezone', title: 'Time zone', type: 'string' }] })).status).toBe(201);
  const fromEmail = uniqueEmail('sender');
  const email = await client.post('/v1/emails', newEmail({ fromEmail }));
  expect(email.status).toBe(201);
  await ctx.services.db.insertInto('senderAddresses').values({ accountId: accountOf(owner), email: fromEmail, status: 'verified' }).execute();
  return { owner, client, accountId: accountOf(owner), emailId: email.body.email.id as number };
}

async function person(client: Client, name: string, timezone?: string) {
  const created = await client.post('/v1/people/?source=manual', { email: uniqueEmail(name.toLowerCase()), firstName: name, ...(timezone !== undefined ? { timezone } : {}) });
  expect(created.status).toBe(201);
  return created.body.user as { id: number; email: string };
}

async function broadcast(client: Client, body: Record<string, unknown>): Promise<Broadcast> {
  const res = await client.post('/v1/broadcasts', body);
  expect(res.status).toBe(201);
  return res.body.item;
}

const rowsOf = (accountId: number, sourceId: number) =>
  ctx.services.db.selectFrom('deliveries').select(['personId', 'status', 'notBefore', 'timeZone']).where('accountId', '=', accountId).where('sourceKind', '=', 'broadcast').where('sourceId', '=', sourceId).execute();

const receivedBy = (address: string) => smtp.received.filter((m) => JSON.stringify(m.to).toLowerCase().includes(address.toLowerCase())).length;

describe("broadcasts in each recipient's time zone", () => {
  it("queues each person at the local time in their zone (unknown zones read as the account's); passed times go next day inside the window, else at once", async () => {
    const { client, accountId, emailId } = await setup('Europe/Berlin');
    // The local time UTC+14 reached four hours ago: the window is open, and ends 22 hours from now at UTC−12.
    const now = Date.now();
    const local = `${wallClock(now - 4 * 3_600_000, 'Etc/GMT-14').slice(0, 16)}:00`;
    const people = {
      kiritimati: await person(client, 'Kiri', 'Pacific/Kiritimati'),
      noumea: await person(client, 'Nou', 'Pacific/Noumea'),
      tokyo: await person(client, 'Tok', 'Asia/Tokyo'),
      newYork: await person(client, 'Ny', 'America/New_York'),
      lowerCase: await person(client, 'La', 'america/los_angeles'),
      invalid: await person(client, 'Inv', 'Mars/Olympus_Mons'),
      none: await person(client, 'None'),
    };
    const item = await broadcast(client, { emailId, sendAt: new Date(instantOf(local, 'Europe/Berlin')).toISOString(), time: { type: 'recipient' } });
    const sent = await client.post(`/v1/broadcasts/${item.id}/send`);
    expect(sent.status).toBe(200);
    expect(sent.body.item.status).toBe('sending');
    const rows = await until(async () => {
      const found = await rowsOf(accountId, item.id);
      return found.length === 7 && found;
    }, { timeout: 30_000, message: 'rows queued' });
    const of = (p: { id: number }) => rows.find((r) => Number(r.personId) === p.id)!;
    const at = (zone: string, wall = local) => instantOf(wall, zone);
    expect(of(people.kiritimati).notBefore.getTime()).toBe(at('Pacific/Kiritimati', addDay(local)));
    expect(of(people.noumea).notBefore.getTime()).toBeLessThan(Date.now());
    expect(of(people.tokyo).notBefore.getTime()).toBe(at('Asia/Tokyo'));
    expect(of(people.newYork).notBefore.getTime()).toBe(at('America/New_York'));
    expect(of(people.lowerCase)).toMatchObject({ timeZone: 'America/Los_Angeles' });
    expect(of(people.lowerCase).notBefore.getTime()).toBe(at('America/Los_Angeles'));
    expect(of(people.invalid)).toMatchObject({ timeZone: 'Europe/Berlin' });
    expect(of(people.invalid).notBefore.getTime()).toBe(at('Europe/Berlin'));
    expect(of(people.none)).toMatchObject({ timeZone: 'Europe/Berlin' });
    // Noumea's time had passed and its next day falls after the window: it goes now; the others wait.
    await smtp.waitFor(people.noumea.email);
    const status = await until(async () => {
      const res = await client.get(`/v1/broadcasts/${item.id}/status`);
      return res.body.progress.sent === 1 && res.body;
    }, { timeout: 30_000, message: 'progress' });
    expect(status.item.status).toBe('sending');
    expect(status.progress).toMatchObject({ sent: 1, waiting: 6, pending: 6 });
    expect(status.progress.waitingUntil).toBe(new Date(at('Pacific/Kiritimati', addDay(local))).toISOString());
    expect(receivedBy(people.tokyo.email)).toBe(0);
  });

  it('reads the local time across daylight-saving changes: a time in the spring gap moves forward, zones without the change keep it', async () => {
    const { client, accountId, emailId } = await setup('UTC');
    const newYork = await person(client, 'Ny', 'America/New_York');
    const berlin = await person(client, 'Be', 'Europe/Berlin');
    const summer = await person(client, 'Sy', 'Australia/Sydney');
    await withAccount(ctx.services.db, accountId, async (db) => {
      const category = (await defaultCategory(db, accountId))!;
      // 2030-03-10 02:30 does not exist in New York (clocks jump from 02:00 to 03:00); Sydney is on summer time.
      const sendAt = new Date('2030-03-10T02:30:00Z');
      await enqueueDeliveries(db, { accountId, kind: 'broadcast', sourceId: 9001, emailId, category: { id: Number(category.id), type: 'marketing' }, audience: sql`true`, recipientSendAt: sendAt });
    });
    const rows = await rowsOf(accountId, 9001);
    const of = (p: { id: number }) => rows.find((r) => Number(r.personId) === p.id)!.notBefore.toISOString();
    expect(of(newYork)).toBe('2030-03-10T07:30:00.000Z');
    expect(of(berlin)).toBe('2030-03-10T01:30:00.000Z');
    expect(of(summer)).toBe('2030-03-09T15:30:00.000Z');
  });

  it('schedules a future recipient-time send to start when UTC+14 reaches the time; refuses one without a time or whose window has passed', async () => {
    const { client, accountId, emailId } = await setup('UTC');
    await person(client, 'Ann');
    const sendAt = new Date(Date.now() + 3 * 86_400_000);
    const later = await broadcast(client, { emailId, sendAt: sendAt.toISOString(), time: { type: 'recipient' } });
    const scheduled = await client.post(`/v1/broadcasts/${later.id}/send`);
    expect(scheduled.status).toBe(200);
    expect(scheduled.body).toMatchObject({ message: broadcastMessages.scheduled, item: { status: 'scheduled', time: { type: 'recipient' } } });
    const key = `start-broadcast:${accountId}:${later.id}`;
    const job = await sql<{ runAt: Date }>`select run_at as "runAt" from graphile_worker.jobs where key = ${key}`.execute(ctx.services.db);
    expect(job.rows[0]!.runAt.getTime()).toBe(sendAt.getTime() - 14 * 3_600_000);

    const noTime = await broadcast(client, { emailId, time: { type: 'recipient' } });
    const refused = await client.post(`/v1/broadcasts/${noTime.id}/send`);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(sendTimeMessages.recipientTimeNeedsTime);

    // UTC−12 reached this time an hour ago: nobody can get it at that time any more.
    const past = await broadcast(client, { emailId, sendAt: new Date(Date.now() - 13 * 3_600_000).toISOString(), time: { type: 'recipient' } });
    const late = await client.post(`/v1/broadcasts/${past.id}/send`);
    expect(late.status).toBe(400);
    expect(late.body.message).toBe(broadcastMessages.sendAtInPast);
    expect((await client.get(`/v1/broadcasts/${past.id}`)).body.item.status).toBe('draft');
  });
});

/** 'HH:MM' of an instant in UTC. */
const hhmmUtc = (instant: number) => new Date(instant).toISOString().slice(11, 16);

describe('quiet hours', () => {
  it('answers the default, saves a window, and refuses bad input or a member without the email settings permission', async () => {
    const { owner, client } = await setup('UTC');
    expect((await client.get('/v1/settings/quiet-hours')).body).toEqual({ quietHours: { enabled: false, start: '21:00', end: '08:00' } });
    const saved = await put(client, '/v1/settings/quiet-hours', { enabled: true, start: '22:30', end: '07:15' });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({ quietHours: { enabled: true, start: '22:30', end: '07:15' }, message: sendTimeMessages.quietHoursSaved });
    for (const body of [{ enabled: true, start: '25:00', end: '07:00' }, { enabled: true, start: '9:00', end: '17:00' }, { enabled: 'yes', start: '21:00', end: '08:00' }, { enabled: true, start: '21:00' }, { enabled: true, start: '21:00', end: '08:00', extra: 1 }]) {
      const res = await put(client, '/v1/settings/quiet-hours', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const same = await put(client, '/v1/settings/quiet-hours', { enabled: true, start: '08:00', end: '08:00' });
    expect(same.status).toBe(400);
    expect(same.body.message).toContain(sendTimeMessages.quietHoursSameTimes);
    const member = await addMember(owner, ['broadcasts:read', 'broadcasts:write', 'emails:read']);
    expect((await member.get('/v1/settings/quiet-hours')).body.quietHours).toEqual({ enabled: true, start: '22:30', end: '07:15' });
    const refused = await put(member, '/v1/settings/quiet-hours', { enabled: false, start: '21:00', end: '08:00' });
    expect(refused.status).toBe(403);
    expect((await client.get('/v1/settings/quiet-hours')).body.quietHours.enabled).toBe(true);
    const off = await put(client, '/v1/settings/quiet-hours', { enabled: false, start: '22:30', end: '07:15' });
    expect(off.body).toEqual({ quietHours: { enabled: false, start: '22:30', end: '07:15' }, message: sendTimeMessages.quietHoursOff });
  });

  it("holds a broadcast's mail while it is quiet in the recipient's zone and sends it when the window opens; other zones go at once", async () => {
    const { client, accountId, emailId } = await setup('UTC');
    // Quiet from an hour ago in UTC until the next whole minute at least 20 s away.
    const opens = Math.ceil((Date.now() + 20_000) / 60_000) * 60_000;
    expect((await put(client, '/v1/settings/quiet-hours', { enabled: true, start: hhmmUtc(Date.now() - 3_600_000), end: hhmmUtc(opens) })).status).toBe(200);
    const quiet = await person(client, 'Quiet');
    const awake = await person(client, 'Awake', 'Etc/GMT-6');
    const item = await broadcast(client, { emailId });
    expect((await client.post(`/v1/broadcasts/${item.id}/send`)).status).toBe(200);
    await smtp.waitFor(awake.email);
    const held = (await rowsOf(accountId, item.id)).find((r) => Number(r.personId) === quiet.id)!;
    expect(held).toMatchObject({ status: 'pending', timeZone: 'UTC' });
    expect(held.notBefore.getTime()).toBe(opens);
    // The sender records what the server accepted a moment after the server has it.
    const status = await until(async () => {
      const body = (await client.get(`/v1/broadcasts/${item.id}/status`)).body;
      return body.progress.sent === 1 && body;
    }, { timeout: 10_000, message: 'the awake one recorded as sent' });
    expect(status.item.status).toBe('sending');
    expect(status.progress).toMatchObject({ sent: 1, waiting: 1, waitingUntil: new Date(opens).toISOString() });
    expect(receivedBy(quiet.email)).toBe(0);
    await smtp.waitFor(quiet.email, opens - Date.now() + 20_000);
    expect(Date.now()).toBeGreaterThanOrEqual(opens);
    await until(async () => (await client.get(`/v1/broadcasts/${item.id}`)).body.item.status === 'sent', { timeout: 30_000, message: 'sent' });
    expect(receivedBy(quiet.email)).toBe(1);
  }, 120_000);

  it('stops at claim: rows queued before quiet hours began are moved to the opening, not sent; test sends are not held', async () => {
    const { client, accountId, emailId } = await setup('UTC');
    const reader = await person(client, 'Late');
    const opens = Date.now() + 3 * 3_600_000;
    await withAccount(ctx.services.db, accountId, async (db) => {
      const category = (await defaultCategory(db, accountId))!;
      await enqueueDeliveries(db, { accountId, kind: 'broadcast', sourceId: 9002, emailId, category: { id: Number(category.id), type: 'marketing' }, audience: sql`true` });
      // Quiet hours begin after the rows were queued (with not_before now) and before any worker claims them.
      await db.updateTable('accounts').set({ quietHoursEnabled: true, quietHoursStart: hhmmUtc(Date.now() - 3_600_000), quietHoursEnd: hhmmUtc(opens) }).where('id', '=', accountId).execute();
    });
    const moved = await until(async () => {
      const row = (await rowsOf(accountId, 9002))[0]!;
      return row.notBefore.getTime() > Date.now() && row;
    }, { timeout: 30_000, message: 'moved at claim' });
    expect(moved.status).toBe('pending');
    expect(moved.notBefore.toISOString()).toBe(`${new Date(opens).toISOString().slice(0, 16)}:00.000Z`);
    expect(receivedBy(reader.email)).toBe(0);
    // A test send in the same quiet hours carries no zone and goes at once.
    await withAccount(ctx.services.db, accountId, async (db) => {
      const category = (await defaultCategory(db, accountId))!;
      await enqueueDeliveries(db, { accountId, kind: 'test', sourceId: 9003, emailId, category: { id: Number(category.id), type: 'marketing' }, audience: sql`true` });
    });
    await smtp.waitFor(reader.email);
    // The SMTP server has the message before the sender records it as sent.
    const testRow = await until(async () => {
      const row = await ctx.services.db.selectFrom('deliveries').select(['timeZone', 'status']).where('accountId', '=', accountId).where('sourceKind', '=', 'test').executeTakeFirstOrThrow();
      return row.status !== 'pending' && row.status !== 'sending' && row;
    }, { timeout: 30_000, message: 'test send recorded as sent' });
    expect(testRow).toEqual({ timeZone: null, status: 'sent' });
    expect((await rowsOf(accountId, 9002))[0]!.status).toBe('pending');
  });
});

describe('quiet hours that change', () => {
  it('release what they held: turned off, the held mail goes at once; a new window holds it until the new opening', async () => {
    const { client, accountId, emailId } = await setup('UTC');
    const hour = 3_600_000;
    // Quiet now until three hours from now (whole minutes, UTC).
    expect((await put(client, '/v1/settings/quiet-hours', { enabled: true, start: hhmmUtc(Date.now() - hour), end: hhmmUtc(Date.now() + 3 * hour) })).status).toBe(200);
    const first = await person(client, 'First');
    const one = await broadcast(client, { emailId });
    expect((await client.post(`/v1/broadcasts/${one.id}/send`)).status).toBe(200);
    const held = await until(async () => {
      const row = (await rowsOf(accountId, one.id))[0];
      return row && row.notBefore.getTime() > Date.now() + hour && row;
    }, { timeout: 30_000, message: 'held at queueing' });
    expect(held.status).toBe('pending');
    // Another window that still covers now: the row waits for the new opening, not the old one.
    const newEnd = Date.now() + 2 * hour;
    expect((await put(client, '/v1/settings/quiet-hours', { enabled: true, start: hhmmUtc(Date.now() - 2 * hour), end: hhmmUtc(newEnd) })).status).toBe(200);
    const moved = (await rowsOf(accountId, one.id))[0]!;
    expect(moved.notBefore.toISOString()).toBe(`${new Date(newEnd).toISOString().slice(0, 16)}:00.000Z`);
    expect(receivedBy(first.email)).toBe(0);
    // Off: the held mail goes now, once, and the broadcast ends sent.
    expect((await put(client, '/v1/settings/quiet-hours', { enabled: false, start: '21:00', end: '08:00' })).status).toBe(200);
    await smtp.waitFor(first.email);
    await until(async () => (await client.get(`/v1/broadcasts/${one.id}`)).body.item.status === 'sent', { timeout: 30_000, message: 'sent' });
    expect(receivedBy(first.email)).toBe(1);
    // Saving the same settings again moves nothing.
    expect((await put(client, '/v1/settings/quiet-hours', { enabled: false, start: '21:00', end: '08:00' })).status).toBe(200);
    expect((await rowsOf(accountId, one.id))[0]!.status).toBe('sent');
  }, 60_000);
});

/** More people than the deliver job's first claims take (loops × 250), so some are still pending when a pause lands. */
const bigAudience = 3000;
const audienceOf = (accountId: number, n: number) =>
  withAccount(ctx.services.db, accountId, (db) =>
    db.insertInto('people').values(Array.from({ length: n }, (_, i) => ({ accountId, email: uniqueEmail(`many${i}`), firstName: `Many${i}` }))).returning(['id', 'email']).execute(),
  );

describe('pause and resume', () => {
  it('pausing holds what is not yet sent, resuming sends the rest once; each person gets exactly one message', async () => {
    const { client, accountId, emailId } = await setup('UTC');
    const people = await audienceOf(accountId, bigAudience);
    const item = await broadcast(client, { emailId });
    expect((await client.post(`/v1/broadcasts/${item.id}/send`)).status).toBe(200);
    // Paused as soon as the first claims are out: those finish, the rest waits.
    await until(async () => (await client.get(`/v1/broadcasts/${item.id}/status`)).body.progress.sending > 0, { timeout: 30_000, message: 'claimed' });
    const paused = await client.post(`/v1/broadcasts/${item.id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ message: sendTimeMessages.paused, item: { status: 'sending' } });
    expect(paused.body.item.pausedAt).not.toBeNull();
    expect((await client.post(`/v1/broadcasts/${item.id}/pause`)).status).toBe(409);
    // Rows already claimed finish; then nothing more leaves.
    const settled = await until(async () => {
      const { progress } = (await client.get(`/v1/broadcasts/${item.id}/status`)).body;
      return progress.sending === 0 && progress;
    }, { timeout: 30_000, message: 'settled' });
    expect(settled.paused).toBeGreaterThan(0);
    expect(settled.sent).toBeLessThan(bigAudience);
    await queueDrained(ctx.database.pool);
    const still = (await client.get(`/v1/broadcasts/${item.id}/status`)).body;
    expect(still.progress.sent).toBe(settled.sent);
    expect(still.item).toMatchObject({ status: 'sending' });
    expect(still.item.stats.pending).toBe(settled.paused);

    const resumed = await client.post(`/v1/broadcasts/${item.id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ message: sendTimeMessages.resumed, item: { status: 'sending', pausedAt: null } });
    expect((await client.post(`/v1/broadcasts/${item.id}/resume`)).status).toBe(409);
    await until(async () => (await client.get(`/v1/broadcasts/${item.id}`)).body.item.status === 'sent', { timeout: 60_000, message: 'sent' });
    const counts = new Map<string, number>();
    for (const mail of smtp.received) for (const to of [mail.to].flat()) for (const a of to?.value ?? []) counts.set(a.address!.toLowerCase(), (counts.get(a.address!.toLowerCase()) ?? 0) + 1);
    expect(people.filter((p) => counts.get(p.email!.toLowerCase()) !== 1)).toEqual([]);
  }, 90_000);

  it('cancels a paused broadcast with its held rows; refuses to pause what is not sending, and others cannot reach it', async () => {
    const { owner, client, accountId, emailId } = await setup('UTC');
    await audienceOf(accountId, bigAudience);
    const draft = await broadcast(client, { emailId });
    const notSending = await client.post(`/v1/broadcasts/${draft.id}/pause`);
    expect(notSending.status).toBe(409);
    expect(notSending.body.message).toBe(sendTimeMessages.notPausable('Draft'));
    expect((await client.post(`/v1/broadcasts/${draft.id}/resume`)).status).toBe(409);
    expect((await client.post('/v1/broadcasts/999999/pause')).status).toBe(404);
    expect((await client.post('/v1/broadcasts/abc/pause')).status).toBe(400);

    const reader = await addMember(owner, ['broadcasts:read', 'emails:read']);
    const stranger = (await registerUser(ctx.app)).client;
    const item = await broadcast(client, { emailId });
    expect((await client.post(`/v1/broadcasts/${item.id}/send`)).status).toBe(200);
    // Paused at once: before the start job queues the audience (then all of it is held), or while the deliver job's
    // first claims (loops × 250) leave rows pending.
    expect((await client.post(`/v1/broadcasts/${item.id}/pause`)).status).toBe(200);
    expect((await reader.post(`/v1/broadcasts/${item.id}/pause`)).status).toBe(403);
    expect((await stranger.post(`/v1/broadcasts/${item.id}/pause`)).status).toBe(404);
    // Settled once the whole audience is queued and every row is sent or held. (Waiting only for nothing to be
    // sending once read the status before the start job had queued anyone: CI, twice.)
    const settled = await until(async () => {
      const { progress } = (await client.get(`/v1/broadcasts/${item.id}/status`)).body;
      return progress.sending === 0 && progress.pending === 0 && progress.sent + progress.paused === bigAudience && progress;
    }, { timeout: 30_000, message: 'settled' });
    expect(settled.paused).toBeGreaterThan(0);
    const canceled = await client.post(`/v1/broadcasts/${item.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.item).toMatchObject({ status: 'canceled', pausedAt: null });
    const after = (await client.get(`/v1/broadcasts/${item.id}/status`)).body.progress;
    expect(after).toMatchObject({ paused: 0, pending: 0, sent: settled.sent, canceled: settled.paused + settled.pending });
    expect((await client.post(`/v1/broadcasts/${item.id}/resume`)).status).toBe(409);
  }, 60_000);
});

describe('the quiet-window arithmetic (herald_quiet_until)', () => {
  const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Pacific/Kiritimati', 'Etc/GMT+12', 'Asia/Kathmandu', 'America/Santiago'];
  const minutes = fc.integer({ min: 0, max: 24 * 60 - 1 });
  const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

  it('answers null outside the window; inside, a later moment at most a day (and a DST hour) away that is itself outside', async () => {
    await fc.assert(
      fc.asyncProperty(fc.date({ min: new Date('2025-01-01'), max: new Date('2032-12-31'), noInvalidDate: true }), fc.constantFrom(...zones), minutes, minutes, async (at, zone, start, end) => {
        fc.pre(start !== end);
        const { rows } = await sql<{ opens: Date | null; local: string; reopens: Date | null; openLocal: string | null }>`
          select q.opens, to_char(${at}::timestamptz at time zone ${zone}, 'HH24:MI') as local,
            herald_quiet_until(q.opens, ${zone}, array[${hhmm(start)}, ${hhmm(end)}]::time[]) as reopens,
            to_char(q.opens at time zone ${zone}, 'HH24:MI') as "openLocal"
          from (select herald_quiet_until(${at}::timestamptz, ${zone}, array[${hhmm(start)}, ${hhmm(end)}]::time[]) as opens) q
        `.execute(ctx.services.db);
        const row = rows[0]!;
        const [h, m] = row.local.split(':').map(Number) as [number, number];
        const local = h * 60 + m;
        const inside = start < end ? local >= start && local < end : local >= start || local < end;
        if (!inside) {
          expect(row.opens).toBeNull();
          return;
        }
        expect(row.opens).not.toBeNull();
        const wait = row.opens!.getTime() - at.getTime();
        expect(wait).toBeGreaterThan(0);
        expect(wait).toBeLessThanOrEqual(25 * 3_600_000);
        expect(row.reopens).toBeNull();
        // The window opens at its end, unless that wall time does not exist that day (a DST gap).
        if (row.openLocal !== hhmm(end)) expect(Math.abs(Date.parse(`2000-01-01T${row.openLocal}Z`) - Date.parse(`2000-01-01T${hhmm(end)}Z`))).toBeLessThanOrEqual(3_600_000);
      }),
      { numRuns: 300 },
    );
  });
});

/** A team member holding exactly `enabled`, signed in through the mailed invitation. */
async function addMember(owner: Owner, enabled: ScopeId[]): Promise<Client> {
  const email = uniqueEmail('member');
  const invited = await owner.client.post('/v1/team-members', { name: 'Member', email, scopes: scopeIds.map((id) => ({ id, enabled: enabled.includes(id) })) });
  expect(invited.status).toBe(201);
  const token = decodeURIComponent(/accept-invite\?token=([^\s"<]+)/.exec((await smtp.waitFor(email)).text ?? '')![1]!);
  const member = new Client(ctx.app);
  expect((await member.post('/v1/team-members/invitations/accept', { token, password: 'member password 1' })).status).toBe(200);
  return member;
}
