import { webhookMessages } from '@herald/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signatureHeader, verifySignature } from '../src/features/integrations/webhook-delivery.ts';
import { outgoingMessages } from '../src/lib/outgoing-url.ts';
import { addMember } from './email-helpers.ts';
import { registerUser } from './helpers.ts';
import { base, ctx, endpoint, smtp, useWebhooksContext } from './outgoing-webhooks-fixtures.ts';

useWebhooksContext();

describe('outgoing webhook endpoints', () => {
  it('creates, lists, changes, reveals the secret of and deletes endpoints', async () => {
    const owner = await registerUser(ctx.app);
    expect((await owner.client.get('/v1/accounts')).body.onboarding.apps).toBeUndefined();
    const created = await endpoint(owner, '/crud', ['person.created', 'tag.added']);
    // Sending events somewhere completes the getting-started step 'Connect Apps'.
    expect((await owner.client.get('/v1/accounts')).body.onboarding).toMatchObject({ apps: true });
    expect(created.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(created.endpoint).toMatchObject({
      url: `${base}/crud`,
      events: ['person.created', 'tag.added'],
      enabled: true,
      description: 'CRM sync',
      failuresInRow: 0,
    });
    const list = await owner.client.get('/v1/webhook-endpoints');
    expect(list.body.endpoints.map((e: { id: number }) => e.id)).toEqual([created.endpoint.id]);
    expect(JSON.stringify(list.body)).not.toContain(created.secret);
    const secret = await owner.client.get(`/v1/webhook-endpoints/${created.endpoint.id}/secret`);
    expect(secret.body).toEqual({ secret: created.secret });
    const changed = await owner.client.patch(`/v1/webhook-endpoints/${created.endpoint.id}`, {
      events: ['person.updated'],
      enabled: false,
      description: null,
    });
    expect(changed.status).toBe(200);
    expect(changed.body.endpoint).toMatchObject({
      events: ['person.updated'],
      enabled: false,
      description: null,
    });
    const removed = await owner.client.request('DELETE', `/v1/webhook-endpoints/${created.endpoint.id}`);
    expect(removed.status).toBe(200);
    expect((await owner.client.get('/v1/webhook-endpoints')).body.endpoints).toEqual([]);
  });

  it('refuses bad input with a clear 4xx', async () => {
    const owner = await registerUser(ctx.app);
    const noEvents = await owner.client.post('/v1/webhook-endpoints', { url: `${base}/x`, events: [] });
    expect(noEvents.status).toBe(400);
    expect(noEvents.body.message).toContain('Choose at least one event.');
    const unknownEvent = await owner.client.post('/v1/webhook-endpoints', {
      url: `${base}/x`,
      events: ['person.exploded'],
    });
    expect(unknownEvent.status).toBe(400);
    const privateUrl = await owner.client.post('/v1/webhook-endpoints', {
      url: 'http://10.1.2.3/hook',
      events: ['person.created'],
    });
    expect(privateUrl.status).toBe(400);
    expect(privateUrl.body.message).toBe(outgoingMessages.private);
    const metadata = await owner.client.post('/v1/webhook-endpoints', {
      url: 'http://169.254.169.254/latest',
      events: ['person.created'],
    });
    expect(metadata.status).toBe(400);
    const notUrl = await owner.client.post('/v1/webhook-endpoints', {
      url: 'not a url',
      events: ['person.created'],
    });
    expect(notUrl.status).toBe(400);
    const missing = await owner.client.patch('/v1/webhook-endpoints/999999', { enabled: false });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe(webhookMessages.notFound);
  });

  it("keeps other accounts' endpoints out of reach", async () => {
    const owner = await registerUser(ctx.app);
    const other = await registerUser(ctx.app);
    const { endpoint: mine } = await endpoint(owner, '/mine', ['person.created']);
    expect((await other.client.get(`/v1/webhook-endpoints/${mine.id}/secret`)).status).toBe(404);
    expect((await other.client.get(`/v1/webhook-endpoints/${mine.id}/deliveries`)).status).toBe(404);
    expect((await other.client.post(`/v1/webhook-endpoints/${mine.id}/test`)).status).toBe(404);
    expect((await other.client.request('DELETE', `/v1/webhook-endpoints/${mine.id}`)).status).toBe(404);
    expect((await other.client.get('/v1/webhook-endpoints')).body.endpoints).toEqual([]);
  });

  it('needs apps:write', async () => {
    const owner = await registerUser(ctx.app);
    const member = await addMember(ctx, smtp, owner, ['people:read', 'flows:read', 'emails:read']);
    expect((await member.get('/v1/webhook-endpoints')).status).toBe(403);
    expect(
      (await member.post('/v1/webhook-endpoints', { url: `${base}/x`, events: ['person.created'] })).status,
    ).toBe(403);
  });
});

describe('signatures', () => {
  it('verifies only the exact body, secret and a recent time', () => {
    const header = signatureHeader('whsec_a', '{"a":1}', 1_700_000_000);
    expect(header).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
    expect(verifySignature('whsec_a', '{"a":1}', header, 1_700_000_100)).toBe(true);
    expect(verifySignature('whsec_b', '{"a":1}', header, 1_700_000_100)).toBe(false);
    expect(verifySignature('whsec_a', '{"a":2}', header, 1_700_000_100)).toBe(false);
    expect(verifySignature('whsec_a', '{"a":1}', header, 1_700_001_000)).toBe(false);
  });

  it('accepts its own signature of any body and refuses any other body or any mangled header (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string(),
        fc.string(),
        fc.integer({ min: 1, max: 4_000_000_000 }),
        (secret, body, other, t) => {
          const header = signatureHeader(secret, body, t);
          expect(verifySignature(secret, body, header, t)).toBe(true);
          if (other !== body) expect(verifySignature(secret, other, header, t)).toBe(false);
          expect(verifySignature(secret, body, header.replace(/v1=./, 'v1=x'), t)).toBe(false);
          expect(verifySignature(secret, body, other, t)).toBe(other === header);
        },
      ),
    );
  });
});
