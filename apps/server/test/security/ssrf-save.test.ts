import { serviceMessages } from '@herald/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { outgoingMessages } from '../../src/lib/outgoing-url.ts';
import { addStep, fields, link, newFlow } from '../flows-fixtures.ts';
import type { ApiResponse } from '../helpers.ts';
import { useSsrfWorld } from './ssrf-context.ts';
import { ownAddresses } from './ssrf-net.ts';
import { hookUrl, hostilePayloads, metadataUrls, rebindAnswers, rebinding } from './ssrf-payloads.ts';

/**
 * SSRF at the doors where an address is typed (issue 22): webhook steps (saved, changed, tested, switched on),
 * outgoing webhook endpoints (registered, changed, tested) and Slack (connected, tested). Every hostile address is a
 * 4xx with the refusal's message and no connection; names that turn private between the check and the call
 * (DNS rebinding) and redirects from a trusted receiver to private targets are refused too.
 */
const world = useSsrfWorld('save');
let urls: string[];
beforeAll(() => {
  urls = [
    ...hostilePayloads(ownAddresses()).map((p) => hookUrl(p.host, world.targets.port)),
    ...metadataUrls,
  ];
});

/** A refusal: the status asked for, the message, never a 5xx. */
function refused(res: ApiResponse, status: number, url: string, message: string = outgoingMessages.private) {
  world.attempts += 1;
  expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(status);
  expect(res.body.message, url).toBe(message);
}

const post = (url: string, body: unknown) => world.owner.client.post(url, body);

