import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serviceMessages, webhookLimits, webhookMessages } from '@herald/contracts';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeSlackAnswer } from '../src/features/integrations/slack-outbox.ts';
import { maskSlackUrl, slackUrlProblem } from '../src/features/integrations/slack.service.ts';
import { addMember } from './email-helpers.ts';
import { addStep, link, newFlow } from './flows-fixtures.ts';
import { createTestContext, registerUser, uniqueEmail, type TestContext } from './helpers.ts';
import { startSmtpServer } from './smtp.ts';
import { until } from './until.ts';

/** A stand-in for Slack's incoming webhooks on loopback: /services/…/ok answers "ok", …/gone "no_service", …/revoked "token_revoked". */
const posted: { path: string; text: string }[] = [];
const slack = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    const path = req.url ?? '';
    posted.push({ path, text: (JSON.parse(body || '{}') as { text?: string }).text ?? '' });
    if (path.endsWith('/gone')) res.writeHead(404).end('no_service');
    else if (path.endsWith('/revoked')) res.writeHead(410).end('token_revoked');
    else if (path.endsWith('/busy')) res.writeHead(500).end('oops');
    else res.writeHead(200).end('ok');
  });
});

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let base: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => slack.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(slack.address() as AddressInfo).port}`;
  smtp = await startSmtpServer();
  ctx = await createTestContext({
    SMTP_URL: smtp.url,
    OUTGOING_TRUSTED_ADDRESSES: '127.0.0.1',
    SLACK_WEBHOOK_HOSTS: 'hooks.slack.com,127.0.0.1',
  });
  await ctx.startWorker();
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
  await new Promise((resolve) => slack.close(resolve));
});

type Owner = Awaited<ReturnType<typeof registerUser>>;
const hook = (name: string) => `${base}/services/T0001/B0001/${name}`;

async function connect(owner: Owner, name: string) {
  const res = await owner.client.post('/v1/auth/slack', { url: hook(name) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** An active flow: tag added → Send Slack message. */
async function slackFlow(owner: Owner, tag: string, text: string) {
  const flow = await newFlow(owner.client, `Slack ${tag}`);
  const trigger = await addStep(owner.client, flow.id, '/added-tag', { tag });
  const step = await addStep(owner.client, flow.id, '/slack-notification', { text });
  await link(owner.client, trigger.id, step.id);
  const on = await owner.client.patch(`/v1/integrations/${flow.id}`, { status: 'active' });
  expect(on.status, JSON.stringify(on.body)).toBe(200);
  return flow;
}

async function tagNewPerson(owner: Owner, tag: string) {
  const email = uniqueEmail('slacker');
  const person = await owner.client.post('/v1/people/', { email });
  await owner.client.post('/v1/tags/', { tag, id: person.body.user.id });
  return email;
}

describe('POST /v1/auth/slack', () => {
  it('saves an incoming-webhook URL and lists the connection without its secret part', async () => {
    const owner = await registerUser(ctx.app);
    const body = await connect(owner, 'ok');
    expect(body.message).toBe(serviceMessages.slackConnected);
    expect(body.connection).toMatchObject({ serviceId: 'slack', status: 'active', authReason: null });
    expect(body.connection.label).toBe(`127.0.0.1:${new URL(base).port}/services/T0001/B0001/••••`);
    const list = await owner.client.get('/v1/services/connections');
    expect(list.body.connections).toHaveLength(1);
    expect(JSON.stringify(list.body)).not.toContain('/ok');
    expect((await owner.client.get('/v1/accounts')).body.activeServices).toEqual(['slack']);
    // Connecting an app completes the getting-started step 'Connect Apps'.
    expect((await owner.client.get('/v1/accounts')).body.onboarding).toMatchObject({ apps: true });
  });

  it('refuses empty and non-Slack credentials with the spec’s placeholders', async () => {
    const owner = await registerUser(ctx.app);
    const empty = await owner.client.post('/v1/auth/slack', { url: '  ' });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ errorCode: 'empty_credentials', message: serviceMessages.slackEmpty });
    expect((await owner.client.post('/v1/auth/slack', {})).body.errorCode).toBe('empty_credentials');
    for (const url of [
      'https://example.com/services/T/B/x',
      'https://hooks.slack.com/api/x',
      'http://hooks.slack.com/services/T/B/x',
      'not a url',
      'https://user:pw@hooks.slack.com/services/T/B/x',
    ]) {
      const res = await owner.client.post('/v1/auth/slack', { url });
      expect(res.status, url).toBe(400);
      expect(res.body).toMatchObject({
        errorCode: 'invalid_credentials',
        message: serviceMessages.slackInvalid,
      });
    }
    expect((await owner.client.get('/v1/services/connections')).body.connections).toEqual([]);
  });

  it('answers 404 for an unknown service and 422 for an app that does not take credentials', async () => {
    const owner = await registerUser(ctx.app);
    const unknown = await owner.client.post('/v1/auth/nope', { url: 'x' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe(serviceMessages.unknownService('nope'));
    const stripe = await owner.client.post('/v1/auth/stripe', { url: 'x' });
    expect(stripe.status).toBe(422);
    expect(stripe.body.errorCode).toBe('invalid_credentials');
  });

  it('disconnects, and needs apps:write', async () => {
    const owner = await registerUser(ctx.app);
    await connect(owner, 'ok');
    const member = await addMember(ctx, smtp, owner, ['flows:read', 'emails:read']);
    expect((await member.post('/v1/auth/slack', { url: hook('ok') })).status).toBe(403);
    expect((await member.get('/v1/services/connections')).status).toBe(200);
    const off = await owner.client.request('DELETE', '/v1/auth/slack');
    expect(off.status).toBe(200);
    expect(off.body.message).toBe(serviceMessages.slackDisconnected);
    expect((await owner.client.request('DELETE', '/v1/auth/slack')).status).toBe(404);
  });
});

describe('Slack messages', () => {
  it('sends a test message through POST /v1/services/slack/test', async () => {
    const owner = await registerUser(ctx.app);
    expect((await owner.client.post('/v1/services/slack/test', {})).status).toBe(422);
    await connect(owner, 'ok');
    const res = await owner.client.post('/v1/services/slack/test', { config: { text: 'Hello channel' } });
    expect(res.body).toEqual({ ok: true, status: 200, message: serviceMessages.slackTestSent });
    expect(posted.at(-1)).toMatchObject({ path: '/services/T0001/B0001/ok', text: 'Hello channel' });
    const busy = await owner.client.post('/v1/auth/slack', { url: hook('busy') });
    expect(busy.status).toBe(200);
    const failed = await owner.client.post('/v1/services/slack/test', {});
    expect(failed.body).toMatchObject({ ok: false, status: 500 });
  });

  it("posts a flow's Slack step with the person's values filled in", async () => {
    const owner = await registerUser(ctx.app);
    await connect(owner, 'ok');
    await slackFlow(owner, 'vip', 'New VIP: {{ person.email }}');
    const email = await tagNewPerson(owner, 'vip');
    await until(() => posted.find((p) => p.text === `New VIP: ${email}`), { timeout: 15_000 });
  });

  it('stops flows with a Slack step when Slack says the webhook is gone, and clears the warning on reconnect', async () => {
    const owner = await registerUser(ctx.app);
    await connect(owner, 'gone');
    const flow = await slackFlow(owner, 'gone-tag', 'Hi {{ person.email }}');
    await tagNewPerson(owner, 'gone-tag');
    const stopped = await until(
      async () => {
        const res = await owner.client.get(`/v1/integrations/${flow.id}`);
        return res.body.integration.status === 'deactivated-expired-auth' ? res.body.integration : null;
      },
      { timeout: 15_000 },
    );
    expect(stopped.warnings).toContain(serviceMessages.flowStopped('wrong_credentials'));
    const connections = await owner.client.get('/v1/services/connections');
    expect(connections.body.connections[0]).toMatchObject({
      status: 'failed',
      authReason: 'wrong_credentials',
    });
    expect((await owner.client.get('/v1/accounts')).body.activeServices).toEqual([]);
    const issues = await owner.client.get('/v1/accounts/issues');
    expect(issues.body.issues.map((i: { message: string }) => i.message)).toContain(
      serviceMessages.flowStoppedAlert(flow.name, 'wrong_credentials'),
    );
    const list = await owner.client.get('/v1/integrations');
    expect(list.body.integrations.find((f: { id: number }) => f.id === flow.id).status).toBe(
      'deactivated-expired-auth',
    );

    await connect(owner, 'ok');
    const after = await owner.client.get(`/v1/integrations/${flow.id}`);
    expect(after.body.integration.warnings).not.toContain(serviceMessages.flowStopped('wrong_credentials'));
    expect((await owner.client.get('/v1/accounts/issues')).body.issues).toEqual([]);
  });

  it('stops a flow whose Slack connection was revoked (expired) or never made (no_credentials)', async () => {
    const revokedOwner = await registerUser(ctx.app);
    await connect(revokedOwner, 'revoked');
    const revoked = await slackFlow(revokedOwner, 'rev', 'Hi');
    await tagNewPerson(revokedOwner, 'rev');
    await until(
      async () =>
        (await revokedOwner.client.get(`/v1/integrations/${revoked.id}`)).body.integration.warnings.includes(
          serviceMessages.flowStopped('expired'),
        ),
      { timeout: 15_000 },
    );

    // Slack disconnected after the flow was switched on.
    const never = await registerUser(ctx.app);
    await connect(never, 'ok');
    const flow = await slackFlow(never, 'none', 'Hi');
    expect((await never.client.request('DELETE', '/v1/auth/slack')).status).toBe(200);
    await tagNewPerson(never, 'none');
    const stopped = await until(
      async () => {
        const res = await never.client.get(`/v1/integrations/${flow.id}`);
        return res.body.integration.status === 'deactivated-expired-auth' ? res.body.integration : null;
      },
      { timeout: 15_000 },
    );
    expect(stopped.warnings).toContain(serviceMessages.flowStopped('no_credentials'));
  });

  it('sends the account alert of a webhook endpoint switched off to Slack', async () => {
    const owner = await registerUser(ctx.app);
    const accountId = owner.account.accountId as number;
    await connect(owner, 'ok');
    const created = await owner.client.post('/v1/webhook-endpoints', {
      url: `${base}/receiver/gone`,
      events: ['person.created'],
    });
    expect(created.status).toBe(201);
    await sql`update webhook_endpoints set failures_in_row = ${webhookLimits.disableAfterFailures - 1}, failing_since = now() - interval '2 days'
      where account_id = ${accountId}`.execute(ctx.services.db);
    await owner.client.post('/v1/people/', { email: uniqueEmail('alert') });
    await until(
      () => posted.find((p) => p.text === `:warning: ${webhookMessages.alert(`${base}/receiver/gone`)}`),
      { timeout: 15_000 },
    );
  });
});

describe('switching on a flow with a Slack step', () => {
  it('needs a working Slack connection', async () => {
    const owner = await registerUser(ctx.app);
    const flow = await newFlow(owner.client, 'Needs Slack');
    const trigger = await addStep(owner.client, flow.id, '/added-tag', { tag: 'x' });
    const step = await addStep(owner.client, flow.id, '/slack-notification', { text: 'Hi' });
    await link(owner.client, trigger.id, step.id);
    const refused = await owner.client.patch(`/v1/integrations/${flow.id}`, { status: 'active' });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      message: serviceMessages.slackNeededToActivate,
      errorCode: 'no_credentials',
    });
    await connect(owner, 'gone');
    await owner.client.post('/v1/services/slack/test', {});
    const failed = await owner.client.patch(`/v1/integrations/${flow.id}`, { status: 'active' });
    expect(failed.status).toBe(422);
    expect(failed.body).toMatchObject({
      message: serviceMessages.slackFailedToActivate,
      errorCode: 'wrong_credentials',
    });
    await connect(owner, 'ok');
    expect((await owner.client.patch(`/v1/integrations/${flow.id}`, { status: 'active' })).status).toBe(200);
  });
});

describe('Slack URL rules', () => {
  const hosts = ['hooks.slack.com'];
  it('accepts https Slack service URLs and refuses everything else', () => {
    expect(slackUrlProblem('https://hooks.slack.com/services/T0/B0/abc', hosts, [])).toBeNull();
    expect(slackUrlProblem('https://HOOKS.slack.com/services/T0/B0/abc', hosts, [])).toBeNull();
    expect(slackUrlProblem('', hosts, [])).toBe('empty');
    expect(slackUrlProblem(undefined, hosts, [])).toBe('empty');
    expect(slackUrlProblem('https://hooks.slack.com.evil.com/services/T/B/x', hosts, [])).toBe('invalid');
    expect(slackUrlProblem('https://hooks.slack.com/services/', hosts, [])).toBe('invalid');
    expect(slackUrlProblem('http://127.0.0.1/services/T/B/x', ['127.0.0.1'], [])).toBe('invalid');
    expect(slackUrlProblem('http://127.0.0.1/services/T/B/x', ['127.0.0.1'], ['127.0.0.1'])).toBeNull();
  });

  it('never accepts a host outside the list, whatever the path (property)', () => {
    fc.assert(
      fc.property(
        fc.domain(),
        fc.array(fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/), { maxLength: 4 }),
        (domain, parts) => {
          const url = `https://${domain}/services/${parts.join('/')}`;
          const problem = slackUrlProblem(url, hosts, []);
          if (domain.toLowerCase() !== 'hooks.slack.com') expect(problem).toBe('invalid');
          else expect(problem).toBe(parts.length ? null : 'invalid');
        },
      ),
    );
  });

  it('never shows the secret last part of a URL it masks (property)', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z0-9]{8,24}$/).filter((s) => !'hooks.slack.com/services/T0/B0'.includes(s)),
        (secret) => {
          expect(maskSlackUrl(`https://hooks.slack.com/services/T0/B0/${secret}`)).not.toContain(secret);
        },
      ),
    );
  });

  it('reads Slack answers', () => {
    expect(judgeSlackAnswer(200, 'ok')).toEqual({ outcome: 'sent' });
    expect(judgeSlackAnswer(404, 'no_service')).toEqual({ outcome: 'auth', reason: 'wrong_credentials' });
    expect(judgeSlackAnswer(403, 'invalid_token')).toEqual({ outcome: 'auth', reason: 'wrong_credentials' });
    expect(judgeSlackAnswer(410, 'token_revoked')).toEqual({ outcome: 'auth', reason: 'expired' });
    expect(judgeSlackAnswer(429, 'rate_limited')).toEqual({ outcome: 'retry' });
    expect(judgeSlackAnswer(null, '')).toEqual({ outcome: 'retry' });
    expect(judgeSlackAnswer(400, 'invalid_payload')).toEqual({ outcome: 'failed' });
  });
});
