import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { defaultCategory } from '../src/features/categories/categories.service.ts';
import { runDeliver } from '../src/features/deliveries/deliveries.jobs.ts';
import { enqueueDeliveries, sourceProgress } from '../src/features/deliveries/deliveries.service.ts';
import {
  journalDir,
  journalName,
  orphanedJournals,
  readJournal,
  SendJournal,
} from '../src/features/deliveries/send-journal.ts';
import { SmtpConnection } from '../src/features/deliveries/smtp-client.ts';
import { toMime } from '@herald/email';
import { createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { startSmtpServer } from './smtp.ts';
import { until } from './until.ts';

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  ctx = await createTestContext({ SMTP_URL: smtp.url });
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

/** A process id no process has: the kernel's pid limit is far below it. */
const deadPid = 2 ** 30 + 12_345;

describe('the send journal', () => {
  it('reads sent lines, drops those refused later, and ignores a line cut short by a kill', () => {
    const text = ['S\t7\t1\t<a@x>', 'S\t7\t2\t<b@x>', 'R\t7\t2', 'S\t8\t3\t<c@x>', 'S\t7\t4'].join('\n');
    const read = readJournal(text);
    expect(read.get(7)).toEqual([{ accountId: 7, id: 1, messageId: '<a@x>' }]);
    expect(read.get(8)).toEqual([{ accountId: 8, id: 3, messageId: '<c@x>' }]);
    expect(readJournal('garbage\n\nS\tx\ty\tz')).toEqual(new Map());
  });

  it('empties its file once everything it lists is recorded', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'journal-')), 'j.log');
    const journal = new SendJournal(file);
    journal.sent({ accountId: 1, id: 1, messageId: '<a@x>' });
    journal.sent({ accountId: 1, id: 2, messageId: '<b@x>' });
    journal.notSent(1, 2);
    expect(readJournal(fs.readFileSync(file, 'utf8')).get(1)).toHaveLength(1);
    journal.recorded(1);
    expect(fs.readFileSync(file, 'utf8')).toBe('');
    journal.close();
  });

  it('counts as orphaned the journals of dead processes and of an earlier life of this pid, never its own', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'journals-'));
    const self = { pid: process.pid, startedAt: 1000 };
    for (const name of [
      journalName(deadPid, 5, 0),
      journalName(process.pid, 1000, 0),
      journalName(process.pid, 999, 1),
      journalName(process.ppid, 5, 0),
      'other.txt',
    ])
      fs.writeFileSync(path.join(dir, name), '');
    expect(
      orphanedJournals(dir, self)
        .map((f) => path.basename(f))
        .sort(),
    ).toEqual([journalName(deadPid, 5, 0), journalName(process.pid, 999, 1)].sort());
    expect(orphanedJournals(path.join(dir, 'missing'), self)).toEqual([]);
  });

  it('after a worker is killed, what its journal says was sent is recorded and never sent again; the rest is sent once', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    const sender = uniqueEmail('news');
    await ctx.services.db
      .insertInto('senderAddresses')
      .values({ accountId, email: sender, status: 'verified' })
      .execute();
    const email = (
      await owner.client.post('/v1/emails', {
        name: 'Journal',
        subject: 'Hello {{ person.firstName }}',
        html: '<p>Hi</p>',
        fromEmail: sender,
        fromName: 'News',
      })
    ).body.email;
    const people: { id: number; email: string }[] = [];
    for (let i = 0; i < 3; i++)
      people.push(
        (
          await owner.client.post('/v1/people/?source=manual', {
            email: uniqueEmail('killed'),
            firstName: `K${i}`,
          })
        ).body.user,
      );
    await withAccount(ctx.services.db, accountId, async (db) => {
      const category = (await defaultCategory(db, accountId))!;
      await enqueueDeliveries(db, {
        accountId,
        kind: 'broadcast',
        sourceId: 77,
        emailId: email.id,
        category: { id: Number(category.id), type: 'marketing' },
        audience: sql`true`,
      });
    });
    const rows = await ctx.services.db
      .selectFrom('deliveries')
      .select(['id', 'personId'])
      .where('accountId', '=', accountId)
      .where('sourceId', '=', 77)
      .execute();
    const rowOf = (i: number) => Number(rows.find((r) => Number(r.personId) === people[i]!.id)!.id);
    // The dead worker had claimed all three (leases run out since); it had put the dot on the first, and the
    // second was refused after its dot; the third it had not reached.
    await ctx.services.db
      .updateTable('deliveries')
      .set({ status: 'sending', attempts: 1, leaseUntil: new Date(Date.now() - 1000) })
      .where('accountId', '=', accountId)
      .where('sourceId', '=', 77)
      .execute();
    const dir = journalDir(ctx.services.config.dataDir);
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, journalName(deadPid, Date.now(), 0));
    fs.writeFileSync(
      file,
      [
        `S\t${accountId}\t${rowOf(0)}\t<killed-0@herald.test>`,
        `S\t${accountId}\t${rowOf(1)}\t<killed-1@herald.test>`,
        `R\t${accountId}\t${rowOf(1)}`,
        '',
      ].join('\n'),
    );

    await runDeliver(ctx.services, { accountId, kind: 'broadcast', sourceId: 77 });
    expect(fs.existsSync(file)).toBe(false);
    expect(
      await withAccount(ctx.services.db, accountId, (db) => sourceProgress(db, accountId, 'broadcast', 77)),
    ).toMatchObject({ sent: 3, pending: 0, sending: 0 });
    await smtp.waitFor(people[1]!.email);
    await smtp.waitFor(people[2]!.email);
    expect(smtp.received.some((m) => JSON.stringify(m.to).includes(people[0]!.email))).toBe(false);
    const first = await ctx.services.db
      .selectFrom('deliveries')
      .select(['messageId', 'providerResponse'])
      .where('accountId', '=', accountId)
      .where('id', '=', rowOf(0))
      .executeTakeFirstOrThrow();
    expect(first).toEqual({ messageId: '<killed-0@herald.test>', providerResponse: null });
    const sent = await withAccount(ctx.services.db, accountId, (db) =>
      db
        .selectFrom('events')
        .select('personId')
        .where('type', '=', 'email')
        .where('name', '=', 'sent')
        .execute(),
    );
    expect(sent.map((e) => Number(e.personId)).sort()).toEqual(people.map((p) => p.id).sort());
  });
});

