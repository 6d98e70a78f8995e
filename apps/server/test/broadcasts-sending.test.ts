import {
  broadcastMessages,
  scopeIds,
  sendingMessages,
  sendTimeMessages,
  type Broadcast,
  type ScopeId,
} from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import {
  accountOf,
  create,
  ctx,
  inAnHour,
  origin,
  person,
  setup,
  smtp,
  useBroadcastsContext,
  type Owner,
} from './broadcasts-fixtures.ts';
import { Client, uniqueEmail } from './helpers.ts';
import { queueDrained } from './job-queue.ts';
import { until } from './until.ts';
import { runStartBroadcast } from '../src/features/broadcasts/broadcasts.jobs.ts';

// Sending a broadcast: what refuses a send (and whom), then a send, a scheduled start and a cancel (drafts and their
// audience are broadcasts.test.ts).
useBroadcastsContext();

/** A team member holding exactly `enabled`, signed in through the mailed invitation. */
async function addMember(owner: Owner, enabled: ScopeId[]): Promise<Client> {
  const email = uniqueEmail('member');
  const invited = await owner.client.post('/v1/team-members', {
    name: 'Member',
    email,
    scopes: scopeIds.map((id) => ({ id, enabled: enabled.includes(id) })),
  });
  expect(invited.status).toBe(201);
  const token = decodeURIComponent(
    /accept-invite\?token=([^\s"<]+)/.exec((await smtp.waitFor(email)).text ?? '')![1]!,
  );
  const member = new Client(ctx.app, origin);
  expect(
    (await member.post('/v1/team-members/invitations/accept', { token, password: 'member password 1' }))
      .status,
  ).toBe(200);
  return member;
}

async function waitForStatus(client: Client, id: number, status: string, timeoutMs = 30_000) {
  let last: unknown;
  return until(
    async () => {
      const res = await client.get(`/v1/broadcasts/${id}/status`);
      last = res.body.item;
      return (
        res.body.item?.status === status &&
        (res.body as { item: Broadcast; progress: Record<string, number> })
      );
    },
    { timeout: timeoutMs, message: () => `broadcast ${id} ${status} (it is ${JSON.stringify(last)})` },
  );
}
describe('broadcasts: send refusals', () => {
  it('refuses a send without an email, from an unverified address, at a past time, to a deleted segment or to nobody', async () => {
    const { client, emailId } = await setup();
    const ann = await person(client, { firstName: 'Ann' });
    const noEmail = await create(client);
    const refused = await client.post(`/v1/broadcasts/${noEmail.id}/send`);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(broadcastMessages.noEmail);

    const past = await create(client, { emailId, sendAt: new Date(Date.now() - 60_000).toISOString() });
    const tooLate = await client.post(`/v1/broadcasts/${past.id}/send`);
    expect(tooLate.status).toBe(400);
    expect(tooLate.body.message).toBe(broadcastMessages.sendAtInPast);

    const segment = (
      await client.post('/v1/segments/', {
        name: 'Soon gone',
        conditions: [{ type: 'tag', operator: 'has', tag: 'x' }],
      })
    ).body.segment as { id: number };
    const toSegment = await create(client, {
      emailId,
      audience: { type: 'segments', segmentIds: [segment.id] },
    });
    expect((await client.request('DELETE', `/v1/segments/${segment.id}`)).status).toBeLessThan(300);
    const gone = await client.post(`/v1/broadcasts/${toSegment.id}/send`);
    expect(gone.status).toBe(400);
    expect(gone.body.message).toBe(broadcastMessages.segmentGone(segment.id));

    await client.post('/v1/suppressions', { emails: [ann.email], reason: 'manual' });
    const nobody = await create(client, { emailId });
    const empty = await client.post(`/v1/broadcasts/${nobody.id}/send`);
    expect(empty.status).toBe(400);
    expect(empty.body.message).toBe(broadcastMessages.nobodyToSend);

    const recipientTime = await create(client, { emailId, time: { type: 'recipient' } });
    expect((await client.post(`/v1/broadcasts/${recipientTime.id}/send`)).body.message).toBe(
      sendTimeMessages.recipientTimeNeedsTime,
    );

    const unverified = await setup({ verified: false });
    await person(unverified.client, { firstName: 'Bo' });
    const fromUnverified = await create(unverified.client, { emailId: unverified.emailId });
    const rule = await unverified.client.post(`/v1/broadcasts/${fromUnverified.id}/send`);
    expect(rule.status).toBe(422);
    expect(rule.body.message).toBe(sendingMessages.notVerified(unverified.fromEmail));
    expect((await unverified.client.get(`/v1/broadcasts/${fromUnverified.id}`)).body.item.status).toBe(
      'draft',
    );
  });

  it("keeps other accounts' broadcasts out of reach (404)", async () => {
    const mine = await setup();
    const theirs = await setup();
    const other = await create(theirs.client, { name: 'Private', emailId: theirs.emailId });
    const calls: [Parameters<Client['request']>[0], string, unknown?][] = [
      ['GET', `/v1/broadcasts/${other.id}`],
      ['PATCH', `/v1/broadcasts/${other.id}`, { name: 'Mine now' }],
      ['POST', `/v1/broadcasts/${other.id}/send`],
      ['POST', `/v1/broadcasts/${other.id}/cancel`],
      ['GET', `/v1/broadcasts/${other.id}/status`],
      ['POST', `/v1/broadcasts/${other.id}/status`],
      ['POST', `/v1/broadcasts/${other.id}/duplicate`],
      ['DELETE', `/v1/broadcasts/${other.id}`],
    ];
    for (const [method, url, body] of calls) {
      const res = await mine.client.request(method, url, body === undefined ? {} : { body });
      expect(res.status, `${method} ${url}`).toBe(404);
    }
    expect((await mine.client.get('/v1/broadcasts')).body.items).toEqual([]);
    expect(
      (
        await mine.client.patch(`/v1/broadcasts/${(await create(mine.client)).id}`, {
          emailId: theirs.emailId,
        })
      ).status,
    ).toBe(400);
    expect((await theirs.client.get(`/v1/broadcasts/${other.id}`)).body.item.name).toBe('Private');
  });

  it('needs broadcasts:read to look and broadcasts:write to change (403)', async () => {
    const { owner, client, emailId } = await setup();
    const broadcast = await create(client, { emailId });
    const reader = await addMember(owner, ['emails:read', 'broadcasts:read']);
    expect((await reader.get('/v1/broadcasts')).status).toBe(200);
    expect((await reader.get(`/v1/broadcasts/${broadcast.id}/status`)).status).toBe(200);
    expect((await reader.post('/v1/broadcasts/audience-count', { audience: { type: 'all' } })).status).toBe(
      200,
    );
    for (const [method, url] of [
      ['POST', '/v1/broadcasts'],
      ['PATCH', `/v1/broadcasts/${broadcast.id}`],
      ['POST', `/v1/broadcasts/${broadcast.id}/send`],
      ['POST', `/v1/broadcasts/${broadcast.id}/cancel`],
      ['POST', `/v1/broadcasts/${broadcast.id}/duplicate`],
      ['DELETE', `/v1/broadcasts/${broadcast.id}`],
    ] as const) {
      expect((await reader.request(method, url, { body: {} })).status, `${method} ${url}`).toBe(403);
    }
    const outsider = await addMember(owner, ['emails:read']);
    expect((await outsider.get('/v1/broadcasts')).status).toBe(403);
    expect((await outsider.get(`/v1/broadcasts/${broadcast.id}`)).status).toBe(403);
  });
});
describe('broadcasts: sending', () => {
  it('sends one personalised email to each deliverable person of a segment minus exclusions, through SMTP, and ends sent', async () => {
    const { client, emailId } = await setup();
    const ann = await person(client, { firstName: 'Ann', tags: ['vip'] });
    const ben = await person(client, { firstName: 'Ben', tags: ['vip'] });
    const cy = await person(client, { firstName: 'Cy', tags: ['vip'] });
    const di = await person(client, { firstName: 'Di', tags: ['vip', 'staff'] });
    const ed = await person(client, { firstName: 'Ed' });
    await client.post('/v1/suppressions', { emails: [cy.email], reason: 'unsubscribed' });
    const vips = (
      await client.post('/v1/segments/', {
        name: 'VIPs',
        conditions: [{ type: 'tag', operator: 'has', tag: 'vip' }],
      })
    ).body.segment as { id: number };
    const broadcast = await create(client, {
      name: 'VIP news',
      emailId,
      audience: { type: 'segments', segmentIds: [vips.id], excludeTags: ['staff'] },
    });

    const sent = await client.post(`/v1/broadcasts/${broadcast.id}/send`);
    expect(sent.status).toBe(200);
    expect(sent.body.message).toBe(broadcastMessages.sending);
    expect(sent.body.item.status).toBe('sending');
    expect(sent.body.item.startedAt).not.toBeNull();

    const done = await waitForStatus(client, broadcast.id, 'sent');
    expect(done.item.stats).toEqual({ queued: 2, excluded: 1, sent: 2, failed: 0, pending: 0 });
    expect(done.progress).toMatchObject({ total: 2, sent: 2, pending: 0, sending: 0, failed: 0 });
    expect(done.item.finishedAt).not.toBeNull();
    for (const [who, name] of [
      [ann, 'Ann'],
      [ben, 'Ben'],
    ] as const) {
      const mail = await smtp.waitFor(who.email);
      expect(mail.subject).toBe(`News for ${name}`);
      expect(mail.html).toContain(`Hi ${name}`);
      const header = (key: string) =>
        mail.headerLines
          .filter((line) => line.key === key)
          .map((line) => line.line.slice(line.line.indexOf(':') + 1).trim());
      expect(header('list-unsubscribe')).toEqual([expect.stringMatching(/<https:\/\/herald\.test\/[^>]+>/)]);
      expect(header('list-unsubscribe-post')).toEqual(['List-Unsubscribe=One-Click']);
    }
    await queueDrained(ctx.database.pool);
    const to = (address: string) =>
      smtp.received.filter((m) => JSON.stringify(m.to).toLowerCase().includes(address.toLowerCase())).length;
    expect([to(ann.email), to(ben.email), to(cy.email), to(di.email), to(ed.email)]).toEqual([1, 1, 0, 0, 0]);

    const cancel = await client.post(`/v1/broadcasts/${broadcast.id}/cancel`);
    expect(cancel.status).toBe(409);
    expect(cancel.body.message).toBe(broadcastMessages.alreadySent);
    expect((await client.post(`/v1/broadcasts/${broadcast.id}/send`)).status).toBe(409);
    expect((await client.patch(`/v1/broadcasts/${broadcast.id}`, { name: 'Again' })).status).toBe(409);
    expect((await client.get('/v1/broadcasts')).body.items[0].stats).toMatchObject({ sent: 2, queued: 2 });
  }, 60_000);

  it('the start job fails a broadcast whose segment was deleted after it was scheduled, and runs once however often it is called', async () => {
    const { client, emailId, owner } = await setup();
    await person(client, { firstName: 'Ann', tags: ['vip'] });
    await person(client, { firstName: 'Ben' });
    const segment = (
      await client.post('/v1/segments/', {
        name: 'VIPs',
        conditions: [{ type: 'tag', operator: 'has', tag: 'vip' }],
      })
    ).body.segment as { id: number };
    const doomed = await create(client, {
      emailId,
      audience: { type: 'segments', segmentIds: [segment.id] },
      sendAt: inAnHour(),
    });
    expect((await client.post(`/v1/broadcasts/${doomed.id}/send`)).body.item.status).toBe('scheduled');
    await client.request('DELETE', `/v1/segments/${segment.id}`);
    await ctx.services.db
      .updateTable('broadcasts')
      .set({ sendAt: new Date(Date.now() - 1000) })
      .where('id', '=', doomed.id)
      .execute();
    await runStartBroadcast(ctx.services, accountOf(owner), doomed.id);
    expect((await client.get(`/v1/broadcasts/${doomed.id}`)).body.item).toMatchObject({
      status: 'failed',
      failure: broadcastMessages.segmentGone(segment.id),
    });

    const twice = await create(client, { emailId, sendAt: inAnHour() });
    await client.post(`/v1/broadcasts/${twice.id}/send`);
    await ctx.services.db
      .updateTable('broadcasts')
      .set({ sendAt: new Date(Date.now() - 1000) })
      .where('id', '=', twice.id)
      .execute();
    await runStartBroadcast(ctx.services, accountOf(owner), twice.id);
    await runStartBroadcast(ctx.services, accountOf(owner), twice.id);
    const done = await waitForStatus(client, twice.id, 'sent');
    expect(done.item.stats).toMatchObject({ queued: 2, excluded: 0, sent: 2 });
  }, 60_000);

  it('schedules at a future sendAt (moving it reschedules), then cancels: nothing is queued or sent', async () => {
    const { client, emailId, owner } = await setup();
    const ann = await person(client, { firstName: 'Ann' });
    const broadcast = await create(client, { emailId, sendAt: inAnHour() });
    const scheduled = await client.post(`/v1/broadcasts/${broadcast.id}/send`);
    expect(scheduled.status).toBe(200);
    expect(scheduled.body).toMatchObject({
      message: broadcastMessages.scheduled,
      item: { status: 'scheduled' },
    });
    const later = new Date(Date.now() + 7_200_000).toISOString();
    const moved = await client.patch(`/v1/broadcasts/${broadcast.id}`, { sendAt: later });
    expect(moved.body.item).toMatchObject({ status: 'scheduled', sendAt: later });
    const pastMove = await client.patch(`/v1/broadcasts/${broadcast.id}`, {
      sendAt: new Date(Date.now() - 1000).toISOString(),
    });
    expect(pastMove.body.message).toBe(broadcastMessages.sendAtInPast);
    const jobs = await ctx.database.pool.query<{ run_at: Date }>(
      'select run_at from graphile_worker.jobs where key = $1',
      [`start-broadcast:${accountOf(owner)}:${broadcast.id}`],
    );
    expect(jobs.rows.map((row) => row.run_at.toISOString())).toEqual([later]);

    const canceled = await client.post(`/v1/broadcasts/${broadcast.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({
      message: broadcastMessages.canceled,
      item: { status: 'canceled' },
    });
    const again = await client.post(`/v1/broadcasts/${broadcast.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.message).toBe(broadcastMessages.notCancelable('Canceled'));
    expect((await client.patch(`/v1/broadcasts/${broadcast.id}`, { name: 'x' })).status).toBe(409);
    expect((await client.get(`/v1/broadcasts/${broadcast.id}/status`)).body.progress.total).toBe(0);
    expect(smtp.received.some((m) => JSON.stringify(m.to).includes(ann.email))).toBe(false);
    const draft = await create(client);
    expect((await client.post(`/v1/broadcasts/${draft.id}/cancel`)).body.message).toBe(
      broadcastMessages.notCancelable('Draft'),
    );
  });
});
