import { sendTimeMessages } from '@herald/contracts';
import fc from 'fast-check';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { defaultCategory } from '../src/features/categories/categories.service.ts';
import { enqueueDeliveries } from '../src/features/deliveries/deliveries.service.ts';
import type { Client } from './helpers.ts';
import {
  addMember,
  broadcast,
  ctx,
  person,
  receivedBy,
  rowsOf,
  setup,
  smtp,
  useSendTimesContext,
} from './send-times-fixtures.ts';
import { until } from './until.ts';

// Quiet hours: the setting, mail held while it is quiet in the recipient's zone, a window that changes, and the SQL
// function that computes when a window opens.
useSendTimesContext();

const put = (client: Client, url: string, body: unknown) => client.request('PUT', url, { body });

/** 'HH:MM' of an instant in UTC. */
const hhmmUtc = (instant: number) => new Date(instant).toISOString().slice(11, 16);

describe('quiet hours', () => {
  it('answers the default, saves a window, and refuses bad input or a member without the email settings permission', async () => {
    const { owner, client } = await setup('UTC');
    expect((await client.get('/v1/settings/quiet-hours')).body).toEqual({
      quietHours: { enabled: false, start: '21:00', end: '08:00' },
    });
    const saved = await put(client, '/v1/settings/quiet-hours', {
      enabled: true,
      start: '22:30',
      end: '07:15',
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({
      quietHours: { enabled: true, start: '22:30', end: '07:15' },
      message: sendTimeMessages.quietHoursSaved,
    });
    for (const body of [
      { enabled: true, start: '25:00', end: '07:00' },
      { enabled: true, start: '9:00', end: '17:00' },
      { enabled: 'yes', start: '21:00', end: '08:00' },
      { enabled: true, start: '21:00' },
      { enabled: true, start: '21:00', end: '08:00', extra: 1 },
    ]) {
      const res = await put(client, '/v1/settings/quiet-hours', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const same = await put(client, '/v1/settings/quiet-hours', {
      enabled: true,
      start: '08:00',
      end: '08:00',
    });
    expect(same.status).toBe(400);
    expect(same.body.message).toContain(sendTimeMessages.quietHoursSameTimes);
    const member = await addMember(owner, ['broadcasts:read', 'broadcasts:write', 'emails:read']);
    expect((await member.get('/v1/settings/quiet-hours')).body.quietHours).toEqual({
      enabled: true,
      start: '22:30',
      end: '07:15',
    });
    const refused = await put(member, '/v1/settings/quiet-hours', {
      enabled: false,
      start: '21:00',
      end: '08:00',
    });
    expect(refused.status).toBe(403);
    expect((await client.get('/v1/settings/quiet-hours')).body.quietHours.enabled).toBe(true);
    const off = await put(client, '/v1/settings/quiet-hours', {
      enabled: false,
      start: '22:30',
      end: '07:15',
    });
    expect(off.body).toEqual({
      quietHours: { enabled: false, start: '22:30', end: '07:15' },
      message: sendTimeMessages.quietHoursOff,
    });
  });

  it("holds a broadcast's mail while it is quiet in the recipient's zone and sends it when the window opens; other zones go at once", async () => {
    const { client, accountId, emailId } = await setup('UTC');
    // Quiet from an hour ago in UTC until the next whole minute at least 20 s away.
    const opens = Math.ceil((Date.now() + 20_000) / 60_000) * 60_000;
    expect(
      (
        await put(client, '/v1/settings/quiet-hours', {
          enabled: true,
          start: hhmmUtc(Date.now() - 3_600_000),
          end: hhmmUtc(opens),
        })
      ).status,
    ).toBe(200);
    const quiet = await person(client, 'Quiet');
    const awake = await person(client, 'Awake', 'Etc/GMT-6');
    const item = await broadcast(client, { emailId });
    expect((await client.post(`/v1/broadcasts/${item.id}/send`)).status).toBe(200);
    await smtp.waitFor(awake.email);
    const held = (await rowsOf(accountId, item.id)).find((r) => Number(r.personId) === quiet.id)!;
    expect(held).toMatchObject({ status: 'pending', timeZone: 'UTC' });
    expect(held.notBefore.getTime()).toBe(opens);
    // The sender records what the server accepted a moment after the server has it.
    const status = await until(
      async () => {
        const body = (await client.get(`/v1/broadcasts/${item.id}/status`)).body;
        return body.progress.sent === 1 && body;
      },
      { timeout: 10_000, message: 'the awake one recorded as sent' },
    );
    expect(status.item.status).toBe('sending');
    expect(status.progress).toMatchObject({
      sent: 1,
      waiting: 1,
      waitingUntil: new Date(opens).toISOString(),
    });
    expect(receivedBy(quiet.email)).toBe(0);
    await smtp.waitFor(quiet.email, opens - Date.now() + 20_000);
    expect(Date.now()).toBeGreaterThanOrEqual(opens);
    await until(async () => (await client.get(`/v1/broadcasts/${item.id}`)).body.item.status === 'sent', {
      timeout: 30_000,
      message: 'sent',
    });
    expect(receivedBy(quiet.email)).toBe(1);
  }, 120_000);

  it('stops at claim: rows queued before quiet hours began are moved to the opening, not sent; test sends are not held', async () => {
    const { client, accountId, emailId } = await setup('UTC');
    const reader = await person(client, 'Late');
    const opens = Date.now() + 3 * 3_600_000;
    await withAccount(ctx.services.db, accountId, async (db) => {
      const category = (await defaultCategory(db, accountId))!;
      await enqueueDeliveries(db, {
        accountId,
        kind: 'broadcast',
        sourceId: 9002,
        emailId,
        category: { id: Number(category.id), type: 'marketing' },
        audience: sql`true`,
      });
      // Quiet hours begin after the rows were queued (with not_before now) and before any worker claims them.
      await db
        .updateTable('accounts')
        .set({
          quietHoursEnabled: true,
          quietHoursStart: hhmmUtc(Date.now() - 3_600_000),
          quietHoursEnd: hhmmUtc(opens),
        })
        .where('id', '=', accountId)
        .execute();
    });
    const moved = await until(
      async () => {
        const row = (await rowsOf(accountId, 9002))[0]!;
        return row.notBefore.getTime() > Date.now() && row;
      },
      { timeout: 30_000, message: 'moved at claim' },
    );
    expect(moved.status).toBe('pending');
    expect(moved.notBefore.toISOString()).toBe(`${new Date(opens).toISOString().slice(0, 16)}:00.000Z`);
    expect(receivedBy(reader.email)).toBe(0);
    // A test send in the same quiet hours carries no zone and goes at once.
    await withAccount(ctx.services.db, accountId, async (db) => {
      const category = (await defaultCategory(db, accountId))!;
      await enqueueDeliveries(db, {
        accountId,
        kind: 'test',
        sourceId: 9003,
        emailId,
        category: { id: Number(category.id), type: 'marketing' },
        audience: sql`true`,
      });
    });
    await smtp.waitFor(reader.email);
    // The SMTP server has the message before the sender records it as sent.
    const testRow = await until(
      async () => {
        const row = await ctx.services.db
          .selectFrom('deliveries')
          .select(['timeZone', 'status'])
          .where('accountId', '=', accountId)
          .where('sourceKind', '=', 'test')
          .executeTakeFirstOrThrow();
        return row.status !== 'pending' && row.status !== 'sending' && row;
      },
      { timeout: 30_000, message: 'test send recorded as sent' },
    );
    expect(testRow).toEqual({ timeZone: null, status: 'sent' });
    expect((await rowsOf(accountId, 9002))[0]!.status).toBe('pending');
  });
});

describe('quiet hours that change', () => {
  it('release what they held: turned off, the held mail goes at once; a new window holds it until the new opening', async () => {
    const { client, accountId, emailId } = await setup('UTC');
    const hour = 3_600_000;
    // Quiet now until three hours from now (whole minutes, UTC).
    expect(
      (
        await put(client, '/v1/settings/quiet-hours', {
          enabled: true,
          start: hhmmUtc(Date.now() - hour),
          end: hhmmUtc(Date.now() + 3 * hour),
        })
      ).status,
    ).toBe(200);
    const first = await person(client, 'First');
    const one = await broadcast(client, { emailId });
    expect((await client.post(`/v1/broadcasts/${one.id}/send`)).status).toBe(200);
    const held = await until(
      async () => {
        const row = (await rowsOf(accountId, one.id))[0];
        return row && row.notBefore.getTime() > Date.now() + hour && row;
      },
      { timeout: 30_000, message: 'held at queueing' },
    );
    expect(held.status).toBe('pending');
    // Another window that still covers now: the row waits for the new opening, not the old one.
    const newEnd = Date.now() + 2 * hour;
    expect(
      (
        await put(client, '/v1/settings/quiet-hours', {
          enabled: true,
          start: hhmmUtc(Date.now() - 2 * hour),
          end: hhmmUtc(newEnd),
        })
      ).status,
    ).toBe(200);
    const moved = (await rowsOf(accountId, one.id))[0]!;
    expect(moved.notBefore.toISOString()).toBe(`${new Date(newEnd).toISOString().slice(0, 16)}:00.000Z`);
    expect(receivedBy(first.email)).toBe(0);
    // Off: the held mail goes now, once, and the broadcast ends sent.
    expect(
      (await put(client, '/v1/settings/quiet-hours', { enabled: false, start: '21:00', end: '08:00' }))
        .status,
    ).toBe(200);
    await smtp.waitFor(first.email);
    await until(async () => (await client.get(`/v1/broadcasts/${one.id}`)).body.item.status === 'sent', {
      timeout: 30_000,
      message: 'sent',
    });
    expect(receivedBy(first.email)).toBe(1);
    // Saving the same settings again moves nothing.
    expect(
      (await put(client, '/v1/settings/quiet-hours', { enabled: false, start: '21:00', end: '08:00' }))
        .status,
    ).toBe(200);
    expect((await rowsOf(accountId, one.id))[0]!.status).toBe('sent');
  }, 60_000);
});

describe('the quiet-window arithmetic (herald_quiet_until)', () => {
  const zones = [
    'UTC',
    'Europe/Berlin',
    'America/New_York',
    'Australia/Lord_Howe',
    'Pacific/Kiritimati',
    'Etc/GMT+12',
    'Asia/Kathmandu',
    'America/Santiago',
  ];
  const minutes = fc.integer({ min: 0, max: 24 * 60 - 1 });
  const hhmm = (m: number) =>
    `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

  it('answers null outside the window; inside, a later moment at most a day (and a DST hour) away that is itself outside', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.date({ min: new Date('2025-01-01'), max: new Date('2032-12-31'), noInvalidDate: true }),
        fc.constantFrom(...zones),
        minutes,
        minutes,
        async (at, zone, start, end) => {
          fc.pre(start !== end);
          const { rows } = await sql<{
            opens: Date | null;
            local: string;
            reopens: Date | null;
            openLocal: string | null;
          }>`
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
          if (row.openLocal !== hhmm(end))
            expect(
              Math.abs(Date.parse(`2000-01-01T${row.openLocal}Z`) - Date.parse(`2000-01-01T${hhmm(end)}Z`)),
            ).toBeLessThanOrEqual(3_600_000);
        },
      ),
      { numRuns: 300 },
    );
  });
});