describe('the SMTP client', () => {
  /**
   * What the dot hooks saw: which ran, and for each how much of the message had been written and how much of it still
   * waited in the process.
   */
  const socketOf = (connection: SmtpConnection) => (connection as unknown as { socket: net.Socket }).socket;
  /** The bytes a message puts on the connection before its final dot: MAIL, RCPT and DATA, then the content. */
  const bytesBeforeDot = (to: string, raw: string) =>
    `MAIL FROM:<news@herald.test>\r\nRCPT TO:<${to}>\r\nDATA\r\n`.length + raw.length;

  function watchDot(socket: net.Socket, before: number, onSending?: () => void) {
    const seen: { hook: string; written: number; queued: number }[] = [];
    const see = (hook: string) =>
      seen.push({ hook, written: socket.bytesWritten - before, queued: socket.writableLength });
    const hooks = {
      sending: () => {
        see('sending');
        onSending?.();
      },
      held: () => see('held'),
      left: () => see('left'),
    };
    return { seen, hooks };
  }

  it('journals just before the final dot, after the whole content has left the process', async () => {
    const connection = await SmtpConnection.open({ url: new URL(smtp.url) });
    const socket = socketOf(connection);
    const to = uniqueEmail('hook');
    // 22 kB, far below what the loopback connection's buffers hold: once the content has gone, the dot finds room.
    const raw = `To: ${to}\r\nSubject: hook\r\n\r\n${'body line\r\n'.repeat(2_000)}`;
    let deliveredAtHook = true;
    const { seen, hooks } = watchDot(socket, socket.bytesWritten, () => {
      deliveredAtHook = smtp.received.some((m) => JSON.stringify(m.to).includes(to));
    });
    const reply = await connection.send({ from: 'news@herald.test', to }, raw, {
      wireReady: true,
      dot: hooks,
    });
    expect(reply).toMatch(/^250/);
    // MAIL, RCPT and DATA and the whole content written, none of it still queued, the dot not yet: the socket took the
    // dot at once, so nothing was taken back.
    expect(seen).toEqual([{ hook: 'sending', written: bytesBeforeDot(to, raw), queued: 0 }]);
    expect(deliveredAtHook).toBe(false);
    await smtp.waitFor(to);
    connection.close();
  });

  it('takes the line back while a dot waits in the process, and writes it again once the dot has left', async () => {
    const connection = await SmtpConnection.open({ url: new URL(smtp.url) });
    const socket = socketOf(connection);
    const to = uniqueEmail('held');
    const raw = `To: ${to}\r\nSubject: held\r\n\r\nbody\r\n`;
    // A corked socket keeps the dot's write in the process, as a full send buffer does; it is uncorked a moment later.
    const { seen, hooks } = watchDot(socket, socket.bytesWritten, () => {
      socket.cork();
      setTimeout(() => socket.uncork(), 20);
    });
    const reply = await connection.send({ from: 'news@herald.test', to }, raw, {
      wireReady: true,
      dot: hooks,
    });
    expect(reply).toMatch(/^250/);
    const content = bytesBeforeDot(to, raw);
    expect(seen).toEqual([
      { hook: 'sending', written: content, queued: 0 },
      { hook: 'held', written: content + 3, queued: 3 },
      { hook: 'left', written: content + 3, queued: 0 },
    ]);
    connection.close();
  });

  it('fails the send and ends the connection when the journal cannot be written', async () => {
    const connection = await SmtpConnection.open({ url: new URL(smtp.url) });
    const to = uniqueEmail('unjournaled');
    const failing = {
      sending: () => {
        throw new Error('journal: no space left on device');
      },
      held: () => undefined,
      left: () => undefined,
    };
    await expect(
      connection.send({ from: 'news@herald.test', to }, `To: ${to}\r\nSubject: x\r\n\r\nbody\r\n`, {
        wireReady: true,
        dot: failing,
      }),
    ).rejects.toThrow(/no space left/);
    await until(() => connection.closed, { timeout: 5_000, message: 'the connection ended' });
    await smtp.idle();
    expect(smtp.received.some((m) => JSON.stringify(m.to).includes(to))).toBe(false);
  });

  it('sends toMime output byte for byte: UTF-8 in the header block as UTF-8, the quoted-printable bodies as they are', async () => {
    const connection = await SmtpConnection.open({ url: new URL(smtp.url) });
    const to = uniqueEmail('bytes');
    const mime = toMime({
      from: '"Zoë" <news@herald.test>',
      to,
      subject: 'Grüße',
      html: '<p>Caffè ☕</p>',
      text: 'Caffè ☕',
      messageId: '<bytes@herald.test>',
      headers: { 'X-Note': 'Größe' },
    });
    await connection.send({ from: 'news@herald.test', to }, mime, { wireReady: true });
    const mail = await smtp.waitFor(to);
    expect(mail.headers.get('x-note')).toBe('Größe');
    expect(mail.subject).toBe('Grüße');
    expect(mail.text?.trim()).toBe('Caffè ☕');
    expect(smtp.raw.get(mail)!.toString('utf8')).toBe(`${mime}`.replace(/\r\n$/, '') + '\r\n');
    connection.close();
  });
});
