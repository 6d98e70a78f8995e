import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { flowMessages, webhookTestMessages } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outgoingMessages } from '../src/lib/outgoing-url.ts';
import { addMember } from './email-helpers.ts';
import { addStep, fields, newFlow, type Owner } from './flows-fixtures.ts';
import { createTestContext, registerUser, type TestContext } from './helpers.ts';
import { startSmtpServer } from './smtp.ts';

/** A receiver on loopback, which this server trusts (OUTGOING_TRUSTED_ADDRESSES); what it got, and what it answers. */
const received: { path: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    received.push({ path: req.url ?? '', headers: req.headers, body });
    if (req.url === '/fails') res.writeHead(500).end('the receiver broke');
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
  });
});

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let base: string;
let owner: Owner;
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  smtp = await startSmtpServer();
  ctx = await createTestContext({ SMTP_URL: smtp.url, OUTGOING_TRUSTED_ADDRESSES: '127.0.0.1' });
  await ctx.startWorker();
  owner = await registerUser(ctx.app);
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
  await new Promise((resolve) => receiver.close(resolve));
});

async function webhookStep(url?: string) {
  const flow = await newFlow(owner.client, 'Hooks');
  return addStep(owner.client, flow.id, '/send-webhook', url === undefined ? undefined : { url });
}

describe('POST /v1/steps/{id}/test-webhook', () => {
  it('posts a sample call in the shape of a real one to the saved URL and answers what the receiver said', async () => {
    const step = await webhookStep(`${base}/hook`);
    const before = received.length;
    const res = await owner.client.post(`/v1/steps/${step.id}/test-webhook`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ ok: true, status: 200, responseBody: '{"received":true}', error: null });
    expect(res.body.durationMs).toBeGreaterThanOrEqual(0);
    expect(received.length).toBe(before + 1);
    const call = received.at(-1)!;
    expect(call.path).toBe('/hook');
    expect(call.headers['x-herald-test']).toBe('1');
    expect(call.headers['idempotency-key']).toMatch(/^test:/);
    const sent = JSON.parse(call.body);
    expect(sent).toEqual(res.body.payload);
    expect(sent).toMatchObject({
      event: 'flow.step',
      test: true,
      stepId: step.id,
      person: { email: 'jane.doe@example.com' },
    });
  });

  it('calls the URL on screen when one is given, and reports a failing receiver without failing itself', async () => {
    const step = await webhookStep(`${base}/hook`);
    const res = await owner.client.post(`/v1/steps/${step.id}/test-webhook`, { url: `${base}/fails` });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ok: false,
      status: 500,
      responseBody: 'the receiver broke',
      error: 'The webhook answered 500.',
    });
    expect(received.at(-1)!.path).toBe('/fails');
  });

  it('reports a receiver that does not answer', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const step = await webhookStep(`http://127.0.0.1:${port}/gone`);
    const res = await owner.client.post(`/v1/steps/${step.id}/test-webhook`, {});
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(false);
    expect(res.body.status).toBeNull();
    expect(res.body.error).toEqual(expect.any(String));
  });

  it('refuses addresses that are not trusted, without calling anything', async () => {
    const step = await webhookStep(`${base}/hook`);
    const before = received.length;
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://10.1.2.3/hook',
      'http://localhost/hook',
      'ftp://example.com/x',
    ]) {
      const res = await owner.client.post(`/v1/steps/${step.id}/test-webhook`, { url });
      expect(res.status, url).toBe(400);
      expect([outgoingMessages.private, outgoingMessages.protocol]).toContain(res.body.message);
    }
    expect(received.length).toBe(before);
  });

  it('needs a URL and a webhook step', async () => {
    const empty = await webhookStep();
    expect((await owner.client.post(`/v1/steps/${empty.id}/test-webhook`, {})).body.message).toBe(
      webhookTestMessages.noUrl,
    );
    const flow = await newFlow(owner.client);
    const tag = await addStep(owner.client, flow.id, '/add-tag', { tag: 'x' });
    const res = await owner.client.post(`/v1/steps/${tag.id}/test-webhook`, { url: `${base}/hook` });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(webhookTestMessages.notWebhookStep);
    expect(
      (await owner.client.post(`/v1/steps/${empty.id}/test-webhook`, { url: `${base}/hook`, extra: 1 }))
        .status,
    ).toBe(400);
  });

  it("answers 404 for another account's step and 403 without flows:write", async () => {
    const step = await webhookStep(`${base}/hook`);
    const stranger = await registerUser(ctx.app);
    const before = received.length;
    const foreign = await stranger.client.post(`/v1/steps/${step.id}/test-webhook`, {});
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe(flowMessages.stepNotFound);
    const reader = await addMember(ctx, smtp, owner, ['flows:read']);
    expect((await reader.post(`/v1/steps/${step.id}/test-webhook`, {})).status).toBe(403);
    expect(received.length).toBe(before);
  });

  it('lets a trusted address be saved on a step, which the default rules refuse', async () => {
    const flow = await newFlow(owner.client);
    const res = await owner.client.post('/v1/steps/', {
      flowId: flow.id,
      operationKey: '/send-webhook',
      inputFields: fields({ url: `${base}/hook` }),
    });
    expect(res.status).toBe(201);
    const other = await owner.client.post('/v1/steps/', {
      flowId: flow.id,
      operationKey: '/send-webhook',
      inputFields: fields({ url: 'http://127.0.0.2/hook' }),
    });
    expect(other.status).toBe(422);
  });
});