describe('SSRF: addresses refused where they are typed', () => {
  it('webhook steps: created, changed and tested with a hostile address answer 422/400', async () => {
    const flow = await newFlow(world.owner.client, 'Hooks');
    const step = await addStep(world.owner.client, flow.id, '/send-webhook', {
      url: `${world.receiver.base}/ok`,
    });
    for (const url of urls) {
      refused(
        await post('/v1/steps/', {
          flowId: flow.id,
          operationKey: '/send-webhook',
          inputFields: fields({ url }),
        }),
        422,
        url,
      );
      refused(
        await world.owner.client.patch(`/v1/steps/${step.id}`, { inputFields: fields({ url }) }),
        422,
        url,
      );
      refused(await post(`/v1/steps/${step.id}/test-webhook`, { url }), 400, url);
    }
    // The trusted receiver is allowed, and was not called by any of the above.
    expect(world.receiver.calls).toEqual([]);
  });

  it('webhook endpoints: registered or changed with a hostile address answer 400', async () => {
    const created = await post('/v1/webhook-endpoints', {
      url: `${world.receiver.base}/ok`,
      events: ['person.created'],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    for (const url of urls) {
      refused(await post('/v1/webhook-endpoints', { url, events: ['person.created'] }), 400, url);
      refused(
        await world.owner.client.patch(`/v1/webhook-endpoints/${created.body.endpoint.id}`, { url }),
        400,
        url,
      );
    }
    await world.owner.client.request('DELETE', `/v1/webhook-endpoints/${created.body.endpoint.id}`);
  });

  it('Slack: a webhook on a hostile host, or on hooks.slack.com resolving privately, is refused', async () => {
    for (const url of urls) {
      const slack = new URL(url);
      slack.pathname = '/services/T0/B0/secret';
      slack.search = '';
      const slackUrl = slack.href;
      refused(await post('/v1/auth/slack', { url: slackUrl }), 400, slackUrl, serviceMessages.slackInvalid);
    }
    for (const answer of [...rebindAnswers, { A: ['192.0.2.2'] }, { A: ['127.0.0.2', '10.0.0.1'] }]) {
      world.zone['hooks.slack.com'] = answer;
      const url = `https://hooks.slack.com:${world.targets.port}/services/T0/B0/secret`;
      refused(
        await post('/v1/auth/slack', { url }),
        400,
        `${url} → ${JSON.stringify(answer)}`,
        serviceMessages.slackInvalid,
      );
    }
    delete world.zone['hooks.slack.com'];
  });
});

describe('SSRF: DNS rebinding between the check and the call', () => {
  it('the webhook tester checks a name that answers the trusted address, then calls the private one: refused', async () => {
    const flow = await newFlow(world.owner.client, 'Rebinding');
    const step = await addStep(world.owner.client, flow.id, '/send-webhook', {
      url: `${world.receiver.base}/ok`,
    });
    for (const [i, answer] of rebindAnswers.entries()) {
      const name = `tester-${i}.rebind.test`;
      world.zone[name] = rebinding(answer);
      const url = hookUrl(name, world.targets.port);
      refused(await post(`/v1/steps/${step.id}/test-webhook`, { url }), 400, url);
    }
  });

  it('a webhook step saved while its name was public cannot be switched on once it resolves privately', async () => {
    for (const [i, answer] of rebindAnswers.entries()) {
      const name = `activate-${i}.rebind.test`;
      world.zone[name] = { A: ['127.0.0.2'] };
      const flow = await newFlow(world.owner.client, `Activate ${i}`);
      const trigger = await addStep(world.owner.client, flow.id, '/added-tag', { tag: 'never' });
      const hook = await addStep(world.owner.client, flow.id, '/send-webhook', {
        url: hookUrl(name, world.targets.port),
      });
      await link(world.owner.client, trigger.id, hook.id);
      world.zone[name] = answer;
      const on = await world.owner.client.patch(`/v1/integrations/${flow.id}`, { status: 'active' });
      refused(on, 422, name);
      expect(on.body.errorCode).toBe('webhookRefused');
    }
  });

  it('an endpoint and a Slack webhook registered while public are refused when tested after turning private', async () => {
    const slackUrl = `https://hooks.slack.com:${world.targets.port}/services/T0/B0/secret`;
    for (const [i, answer] of rebindAnswers.entries()) {
      const name = `endpoint-${i}.rebind.test`;
      world.zone[name] = { A: ['127.0.0.2'] };
      const created = await post('/v1/webhook-endpoints', {
        url: hookUrl(name, world.targets.port),
        events: ['tag.added'],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      world.zone[name] = answer;
      refused(await post(`/v1/webhook-endpoints/${created.body.endpoint.id}/test`, {}), 400, name);
      await world.owner.client.request('DELETE', `/v1/webhook-endpoints/${created.body.endpoint.id}`);

      world.zone['hooks.slack.com'] = { A: ['127.0.0.2'] };
      expect((await post('/v1/auth/slack', { url: slackUrl })).status).toBe(200);
      world.zone['hooks.slack.com'] = answer;
      refused(await post('/v1/services/slack/test', {}), 400, `${slackUrl} → ${JSON.stringify(answer)}`);
    }
    delete world.zone['hooks.slack.com'];
  });
});

describe('SSRF: redirects from a trusted receiver to private targets', () => {
  const targetsOf = (port: number) => [
    `http://127.0.0.1:${port}/hook`,
    `http://[::1]:${port}/hook`,
    `http://[::ffff:7f00:1]:${port}/hook`,
    `http://2130706433:${port}/hook`,
    `http://localhost:${port}/hook`,
    `http://loop.ssrf.test:${port}/hook`,
    `http://ula.ssrf.test:${port}/hook`,
    `http://[fd00::2]:${port}/hook`,
    `http://192.0.2.2:${port}/hook`,
    'http://169.254.169.254/latest/meta-data/',
    'http://metadata.google.internal/computeMetadata/v1/',
  ];
  const redirects = (port: number) =>
    [301, 302, 303, 307, 308].flatMap((status) =>
      targetsOf(port).map(
        (to) => `http://127.0.0.2:${port}/redirect?status=${status}&to=${encodeURIComponent(to)}`,
      ),
    );

  it('the webhook tester follows the redirect to the check and stops there (400)', async () => {
    const flow = await newFlow(world.owner.client, 'Redirects');
    const step = await addStep(world.owner.client, flow.id, '/send-webhook', {
      url: `${world.receiver.base}/ok`,
    });
    const before = world.receiver.calls.length;
    for (const url of redirects(world.targets.port))
      refused(await post(`/v1/steps/${step.id}/test-webhook`, { url }), 400, url);
    // Each redirect was asked for (the receiver is trusted); none of its targets was reached.
    expect(world.receiver.calls.length - before).toBe(redirects(world.targets.port).length);
  });

  it('an endpoint test and a Slack test through a redirect are refused and say why', async () => {
    const port = world.targets.port;
    const list = redirects(port).filter((_, i) => i % 3 === 0);
    for (const url of list) {
      const created = await post('/v1/webhook-endpoints', { url, events: ['tag.added'] });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      world.attempts += 1;
      const test = await post(`/v1/webhook-endpoints/${created.body.endpoint.id}/test`, {});
      expect(test.status).toBeLessThan(300);
      expect(test.body.delivery.lastError, url).toBe(outgoingMessages.private);
      await world.owner.client.request('DELETE', `/v1/webhook-endpoints/${created.body.endpoint.id}`);
      const to = new URL(url).searchParams.get('to')!;
      const slackUrl = `http://127.0.0.2:${port}/services/T0/B0/secret?status=302&to=${encodeURIComponent(to)}`;
      expect((await post('/v1/auth/slack', { url: slackUrl })).status).toBe(200);
      refused(await post('/v1/services/slack/test', {}), 400, slackUrl);
    }
  });
});
