import { broadcastMessages, sendTimeMessages } from '@herald/contracts';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { defaultCategory } from '../src/features/categories/categories.service.ts';
import { enqueueDeliveries } from '../src/features/deliveries/deliveries.service.ts';
import {
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

// A broadcast sent at each recipient's local time (quiet hours are send-times-quiet-hours.test.ts, pausing a send
// send-times-pause.test.ts).
useSendTimesContext();

/** The wall clock of an instant in a zone, 'YYYY-MM-DD HH:MM:SS'. */
function wallClock(instant: number, timeZone: string): string {
  const format = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const p = Object.fromEntries(
    format.formatToParts(new Date(instant)).map((part) => [part.type, part.value]),
  );
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** The instant a wall clock in a zone names (two passes settle it onto the offset valid then). */
function instantOf(local: string, timeZone: string): number {
  const asUtc = Date.parse(`${local.replace(' ', 'T')}Z`);
  const offsetAt = (instant: number) =>
    Date.parse(`${wallClock(instant, timeZone).replace(' ', 'T')}Z`) - instant;
  const first = asUtc - offsetAt(asUtc);
  return asUtc - offsetAt(first);
}

const addDay = (local: string) => wallClock(Date.parse(`${local.replace(' ', 'T')}Z`) + 86_400_000, 'UTC');

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
    const item = await broadcast(client, {
      emailId,
      sendAt: new Date(instantOf(local, 'Europe/Berlin')).toISOString(),
      time: { type: 'recipient' },
    });
    const sent = await client.post(`/v1/broadcasts/${item.id}/send`);
    expect(sent.status).toBe(200);
    expect(sent.body.item.status).toBe('sending');
    const rows = await until(
      async () => {
        const found = await rowsOf(accountId, item.id);
        return found.length === 7 && found;
      },
      { timeout: 30_000, message: 'rows queued' },
    );
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
    const status = await until(
      async () => {
        const res = await client.get(`/v1/broadcasts/${item.id}/status`);
        return res.body.progress.sent === 1 && res.body;
      },
      { timeout: 30_000, message: 'progress' },
    );
    expect(status.item.status).toBe('sending');
    expect(status.progress).toMatchObject({ sent: 1, waiting: 6, pending: 6 });
    expect(status.progress.waitingUntil).toBe(
      new Date(at('Pacific/Kiritimati', addDay(local))).toISOString(),
    );
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
      await enqueueDeliveries(db, {
        accountId,
        kind: 'broadcast',
        sourceId: 9001,
        emailId,
        category: { id: Number(category.id), type: 'marketing' },
        audience: sql`true`,
        recipientSendAt: sendAt,
      });
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
    const later = await broadcast(client, {
      emailId,
      sendAt: sendAt.toISOString(),
      time: { type: 'recipient' },
    });
    const scheduled = await client.post(`/v1/broadcasts/${later.id}/send`);
    expect(scheduled.status).toBe(200);
    expect(scheduled.body).toMatchObject({
      message: broadcastMessages.scheduled,
      item: { status: 'scheduled', time: { type: 'recipient' } },
    });
    const key = `start-broadcast:${accountId}:${later.id}`;
    const job = await sql<{
      runAt: Date;
    }>`select run_at as "runAt" from graphile_worker.jobs where key = ${key}`.execute(ctx.services.db);
    expect(job.rows[0]!.runAt.getTime()).toBe(sendAt.getTime() - 14 * 3_600_000);

    const noTime = await broadcast(client, { emailId, time: { type: 'recipient' } });
    const refused = await client.post(`/v1/broadcasts/${noTime.id}/send`);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(sendTimeMessages.recipientTimeNeedsTime);

    // UTC−12 reached this time an hour ago: nobody can get it at that time any more.
    const past = await broadcast(client, {
      emailId,
      sendAt: new Date(Date.now() - 13 * 3_600_000).toISOString(),
      time: { type: 'recipient' },
    });
    const late = await client.post(`/v1/broadcasts/${past.id}/send`);
    expect(late.status).toBe(400);
    expect(late.body.message).toBe(broadcastMessages.sendAtInPast);
    expect((await client.get(`/v1/broadcasts/${past.id}`)).body.item.status).toBe('draft');
  });
});
