import { webhookLimits, webhookMessages } from '@herald/contracts';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { pruneLog, verifySignature } from '../src/features/integrations/webhook-delivery.ts';
import { registerUser, uniqueEmail } from './helpers.ts';
import { queueDrained } from './job-queue.ts';
import {
  base,
  ctx,
  endpoint,
  eventsAt,
  failNext,
  received,
  useWebhooksContext,
} from './outgoing-webhooks-fixtures.ts';
import { until } from './until.ts';

useWebhooksContext();

describe('delivering events', () => {
  it('posts person and tag changes signed, with ids, from the API', async () => {
    const owner = await registerUser(ctx.app);
    const { secret } = await endpoint(owner, '/people', [
      'person.created',
      'person.updated',
      'person.unsubscribed',
      'tag.added',
      'tag.removed',
    ]);
    const email = uniqueEmail('hooked');
    const person = await owner.client.post('/v1/people/', { email, firstName: 'Grace', tags: ['lead'] });
    expect(person.status, JSON.stringify(person.body)).toBe(201);
    const id = person.body.user.id as number;
    const created = await until(
      () => eventsAt('/people').find((e) => e.type === 'person.created' && e.data.id === id),
      { timeout: 15_000 },
    );
    expect(created.data).toMatchObject({ email, firstName: 'Grace', tags: ['lead'] });
    await until(
      () =>
        eventsAt('/people').find(
          (e) => e.type === 'tag.added' && e.data.person.id === id && e.data.tag === 'lead',
        ),
      { timeout: 15_000 },
    );

    await owner.client.patch(`/v1/people/${id}`, { lastName: 'Hopper' });
    await until(
      () => eventsAt('/people').find((e) => e.type === 'person.updated' && e.data.lastName === 'Hopper'),
      { timeout: 15_000 },
    );
    await owner.client.request('DELETE', '/v1/tags/', { body: { tag: 'lead', id } });
    await until(() => eventsAt('/people').find((e) => e.type === 'tag.removed' && e.data.person.id === id), {
      timeout: 15_000,
    });
    // The preference centre records an unsubscribe as an email event (preferences.service.ts).
    await sql`insert into events (account_id, person_id, type, name, source, data) values (${owner.account.accountId}, ${id}, 'email', 'unsubscribed', 'email', '{"via": "link"}')`.execute(
      ctx.services.db,
    );
    await until(
      () => eventsAt('/people').find((e) => e.type === 'person.unsubscribed' && e.data.person.id === id),
      { timeout: 15_000 },
    );

    const call = received.find((r) => r.path === '/people')!;
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.headers['herald-delivery-id']).toBe(call.json.deliveryId);
    expect(call.headers['idempotency-key']).toBe(call.json.deliveryId);
    expect(
      verifySignature(
        secret,
        call.body,
        String(call.headers['herald-signature']),
        Math.floor(Date.now() / 1000),
      ),
    ).toBe(true);
    expect(
      verifySignature(
        secret,
        `${call.body} `,
        String(call.headers['herald-signature']),
        Math.floor(Date.now() / 1000),
      ),
    ).toBe(false);
    const ids = eventsAt('/people').map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);

    const log = await owner.client.get(
      `/v1/webhook-endpoints/${(await owner.client.get('/v1/webhook-endpoints')).body.endpoints[0].id}/deliveries`,
    );
    expect(log.status).toBe(200);
    expect(log.body.deliveries.length).toBeGreaterThan(0);
    expect(log.body.deliveries[0]).toMatchObject({
      status: 'sent',
      attempts: 1,
      responseStatus: 204,
      lastError: null,
      test: false,
    });
  });

  it('sends only the events an endpoint chose, and nothing for a change rolled back or an endpoint switched off', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    await endpoint(owner, '/only-email', ['email.opened']);
    const off = await endpoint(owner, '/off', ['person.created']);
    await owner.client.patch(`/v1/webhook-endpoints/${off.endpoint.id}`, { enabled: false });
    const person = await owner.client.post('/v1/people/', { email: uniqueEmail('quiet') });
    const id = person.body.user.id as number;
    // Tracking writes email activity straight into events (COPY batches do the same): the trigger sees it.
    await sql`insert into events (account_id, person_id, type, name, data, source) values
      (${accountId}, ${id}, 'email', 'opened', '{"emailId": 7}', 'tracking'), (${accountId}, ${id}, 'email', 'clicked', '{"emailId": 7}', 'tracking')`.execute(
      ctx.services.db,
    );
    await ctx.services.db
      .transaction()
      .execute(async (trx) => {
        await sql`insert into events (account_id, person_id, type, name, data) values (${accountId}, ${id}, 'email', 'opened', '{"emailId": 8}')`.execute(
          trx,
        );
        throw new Error('undo');
      })
      .catch(() => undefined);
    const opened = await until(() => eventsAt('/only-email').find((e) => e.type === 'email.opened'), {
      timeout: 15_000,
    });
    expect(opened.data).toMatchObject({ person: { id }, data: { emailId: 7 }, source: 'tracking' });
    // Every outgoing-webhooks run the inserts started is over: nothing more can be posted.
    await queueDrained(ctx.database.pool, { tasks: ['outgoing-webhooks'] });
    expect(eventsAt('/only-email').map((e) => e.type)).toEqual(['email.opened']);
    expect(eventsAt('/off')).toEqual([]);
  });

  it('captures segment, form and flow events', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    await endpoint(owner, '/mixed', [
      'segment.entered',
      'segment.left',
      'form.submitted',
      'email.bounced',
      'flow.entered',
      'flow.completed',
    ]);
    const person = await owner.client.post('/v1/people/', { email: uniqueEmail('mixed') });
    const id = person.body.user.id as number;
    // A segment id no real segment has: the person's entries into the automatic segments are told apart below.
    const segmentId = 999_999_999;
    const segmentData = JSON.stringify({ segmentId });
    await sql`insert into events (account_id, person_id, type, name, data, source) values
      (${accountId}, ${id}, 'segment', 'entered', ${segmentData}, 'segment'), (${accountId}, ${id}, 'segment', 'left', ${segmentData}, 'segment'),
      (${accountId}, ${id}, 'form', 'newsletter', '{"form": "newsletter"}', 'api'), (${accountId}, ${id}, 'email', 'bounced', '{}', 'bounce')`.execute(
      ctx.services.db,
    );
    const flow = await sql<{
      id: string;
    }>`insert into flows (account_id, name) values (${accountId}, 'Hooked flow') returning id`.execute(
      ctx.services.db,
    );
    const flowId = flow.rows[0]!.id;
    const run = await sql<{
      id: string;
    }>`insert into flow_runs (account_id, flow_id, person_id, status) values (${accountId}, ${flowId}, ${id}, 'waiting') returning id`.execute(
      ctx.services.db,
    );
    await sql`update flow_runs set status = 'done' where account_id = ${accountId} and id = ${run.rows[0]!.id}`.execute(
      ctx.services.db,
    );
    // The new person also enters the account's automatic segments ("New") when the segment refresh gets to them,
    // which may come before or after these: only the events written here are compared.
    const written = () =>
      eventsAt('/mixed').filter(
        (e) => !e.type.startsWith('segment.') || e.data.data?.segmentId === segmentId,
      );
    await until(() => written().length >= 6, { timeout: 15_000 });
    expect(
      written()
        .map((e) => e.type)
        .sort(),
    ).toEqual([
      'email.bounced',
      'flow.completed',
      'flow.entered',
      'form.submitted',
      'segment.entered',
      'segment.left',
    ]);
    expect(written().find((e) => e.type === 'flow.completed')!.data).toMatchObject({
      flowId: Number(flowId),
      person: { id },
    });
  });

  it('batches many events into requests of at most 100', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    await endpoint(owner, '/bulk', ['person.created']);
    await sql`insert into people (account_id, email) select ${accountId}, 'bulk-' || g || '-' || ${accountId} || '@example.com' from generate_series(1, 250) g`.execute(
      ctx.services.db,
    );
    await until(() => eventsAt('/bulk').length >= 250, { timeout: 30_000 });
    const calls = received.filter((r) => r.path === '/bulk');
    expect(calls.every((c) => c.json.events.length <= webhookLimits.batchSize)).toBe(true);
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(new Set(eventsAt('/bulk').map((e) => e.id)).size).toBe(250);
  });

  it('retries a failed delivery with the same delivery and event ids', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    const { endpoint: ep } = await endpoint(owner, '/flaky', ['person.created']);
    failNext(1);
    await owner.client.post('/v1/people/', { email: uniqueEmail('retry') });
    const first = await until(() => received.find((r) => r.path === '/flaky'), { timeout: 15_000 });
    const pending = await until(
      async () =>
        (await owner.client.get(`/v1/webhook-endpoints/${ep.id}/deliveries`)).body.deliveries.find(
          (d: any) => d.status === 'pending' && d.attempts === 1,
        ),
      { timeout: 15_000 },
    );
    expect(pending).toMatchObject({ responseStatus: 503, lastError: 'The endpoint answered 503.' });
    // Bring the retry forward instead of waiting 30 s.
    await sql`update webhook_deliveries set next_at = now() where account_id = ${accountId} and id = ${pending.id}`.execute(
      ctx.services.db,
    );
    await sql`select herald_webhooks_wake(array[${accountId}]::bigint[])`.execute(ctx.services.db);
    const second = await until(() => received.filter((r) => r.path === '/flaky')[1], { timeout: 15_000 });
    expect(second.json.deliveryId).toBe(first.json.deliveryId);
    expect(second.json.events.map((e) => e.id)).toEqual(first.json.events.map((e) => e.id));
    const log = await until(
      async () =>
        (await owner.client.get(`/v1/webhook-endpoints/${ep.id}/deliveries`)).body.deliveries.find(
          (d: any) => d.status === 'sent',
        ),
      { timeout: 15_000 },
    );
    expect(log).toMatchObject({ attempts: 2, responseStatus: 204, lastError: null });
    // Finished deliveries leave the log after 30 days, with their events.
    await sql`update webhook_deliveries set finished_at = now() - interval '31 days' where account_id = ${accountId} and id = ${log.id}`.execute(
      ctx.services.db,
    );
    await pruneLog(ctx.services.db, accountId);
    expect(
      (await owner.client.get(`/v1/webhook-endpoints/${ep.id}/deliveries`)).body.deliveries.find(
        (d: any) => d.id === log.id,
      ),
    ).toBeUndefined();
    const left = await sql<{
      n: number;
    }>`select count(*)::int as n from webhook_events where account_id = ${accountId} and delivery_id = ${log.id}`.execute(
      ctx.services.db,
    );
    expect(left.rows[0]!.n).toBe(0);
  });

  it('sends a test event and shows it in the log; switches an endpoint off after a day of failures with an account alert', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    const { endpoint: ep } = await endpoint(owner, '/broken', ['person.created']);
    const test = await owner.client.post(`/v1/webhook-endpoints/${ep.id}/test`);
    expect(test.status).toBe(200);
    expect(test.body.delivery).toMatchObject({
      status: 'pending',
      attempts: 1,
      responseStatus: 503,
      test: true,
      eventTypes: ['test'],
    });
    expect(received.find((r) => r.path === '/broken')!.json).toMatchObject({
      test: true,
      events: [{ type: 'test' }],
    });
    // A failing streak nearly a day old: the next failure switches the endpoint off.
    await sql`update webhook_endpoints set failures_in_row = ${webhookLimits.disableAfterFailures - 1}, failing_since = now() - interval '25 hours'
      where account_id = ${accountId} and id = ${ep.id}`.execute(ctx.services.db);
    const straw = await owner.client.post('/v1/people/', { email: uniqueEmail('last-straw') });
    expect(straw.status, JSON.stringify(straw.body)).toBe(201);
    const off = await until(
      async () =>
        (await owner.client.get('/v1/webhook-endpoints')).body.endpoints.find(
          (e: any) => e.id === ep.id && !e.enabled,
        ),
      // The delivery job runs on the suite's worker beside the other files: 15 s ran out once in a CI lane.
      { timeout: 30_000 },
    );
    expect(off.disabledReason).toBe(webhookMessages.disabledAfterFailures);
    const issues = await owner.client.get('/v1/accounts/issues');
    expect(issues.body.issues.map((i: { message: string }) => i.message)).toContain(
      webhookMessages.alert(`${base}/broken`),
    );
    // A failed delivery is sent again on request, with the same events; a delivered one cannot be.
    const failed = await sql<{
      id: string;
    }>`update webhook_deliveries set status = 'failed', attempts = ${webhookLimits.maxAttempts}, finished_at = now()
      where account_id = ${accountId} and endpoint_id = ${ep.id} and test returning id`.execute(
      ctx.services.db,
    );
    const failedId = Number(failed.rows[0]!.id);
    const again = await owner.client.post(`/v1/webhook-endpoints/${ep.id}/deliveries/${failedId}/retry`);
    expect(again.status).toBe(200);
    expect(again.body.delivery).toMatchObject({ id: failedId, status: 'pending', attempts: 0 });
    expect((await owner.client.post(`/v1/webhook-endpoints/${ep.id}/deliveries/999999/retry`)).status).toBe(
      404,
    );
    await sql`update webhook_deliveries set status = 'sent' where account_id = ${accountId} and id = ${failedId}`.execute(
      ctx.services.db,
    );
    const sent = await owner.client.post(`/v1/webhook-endpoints/${ep.id}/deliveries/${failedId}/retry`);
    expect(sent.status).toBe(409);
    expect(sent.body.message).toBe(webhookMessages.notRetryable);
    // Switched on again: the alert is resolved and the count starts over.
    const on = await owner.client.patch(`/v1/webhook-endpoints/${ep.id}`, { enabled: true });
    expect(on.body.endpoint).toMatchObject({
      enabled: true,
      failuresInRow: 0,
      failingSince: null,
      disabledReason: null,
    });
    expect((await owner.client.get('/v1/accounts/issues')).body.issues).toEqual([]);
  });
});
