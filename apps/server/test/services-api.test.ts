import { serviceMessages } from '@herald/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from './email-helpers.ts';
import { createTestContext, registerUser, type TestContext } from './helpers.ts';
import { startSmtpServer } from './smtp.ts';

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  ctx = await createTestContext({ SMTP_URL: smtp.url });
  await ctx.startWorker();
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

const catalogue = [
  'mailchimp',
  'intercom',
  'stripe',
  'hubspot',
  'salesforce',
  'chargebee',
  'paddle',
  'recurly',
  'chargify',
  'calendly',
  'typeform',
  'facebook-audiences',
  'sms',
];

describe('GET /v1/services', () => {
  it('lists Herald, Slack and the third-party apps, each saying how to use it today', async () => {
    const owner = await registerUser(ctx.app);
    const res = await owner.client.get('/v1/services');
    expect(res.status).toBe(200);
    const ids = res.body.services.map((s: { id: string }) => s.id);
    expect(ids).toEqual(['herald', 'slack', ...catalogue]);
    const byId = Object.fromEntries(res.body.services.map((s: { id: string }) => [s.id, s]));
    expect(byId.herald).toMatchObject({ kind: 'native', humanName: 'Herald' });
    expect(byId.slack).toMatchObject({ kind: 'credentials', humanName: 'Slack', operations: ['test'] });
    for (const id of catalogue) {
      expect(byId[id].kind).toBe('via-webhooks');
      expect(byId[id].operations).toEqual([]);
      expect(byId[id].howToConnect.join(' ')).toMatch(
        /Webhook trigger|Send webhook|export|import|site tracking/i,
      );
    }
    expect(byId.stripe.howToConnect.join(' ')).toContain('Webhook trigger');
    expect(byId.sms.howToConnect.join(' ')).toContain('Send webhook');
    const slackStep = res.body.steps.find(
      (s: { operationKey: string }) => s.operationKey === '/slack-notification',
    );
    expect(slackStep).toMatchObject({
      type: 'action',
      serviceId: 'herald',
      display: { label: 'Send Slack message' },
      mustConfig: { configStep: true },
    });
  });
});

describe('POST /v1/services/{serviceId}/{operation}', () => {
  it('answers 404 for an unknown service or operation', async () => {
    const owner = await registerUser(ctx.app);
    const unknown = await owner.client.post('/v1/services/nope/test', {});
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe(serviceMessages.unknownService('nope'));
    const op = await owner.client.post('/v1/services/slack/explode', {});
    expect(op.status).toBe(404);
    expect(op.body.message).toBe(serviceMessages.unknownOperation('slack', 'explode'));
    expect((await owner.client.post('/v1/services/stripe/test', {})).status).toBe(404);
    expect((await owner.client.post('/v1/services/herald/test', {})).status).toBe(404);
  });

  it('refuses a bad config with a 400', async () => {
    const owner = await registerUser(ctx.app);
    expect((await owner.client.post('/v1/services/slack/test', { config: { text: 5 } })).status).toBe(400);
    expect((await owner.client.post('/v1/services/slack/test', { config: 'x' })).status).toBe(400);
    expect((await owner.client.post('/v1/services/slack/test', { other: 1 })).status).toBe(400);
  });

  it('says Slack is not connected yet', async () => {
    const owner = await registerUser(ctx.app);
    const res = await owner.client.post('/v1/services/slack/test', {});
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      message: serviceMessages.slackNotConnected,
      errorCode: 'no_credentials',
    });
  });
});

describe('POST /v1/services/{id}/refreshServiceResponseSchema', () => {
  it("answers Slack's credentials schema and what a Webhook trigger takes from the other apps", async () => {
    const owner = await registerUser(ctx.app);
    const slack = await owner.client.post('/v1/services/slack/refreshServiceResponseSchema');
    expect(slack.status).toBe(200);
    expect(slack.body.schema).toMatchObject({ type: 'object', required: ['url'] });
    const stripe = await owner.client.post('/v1/services/stripe/refreshServiceResponseSchema');
    expect(stripe.body.schema.properties).toHaveProperty('email');
    expect((await owner.client.post('/v1/services/herald/refreshServiceResponseSchema')).body).toEqual({
      schema: {},
    });
    expect((await owner.client.post('/v1/services/nope/refreshServiceResponseSchema')).status).toBe(404);
  });

  it('needs apps:write; listing services needs flows:read', async () => {
    const owner = await registerUser(ctx.app);
    const member = await addMember(ctx, smtp, owner, ['people:read']);
    expect((await member.post('/v1/services/slack/refreshServiceResponseSchema')).status).toBe(403);
    expect((await member.post('/v1/services/slack/test', {})).status).toBe(403);
    expect((await member.get('/v1/services')).status).toBe(403);
  });
});
