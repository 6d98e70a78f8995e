import { sendTimeMessages } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { withAccount } from '../src/db/tenancy.ts';
import { registerUser, uniqueEmail } from './helpers.ts';
import { queueDrained } from './job-queue.ts';
import { addMember, broadcast, ctx, setup, smtp, useSendTimesContext } from './send-times-fixtures.ts';
import { until } from './until.ts';

// Pausing a broadcast while it sends, resuming it, and canceling it paused.
useSendTimesContext();

/** More people than the deliver job's first claims take (loops × 250), so some are still pending when a pause lands. */
const bigAudience = 3000;
const audienceOf = (accountId: number, n: number) =>
  withAccount(ctx.services.db, accountId, (db) =>
    db
      .insertInto('people')
      .values(
        Array.from({ length: n }, (_, i) => ({
          accountId,
          email: uniqueEmail(`many${i}`),
          firstName: `Many${i}`,
        })),
      )
      .returning(['id', 'email'])
      .execute(),
  );

describe('pause and resume', () => {
  it('pausing holds what is not yet sent, resuming sends the rest once; each person gets exactly one message', async () => {
    const { client, accountId, emailId } = await setup('UTC');
    const people = await audienceOf(accountId, bigAudience);
    const item = await broadcast(client, { emailId });
    expect((await client.post(`/v1/broadcasts/${item.id}/send`)).status).toBe(200);
    // Paused as soon as the first claims are out: those finish, the rest waits.
    await until(
      async () => (await client.get(`/v1/broadcasts/${item.id}/status`)).body.progress.sending > 0,
      { timeout: 30_000, message: 'claimed' },
    );
    const paused = await client.post(`/v1/broadcasts/${item.id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ message: sendTimeMessages.paused, item: { status: 'sending' } });
    expect(paused.body.item.pausedAt).not.toBeNull();
    expect((await client.post(`/v1/broadcasts/${item.id}/pause`)).status).toBe(409);
    // Rows already claimed finish; then nothing more leaves.
    const settled = await until(
      async () => {
        const { progress } = (await client.get(`/v1/broadcasts/${item.id}/status`)).body;
        return progress.sending === 0 && progress;
      },
      { timeout: 30_000, message: 'settled' },
    );
    expect(settled.paused).toBeGreaterThan(0);
    expect(settled.sent).toBeLessThan(bigAudience);
    await queueDrained(ctx.database.pool);
    const still = (await client.get(`/v1/broadcasts/${item.id}/status`)).body;
    expect(still.progress.sent).toBe(settled.sent);
    expect(still.item).toMatchObject({ status: 'sending' });
    expect(still.item.stats.pending).toBe(settled.paused);

    const resumed = await client.post(`/v1/broadcasts/${item.id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({
      message: sendTimeMessages.resumed,
      item: { status: 'sending', pausedAt: null },
    });
    expect((await client.post(`/v1/broadcasts/${item.id}/resume`)).status).toBe(409);
    await until(async () => (await client.get(`/v1/broadcasts/${item.id}`)).body.item.status === 'sent', {
      timeout: 60_000,
      message: 'sent',
    });
    const counts = new Map<string, number>();
    for (const mail of smtp.received)
      for (const to of [mail.to].flat())
        for (const a of to?.value ?? [])
          counts.set(a.address!.toLowerCase(), (counts.get(a.address!.toLowerCase()) ?? 0) + 1);
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
    const settled = await until(
      async () => {
        const { progress } = (await client.get(`/v1/broadcasts/${item.id}/status`)).body;
        return (
          progress.sending === 0 &&
          progress.pending === 0 &&
          progress.sent + progress.paused === bigAudience &&
          progress
        );
      },
      { timeout: 30_000, message: 'settled' },
    );
    expect(settled.paused).toBeGreaterThan(0);
    const canceled = await client.post(`/v1/broadcasts/${item.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.item).toMatchObject({ status: 'canceled', pausedAt: null });
    const after = (await client.get(`/v1/broadcasts/${item.id}/status`)).body.progress;
    expect(after).toMatchObject({
      paused: 0,
      pending: 0,
      sent: settled.sent,
      canceled: settled.paused + settled.pending,
    });
    expect((await client.post(`/v1/broadcasts/${item.id}/resume`)).status).toBe(409);
  }, 60_000);
});
